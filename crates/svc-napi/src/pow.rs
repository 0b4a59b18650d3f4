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

fn u64_arg(b: &BigInt, what: &str) -> Result<u64> {
    let (negative, v, lossless) = b.get_u64();
    if negative || !lossless {
        return Err(Error::new(Status::InvalidArg, format!("{what} must fit in an unsigned 64-bit integer")));
    }
    Ok(v)
}

fn target_of(target: &Buffer) -> Result<[u8; 32]> {
    target
        .as_ref()
        .try_into()
        .map_err(|_| Error::new(Status::InvalidArg, format!("target must be 32 bytes, got {}", target.len())))
}

fn task(prefix: Buffer, start: BigInt, count: BigInt, target: Buffer, threads: u32, simd: bool) -> Result<AsyncTask<PowTask>> {
    Ok(AsyncTask::new(PowTask {
        prefix: prefix.to_vec(),
        start: u64_arg(&start, "startNonce")?,
        count: u64_arg(&count, "count")?,
        target: target_of(&target)?,
        threads: threads as usize,
        simd,
    }))
}

/// Searches `count` nonces from `startNonce` for BLAKE3(prefix || nonce_le) <= target on `threads`
/// threads (0 = all cores), SIMD across nonces.
#[napi(ts_return_type = "Promise<PowOutcome>")]
pub fn pow_search(prefix: Buffer, start_nonce: BigInt, count: BigInt, target: Buffer, threads: u32) -> Result<AsyncTask<PowTask>> {
    task(prefix, start_nonce, count, target, threads, true)
}

/// The same search as a plain Rust loop of `blake3::hash`, one nonce at a time: the reference.
#[napi(ts_return_type = "Promise<PowOutcome>")]
pub fn pow_search_plain(prefix: Buffer, start_nonce: BigInt, count: BigInt, target: Buffer, threads: u32) -> Result<AsyncTask<PowTask>> {
    task(prefix, start_nonce, count, target, threads, false)
}

/// BLAKE3(prefix || nonce_le): the hash `powSearch` compares with the target, for one nonce.
#[napi]
pub fn pow_hash(prefix: Buffer, nonce: BigInt) -> Result<Buffer> {
    Ok(search::pow_hash(&prefix, u64_arg(&nonce, "nonce")?).to_vec().into())
}

#[napi(object)]
pub struct PowAllOutcome {
    /// Every winning nonce in the range, ascending, at most `maxSolutions` (the lowest ones).
    pub nonces: Vec<BigInt>,
    /// The hash of each nonce in `nonces`.
    pub hashes: Vec<Buffer>,
    /// Nonces hashed, by all threads together.
    pub hashed: i64,
    pub elapsed_ms: f64,
}

pub struct PowAllTask {
    prefix: Vec<u8>,
    start: u64,
    count: u64,
    target: [u8; 32],
    threads: usize,
    max_solutions: usize,
}

impl Task for PowAllTask {
    type Output = (search::SearchAllOutcome, f64);
    type JsValue = PowAllOutcome;

    fn compute(&mut self) -> Result<Self::Output> {
        let t = Instant::now();
        let out = search::search_all(&self.prefix, self.start, self.count, &self.target, self.threads, self.max_solutions)
            .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
        Ok((out, t.elapsed().as_secs_f64() * 1e3))
    }

    fn resolve(&mut self, _env: Env, (out, ms): Self::Output) -> Result<PowAllOutcome> {
        Ok(PowAllOutcome {
            nonces: out.solutions.iter().map(|s| BigInt::from(s.nonce)).collect(),
            hashes: out.solutions.iter().map(|s| s.hash.to_vec().into()).collect(),
            hashed: out.hashes as i64,
            elapsed_ms: ms,
        })
    }
}

/// Every nonce in `count` nonces from `startNonce` with BLAKE3(prefix || nonce_le) <= target, up
/// to `maxSolutions` (the lowest ones), on `threads` threads (0 = all cores), SIMD across nonces.
/// With fewer than `maxSolutions` found the whole range was hashed (`hashed` = count); with
/// `maxSolutions` found the search stopped early: the range up to the last nonce was searched in
/// full (resume after it), and `hashed` also counts what other threads hashed beyond it.
#[napi(ts_return_type = "Promise<PowAllOutcome>")]
pub fn pow_search_all(
    prefix: Buffer,
    start_nonce: BigInt,
    count: BigInt,
    target: Buffer,
    threads: u32,
    max_solutions: u32,
) -> Result<AsyncTask<PowAllTask>> {
    Ok(AsyncTask::new(PowAllTask {
        prefix: prefix.to_vec(),
        start: u64_arg(&start_nonce, "startNonce")?,
        count: u64_arg(&count, "count")?,
        target: target_of(&target)?,
        threads: threads as usize,
        max_solutions: max_solutions as usize,
    }))
}

#[napi(object)]
pub struct PowSimd {
    /// The SIMD path `powSearch` and `powSearchAll` run on this CPU: "avx512f", "avx2", "sse4.1",
    /// "neon" or "portable" (chosen once, by runtime detection).
    pub path: String,
    /// Nonces hashed per compression on that path.
    pub lanes: u32,
    /// Every path this CPU can run.
    pub available: Vec<String>,
    /// The vector extensions the Rust runtime detects, among those the search could use.
    pub cpu_features: Vec<String>,
}

/// Which SIMD path the proof-of-work searches run on this CPU, and the extensions detected.
#[napi]
pub fn pow_simd() -> PowSimd {
    let best = search::SimdPath::best();
    PowSimd {
        path: best.name().to_string(),
        lanes: best.lanes() as u32,
        available: search::SimdPath::available().iter().map(|p| p.name().to_string()).collect(),
        cpu_features: search::cpu_features().iter().map(|f| f.to_string()).collect(),
    }
}
