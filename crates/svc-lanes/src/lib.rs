//! Bounded worker lanes. Each lane is a fixed set of threads with a bounded queue: a job that finds
//! the queue full is refused at once (`Busy`) instead of waiting behind work it cannot see. Block
//! production has a lane of its own, so no read can starve it; heavy reads (calls, gas estimates,
//! log queries) share lanes whose size bounds the CPU they take from everything else.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread;

use parking_lot::{Condvar, Mutex};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// A job refused because its lane's queue is full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Busy {
    pub lane: &'static str,
    /// Jobs waiting when this one was refused (the lane's queue limit).
    pub waiting: usize,
    pub threads: usize,
}

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "server busy: {} requests of kind {} are already waiting for {} worker thread(s); retry later", self.waiting, self.lane, self.threads)
    }
}

impl std::error::Error for Busy {}

/// The size of a lane: worker threads and the most jobs that may wait for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneSize {
    pub threads: usize,
    pub max_waiting: usize,
}

/// Counters of a lane, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaneStats {
    pub threads: usize,
    pub max_waiting: usize,
    pub waiting: usize,
    pub running: usize,
    /// Jobs queued since start. Counted when `submit` accepts the job, so a caller that awaited its
    /// job reads a count that already includes it (`completed` moves after the job has answered).
    pub accepted: u64,
    pub completed: u64,
    pub refused: u64,
}

struct Shared {
    queue: Mutex<VecDeque<Job>>,
    ready: Condvar,
    running: AtomicUsize,
    accepted: AtomicU64,
    completed: AtomicU64,
    refused: AtomicU64,
}

/// A fixed pool of named threads with a bounded queue. Threads live as long as the process.
pub struct Lane {
    name: &'static str,
    size: LaneSize,
    shared: Arc<Shared>,
}

impl Lane {
    /// Starts `size.threads` threads (at least one) named `svc-<name>-<i>`.
    pub fn new(name: &'static str, size: LaneSize) -> Self {
        Self::with_niceness(name, size, 0)
    }

    /// A lane for background work: its threads run `nice` steps nicer than the process (Linux's thread niceness, up to 19), so
    /// on a busy machine the scheduler gives the block lane and the event loop their CPU first.
    pub fn background(name: &'static str, size: LaneSize, nice: i32) -> Self {
        Self::with_niceness(name, size, nice)
    }

    fn with_niceness(name: &'static str, size: LaneSize, nice: i32) -> Self {
        let size = LaneSize { threads: size.threads.max(1), max_waiting: size.max_waiting };
        let shared = Arc::new(Shared {
            queue: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            running: AtomicUsize::new(0),
            accepted: AtomicU64::new(0),
            completed: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        });
        for i in 0..size.threads {
            let shared = shared.clone();
            thread::Builder::new()
                .name(format!("svc-{name}-{i}"))
                .spawn(move || {
                    if nice != 0 {
                        lower_priority(nice);
                    }
                    work(&shared)
                })
                .expect("a lane's worker thread starts");
        }
        Self { name, size, shared }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Queues `job`, or refuses it when `max_waiting` jobs are already waiting.
    pub fn submit(&self, job: impl FnOnce() + Send + 'static) -> Result<(), Busy> {
        let mut queue = self.shared.queue.lock();
        if queue.len() >= self.size.max_waiting {
            self.shared.refused.fetch_add(1, Ordering::Relaxed);
            return Err(Busy { lane: self.name, waiting: queue.len(), threads: self.size.threads });
        }
        queue.push_back(Box::new(job));
        self.shared.accepted.fetch_add(1, Ordering::Relaxed);
        drop(queue);
        self.shared.ready.notify_one();
        Ok(())
    }

    pub fn stats(&self) -> LaneStats {
        LaneStats {
            threads: self.size.threads,
            max_waiting: self.size.max_waiting,
            waiting: self.shared.queue.lock().len(),
            running: self.shared.running.load(Ordering::Relaxed),
            accepted: self.shared.accepted.load(Ordering::Relaxed),
            completed: self.shared.completed.load(Ordering::Relaxed),
            refused: self.shared.refused.load(Ordering::Relaxed),
        }
    }
}

fn work(shared: &Shared) {
    loop {
        let job = {
            let mut queue = shared.queue.lock();
            loop {
                if let Some(job) = queue.pop_front() {
                    break job;
                }
                shared.ready.wait(&mut queue);
            }
        };
        shared.running.fetch_add(1, Ordering::Relaxed);
        // A panicking job must not take its worker with it: the caller sees its channel dropped.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        shared.running.fetch_sub(1, Ordering::Relaxed);
        shared.completed.fetch_add(1, Ordering::Relaxed);
    }
}

/// Lowers the calling thread's scheduling priority by `nice` steps (best effort: an unprivileged process
/// may always lower its own; where the call is refused the thread keeps the default).
#[cfg(target_os = "linux")]
fn lower_priority(nice: i32) {
    // SAFETY: gettid and setpriority take plain integers and touch no memory of ours. On Linux,
    // PRIO_PROCESS with a thread id sets that one thread's niceness.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let current = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (current + nice).min(19));
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority(_nice: i32) {}

/// The niceness of the explorer's backfill lane: it re-executes stored blocks for their internal
/// transactions, work that may lag while blocks are being made and catches up when they are not.
pub const BACKFILL_NICENESS: i32 = 10;

/// The node's lanes, sized once per process.
pub struct Lanes {
    /// Block execution and commit: one thread that nothing else uses.
    pub block: Lane,
    /// eth_call, eth_estimateGas (and traces): EVM runs for readers.
    pub exec: Lane,
    /// eth_getLogs and other range scans of stored blocks.
    pub logs: Lane,
    /// Explorer index backfill of stored blocks.
    pub backfill: Lane,
}

/// Sizes of the reader lanes (the block lane is always one thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneSizes {
    pub exec: LaneSize,
    pub logs: LaneSize,
}

impl Default for LaneSizes {
    fn default() -> Self {
        let cores = thread::available_parallelism().map_or(2, |n| n.get());
        // Readers may use all but one core between them: the block lane and the event loop keep theirs.
        let exec_threads = cores.saturating_sub(1).clamp(1, 8);
        let logs_threads = (cores / 2).clamp(1, 4);
        Self {
            exec: LaneSize { threads: exec_threads, max_waiting: 128 },
            logs: LaneSize { threads: logs_threads, max_waiting: 32 },
        }
    }
}

static LANES: OnceLock<Lanes> = OnceLock::new();

/// Sizes the lanes; only the first call (or first use) decides. Returns whether `sizes` were applied.
pub fn configure(sizes: LaneSizes) -> bool {
    let mut applied = false;
    LANES.get_or_init(|| {
        applied = true;
        build(sizes)
    });
    applied
}

/// The process's lanes (default sizes unless `configure` came first).
pub fn lanes() -> &'static Lanes {
    LANES.get_or_init(|| build(LaneSizes::default()))
}

fn build(sizes: LaneSizes) -> Lanes {
    Lanes {
        block: Lane::new("block", LaneSize { threads: 1, max_waiting: 4 }),
        exec: Lane::new("exec", sizes.exec),
        logs: Lane::new("logs", sizes.logs),
        backfill: Lane::background("backfill", LaneSize { threads: 1, max_waiting: 4 }, BACKFILL_NICENESS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[cfg(target_os = "linux")]
    #[test]
    fn background_lanes_run_at_a_lower_priority() {
        let niceness = || unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::getpriority(libc::PRIO_PROCESS, tid)
        };
        let base = niceness();
        let lane = Lane::background("bg", LaneSize { threads: 1, max_waiting: 2 }, 7);
        let (tx, rx) = mpsc::channel();
        lane.submit(move || tx.send(niceness()).unwrap()).unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), (base + 7).min(19));
        let plain = Lane::new("fg", LaneSize { threads: 1, max_waiting: 2 });
        let (tx, rx) = mpsc::channel();
        plain.submit(move || tx.send(niceness()).unwrap()).unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), base);
    }

    #[test]
    fn runs_jobs_and_refuses_past_the_queue_limit() {
        let lane = Lane::new("test", LaneSize { threads: 1, max_waiting: 2 });
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        lane.submit(move || {
            started_tx.send(()).unwrap();
            gate_rx.recv().unwrap();
        })
        .unwrap();
        started_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let (done_tx, done_rx) = mpsc::channel::<u32>();
        for i in 0..2 {
            let done = done_tx.clone();
            lane.submit(move || done.send(i).unwrap()).unwrap();
        }
        let refused = lane.submit(|| {}).unwrap_err();
        assert_eq!(refused, Busy { lane: "test", waiting: 2, threads: 1 });
        assert!(refused.to_string().starts_with("server busy: 2 requests of kind test"));
        let stats = lane.stats();
        assert_eq!((stats.waiting, stats.running, stats.accepted, stats.refused), (2, 1, 3, 1));
        gate_tx.send(()).unwrap();
        assert_eq!(done_rx.recv_timeout(Duration::from_secs(5)).unwrap(), 0);
        assert_eq!(done_rx.recv_timeout(Duration::from_secs(5)).unwrap(), 1);
        // Room again once the queue drained.
        let (again_tx, again_rx) = mpsc::channel::<()>();
        lane.submit(move || again_tx.send(()).unwrap()).unwrap();
        again_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    }

    #[test]
    fn a_panicking_job_leaves_the_worker_alive() {
        let lane = Lane::new("panics", LaneSize { threads: 1, max_waiting: 4 });
        lane.submit(|| panic!("job fails")).unwrap();
        let (tx, rx) = mpsc::channel::<()>();
        lane.submit(move || tx.send(()).unwrap()).unwrap();
        rx.recv_timeout(Duration::from_secs(5)).unwrap();
    }

    #[test]
    fn a_busy_reader_lane_does_not_delay_the_block_lane() {
        let readers = Lane::new("readers", LaneSize { threads: 1, max_waiting: 64 });
        let block = Lane::new("blk", LaneSize { threads: 1, max_waiting: 4 });
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        readers.submit(move || gate_rx.recv().unwrap()).unwrap();
        for _ in 0..32 {
            readers.submit(|| thread::sleep(Duration::from_millis(50))).unwrap();
        }
        let (tx, rx) = mpsc::channel::<()>();
        block.submit(move || tx.send(()).unwrap()).unwrap();
        rx.recv_timeout(Duration::from_millis(500)).expect("the block lane runs while readers are queued");
        gate_tx.send(()).unwrap();
    }
}
