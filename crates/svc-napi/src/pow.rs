//! Proof-of-work search bindings over svc_pow::search: many nonces per call, off the JS thread.

use std::time::Instant;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use svc_pow::search;

#[napi(object)]
pub struct PowOutcome {
    /// The winning nonce, if one was found in the range.
    pub nonce: Option<BigInt>,
    pub hash: Option<Buffer>,
    /// Nonces hashed.
    pub hashes: i64,
    pub elapsed_ms: f64,
}

pub struct PowTask {
    prefix: Vec<u8>,
    start: u64,
    count: u64,
    target: [u8; 32],
    threads: usize,
    simd: bool,
}

impl Task for PowTask {
    type Output = (search::SearchOutcome, f64);
    type JsValue = PowOutcome;

    fn compute(&mut self) -> Result<Self::Output> {
        let t = Instant::now();
        let run = if self.simd { search::search } else { search::search_plain };
        let out = run(&self.prefix, self.start, self.count, &self.target, self.threads)
            .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
        Ok((out, t.elapsed().as_secs_f64() * 1e3))
    }

    fn resolve(&mut self, _env: Env, (out, ms): Self::Output) -> Result<PowOutcome> {
        Ok(PowOutcome {
            nonce: out.solution.map(|s| BigInt::from(s.nonce)),
            hash: out.solution.map(|s| s.hash.to_vec().into()),
            hashes: out.hashes as i64,
            elapsed_ms: ms,
        })
    }
}

fn task(prefix: Buffer, start: BigInt, count: BigInt, target: Buffer, threads: u32, simd: bool) -> Result<AsyncTask<PowTask>> {
    let nonce = |b: &BigInt, what: &str| {
        let (negative, v, lossless) = b.get_u64();
        if negative || !lossless {
            return Err(Error::new(Status::InvalidArg, format!("{what} must fit in an unsigned 64-bit integer")));
        }
        Ok(v)
    };
    let target: [u8; 32] = target
        .as_ref()
        .try_into()
        .map_err(|_| Error::new(Status::InvalidArg, format!("target must be 32 bytes, got {}", target.len())))?;
    Ok(AsyncTask::new(PowTask {
        prefix: prefix.to_vec(),
        start: nonce(&start, "startNonce")?,
        count: nonce(&count, "count")?,
        target,
        threads: threads as usize,
        simd,
    }))
}

/// Searches `count` nonces from `startNonce` for BLAKE3(prefix || nonce_le) <= target on `threads`
/// threads (0 = all cores), SIMD across nonces.
#[napi]
pub fn pow_search(prefix: Buffer, start_nonce: BigInt, count: BigInt, target: Buffer, threads: u32) -> Result<AsyncTask<PowTask>> {
    task(prefix, start_nonce, count, target, threads, true)
}

/// The same search as a plain Rust loop of `blake3::hash`, one nonce at a time: the reference.
#[napi]
pub fn pow_search_plain(prefix: Buffer, start_nonce: BigInt, count: BigInt, target: Buffer, threads: u32) -> Result<AsyncTask<PowTask>> {
    task(prefix, start_nonce, count, target, threads, false)
}
