//! Multi-nonce BLAKE3 proof-of-work search.
//!
//! The pre-image of nonce `n` is `prefix || n.to_le_bytes()` and a nonce wins when
//! `BLAKE3(pre-image) <= target`, both read as 256-bit big-endian numbers. A pre-image fits in one
//! BLAKE3 chunk (at most 1024 bytes), so the blocks before the nonce are compressed once (the
//! midstate) and each nonce costs the compression of the block(s) that hold it: one block, or two
//! when the nonce straddles a 64-byte boundary.
//!
//! Those compressions run for many nonces at once, one nonce per SIMD lane, with explicit
//! intrinsics (see `lanes.rs`): 16 lanes with AVX-512F, 8 with AVX2, 4 with SSE4.1 or NEON, and
//! one nonce at a time in portable code otherwise. The message words are transposed: a vector
//! holds one word for every lane, so the constant words are broadcast and only the 2–3 words
//! holding nonce bytes differ from lane to lane. The path is chosen once, by runtime detection
//! ([`SimdPath::best`]).
//!
//! Further work saved per nonce:
//! - round 0 of the first nonce block starts from the constant midstate, so its quarter-rounds
//!   (`g`) that read no nonce word are computed once per search, not per nonce (7 of 8 when the
//!   nonce lies in message words 8–15, as with a 32-byte prefix);
//! - only the first hash word is finished per nonce (the compiler drops the rest of the last
//!   round), and it is compared with the target's first 4 bytes for all lanes at once; the rare
//!   lane that passes is hashed again with `blake3::hash` and compared in full, so a solution
//!   reported is always checked by the reference implementation.
//!
//! The range is split over threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::lanes::Lanes;

/// The portable path's lanes: one nonce at a time through the same kernel, in scalar code. Arrays
/// of 2, 4 or 8 lanes were measured no faster (2 lanes) or slower (4 and 8: the compiler's
/// vectorization of them without SSE4.1 loses to scalar code).
type Portable = [u32; 1];

/// Longest prefix: the pre-image must fit in one 1024-byte BLAKE3 chunk.
pub const MAX_PREFIX_LEN: usize = 1024 - 8;

/// How many nonces a thread hashes between two looks at the shared stop flag (a multiple of every
/// lane count, so that only a range's last batch is partial).
const STOP_EVERY: u64 = 1 << 16;

const IV: [u32; 8] = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];
const CHUNK_START: u32 = 1;
const CHUNK_END: u32 = 2;
const ROOT: u32 = 8;
/// Message word order of each of the 7 rounds (the permutation applied round after round).
const SCHEDULE: [[usize; 16]; 7] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8],
    [3, 4, 10, 12, 13, 2, 7, 14, 6, 5, 9, 0, 11, 15, 8, 1],
    [10, 7, 12, 9, 14, 3, 13, 15, 4, 0, 11, 2, 5, 8, 1, 6],
    [12, 13, 9, 11, 15, 10, 14, 8, 7, 2, 5, 3, 0, 1, 6, 4],
    [9, 14, 11, 5, 8, 12, 15, 1, 13, 3, 0, 10, 2, 6, 4, 7],
    [11, 15, 5, 0, 1, 9, 8, 6, 14, 10, 2, 12, 3, 4, 7, 13],
];

/// An implementation of the lane-parallel search, by instruction set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SimdPath {
    /// Scalar code, one nonce at a time: any CPU.
    Portable,
    /// 4 lanes of SSE4.1 (x86-64).
    Sse41,
    /// 8 lanes of AVX2 (x86-64).
    Avx2,
    /// 16 lanes of AVX-512F (x86-64).
    Avx512,
    /// 4 lanes of NEON (aarch64).
    Neon,
}

impl SimdPath {
    pub const ALL: [SimdPath; 5] = [SimdPath::Portable, SimdPath::Sse41, SimdPath::Avx2, SimdPath::Avx512, SimdPath::Neon];

    pub fn name(self) -> &'static str {
        match self {
            SimdPath::Portable => "portable",
            SimdPath::Sse41 => "sse4.1",
            SimdPath::Avx2 => "avx2",
            SimdPath::Avx512 => "avx512f",
            SimdPath::Neon => "neon",
        }
    }

    /// Nonces hashed per compression.
    pub fn lanes(self) -> usize {
        match self {
            SimdPath::Portable => <Portable as Lanes>::N,
            SimdPath::Sse41 | SimdPath::Neon => 4,
            SimdPath::Avx2 => 8,
            SimdPath::Avx512 => 16,
        }
    }

    /// Whether this CPU can run the path (runtime detection).
    pub fn is_available(self) -> bool {
        match self {
            SimdPath::Portable => true,
            #[cfg(target_arch = "x86_64")]
            SimdPath::Sse41 => std::arch::is_x86_feature_detected!("sse4.1"),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "aarch64")]
            SimdPath::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The paths this CPU can run, slowest first.
    pub fn available() -> Vec<SimdPath> {
        SimdPath::ALL.into_iter().filter(|p| p.is_available()).collect()
    }

    /// The path the search uses: the widest available, detected on first use.
    pub fn best() -> SimdPath {
        static BEST: OnceLock<SimdPath> = OnceLock::new();
        *BEST.get_or_init(|| {
            [SimdPath::Avx512, SimdPath::Avx2, SimdPath::Neon, SimdPath::Sse41]
                .into_iter()
                .find(|p| p.is_available())
                .unwrap_or(SimdPath::Portable)
        })
    }
}

/// Name of the path `search` and `search_all` run on this CPU ("avx2", "sse4.1", ...).
pub fn simd_path() -> &'static str {
    SimdPath::best().name()
}

/// The vector extensions the Rust runtime detects on this CPU, among those that matter here.
pub fn cpu_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut found = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let all = [
            ("sse2", has!("sse2")),
            ("ssse3", has!("ssse3")),
            ("sse4.1", has!("sse4.1")),
            ("avx", has!("avx")),
            ("avx2", has!("avx2")),
            ("avx512f", has!("avx512f")),
            ("avx512vl", has!("avx512vl")),
            ("avx512bw", has!("avx512bw")),
        ];
        found.extend(all.iter().filter(|(_, on)| *on).map(|(name, _)| *name));
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            found.push("neon");
        }
        if std::arch::is_aarch64_feature_detected!("sve") {
            found.push("sve");
        }
    }
    found
}

/// Why a search request cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    PrefixTooLong { len: usize },
    /// `search_using` was asked for a path this CPU cannot run.
    PathUnavailable { path: &'static str },
}

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchError::PrefixTooLong { len } => {
                write!(f, "proof-of-work prefix is {len} bytes, at most {MAX_PREFIX_LEN} fit in one BLAKE3 chunk")
            }
            SearchError::PathUnavailable { path } => write!(f, "the {path} search path is not available on this CPU"),
        }
    }
}

impl std::error::Error for SearchError {}

/// A winning nonce and its hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Solution {
    pub nonce: u64,
    pub hash: [u8; 32],
}

/// What a search did: the solution, if any, and how many nonces it hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOutcome {
    pub solution: Option<Solution>,
    pub hashes: u64,
}

/// What a search for every solution did: the solutions, in nonce order, and how many nonces it
/// hashed (see search_all for what that counts when the search stopped at max_solutions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchAllOutcome {
    pub solutions: Vec<Solution>,
    pub hashes: u64,
}

/// The pre-image of a nonce.
pub fn preimage(prefix: &[u8], nonce: u64) -> Vec<u8> {
    let mut m = Vec::with_capacity(prefix.len() + 8);
    m.extend_from_slice(prefix);
    m.extend_from_slice(&nonce.to_le_bytes());
    m
}

/// The proof-of-work hash of a nonce (plain BLAKE3 of the pre-image).
pub fn pow_hash(prefix: &[u8], nonce: u64) -> [u8; 32] {
    *blake3::hash(&preimage(prefix, nonce)).as_bytes()
}

/// Whether a hash meets a target (both big-endian 256-bit numbers).
pub fn meets_target(hash: &[u8; 32], target: &[u8; 32]) -> bool {
    hash <= target
}

/// Searches nonces `start..start+count` with plain `blake3::hash` calls, one nonce at a time, on
/// `threads` threads (0 = all cores): the reference that the SIMD search is measured against.
///
/// The inner loop does nothing per nonce but write the nonce, hash, and compare the hash's first 8
/// bytes with the target's (the rest only when those are equal), so that it runs as fast as a bare
/// `blake3::hash` loop; other threads' stop flag is read once per 65,536 nonces.
pub fn search_plain(
    prefix: &[u8],
    start: u64,
    count: u64,
    target: &[u8; 32],
    threads: usize,
) -> Result<SearchOutcome, SearchError> {
    check_prefix(prefix)?;
    Ok(on_threads(start, count, threads, |from, n, stop| {
        let mut buf = preimage(prefix, 0);
        let nonce_at = prefix.len();
        let target_head = u64::from_be_bytes(target[..8].try_into().expect("8 bytes"));
        let end = from + n;
        let mut block = from;
        while block < end {
            if block > from && stop.load(Ordering::Relaxed) {
                return SearchOutcome { solution: None, hashes: block - from };
            }
            let block_end = block + (end - block).min(STOP_EVERY);
            for nonce in block..block_end {
                buf[nonce_at..].copy_from_slice(&nonce.to_le_bytes());
                let hash = blake3::hash(&buf);
                // The first 8 bytes settle the comparison unless they equal the target's.
                let head = u64::from_be_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
                if head <= target_head && meets_target(hash.as_bytes(), target) {
                    stop.store(true, Ordering::Relaxed);
                    return SearchOutcome { solution: Some(Solution { nonce, hash: *hash.as_bytes() }), hashes: nonce - from + 1 };
                }
            }
            block = block_end;
        }
        SearchOutcome { solution: None, hashes: n }
    }))
}

/// Searches nonces `start..start+count` on `threads` threads (0 = all cores), SIMD across nonces.
/// Stops at the first solution any thread finds.
pub fn search(prefix: &[u8], start: u64, count: u64, target: &[u8; 32], threads: usize) -> Result<SearchOutcome, SearchError> {
    search_using(SimdPath::best(), prefix, start, count, target, threads)
}

/// `search` on a given path, for benchmarks and tests; `PathUnavailable` if this CPU cannot run it.
pub fn search_using(
    path: SimdPath,
    prefix: &[u8],
    start: u64,
    count: u64,
    target: &[u8; 32],
    threads: usize,
) -> Result<SearchOutcome, SearchError> {
    check_prefix(prefix)?;
    check_path(path)?;
    let job = Job::new(prefix, target);
    Ok(on_threads(start, count, threads, |from, n, stop| job.run(path, from, n, stop)))
}

/// Every nonce in `start..start+count` whose hash meets the target, up to `max_solutions` of them
/// (the lowest ones), in nonce order, searched like `search` (SIMD across nonces, the range split
/// over `threads` threads, 0 = all cores). `max_solutions == 0` searches nothing.
///
/// `hashes` counts every nonce hashed, by all threads together: the work done. When fewer than
/// `max_solutions` are returned, the whole range was searched and `hashes` is `count` (capped below
/// 2^64, as in `search`). When `max_solutions` are returned, the search stopped early: each thread
/// stops once its own range holds `max_solutions` solutions or the ranges below it hold that many
/// together, so the range up to the last returned nonce was searched in full (resume at the last
/// nonce + 1), and with one thread `hashes` is exactly `last nonce − start + 1`; with several, it
/// also counts what the threads above had hashed past that nonce when they stopped, whose solutions
/// are dropped.
pub fn search_all(
    prefix: &[u8],
    start: u64,
    count: u64,
    target: &[u8; 32],
    threads: usize,
    max_solutions: usize,
) -> Result<SearchAllOutcome, SearchError> {
    search_all_using(SimdPath::best(), prefix, start, count, target, threads, max_solutions)
}

/// `search_all` on a given path, for benchmarks and tests; `PathUnavailable` if this CPU cannot
/// run it.
pub fn search_all_using(
    path: SimdPath,
    prefix: &[u8],
    start: u64,
    count: u64,
    target: &[u8; 32],
    threads: usize,
    max_solutions: usize,
) -> Result<SearchAllOutcome, SearchError> {
    check_prefix(prefix)?;
    check_path(path)?;
    if max_solutions == 0 {
        return Ok(SearchAllOutcome { solutions: Vec::new(), hashes: 0 });
    }
    let job = Job::new(prefix, target);
    let ranges = split(start, count, threads);
    // Solutions found so far by the thread of each range.
    let found: Vec<AtomicUsize> = ranges.iter().map(|_| AtomicUsize::new(0)).collect();
    let range = |i: usize, (from, n): (u64, u64)| {
        let mut solutions = Vec::new();
        let below_have_enough = || found[..i].iter().map(|f| f.load(Ordering::Relaxed)).sum::<usize>() >= max_solutions;
        let hashes = job.scan(path, from, n, below_have_enough, |nonce, hash| {
            solutions.push(Solution { nonce, hash });
            found[i].store(solutions.len(), Ordering::Relaxed);
            solutions.len() >= max_solutions
        });
        (solutions, hashes)
    };
    let parts: Vec<(Vec<Solution>, u64)> = if ranges.len() <= 1 {
        ranges.iter().map(|&r| range(0, r)).collect()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = ranges.iter().enumerate().map(|(i, &r)| s.spawn(move || range(i, r))).collect();
            handles.into_iter().map(|h| h.join().expect("search thread panicked")).collect()
        })
    };
    let hashes = parts.iter().map(|(_, h)| h).sum();
    let mut solutions: Vec<Solution> = parts.into_iter().flat_map(|(s, _)| s).collect();
    solutions.truncate(max_solutions);
    Ok(SearchAllOutcome { solutions, hashes })
}

/// Splits `start..start+count` (capped below 2^64) into one contiguous, ascending, non-empty range
/// per thread (0 = all cores); one range when there is one thread or under 4096 nonces.
fn split(start: u64, count: u64, threads: usize) -> Vec<(u64, u64)> {
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    let count = count.min(u64::MAX - start);
    if threads == 1 || count < 4096 {
        return vec![(start, count)];
    }
    let per = count.div_ceil(threads as u64);
    (0..threads as u64)
        .filter_map(|i| {
            let from = start + i * per;
            let n = per.min((start + count).saturating_sub(from));
            (n > 0).then_some((from, n))
        })
        .collect()
}

/// Runs `range` on each of `split`'s ranges, one thread each; a solution raises the shared stop
/// flag, and the lowest solution found is reported.
fn on_threads<F>(start: u64, count: u64, threads: usize, range: F) -> SearchOutcome
where
    F: Fn(u64, u64, &AtomicBool) -> SearchOutcome + Sync,
{
    let ranges = split(start, count, threads);
    let stop = AtomicBool::new(false);
    if let [(from, n)] = ranges[..] {
        return range(from, n, &stop);
    }
    let outcomes: Vec<SearchOutcome> = std::thread::scope(|s| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|&(from, n)| {
                let (range, stop) = (&range, &stop);
                s.spawn(move || range(from, n, stop))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("search thread panicked")).collect()
    });
    let hashes = outcomes.iter().map(|o| o.hashes).sum();
    let solution = outcomes.iter().filter_map(|o| o.solution).min_by_key(|s| s.nonce);
    SearchOutcome { solution, hashes }
}

fn check_prefix(prefix: &[u8]) -> Result<(), SearchError> {
    if prefix.len() > MAX_PREFIX_LEN {
        return Err(SearchError::PrefixTooLong { len: prefix.len() });
    }
    Ok(())
}

fn check_path(path: SimdPath) -> Result<(), SearchError> {
    if !path.is_available() {
        return Err(SearchError::PathUnavailable { path: path.name() });
    }
    Ok(())
}

/// A search's constant part, computed once: the midstate, the message words of the block(s)
/// holding the nonce, where the nonce's bytes fall in them, and the nonce-free part of round 0.
struct Job {
    /// The pre-image with nonce 0, to hash a candidate again with `blake3::hash`.
    message: Vec<u8>,
    /// The block(s) holding nonce bytes, from the first: one, or two when the nonce straddles a
    /// 64-byte boundary. The nonce is the pre-image's end, so no block follows them.
    tail: Vec<TailBlock>,
    /// Nonce bytes start `nonce_shift` bits into message word `nonce_at[0]` and run over
    /// `nonce_words` words (2 when aligned to a word, else 3), as (tail block, word) pairs.
    nonce_at: [(usize, usize); 3],
    nonce_words: usize,
    nonce_shift: u32,
    /// The message words at `nonce_at` with nonce bytes 0 (the prefix bytes that share a word).
    nonce_base: [u32; 3],
    round0: Round0,
    target: [u8; 32],
    target_head: u32,
}

struct TailBlock {
    words: [u32; 16],
    block_len: u32,
    flags: u32,
}

/// Round 0 of the first tail block, whose input state (the midstate and constants) is the same for
/// every nonce: a quarter-round whose inputs hold no nonce word gives the same result for every
/// nonce too, so it is computed here once.
struct Round0 {
    /// Column quarter-rounds (on state words i, i+4, i+8, i+12) that read a nonce word.
    column_varies: [bool; 4],
    /// Diagonal quarter-rounds (0-5-10-15, 1-6-11-12, 2-7-8-13, 3-4-9-14) that read a nonce word or
    /// a varying column's output.
    diagonal_varies: [bool; 4],
    /// The state each nonce starts round 0 from: after the column step where the column does not
    /// vary, before it where it does (it is then computed per nonce).
    start: [u32; 16],
    /// The state after round 0, valid for the words of diagonals that do not vary.
    after: [u32; 16],
}

impl Job {
    fn new(prefix: &[u8], target: &[u8; 32]) -> Self {
        let message = preimage(prefix, 0);
        let blocks = message.len().div_ceil(64);
        let first_tail = prefix.len() / 64;
        let mut cv = IV;
        for (i, block) in message.chunks(64).enumerate().take(first_tail) {
            let flags = if i == 0 { CHUNK_START } else { 0 };
            cv = compress_one(&cv, &words_of(block), 64, flags);
        }
        let tail: Vec<TailBlock> = message
            .chunks(64)
            .enumerate()
            .skip(first_tail)
            .map(|(i, block)| {
                let mut flags = if i == 0 { CHUNK_START } else { 0 };
                if i == blocks - 1 {
                    flags |= CHUNK_END | ROOT;
                }
                TailBlock { words: words_of(block), block_len: block.len() as u32, flags }
            })
            .collect();
        assert!(matches!(tail.len(), 1 | 2), "8 nonce bytes span one or two blocks");

        let offset = prefix.len() - first_tail * 64;
        let nonce_shift = (offset % 4) as u32 * 8;
        let nonce_words = if nonce_shift == 0 { 2 } else { 3 };
        let mut nonce_at = [(0, 0); 3];
        let mut nonce_base = [0; 3];
        for i in 0..nonce_words {
            let word = offset / 4 + i;
            nonce_at[i] = (word / 16, word % 16);
            nonce_base[i] = tail[word / 16].words[word % 16];
        }
        let mut nonce_in_block0 = [false; 16];
        for &(block, word) in &nonce_at[..nonce_words] {
            nonce_in_block0[word] |= block == 0;
        }
        let round0 = Round0::new(&cv, &tail[0], &nonce_in_block0);
        Self {
            message,
            tail,
            nonce_at,
            nonce_words,
            nonce_shift,
            nonce_base,
            round0,
            target: *target,
            target_head: u32::from_be_bytes([target[0], target[1], target[2], target[3]]),
        }
    }

    /// Searches until the first solution (any thread's, through `stop`).
    fn run(&self, path: SimdPath, start: u64, count: u64, stop: &AtomicBool) -> SearchOutcome {
        let mut solution = None;
        let hashes = self.scan(
            path,
            start,
            count,
            || stop.load(Ordering::Relaxed),
            |nonce, hash| {
                stop.store(true, Ordering::Relaxed);
                solution = Some(Solution { nonce, hash });
                true
            },
        );
        SearchOutcome { solution, hashes }
    }

    /// Hashes nonces `start..start+count` (`start + count <= 2^64 - 1`) in order on `path`
    /// (available: checked by the callers), calling `hit` for each solution; stops after a solution
    /// for which `hit` returns true, or when `stop()` does (asked every `STOP_EVERY` nonces).
    /// Returns the number of nonces hashed.
    fn scan<S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(&self, path: SimdPath, start: u64, count: u64, stop: S, hit: H) -> u64 {
        assert!(path.is_available(), "{} is not available on this CPU", path.name());
        match path {
            // SAFETY (each arm): the CPU has the path's instruction set, asserted just above.
            #[cfg(target_arch = "x86_64")]
            SimdPath::Sse41 => unsafe { entry::scan_sse41(self, start, count, stop, hit) },
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => unsafe { entry::scan_avx2(self, start, count, stop, hit) },
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx512 => unsafe { entry::scan_avx512(self, start, count, stop, hit) },
            #[cfg(target_arch = "aarch64")]
            SimdPath::Neon => unsafe { entry::scan_neon(self, start, count, stop, hit) },
            // SAFETY: the portable lanes are plain arrays and need no CPU feature.
            _ => unsafe { self.scan_lanes::<Portable, S, H>(start, count, stop, hit) },
        }
    }

    /// The full hashes of nonces `first, first+1, ...` (wrapping), one per lane of `path`: the
    /// kernel's whole output, for the tests (the search itself finishes only the first word).
    #[cfg(test)]
    fn lane_hashes(&self, path: SimdPath, first: u64) -> Vec<[u8; 32]> {
        assert!(path.is_available(), "{} is not available on this CPU", path.name());
        match path {
            // SAFETY (each arm): the CPU has the path's instruction set, asserted just above.
            #[cfg(target_arch = "x86_64")]
            SimdPath::Sse41 => unsafe { entry::hashes_sse41(self, first) },
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => unsafe { entry::hashes_avx2(self, first) },
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx512 => unsafe { entry::hashes_avx512(self, first) },
            #[cfg(target_arch = "aarch64")]
            SimdPath::Neon => unsafe { entry::hashes_neon(self, first) },
            // SAFETY: the portable lanes are plain arrays and need no CPU feature.
            _ => unsafe { self.lane_hashes_with::<Portable>(first) },
        }
    }

    /// The scan loop for lane type `V`. Inlined into a function compiled with `V`'s instruction
    /// set; the caller guarantees the CPU has it.
    #[inline(always)]
    unsafe fn scan_lanes<V: Lanes, S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(
        &self,
        start: u64,
        count: u64,
        stop: S,
        hit: H,
    ) -> u64 {
        // Two copies of the loop, so that the block count is a constant inside each.
        if self.tail.len() == 1 {
            self.scan_blocks::<V, 1, S, H>(start, count, stop, hit)
        } else {
            self.scan_blocks::<V, 2, S, H>(start, count, stop, hit)
        }
    }

    #[inline(always)]
    unsafe fn scan_blocks<V: Lanes, const BLOCKS: usize, S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(
        &self,
        start: u64,
        count: u64,
        stop: S,
        mut hit: H,
    ) -> u64 {
        let mut k = Kernel::<V>::new(self);
        let lanes = V::N as u64;
        let mut done = 0u64;
        while done < count {
            if done > 0 && stop() {
                break;
            }
            let block_end = done + (count - done).min(STOP_EVERY);
            while done < block_end {
                let first = start + done;
                let v = k.final_state::<BLOCKS>(self, first);
                // The first hash word of every lane against the target's first 4 bytes at once.
                let mut pass = v[0].xor(v[8]).heads_at_most(self.target_head);
                let here = (count - done).min(lanes);
                if pass != 0 {
                    // Lanes past the range's end are hashed (their nonces may even wrap past
                    // 2^64) and dropped here.
                    pass &= u32::MAX >> (32 - here as u32);
                    while pass != 0 {
                        let lane = u64::from(pass.trailing_zeros());
                        let nonce = first + lane;
                        let hash = self.hash_of(nonce);
                        if meets_target(&hash, &self.target) && hit(nonce, hash) {
                            return done + lane + 1;
                        }
                        pass &= pass - 1;
                    }
                }
                done += here;
            }
        }
        done
    }

    #[cfg(test)]
    #[inline(always)]
    unsafe fn lane_hashes_with<V: Lanes>(&self, first: u64) -> Vec<[u8; 32]> {
        let mut k = Kernel::<V>::new(self);
        let v = if self.tail.len() == 1 { k.final_state::<1>(self, first) } else { k.final_state::<2>(self, first) };
        let mut words = [[0u32; 16]; 8];
        for (i, w) in words.iter_mut().enumerate() {
            v[i].xor(v[i + 8]).store(w);
        }
        (0..V::N)
            .map(|lane| {
                let mut out = [0u8; 32];
                for (i, w) in words.iter().enumerate() {
                    out[i * 4..i * 4 + 4].copy_from_slice(&w[lane].to_le_bytes());
                }
                out
            })
            .collect()
    }

    /// The hash of one nonce by the reference implementation, for the rare lane that passes the
    /// first-word filter.
    fn hash_of(&self, nonce: u64) -> [u8; 32] {
        let mut buf = [0u8; 1024];
        let len = self.message.len();
        buf[..len].copy_from_slice(&self.message);
        buf[len - 8..len].copy_from_slice(&nonce.to_le_bytes());
        *blake3::hash(&buf[..len]).as_bytes()
    }
}

impl Round0 {
    fn new(cv: &[u32; 8], block: &TailBlock, nonce_word: &[bool; 16]) -> Self {
        let column_varies: [bool; 4] = std::array::from_fn(|i| nonce_word[2 * i] || nonce_word[2 * i + 1]);
        // A diagonal takes one word from each column, so any varying column makes all vary.
        let any_column = column_varies.iter().any(|&v| v);
        let diagonal_varies: [bool; 4] = std::array::from_fn(|i| any_column || nonce_word[8 + 2 * i] || nonce_word[9 + 2 * i]);
        let s0 = initial_state(&cv.map(|w| [w]), block.block_len, block.flags);
        let m = block.words.map(|w| [w]);
        let mut s1 = s0;
        // SAFETY: `[u32; 1]` lanes are plain arrays and need no CPU feature.
        unsafe { columns(&mut s1, &m, &SCHEDULE[0]) };
        let mut s2 = s1;
        // SAFETY: as above.
        unsafe { diagonals(&mut s2, &m, &SCHEDULE[0]) };
        let start = std::array::from_fn(|w| if column_varies[w % 4] { s0[w][0] } else { s1[w][0] });
        Round0 { column_varies, diagonal_varies, start, after: s2.map(|w| w[0]) }
    }
}

/// A job's constants as vectors of one lane type, built at the start of a scan, and the message
/// blocks whose nonce words are rewritten for each batch of nonces.
struct Kernel<V> {
    /// `Round0::start` and `after`, broadcast.
    start: [V; 16],
    after: [V; 16],
    column_varies: [bool; 4],
    diagonal_varies: [bool; 4],
    /// The tail blocks' message words, broadcast (the second is unused with one tail block).
    m: [[V; 16]; 2],
    nonce_base: [V; 3],
}

impl<V: Lanes> Kernel<V> {
    #[inline(always)]
    unsafe fn new(job: &Job) -> Self {
        // Explicit loops, not closures: a closure would be compiled without the caller's
        // instruction set and could not take these vectors inline.
        let mut k = Kernel {
            start: [V::splat(0); 16],
            after: [V::splat(0); 16],
            column_varies: job.round0.column_varies,
            diagonal_varies: job.round0.diagonal_varies,
            m: [[V::splat(0); 16]; 2],
            nonce_base: [V::splat(0); 3],
        };
        for w in 0..16 {
            k.start[w] = V::splat(job.round0.start[w]);
            k.after[w] = V::splat(job.round0.after[w]);
            for (b, block) in job.tail.iter().enumerate() {
                k.m[b][w] = V::splat(block.words[w]);
            }
        }
        for i in 0..3 {
            k.nonce_base[i] = V::splat(job.nonce_base[i]);
        }
        k
    }

    /// The state after compressing the last tail block for nonces `first, first+1, ...` (one per
    /// lane, wrapping past 2^64); hash word `i` is `state[i] ^ state[i + 8]`.
    #[inline(always)]
    unsafe fn final_state<const BLOCKS: usize>(&mut self, job: &Job, first: u64) -> [V; 16] {
        // The nonce's low and high 32 bits per lane. Within a batch the high half is the same
        // unless the low half wraps, once per 2^32 nonces: that batch is built lane by lane.
        let (lo0, hi0) = (first as u32, (first >> 32) as u32);
        let (lo, hi) = if lo0 <= u32::MAX - (V::N as u32 - 1) {
            (V::counting_from(lo0), V::splat(hi0))
        } else {
            let (mut lo, mut hi) = ([0u32; 16], [0u32; 16]);
            for lane in 0..V::N {
                let n = first.wrapping_add(lane as u64);
                (lo[lane], hi[lane]) = (n as u32, (n >> 32) as u32);
            }
            (V::load(&lo), V::load(&hi))
        };
        // The message words holding the nonce's 8 little-endian bytes, `nonce_shift` bits into
        // the first word (after prefix bytes), into the message blocks.
        let s = job.nonce_shift;
        let words = if s == 0 {
            [lo, hi, V::splat(0)]
        } else {
            [lo.shl(s).or(self.nonce_base[0]), lo.shr(32 - s).or(hi.shl(s)), hi.shr(32 - s).or(self.nonce_base[2])]
        };
        for (i, &(block, word)) in job.nonce_at[..job.nonce_words].iter().enumerate() {
            self.m[block][word] = words[i];
        }

        let mut v = self.first_round(&self.m[0]);
        rounds_after_first(&mut v, &self.m[0]);
        if BLOCKS == 2 {
            let mut cv = [V::splat(0); 8];
            for i in 0..8 {
                cv[i] = v[i].xor(v[i + 8]);
            }
            let block = &job.tail[1];
            v = initial_state(&cv, block.block_len, block.flags);
            round(&mut v, &self.m[1], &SCHEDULE[0]);
            rounds_after_first(&mut v, &self.m[1]);
        }
        v
    }

    /// Round 0 of the first tail block: the quarter-rounds that vary with the nonce, on the state
    /// that `Round0` prepared.
    #[inline(always)]
    unsafe fn first_round(&self, m: &[V; 16]) -> [V; 16] {
        let mut v = self.start;
        macro_rules! column {
            ($i:literal, $a:literal, $b:literal, $c:literal, $d:literal) => {
                if self.column_varies[$i] {
                    g(&mut v, $a, $b, $c, $d, m[2 * $i], m[2 * $i + 1]);
                }
            };
        }
        macro_rules! diagonal {
            ($i:literal, $a:literal, $b:literal, $c:literal, $d:literal) => {
                if self.diagonal_varies[$i] {
                    g(&mut v, $a, $b, $c, $d, m[8 + 2 * $i], m[9 + 2 * $i]);
                } else {
                    (v[$a], v[$b], v[$c], v[$d]) = (self.after[$a], self.after[$b], self.after[$c], self.after[$d]);
                }
            };
        }
        column!(0, 0, 4, 8, 12);
        column!(1, 1, 5, 9, 13);
        column!(2, 2, 6, 10, 14);
        column!(3, 3, 7, 11, 15);
        diagonal!(0, 0, 5, 10, 15);
        diagonal!(1, 1, 6, 11, 12);
        diagonal!(2, 2, 7, 8, 13);
        diagonal!(3, 3, 4, 9, 14);
        v
    }
}

/// Entry points compiled with each instruction set, which the scan loop and the kernel are inlined
/// into. Each is `unsafe`: the caller must have checked that the CPU has the instruction set.
mod entry {
    #[allow(unused_imports)]
    use super::{Job, Lanes};

    macro_rules! entry_points {
        ($arch:literal, $feature:literal, $lanes:ty, $scan:ident, $hashes:ident) => {
            #[cfg(target_arch = $arch)]
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $scan<S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(
                job: &Job,
                start: u64,
                count: u64,
                stop: S,
                hit: H,
            ) -> u64 {
                job.scan_lanes::<$lanes, S, H>(start, count, stop, hit)
            }

            #[cfg(all(test, target_arch = $arch))]
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $hashes(job: &Job, first: u64) -> Vec<[u8; 32]> {
                job.lane_hashes_with::<$lanes>(first)
            }
        };
    }

    entry_points!("x86_64", "sse4.1", crate::lanes::x86::Sse41, scan_sse41, hashes_sse41);
    entry_points!("x86_64", "avx2", crate::lanes::x86::Avx2, scan_avx2, hashes_avx2);
    entry_points!("x86_64", "avx512f", crate::lanes::x86::Avx512, scan_avx512, hashes_avx512);
    entry_points!("aarch64", "neon", crate::lanes::neon::Neon, scan_neon, hashes_neon);
}

fn words_of(block: &[u8]) -> [u32; 16] {
    let mut padded = [0u8; 64];
    padded[..block.len()].copy_from_slice(block);
    let mut w = [0u32; 16];
    for (i, c) in padded.chunks_exact(4).enumerate() {
        w[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    w
}

/// The BLAKE3 compression of one block for one state: used for the midstate.
fn compress_one(cv: &[u32; 8], m: &[u32; 16], block_len: u32, flags: u32) -> [u32; 8] {
    let m1 = m.map(|w| [w]);
    let mut v = initial_state(&cv.map(|w| [w]), block_len, flags);
    for s in &SCHEDULE {
        // SAFETY: `[u32; 1]` lanes are plain arrays and need no CPU feature.
        unsafe { round(&mut v, &m1, s) };
    }
    std::array::from_fn(|i| v[i][0] ^ v[i + 8][0])
}

/// The compression's input state (chunk counter 0, as for every block of a one-chunk input).
#[inline(always)]
fn initial_state<V: Lanes>(cv: &[V; 8], block_len: u32, flags: u32) -> [V; 16] {
    // SAFETY: only broadcasts, inlined into a caller that may use `V` (the trait's contract).
    unsafe {
        [
            cv[0],
            cv[1],
            cv[2],
            cv[3],
            cv[4],
            cv[5],
            cv[6],
            cv[7],
            V::splat(IV[0]),
            V::splat(IV[1]),
            V::splat(IV[2]),
            V::splat(IV[3]),
            V::splat(0),
            V::splat(0),
            V::splat(block_len),
            V::splat(flags),
        ]
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn g<V: Lanes>(v: &mut [V; 16], a: usize, b: usize, c: usize, d: usize, x: V, y: V) {
    v[a] = v[a].add(v[b]).add(x);
    v[d] = v[d].xor(v[a]).rotr16();
    v[c] = v[c].add(v[d]);
    v[b] = v[b].xor(v[c]).rotr12();
    v[a] = v[a].add(v[b]).add(y);
    v[d] = v[d].xor(v[a]).rotr8();
    v[c] = v[c].add(v[d]);
    v[b] = v[b].xor(v[c]).rotr7();
}

// The quarter-rounds are written out with literal state indices (and, once inlined with a
// constant schedule, constant message indices), so that the state lives in registers rather than
// in an array indexed at run time.

#[inline(always)]
unsafe fn columns<V: Lanes>(v: &mut [V; 16], m: &[V; 16], s: &[usize; 16]) {
    g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
}

#[inline(always)]
unsafe fn diagonals<V: Lanes>(v: &mut [V; 16], m: &[V; 16], s: &[usize; 16]) {
    g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
}

/// One round with message schedule `s`.
#[inline(always)]
unsafe fn round<V: Lanes>(v: &mut [V; 16], m: &[V; 16], s: &[usize; 16]) {
    columns(v, m, s);
    diagonals(v, m, s);
}

/// Rounds 1 to 6, written out so that each schedule is a constant.
#[inline(always)]
unsafe fn rounds_after_first<V: Lanes>(v: &mut [V; 16], m: &[V; 16]) {
    round(v, m, &SCHEDULE[1]);
    round(v, m, &SCHEDULE[2]);
    round(v, m, &SCHEDULE[3]);
    round(v, m, &SCHEDULE[4]);
    round(v, m, &SCHEDULE[5]);
    round(v, m, &SCHEDULE[6]);
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEVER: [u8; 32] = [0; 32];

    /// Prefix lengths around every case of where the nonce falls: word-aligned or not, inside
    /// one block, ending a block exactly, straddling two blocks, after several constant blocks.
    const LENGTHS: [usize; 15] = [0, 1, 31, 32, 55, 56, 63, 64, 80, 119, 120, 127, 128, 200, MAX_PREFIX_LEN];

    /// First nonces of a batch: byte carries inside the lanes (0xFF -> 0x100, 0xFFFF -> 0x10000,
    /// 2^32 - 1 -> 2^32 with the high half changing mid-batch), lanes wrapping past 2^64.
    const FIRSTS: [u64; 9] = [
        0,
        1,
        0xFA,
        0xFFFA,
        0xFFFF_FFF9,
        0x0000_0001_FFFF_FFFD,
        0x00FF_FFFF_FFFF_FFF8,
        0x0123_4567_89AB_CDEF,
        u64::MAX - 5,
    ];

    fn prefix_of(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 31 + 7) as u8).collect()
    }

    #[test]
    fn every_path_on_this_cpu_hashes_like_blake3() {
        let paths = SimdPath::available();
        assert!(paths.contains(&SimdPath::Portable));
        #[cfg(target_arch = "x86_64")]
        for (path, detected) in [
            (SimdPath::Sse41, std::arch::is_x86_feature_detected!("sse4.1")),
            (SimdPath::Avx2, std::arch::is_x86_feature_detected!("avx2")),
            (SimdPath::Avx512, std::arch::is_x86_feature_detected!("avx512f")),
        ] {
            assert_eq!(paths.contains(&path), detected, "{}", path.name());
        }
        for &path in &paths {
            for len in LENGTHS.into_iter().chain(2..=130) {
                let prefix = prefix_of(len);
                let job = Job::new(&prefix, &NEVER);
                for first in FIRSTS {
                    let got = job.lane_hashes(path, first);
                    assert_eq!(got.len(), path.lanes());
                    for (lane, hash) in got.iter().enumerate() {
                        let nonce = first.wrapping_add(lane as u64);
                        assert_eq!(*hash, pow_hash(&prefix, nonce), "{}: prefix {len}, nonce {nonce:#x}", path.name());
                    }
                }
            }
        }
    }

    #[test]
    fn the_chosen_path_is_the_widest_available() {
        let best = SimdPath::best();
        assert!(best.is_available());
        assert_eq!(simd_path(), best.name());
        for p in SimdPath::available() {
            assert!(p.lanes() <= best.lanes(), "{} is wider than {}", p.name(), best.name());
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && !std::arch::is_x86_feature_detected!("avx512f") {
            assert_eq!(best, SimdPath::Avx2);
        }
        let features = cpu_features();
        #[cfg(target_arch = "x86_64")]
        assert!(features.contains(&"sse2"));
        let _ = features;
    }

    #[test]
    fn unavailable_paths_are_refused() {
        for p in SimdPath::ALL.into_iter().filter(|p| !p.is_available()) {
            assert_eq!(search_using(p, b"abc", 0, 10, &NEVER, 1), Err(SearchError::PathUnavailable { path: p.name() }));
            assert_eq!(search_all_using(p, b"abc", 0, 10, &NEVER, 1, 1), Err(SearchError::PathUnavailable { path: p.name() }));
        }
    }

    /// Targets that let through: about 1 nonce in 256; about half (the filter's comparison must be
    /// unsigned); all but the hashes starting with 0xFF; exactly one given hash and those below.
    fn easy_targets(prefix: &[u8], exact_nonce: u64) -> Vec<[u8; 32]> {
        let mut one_in_256 = [0xFFu8; 32];
        one_in_256[0] = 0;
        let mut half = [0u8; 32];
        half[0] = 0x7F;
        half[1] = 0xFF;
        let mut most = [0xFFu8; 32];
        most[0] = 0xFE;
        vec![one_in_256, half, most, pow_hash(prefix, exact_nonce)]
    }

    #[test]
    fn every_path_finds_exactly_what_the_plain_loop_finds() {
        for path in SimdPath::available() {
            for len in LENGTHS {
                let prefix = prefix_of(len);
                // An odd start and count: partial batches at both ends of each thread's range.
                let (start, count) = (0xFF_FFF3u64, 3001u64);
                for target in easy_targets(&prefix, start + 1234) {
                    let want = plain_all(&prefix, start, count, &target);
                    assert!(!want.is_empty());
                    for threads in [1, 2] {
                        let all = search_all_using(path, &prefix, start, count, &target, threads, usize::MAX).unwrap();
                        assert_eq!(all.solutions, want, "{}: prefix {len}, threads {threads}", path.name());
                        assert_eq!(all.hashes, count);
                        let first = search_using(path, &prefix, start, count, &target, threads).unwrap();
                        assert_eq!(first.solution, Some(want[0]), "{}: prefix {len}, threads {threads}", path.name());
                        if threads == 1 {
                            assert_eq!(first.hashes, want[0].nonce - start + 1);
                            assert_eq!(search_plain(&prefix, start, count, &target, 1).unwrap(), first);
                        }
                    }
                }
            }
            // The range's last nonces, where lanes past the end would wrap past 2^64.
            let prefix = prefix_of(80);
            let mut target = [0xFFu8; 32];
            target[0] = 0x3F;
            let start = u64::MAX - 1000;
            let want = plain_all(&prefix, start, 1000, &target);
            let got = search_all_using(path, &prefix, start, u64::MAX, &target, 1, usize::MAX).unwrap();
            assert_eq!(got, SearchAllOutcome { solutions: want, hashes: 1000 }, "{}", path.name());
        }
    }

    #[test]
    fn finds_the_same_first_solution_as_the_plain_loop() {
        let prefix = b"svc header hash 0123456789abcdef".to_vec();
        // About one nonce in 4096 wins.
        let mut target = [0xFFu8; 32];
        target[0] = 0x00;
        target[1] = 0x0F;
        let plain = search_plain(&prefix, 1000, 1_000_000, &target, 1).unwrap();
        let simd = search(&prefix, 1000, 1_000_000, &target, 1).unwrap();
        assert_eq!(plain, simd);
        let s = simd.solution.expect("a solution in a million nonces");
        assert_eq!(s.hash, pow_hash(&prefix, s.nonce));
        assert!(meets_target(&s.hash, &target));
    }

    #[test]
    fn parallel_search_finds_a_valid_solution_and_counts_hashes() {
        let prefix = vec![42u8; 80];
        let mut target = [0xFFu8; 32];
        target[0] = 0;
        target[1] = 0;
        let out = search(&prefix, 0, 10_000_000, &target, 2).unwrap();
        let s = out.solution.expect("a solution");
        assert!(meets_target(&pow_hash(&prefix, s.nonce), &target));
        assert!(out.hashes > 0);
        let none = search(&prefix, 0, 50_000, &NEVER, 2).unwrap();
        assert_eq!(none, SearchOutcome { solution: None, hashes: 50_000 });
        assert_eq!(search_plain(&prefix, 0, 50_000, &NEVER, 2).unwrap(), none);
    }

    #[test]
    fn counts_partial_batches_and_refuses_long_prefixes() {
        let out = search(b"abc", 5, 13, &NEVER, 1).unwrap();
        assert_eq!(out.hashes, 13);
        assert_eq!(search(&[0; 1017], 0, 1, &NEVER, 1), Err(SearchError::PrefixTooLong { len: 1017 }));
        assert_eq!(search(b"abc", u64::MAX - 3, 100, &NEVER, 1).unwrap().hashes, 3);
    }

    /// Every solution in the range, by plain BLAKE3 calls.
    fn plain_all(prefix: &[u8], start: u64, count: u64, target: &[u8; 32]) -> Vec<Solution> {
        (start..start + count)
            .map(|nonce| Solution { nonce, hash: pow_hash(prefix, nonce) })
            .filter(|s| meets_target(&s.hash, target))
            .collect()
    }

    #[test]
    fn search_all_agrees_with_a_plain_loop() {
        // About one nonce in 256 wins; ranges with odd ends exercise partial SIMD batches.
        let mut target = [0xFFu8; 32];
        target[0] = 0x00;
        for (prefix_len, start, count) in [(32usize, 0u64, 100_000u64), (80, 12_345, 77_777), (3, 5, 4000), (130, 1, 0)] {
            let prefix: Vec<u8> = (0..prefix_len).map(|i| (i * 13 + 1) as u8).collect();
            let want = plain_all(&prefix, start, count, &target);
            for threads in [1, 2, 3, 0] {
                let out = search_all(&prefix, start, count, &target, threads, usize::MAX).unwrap();
                assert_eq!(out.solutions, want, "prefix {prefix_len}, threads {threads}");
                assert_eq!(out.hashes, count);
            }
        }
        assert!(!plain_all(&[1; 32], 0, 100_000, &target).is_empty());
        let none = search_all(b"abc", 0, 50_000, &NEVER, 2, 10).unwrap();
        assert_eq!(none, SearchAllOutcome { solutions: vec![], hashes: 50_000 });
    }

    #[test]
    fn search_all_honours_max_solutions() {
        let prefix = vec![9u8; 80];
        let mut target = [0xFFu8; 32];
        target[0] = 0x00;
        let all = plain_all(&prefix, 0, 200_000, &target);
        assert!(all.len() > 300, "{} solutions", all.len());
        for max in [1, 2, 7, 100, all.len(), all.len() + 1] {
            let want: Vec<Solution> = all.iter().copied().take(max).collect();
            for threads in [1, 2, 4] {
                let out = search_all(&prefix, 0, 200_000, &target, threads, max).unwrap();
                assert_eq!(out.solutions, want, "max {max}, threads {threads}");
                if max > all.len() {
                    assert_eq!(out.hashes, 200_000);
                } else if threads == 1 {
                    assert_eq!(out.hashes, want.last().unwrap().nonce + 1, "one thread stops at the last solution");
                } else {
                    assert!(out.hashes > want.last().unwrap().nonce, "max {max}, threads {threads}");
                }
            }
        }
        assert_eq!(search_all(&prefix, 0, 200_000, &target, 2, 0).unwrap(), SearchAllOutcome { solutions: vec![], hashes: 0 });
        assert_eq!(search_all(&[0; 1017], 0, 1, &target, 1, 1), Err(SearchError::PrefixTooLong { len: 1017 }));
    }

    #[test]
    #[ignore = "timing: cargo test --release -p svc-pow -- --ignored --nocapture"]
    fn timing() {
        let prefix = vec![7u8; 80];
        let n = 1u64 << 24;
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let out = search(&prefix, 0, n, &NEVER, 1).unwrap();
            let el = t.elapsed();
            assert_eq!(out.hashes, n);
            println!("search: {n} nonces on 1 thread in {el:?}, {:.2} MH/s", n as f64 / el.as_secs_f64() / 1e6);
            let t = std::time::Instant::now();
            let out = search_all(&prefix, 0, n, &NEVER, 1, 1).unwrap();
            let el = t.elapsed();
            assert_eq!(out.hashes, n);
            println!("search_all: {n} nonces on 1 thread in {el:?}, {:.2} MH/s", n as f64 / el.as_secs_f64() / 1e6);
        }
    }
}
