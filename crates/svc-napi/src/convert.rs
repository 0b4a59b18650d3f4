//! Conversions between JS values (bigint, Buffer, number) and the crates' types.

use napi::bindgen_prelude::{BigInt, Buffer};
use napi::Status;
use svc_evm::ChainError;
use svc_primitives::{Address, B256, U256};

/// A JS Error with `msg` as its message.
pub fn js_error(msg: impl std::fmt::Display) -> napi::Error {
    napi::Error::from_reason(msg.to_string())
}

/// A JS Error with a stable code for TypeScript to switch on, never to match by its text: the
/// message is `[CODE] text`, which the loader (src/native/index.ts) turns into a NativeError with
/// `code` CODE and message `text` (the inference addon's errors follow the same convention).
pub fn coded_error(code: &str, msg: impl std::fmt::Display) -> napi::Error {
    napi::Error::new(Status::GenericFailure, format!("[{code}] {msg}"))
}

/// A chain engine error; those that TypeScript acts on carry a code (NativeErrorCode in src/native/index.ts).
pub fn chain_error(err: ChainError) -> napi::Error {
    match err {
        ChainError::StateUnavailable => coded_error("STATE_UNAVAILABLE", err),
        ChainError::Timeout(text) => coded_error("EVM_TIMEOUT", text),
        other => js_error(other),
    }
}

pub fn to_u256(value: &BigInt, what: &str) -> napi::Result<U256> {
    if value.sign_bit && value.words.iter().any(|w| *w != 0) {
        return Err(js_error(format!("{what} must not be negative")));
    }
    if value.words.iter().skip(4).any(|w| *w != 0) {
        return Err(js_error(format!("{what} does not fit in 256 bits")));
    }
    let mut limbs = [0u64; 4];
    for (limb, word) in limbs.iter_mut().zip(&value.words) {
        *limb = *word;
    }
    Ok(U256::from_limbs(limbs))
}

pub fn to_u64(value: &BigInt, what: &str) -> napi::Result<u64> {
    u64::try_from(to_u256(value, what)?).map_err(|_| js_error(format!("{what} does not fit in 64 bits")))
}

pub fn to_u128(value: &BigInt, what: &str) -> napi::Result<u128> {
    u128::try_from(to_u256(value, what)?).map_err(|_| js_error(format!("{what} does not fit in 128 bits")))
}

pub fn from_u256(value: U256) -> BigInt {
    BigInt { sign_bit: false, words: value.as_limbs().to_vec() }
}

pub fn from_u128(value: u128) -> BigInt {
    BigInt { sign_bit: false, words: vec![value as u64, (value >> 64) as u64] }
}

pub fn from_u64(value: u64) -> BigInt {
    BigInt { sign_bit: false, words: vec![value] }
}

/// A JS number that must be a non-negative integer (block numbers, timestamps, gas limits).
pub fn to_count(value: i64, what: &str) -> napi::Result<u64> {
    u64::try_from(value).map_err(|_| js_error(format!("{what} must not be negative")))
}

pub fn to_address(buf: &[u8], what: &str) -> napi::Result<Address> {
    if buf.len() != 20 {
        return Err(js_error(format!("{what} must be 20 bytes, got {}", buf.len())));
    }
    Ok(Address::from_slice(buf))
}

pub fn to_b256(buf: &[u8], what: &str) -> napi::Result<B256> {
    if buf.len() != 32 {
        return Err(js_error(format!("{what} must be 32 bytes, got {}", buf.len())));
    }
    Ok(B256::from_slice(buf))
}

/// Up to 32 big-endian bytes, left-padded (storage slots given as quantities).
pub fn to_word(buf: &[u8], what: &str) -> napi::Result<B256> {
    if buf.len() > 32 {
        return Err(js_error(format!("{what} must be at most 32 bytes, got {}", buf.len())));
    }
    let mut word = [0u8; 32];
    word[32 - buf.len()..].copy_from_slice(buf);
    Ok(B256::from(word))
}

pub fn buffer(bytes: &[u8]) -> Buffer {
    Buffer::from(bytes.to_vec())
}

/// JS number of a block-scale integer (all far below 2^53).
pub fn num(value: u64) -> i64 {
    value as i64
}
