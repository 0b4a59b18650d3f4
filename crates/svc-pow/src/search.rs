//! Multi-nonce BLAKE3 proof-of-work search.
//!
//! The pre-image of nonce `n` is `prefix || n.to_le_bytes()` and a nonce wins when
//! `BLAKE3(pre-image) <= target`, both read as 256-bit big-endian numbers. A pre-image fits in one
//! BLAKE3 chunk (at most 1024 bytes), so the blocks before the nonce are compressed once (the
//! midstate) and each nonce costs the compressions of the block(s) that hold it. Those are run for
//! several nonces at once, one nonce per SIMD lane (16 with AVX-512, 8 with AVX2, 4 otherwise),
//! and the range is split over threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Longest prefix: the pre-image must fit in one 1024-byte BLAKE3 chunk.
pub const MAX_PREFIX_LEN: usize = 1024 - 8;

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

/// Why a search request cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    PrefixTooLong { len: usize },
}

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchError::PrefixTooLong { len } => {
                write!(f, "proof-of-work prefix is {len} bytes, at most {MAX_PREFIX_LEN} fit in one BLAKE3 chunk")
            }
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
        let at = prefix.len();
        for nonce in from..from + n {
            if (nonce - from) % 16384 == 0 && nonce > from && stop.load(Ordering::Relaxed) {
                return SearchOutcome { solution: None, hashes: nonce - from };
            }
            buf[at..].copy_from_slice(&nonce.to_le_bytes());
            let hash = *blake3::hash(&buf).as_bytes();
            if meets_target(&hash, target) {
                stop.store(true, Ordering::Relaxed);
                return SearchOutcome { solution: Some(Solution { nonce, hash }), hashes: nonce - from + 1 };
            }
        }
        SearchOutcome { solution: None, hashes: n }
    }))
}

/// Searches nonces `start..start+count` on `threads` threads (0 = all cores), SIMD across nonces.
/// Stops at the first solution any thread finds.
pub fn search(prefix: &[u8], start: u64, count: u64, target: &[u8; 32], threads: usize) -> Result<SearchOutcome, SearchError> {
    check_prefix(prefix)?;
    let job = Job::new(prefix, target);
    Ok(on_threads(start, count, threads, |from, n, stop| job.run(from, n, stop)))
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
    check_prefix(prefix)?;
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
        let hashes = job.scan(from, n, below_have_enough, |nonce, hash| {
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

/// A search's constant part: the midstate and the template of the blocks that hold the nonce.
struct Job {
    midstate: [u32; 8],
    /// Blocks from the first one holding a nonce byte to the last, as message words (nonce bytes 0).
    tail: Vec<TailBlock>,
    /// Where the nonce's 8 bytes start, counted from the first tail block.
    nonce_offset: usize,
    target: [u8; 32],
    target_head: u32,
}

struct TailBlock {
    words: [u32; 16],
    block_len: u32,
    flags: u32,
}

impl Job {
    fn new(prefix: &[u8], target: &[u8; 32]) -> Self {
        let message = preimage(prefix, 0);
        let blocks = message.len().div_ceil(64);
        let first_tail = prefix.len() / 64;
        let mut cv = IV;
        for (i, block) in message.chunks(64).enumerate() {
            if i == first_tail {
                break;
            }
            let flags = if i == 0 { CHUNK_START } else { 0 };
            cv = compress_one(&cv, &words_of(block), 64, flags);
        }
        let tail = message
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
        Self {
            midstate: cv,
            tail,
            nonce_offset: prefix.len() - first_tail * 64,
            target: *target,
            target_head: u32::from_be_bytes([target[0], target[1], target[2], target[3]]),
        }
    }

    /// Searches until the first solution (any thread's, through `stop`).
    fn run(&self, start: u64, count: u64, stop: &AtomicBool) -> SearchOutcome {
        let mut solution = None;
        let hashes = self.scan(
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

    /// Hashes nonces `start..start+count` in order, calling `hit` for each solution; stops after a
    /// solution for which `hit` returns true, or when `stop()` does (asked every 1024 batches).
    /// Returns the number of nonces hashed.
    fn scan<S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(&self, start: u64, count: u64, stop: S, hit: H) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F, checked just above.
                return unsafe { self.scan_avx512(start, count, stop, hit) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { self.scan_avx2(start, count, stop, hit) };
            }
        }
        self.scan_lanes::<4, S, H>(start, count, stop, hit)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn scan_avx512<S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(&self, start: u64, count: u64, stop: S, hit: H) -> u64 {
        self.scan_lanes::<16, S, H>(start, count, stop, hit)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn scan_avx2<S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(&self, start: u64, count: u64, stop: S, hit: H) -> u64 {
        self.scan_lanes::<8, S, H>(start, count, stop, hit)
    }

    #[inline(always)]
    fn scan_lanes<const N: usize, S: Fn() -> bool, H: FnMut(u64, [u8; 32]) -> bool>(
        &self,
        start: u64,
        count: u64,
        stop: S,
        mut hit: H,
    ) -> u64 {
        let mut done = 0u64;
        while done < count {
            // Other threads' progress is checked every 1024 batches, not per batch.
            if done % (N as u64 * 1024) == 0 && done > 0 && stop() {
                break;
            }
            let first = start + done;
            let lanes = (count - done).min(N as u64) as usize;
            let heads = self.hash_lanes::<N>(first);
            for lane in 0..lanes {
                // Cheap filter on the hash's first 4 bytes; the full comparison is rare.
                if heads[0][lane].swap_bytes() <= self.target_head {
                    let nonce = first + lane as u64;
                    let hash = hash_bytes(&heads, lane);
                    if meets_target(&hash, &self.target) && hit(nonce, hash) {
                        return done + lane as u64 + 1;
                    }
                }
            }
            done += lanes as u64;
        }
        done
    }

    /// Root hash words of nonces `first..first+N`, one nonce per lane.
    #[inline(always)]
    fn hash_lanes<const N: usize>(&self, first: u64) -> [[u32; N]; 8] {
        let mut cv = [[0u32; N]; 8];
        for (w, c) in cv.iter_mut().zip(self.midstate) {
            *w = [c; N];
        }
        for (b, block) in self.tail.iter().enumerate() {
            let mut m = [[0u32; N]; 16];
            for (w, &word) in m.iter_mut().zip(&block.words) {
                *w = [word; N];
            }
            for lane in 0..N {
                // Lanes past the range's end may pass 2^64: they are hashed and ignored.
                let nonce = first.wrapping_add(lane as u64).to_le_bytes();
                for (k, byte) in nonce.iter().enumerate() {
                    let pos = self.nonce_offset + k;
                    if pos / 64 == b {
                        let (word, shift) = ((pos % 64) / 4, (pos % 4) * 8);
                        m[word][lane] |= (*byte as u32) << shift;
                    }
                }
            }
            cv = compress_lanes::<N>(&cv, &m, block.block_len, block.flags);
        }
        cv
    }
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

fn hash_bytes<const N: usize>(cv: &[[u32; N]; 8], lane: usize) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, w) in cv.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&w[lane].to_le_bytes());
    }
    out
}

fn compress_one(cv: &[u32; 8], m: &[u32; 16], block_len: u32, flags: u32) -> [u32; 8] {
    let m1: [[u32; 1]; 16] = m.map(|w| [w]);
    let cv1: [[u32; 1]; 8] = cv.map(|w| [w]);
    compress_lanes::<1>(&cv1, &m1, block_len, flags).map(|w| w[0])
}

#[inline(always)]
fn add<const N: usize>(a: [u32; N], b: [u32; N]) -> [u32; N] {
    let mut r = a;
    for i in 0..N {
        r[i] = a[i].wrapping_add(b[i]);
    }
    r
}

#[inline(always)]
fn xor_rotr<const N: usize>(a: [u32; N], b: [u32; N], n: u32) -> [u32; N] {
    let mut r = a;
    for i in 0..N {
        r[i] = (a[i] ^ b[i]).rotate_right(n);
    }
    r
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn g<const N: usize>(v: &mut [[u32; N]; 16], a: usize, b: usize, c: usize, d: usize, x: [u32; N], y: [u32; N]) {
    v[a] = add(add(v[a], v[b]), x);
    v[d] = xor_rotr(v[d], v[a], 16);
    v[c] = add(v[c], v[d]);
    v[b] = xor_rotr(v[b], v[c], 12);
    v[a] = add(add(v[a], v[b]), y);
    v[d] = xor_rotr(v[d], v[a], 8);
    v[c] = add(v[c], v[d]);
    v[b] = xor_rotr(v[b], v[c], 7);
}

/// The BLAKE3 compression function (chunk counter 0) on N independent states, lane-wise, returning
/// the new chaining values.
#[inline(always)]
fn compress_lanes<const N: usize>(cv: &[[u32; N]; 8], m: &[[u32; N]; 16], block_len: u32, flags: u32) -> [[u32; N]; 8] {
    let mut v = [[0u32; N]; 16];
    v[..8].copy_from_slice(cv);
    for i in 0..4 {
        v[8 + i] = [IV[i]; N];
    }
    v[12] = [0; N];
    v[13] = [0; N];
    v[14] = [block_len; N];
    v[15] = [flags; N];
    for s in &SCHEDULE {
        g(&mut v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
        g(&mut v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
        g(&mut v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
        g(&mut v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
        g(&mut v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
        g(&mut v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
        g(&mut v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
        g(&mut v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    let mut out = [[0u32; N]; 8];
    for i in 0..8 {
        for l in 0..N {
            out[i][l] = v[i][l] ^ v[i + 8][l];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEVER: [u8; 32] = [0; 32];

    #[test]
    fn lane_hashes_equal_blake3_for_every_prefix_length() {
        // Covers the nonce inside one block, straddling two blocks, and prefixes of several blocks.
        for len in (0..=200).chain([1000, MAX_PREFIX_LEN]) {
            let prefix: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
            let job = Job::new(&prefix, &NEVER);
            let start = 0xFFFF_FFFF_FFFF_FFF0u64 - len as u64;
            let lanes4 = job.hash_lanes::<4>(start);
            let lanes16 = job.hash_lanes::<16>(start);
            for lane in 0..4 {
                let want = pow_hash(&prefix, start + lane as u64);
                assert_eq!(hash_bytes(&lanes4, lane), want, "prefix length {len}, lane {lane}");
                assert_eq!(hash_bytes(&lanes16, lane), want, "prefix length {len}, lane {lane}");
            }
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
