//! geth's RPC EVM timeout (`--rpc.evmtimeout`): eth_call, eth_estimateGas, eth_createAccessList,
//! eth_simulateV1 and the bundler's validation call stop once their request's deadline passes, so
//! no request holds an exec lane thread past it, whatever its gas.

use std::cell::Cell;
use std::time::{Duration, Instant};

use revm::context::ContextTr;
use revm::context_interface::ContextError;
use revm::interpreter::interpreter_types::LoopControl;
use revm::interpreter::Interpreter;
use revm::Inspector;

use crate::errors::ChainError;

/// Opcode steps between two looks at the clock (a look costs about as much as a few cheap opcodes).
const STEPS_PER_CHECK: u32 = 1024;

/// The deadline of one request; a zero timeout means none.
#[derive(Debug)]
pub struct Deadline {
    at: Option<Instant>,
    timeout: Duration,
    steps: Cell<u32>,
    passed: Cell<bool>,
}

impl Deadline {
    /// A deadline `timeout` from now (none for a zero timeout).
    pub fn after(timeout: Duration) -> Self {
        Self { at: (!timeout.is_zero()).then(|| Instant::now() + timeout), timeout, steps: Cell::new(0), passed: Cell::new(false) }
    }

    /// No deadline.
    pub fn none() -> Self {
        Self::after(Duration::ZERO)
    }

    /// Whether the guard stopped an execution at this deadline.
    pub fn stopped(&self) -> bool {
        self.passed.get()
    }

    /// geth's error once the deadline has passed.
    pub fn error(&self) -> ChainError {
        ChainError::Timeout(format!("execution aborted (timeout = {})", go_duration_text(self.timeout)))
    }

    /// Between the runs of one request: an error once the deadline has passed.
    pub fn check(&self) -> Result<(), ChainError> {
        if self.passed.get() || self.at.is_some_and(|at| Instant::now() > at) {
            self.passed.set(true);
            return Err(self.error());
        }
        Ok(())
    }

    fn step(&self) -> bool {
        let Some(at) = self.at else { return false };
        let n = self.steps.get().wrapping_add(1);
        self.steps.set(n);
        if n % STEPS_PER_CHECK == 0 && Instant::now() > at {
            self.passed.set(true);
        }
        self.passed.get()
    }
}

/// A duration as Go prints it, for geth's texts: "5s", "1.5s", "500ms", "1m30s".
pub fn go_duration_text(d: Duration) -> String {
    let ms = d.as_millis();
    if ms == 0 {
        return format!("{}ns", d.as_nanos());
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let seconds = |ms: u128| {
        if ms % 1000 == 0 {
            format!("{}s", ms / 1000)
        } else {
            format!("{}s", format!("{}.{:03}", ms / 1000, ms % 1000).trim_end_matches('0'))
        }
    };
    match (ms / 3_600_000, ms / 60_000 % 60) {
        (0, 0) => seconds(ms),
        (0, m) => format!("{m}m{}", seconds(ms % 60_000)),
        (h, m) => format!("{h}h{m}m{}", seconds(ms % 60_000)),
    }
}

/// Stops the execution it watches once the deadline has passed (the run then fails with the deadline's error).
pub struct DeadlineGuard<'a>(pub &'a Deadline);

impl<CTX: ContextTr> Inspector<CTX> for DeadlineGuard<'_> {
    fn step(&mut self, interp: &mut Interpreter, context: &mut CTX) {
        if self.0.step() {
            if context.error().is_ok() {
                *context.error() = Err(ContextError::Custom("execution aborted: timeout".into()));
            }
            interp.bytecode.action().take();
            interp.bytecode.reset_action();
            interp.halt_fatal();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_go_prints_them() {
        assert_eq!(go_duration_text(Duration::from_secs(5)), "5s");
        assert_eq!(go_duration_text(Duration::from_millis(1500)), "1.5s");
        assert_eq!(go_duration_text(Duration::from_millis(250)), "250ms");
        assert_eq!(go_duration_text(Duration::from_millis(60_000)), "1m0s");
        assert_eq!(go_duration_text(Duration::from_millis(90_500)), "1m30.5s");
    }

    #[test]
    fn no_deadline_never_passes() {
        let d = Deadline::none();
        for _ in 0..10_000 {
            assert!(!d.step());
        }
        assert!(d.check().is_ok());
    }
}
