//! Nonces per second of the proof-of-work search on each SIMD path this CPU has, next to
//! `search_plain` and to a bare `blake3::hash` loop written here independently of the crate:
//! `cargo run --release -p svc-pow --example pow_rates [seconds per cell]`. Prints only.

use std::hint::black_box;
use std::time::Instant;

use svc_pow::search::{self, SimdPath};

const NEVER: [u8; 32] = [0; 32];

/// Nanoseconds this thread has run on a CPU (Linux), if readable.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split(' ').next()?.parse().ok()
}

/// Million nonces per second of `f(start, count) -> hashed` over about `seconds`: per second of
/// wall time, and per second this thread spent on a CPU (the figure that other work sharing the
/// cores does not lower; meaningful for one-thread cells, which run on this thread).
fn rate(seconds: f64, mut f: impl FnMut(u64, u64) -> u64) -> (f64, f64) {
    let probe = Instant::now();
    f(1 << 40, 200_000);
    let per_s = 200_000.0 / probe.elapsed().as_secs_f64();
    let n = (per_s * seconds) as u64;
    let (t, cpu) = (Instant::now(), thread_cpu_ns());
    let hashed = f(1 << 41, n) as f64;
    let wall = t.elapsed().as_secs_f64();
    let on_cpu = match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => wall,
    };
    (hashed / wall / 1e6, hashed / on_cpu / 1e6)
}

/// The baseline with nothing but the hash: write the nonce, hash, keep one byte so the hash is used.
fn bare_loop(prefix: &[u8], start: u64, count: u64) -> u64 {
    let mut buf = prefix.to_vec();
    buf.extend_from_slice(&[0; 8]);
    let at = prefix.len();
    let mut acc = 0u8;
    for nonce in start..start + count {
        buf[at..].copy_from_slice(&nonce.to_le_bytes());
        acc ^= blake3::hash(&buf).as_bytes()[0];
    }
    black_box(acc);
    count
}

/// The load average (Linux), to tell whether other work shared the cores.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(|_| "unknown".into(), |l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
}

fn main() {
    let seconds: f64 = std::env::args().nth(1).map_or(1.5, |s| s.parse().expect("seconds"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let paths: Vec<&str> = SimdPath::available().iter().map(|p| p.name()).collect();
    println!("paths: {paths:?}; search uses {}; Rust detects {:?}", search::simd_path(), search::cpu_features());
    println!("load average before: {}", load());
    for len in [32usize, 80] {
        let prefix = vec![0x5au8; len];
        let p = &prefix;
        // Alternated, best of 3 each, per CPU-second of this thread: the two loops should tie,
        // and other work on the machine would otherwise decide which one looks faster.
        let (mut bare, mut plain) = (0f64, 0f64);
        for _ in 0..3 {
            bare = bare.max(rate(seconds, |s, n| bare_loop(p, s, n)).1);
            plain = plain.max(rate(seconds, |s, n| search::search_plain(p, s, n, &NEVER, 1).unwrap().hashes).1);
        }
        println!(
            "{len:>4} B  1 thread   per CPU-second, best of 3: bare blake3::hash loop {bare:6.2} MH   search_plain {plain:6.2} MH ({:.3}x bare)",
            plain / bare
        );
        for path in SimdPath::available() {
            let (wall, cpu) = rate(seconds, |s, n| search::search_using(path, p, s, n, &NEVER, 1).unwrap().hashes);
            println!(
                "{len:>4} B  1 thread   {:>8} {wall:7.2} MH/s, {cpu:7.2} MH per CPU-second: {:5.2}x search_plain",
                path.name(),
                cpu / plain
            );
        }
        let plain_all = rate(seconds, |s, n| search::search_plain(p, s, n, &NEVER, cores).unwrap().hashes).0;
        let best_1 = rate(seconds, |s, n| search::search(p, s, n, &NEVER, 1).unwrap().hashes).0;
        let best_all = rate(seconds, |s, n| search::search(p, s, n, &NEVER, cores).unwrap().hashes).0;
        println!(
            "{len:>4} B  {cores} threads  wall time: search_plain {plain_all:6.2} MH/s   search {best_all:7.2} MH/s ({:.2}x plain, {:.2}x its 1-thread {best_1:.2})",
            best_all / plain_all,
            best_all / best_1
        );
    }
    println!("load average after: {}", load());
}
