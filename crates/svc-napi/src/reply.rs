//! Replies written as JSON bytes on a lane thread, never as a JavaScript string: the RPC layer puts
//! them into its answer as they are. Writing stops at the reply limit with a coded
//! RESPONSE_TOO_LARGE error, before more memory is spent.

use std::io::{self, Write};

use napi::bindgen_prelude::Buffer;
use serde::Serialize;

use crate::convert::coded_error;

/// A byte sink that refuses to grow past `cap` (0: no cap).
struct Bounded {
    bytes: Vec<u8>,
    cap: usize,
}

impl Write for Bounded {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.cap > 0 && self.bytes.len() + data.len() > self.cap {
            return Err(io::Error::other(TooLarge));
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[derive(Debug)]
struct TooLarge;

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reply limit reached")
    }
}

impl std::error::Error for TooLarge {}

/// `value` as JSON bytes of at most `cap` bytes (0: no cap).
pub fn json_bytes<T: Serialize + ?Sized>(value: &T, cap: usize) -> napi::Result<Vec<u8>> {
    let mut out = Bounded { bytes: Vec::new(), cap };
    match serde_json::to_writer(&mut out, value) {
        Ok(()) => Ok(out.bytes),
        Err(e) if e.is_io() => Err(too_large(cap)),
        Err(e) => Err(napi::Error::from_reason(format!("reply could not be written: {e}"))),
    }
}

/// The coded error of a reply past `cap` bytes.
pub fn too_large(cap: usize) -> napi::Error {
    coded_error("RESPONSE_TOO_LARGE", format!("response too large: the reply exceeds the limit of {cap} bytes"))
}

/// JSON bytes made on a lane thread, handed to JavaScript without a copy.
pub fn to_buffer(bytes: Vec<u8>) -> napi::Result<Buffer> {
    Ok(Buffer::from(bytes))
}
