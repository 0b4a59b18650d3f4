//! geth's debug tracing (debug_traceTransaction, debug_traceBlockByNumber/Hash, debug_traceCall):
//! a block is re-executed on its parent's state with what it did before its first EVM transaction
//! (the moves before its transactions and its system-module transactions, kept per block by the
//! store) and the dormant accounts its calls were refused at; the transactions asked for run under
//! the tracer geth names (the struct logger by default, callTracer, prestateTracer with diffMode,
//! 4byteTracer, noopTracer), built by revm-inspectors into geth's JSON shapes; and reth's Parity
//! traces (trace_transaction, trace_block, trace_filter) of the same re-execution.

use alloy_primitives::{Address, Bytes, B256, U256};
use alloy_rpc_types_trace::parity::{Action, CallAction, CallOutput, CallType, LocalizedTransactionTrace, TraceOutput, TransactionTrace};
use alloy_rpc_types_trace::geth::{
    CallFrame, DefaultFrame, FourByteFrame, GethDebugBuiltInTracerType, GethDebugTracerType, GethDebugTracingOptions, GethTrace, NoopFrame,
    PreStateFrame, PreStateMode,
};
use revm::context::result::{EVMError, ExecutionResult};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::database::CacheDB;
use revm::handler::{MainBuilder, MainContext};
use revm::{DatabaseCommit, DatabaseRef, InspectCommitEvm, InspectEvm};
use revm::context::ContextTr;
use revm::context_interface::ContextError;
use revm::interpreter::interpreter_types::{Jumps, LoopControl, ReturnData};
use revm::interpreter::Interpreter;
use revm::Inspector;
use revm_inspectors::tracing::{FourByteInspector, TraceLimitBehavior, TraceLimits, TracingInspector, TracingInspectorConfig};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use svc_primitives::SignedTransaction;
use svc_store::{StateAt, Store};

use crate::block::{block_env, cfg_env, tx_env};
use crate::db::StoreDb;
use crate::deadline::{Deadline, DeadlineGuard};
use crate::dormancy::RefusedAt;
use crate::errors::{invalid_tx_text, ChainError};

/// Why a trace could not be made (the RPC layer maps these to error codes).
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The tracer or its configuration is not one this node serves, or does not parse.
    #[error("{0}")]
    Options(String),
    /// The block or transaction is unknown.
    #[error("{0}")]
    NotFound(String),
    /// The block cannot be re-executed (written before the node kept what that needs).
    #[error("{0}")]
    Unavailable(String),
    /// The trace ran past its time or its size limit.
    #[error("{0}")]
    Limit(String),
    #[error(transparent)]
    Chain(#[from] ChainError),
}

impl From<svc_store::StoreError> for TraceError {
    fn from(e: svc_store::StoreError) -> Self {
        TraceError::Chain(e.into())
    }
}

/// What one tracer makes of one transaction.
pub(crate) enum Tracer {
    Default(TracingInspector, alloy_rpc_types_trace::geth::GethDefaultTracingOptions),
    Call(TracingInspector, alloy_rpc_types_trace::geth::CallConfig),
    PreState(TracingInspector, alloy_rpc_types_trace::geth::PreStateConfig),
    FourByte(FourByteInspector),
    Noop,
}

impl Tracer {
    pub(crate) fn new(opts: &GethDebugTracingOptions) -> Result<Self, TraceError> {
        // serde's text may quote the caller's value: only its start is answered.
        let bad = |e: serde_json::Error| TraceError::Options(format!("tracerConfig: {}", excerpt(&e.to_string())));
        Ok(match &opts.tracer {
            None => Tracer::Default(TracingInspector::new(TracingInspectorConfig::from_geth_config(&opts.config)), opts.config.clone()),
            Some(GethDebugTracerType::BuiltInTracer(t)) => match t {
                GethDebugBuiltInTracerType::CallTracer => {
                    let config = opts.tracer_config.clone().into_call_config().map_err(bad)?;
                    Tracer::Call(TracingInspector::new(TracingInspectorConfig::from_geth_call_config(&config)), config)
                }
                GethDebugBuiltInTracerType::PreStateTracer => {
                    let config = opts.tracer_config.clone().into_pre_state_config().map_err(bad)?;
                    Tracer::PreState(TracingInspector::new(TracingInspectorConfig::from_geth_prestate_config(&config)), config)
                }
                GethDebugBuiltInTracerType::FourByteTracer => Tracer::FourByte(FourByteInspector::default()),
                GethDebugBuiltInTracerType::NoopTracer => Tracer::Noop,
                other => return Err(TraceError::Options(format!("tracer {other:?} is not served: use callTracer, prestateTracer, 4byteTracer, noopTracer or the default struct logger"))),
            },
            Some(GethDebugTracerType::JsTracer(_)) => {
                return Err(TraceError::Options("JavaScript tracers are not served: use callTracer, prestateTracer, 4byteTracer, noopTracer or the default struct logger".into()))
            }
        })
    }
}

/// At most the first 64 characters of a text taken from the request, for an error message (an
/// option may be megabytes long; the answer never echoes it whole).
fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 64;
    match text.char_indices().nth(MAX_CHARS) {
        None => text.to_string(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

/// The default time a trace may take (geth's default tracer timeout) and the most it may be given.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
pub const MAX_TIMEOUT: Duration = Duration::from_secs(60);
/// Opcode steps one request may record with the struct logger (about 250 bytes of JSON each).
pub const MAX_STRUCT_LOG_STEPS: u64 = 500_000;

/// What one struct log step carries, from the tracing options: its JSON size follows from these.
#[derive(Debug, Clone, Copy)]
struct StructLogShape {
    stack: bool,
    memory: bool,
    storage: bool,
    return_data: bool,
    /// geth's `limit`: steps past it in a transaction are not written.
    limit: Option<u64>,
}

/// The JSON of a step without stack, memory, storage and return data: pc, op, gas, gasCost, depth, refund.
const STEP_JSON_BYTES: u64 = 100;
/// A memory word as the struct logger writes it: 64 hex digits, quoted, and a comma.
const MEMORY_WORD_JSON_BYTES: u64 = 67;
/// A storage entry: two quoted 0x-prefixed words, a colon and a comma.
const STORAGE_ENTRY_JSON_BYTES: u64 = 138;

/// What one tracing request may spend: a deadline for all of it, steps for the struct logger, and
/// the bytes of its reply (the struct logger's steps counted as they are made, with their stack,
/// memory and storage snapshots; the other tracers' recordings within the same bound).
pub struct TraceBudget {
    deadline: Instant,
    timeout: Duration,
    max_steps: u64,
    steps: Cell<u64>,
    max_bytes: u64,
    bytes: Cell<u64>,
    shape: Option<StructLogShape>,
    exceeded: RefCell<Option<String>>,
}

impl TraceBudget {
    /// The budget of a request under `opts`, whose reply may take `max_bytes` (0: no limit).
    pub fn new(opts: &GethDebugTracingOptions, max_bytes: usize) -> Result<Self, TraceError> {
        let timeout = match &opts.timeout {
            None => DEFAULT_TIMEOUT,
            Some(text) => go_duration(text).ok_or_else(|| TraceError::Options(format!("timeout {:?} is not a duration such as \"5s\" or \"500ms\"", excerpt(text))))?,
        };
        if timeout > MAX_TIMEOUT {
            return Err(TraceError::Options(format!("timeout {timeout:?} is above the most a trace may take ({MAX_TIMEOUT:?})")));
        }
        let max_steps = if opts.tracer.is_none() { MAX_STRUCT_LOG_STEPS } else { u64::MAX };
        let c = &opts.config;
        let shape = opts.tracer.is_none().then(|| StructLogShape {
            stack: c.is_stack_enabled(),
            memory: c.is_memory_enabled(),
            storage: c.is_storage_enabled(),
            return_data: c.is_return_data_enabled(),
            limit: c.limit.filter(|l| *l != 0),
        });
        Ok(Self {
            deadline: Instant::now() + timeout,
            timeout,
            max_steps,
            steps: Cell::new(0),
            max_bytes: if max_bytes == 0 { u64::MAX } else { max_bytes as u64 },
            bytes: Cell::new(0),
            shape,
            exceeded: RefCell::new(None),
        })
    }

    /// Why the trace was stopped, if it was.
    fn exceeded(&self) -> Option<String> {
        self.exceeded.borrow().clone()
    }

    fn check_time(&self) -> Result<(), TraceError> {
        if Instant::now() > self.deadline {
            return Err(TraceError::Limit(format!("execution timeout: the trace took more than {:?}", self.timeout)));
        }
        Ok(())
    }

    /// What the recordings of the tracers other than the struct logger may hold.
    fn recording_limits(&self) -> TraceLimits {
        let bytes = usize::try_from(self.max_bytes).ok();
        TraceLimits::default().set_max_recorded_bytes(bytes).set_behavior(TraceLimitBehavior::Halt)
    }

    /// The error of a reply past the byte limit.
    fn too_large(&self) -> String {
        match self.shape {
            Some(_) => format!(
                "response too large: the struct log exceeds the reply limit of {} bytes; trace fewer transactions, set \"limit\" or \"disableStack\", or use callTracer",
                self.max_bytes
            ),
            None => format!("response too large: the trace exceeds the reply limit of {} bytes", self.max_bytes),
        }
    }
}

/// A Go duration as geth's `timeout` takes it: a number and a unit (ns, us, ms, s, m, h), e.g. "1.5s", "300ms".
fn go_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| c.is_ascii_alphabetic() || c == 'µ')?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let seconds = match unit {
        "ns" => value / 1e9,
        "us" | "µs" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(seconds).ok()
}

/// Hex digits of a stack word as the struct logger writes it (0x-prefixed, no leading zeros).
fn hex_digits(v: &U256) -> u64 {
    (v.bit_len() as u64).div_ceil(4).max(1)
}

/// Stops a traced execution past the budget's deadline, step limit or reply size (the request then
/// fails); one guard watches one transaction.
struct BudgetGuard<'a> {
    budget: &'a TraceBudget,
    /// The struct log's steps of this transaction so far (geth's `limit` counts per transaction).
    logged: u64,
    /// The storage slots each contract's struct log steps have shown so far: an SLOAD or SSTORE
    /// step carries all of them.
    slots: HashMap<Address, HashSet<U256>>,
}

impl<'a> BudgetGuard<'a> {
    fn new(budget: &'a TraceBudget) -> Self {
        Self { budget, logged: 0, slots: HashMap::new() }
    }

    /// The bytes this step adds to the struct log's JSON.
    fn step_bytes(&mut self, shape: StructLogShape, interp: &Interpreter) -> u64 {
        if shape.limit.is_some_and(|limit| self.logged >= limit) {
            return 0;
        }
        self.logged += 1;
        let mut n = STEP_JSON_BYTES;
        let stack = interp.stack.data();
        if shape.stack {
            n += 10 + stack.iter().map(|v| 5 + hex_digits(v)).sum::<u64>();
        }
        if shape.memory {
            n += 11 + (interp.memory.len() as u64).div_ceil(32) * MEMORY_WORD_JSON_BYTES;
        }
        if shape.return_data {
            n += 18 + 2 * interp.return_data.buffer().len() as u64;
        }
        let op = interp.bytecode.opcode();
        if shape.storage && (op == revm::bytecode::opcode::SLOAD || op == revm::bytecode::opcode::SSTORE) {
            if let Some(key) = stack.last() {
                let seen = self.slots.entry(interp.input.target_address).or_default();
                seen.insert(*key);
                n += 12 + seen.len() as u64 * STORAGE_ENTRY_JSON_BYTES;
            }
        }
        n
    }
}

impl<CTX: ContextTr> Inspector<CTX> for BudgetGuard<'_> {
    fn step(&mut self, interp: &mut Interpreter, context: &mut CTX) {
        let b = self.budget;
        let n = b.steps.get() + 1;
        b.steps.set(n);
        if let Some(shape) = b.shape {
            let bytes = b.bytes.get().saturating_add(self.step_bytes(shape, interp));
            b.bytes.set(bytes);
        }
        let why = if n > b.max_steps {
            Some(format!("the struct logger's trace has more than {} steps: trace fewer transactions, set \"limit\", or use callTracer", b.max_steps))
        } else if b.bytes.get() > b.max_bytes {
            Some(b.too_large())
        } else if n % 1024 == 0 && Instant::now() > b.deadline {
            Some(format!("execution timeout: the trace took more than {:?}", b.timeout))
        } else {
            None
        };
        if let Some(why) = why {
            *b.exceeded.borrow_mut() = Some(why.clone());
            if context.error().is_ok() {
                *context.error() = Err(ContextError::Custom(why));
            }
            interp.bytecode.action().take();
            interp.bytecode.reset_action();
            interp.halt_fatal();
        }
    }
}

/// The database a traced block runs on: its parent's state with what came before its EVM transactions.
type TraceDb<'a> = CacheDB<StoreDb<'a>>;

fn evm_error<E: std::fmt::Display>(e: EVMError<E>, sender: Address) -> ChainError {
    match e {
        EVMError::Transaction(t) => ChainError::Invalid(invalid_tx_text(&t, sender)),
        other => ChainError::Evm(other.to_string()),
    }
}

/// Runs `tx` under `tracer` on `db` (committing its changes) and returns geth's trace of it.
pub(crate) fn traced<DB: DatabaseRef>(
    db: &mut CacheDB<DB>,
    block: BlockEnv,
    cfg: CfgEnv,
    env: TxEnv,
    refused: &[Address],
    tracer: Tracer,
    budget: &TraceBudget,
) -> Result<GethTrace, TraceError>
where
    DB::Error: std::fmt::Display,
{
    budget.check_time()?;
    // What a tracer records is kept within the reply's limit; past it the trace fails.
    let limits = budget.recording_limits();
    let stopped = |e: ChainError| match budget.exceeded() {
        Some(why) => TraceError::Limit(why),
        None if e.to_string().contains("trace recorded byte limit exceeded") => TraceError::Limit(budget.too_large()),
        None => TraceError::Chain(e),
    };
    let gas_limit = env.gas_limit;
    let sender = env.caller;
    macro_rules! build {
        ($db:expr) => {
            Context::mainnet().with_db($db).with_block(block.clone()).with_cfg(cfg.clone())
        };
    }
    Ok(match tracer {
        Tracer::Noop => {
            let mut evm = build!(&mut *db).build_mainnet_with_inspector((RefusedAt(refused), BudgetGuard::new(budget)));
            evm.inspect_tx_commit(env).map_err(|e| stopped(evm_error(e, sender)))?;
            NoopFrame::default().into()
        }
        Tracer::FourByte(inspector) => {
            let mut evm = build!(&mut *db).build_mainnet_with_inspector((inspector, (RefusedAt(refused), BudgetGuard::new(budget))));
            evm.inspect_tx_commit(env).map_err(|e| stopped(evm_error(e, sender)))?;
            FourByteFrame::from(&evm.inspector.0).into()
        }
        Tracer::Default(inspector, config) => {
            let mut evm = build!(&mut *db).build_mainnet_with_inspector((inspector.with_limits(limits), (RefusedAt(refused), BudgetGuard::new(budget))));
            let result = evm.inspect_tx_commit(env).map_err(|e| stopped(evm_error(e, sender)))?;
            let (inspector, _) = std::mem::replace(&mut evm.inspector, (TracingInspector::new(TracingInspectorConfig::none()), (RefusedAt(&[]), BudgetGuard::new(budget))));
            let output = output_of(&result);
            let frame: DefaultFrame = inspector.with_transaction_gas_limit(gas_limit).into_geth_builder().geth_traces(result.tx_gas_used(), output, config);
            frame.into()
        }
        Tracer::Call(inspector, config) => {
            let mut evm = build!(&mut *db).build_mainnet_with_inspector((inspector.with_limits(limits), (RefusedAt(refused), BudgetGuard::new(budget))));
            let result = evm.inspect_tx_commit(env).map_err(|e| stopped(evm_error(e, sender)))?;
            let (inspector, _) = std::mem::replace(&mut evm.inspector, (TracingInspector::new(TracingInspectorConfig::none()), (RefusedAt(&[]), BudgetGuard::new(budget))));
            let frame: CallFrame = inspector.with_transaction_gas_limit(gas_limit).into_geth_builder().geth_call_traces(config, result.tx_gas_used());
            frame.into()
        }
        Tracer::PreState(inspector, config) => {
            let mut evm = build!(&mut *db).build_mainnet_with_inspector((inspector.with_limits(limits), (RefusedAt(refused), BudgetGuard::new(budget))));
            let outcome = evm.inspect_tx(env).map_err(|e| stopped(evm_error(e, sender)))?;
            let (inspector, _) = std::mem::replace(&mut evm.inspector, (TracingInspector::new(TracingInspectorConfig::none()), (RefusedAt(&[]), BudgetGuard::new(budget))));
            drop(evm);
            let frame: PreStateFrame = inspector
                .with_transaction_gas_limit(gas_limit)
                .into_geth_builder()
                .geth_prestate_traces(&outcome, &config, &*db)
                .map_err(|e| ChainError::Evm(e.to_string()))?;
            db.commit(outcome.state);
            frame.into()
        }
    })
}

fn output_of(result: &ExecutionResult) -> Bytes {
    match result {
        ExecutionResult::Success { output, .. } => output.data().clone(),
        ExecutionResult::Revert { output, .. } => output.clone(),
        _ => Bytes::new(),
    }
}

/// A transaction a system module decided: no EVM ran it, so its trace is the call as its receipt
/// records it (no inner calls, no opcodes).
fn system_trace(tx: &SignedTransaction, sender: Address, gas_used: u64, success: bool, opts: &GethDebugTracingOptions) -> Result<GethTrace, TraceError> {
    Ok(match Tracer::new(opts)? {
        Tracer::Call(..) => CallFrame {
            from: sender,
            to: tx.to(),
            value: Some(tx.value()),
            gas: U256::from(tx.gas_limit()),
            gas_used: U256::from(gas_used),
            input: tx.input().clone(),
            error: (!success).then(|| "execution reverted".to_string()),
            typ: "CALL".to_string(),
            ..Default::default()
        }
        .into(),
        Tracer::Default(..) => DefaultFrame { failed: !success, gas: gas_used, ..Default::default() }.into(),
        Tracer::PreState(_, config) => {
            if config.is_diff_mode() {
                PreStateFrame::Diff(Default::default()).into()
            } else {
                PreStateFrame::Default(PreStateMode::default()).into()
            }
        }
        Tracer::FourByte(_) => FourByteFrame::default().into(),
        Tracer::Noop => NoopFrame::default().into(),
    })
}

/// geth's traces of block `number`'s transactions (all, or the one at `only`), each with its hash.
/// The reply may take `max_bytes` (0: no limit).
pub fn trace_block(store: &Store, chain_id: u64, number: u64, only: Option<usize>, opts: &GethDebugTracingOptions, max_bytes: usize) -> Result<Vec<(B256, GethTrace)>, TraceError> {
    Tracer::new(opts)?;
    let budget = TraceBudget::new(opts, max_bytes)?;
    let traced = replay_block(
        store,
        chain_id,
        number,
        only,
        &budget,
        |tx, sender, gas_used, success| system_trace(tx, sender, gas_used, success, opts),
        |db, block, cfg, env, refused| traced(db, block, cfg, env, refused, Tracer::new(opts)?, &budget),
    )?;
    Ok(traced.txs.into_iter().map(|t| (t.hash, t.trace)).collect())
}

/// One transaction of a replayed block with what its tracer made of it.
struct ReplayedTx<T> {
    hash: B256,
    index: usize,
    trace: T,
}

/// A replayed block: its hash and the transactions traced.
struct Replayed<T> {
    hash: B256,
    txs: Vec<ReplayedTx<T>>,
}

/// Re-executes block `number` on its parent's state (with what came before its EVM transactions)
/// up to the transaction at `only` (or all), within `budget`'s time: the transactions wanted run
/// under `evm` (system-module transactions, which no EVM ran, under `system`), the others untraced.
fn replay_block<T>(
    store: &Store,
    chain_id: u64,
    number: u64,
    only: Option<usize>,
    budget: &TraceBudget,
    mut system: impl FnMut(&SignedTransaction, Address, u64, bool) -> Result<T, TraceError>,
    mut evm: impl FnMut(&mut TraceDb<'_>, BlockEnv, CfgEnv, TxEnv, &[Address]) -> Result<T, TraceError>,
) -> Result<Replayed<T>, TraceError> {
    if number == 0 {
        return Err(TraceError::NotFound("genesis is not traceable".into()));
    }
    let view = store.view();
    let stored = view.block(number)?.ok_or_else(|| TraceError::NotFound(format!("block #{number} not found")))?;
    let header = stored.header;
    let body = view.body(number)?.ok_or_else(|| TraceError::NotFound(format!("block #{number} not found")))?;
    let receipts = view.receipts(number)?.unwrap_or_default();
    let inputs = view
        .trace_inputs(number)?
        .ok_or_else(|| TraceError::Unavailable(format!("block #{number} was written before this node kept what re-executing it needs: it cannot be traced")))?;
    let state = StateAt::at_block(&view, number - 1)?;
    let mut db: TraceDb<'_> = CacheDB::new(StoreDb { state });
    for (address, nonce, balance) in &inputs.accounts {
        let mut info = db.basic_ref(*address).map_err(|e| ChainError::Evm(e.to_string()))?.unwrap_or_default();
        info.nonce = *nonce;
        info.balance = *balance;
        db.insert_account_info(*address, info);
    }
    let last = only.map_or(body.txs.len(), |i| i + 1);
    let mut out = Vec::new();
    let mut cumulative = 0u64;
    for (index, (raw, sender)) in body.txs.iter().zip(&body.senders).enumerate().take(last) {
        let tx = SignedTransaction::decode(raw).map_err(|e| ChainError::Invalid(format!("block #{number} transaction {index}: {e}")))?;
        let receipt = receipts.get(index);
        let gas_used = receipt.map_or(0, |r| r.cumulative_gas_used - cumulative);
        cumulative = receipt.map_or(cumulative, |r| r.cumulative_gas_used);
        let wanted = only.is_none_or(|i| i == index);
        if (index as u32) < inputs.system_txs {
            // Already in the state the EVM transactions start from.
            if wanted {
                let trace = system(&tx, *sender, gas_used, receipt.is_some_and(|r| r.success))?;
                out.push(ReplayedTx { hash: tx.hash, index, trace });
            }
            continue;
        }
        let env = tx_env(&tx, *sender);
        budget.check_time()?;
        if wanted {
            let trace = evm(&mut db, block_env(&header), cfg_env(chain_id), env, &inputs.refused)?;
            out.push(ReplayedTx { hash: tx.hash, index, trace });
        } else {
            // A transaction before the one asked for runs untraced, within the trace's timeout.
            let deadline = Deadline::after(budget.deadline.saturating_duration_since(Instant::now()).max(Duration::from_nanos(1)));
            let mut evm = Context::mainnet()
                .with_db(&mut db)
                .with_block(block_env(&header))
                .with_cfg(cfg_env(chain_id))
                .build_mainnet_with_inspector((RefusedAt(&inputs.refused), DeadlineGuard(&deadline)));
            let result = evm.inspect_tx_commit(env);
            if deadline.stopped() {
                return Err(TraceError::Limit(format!("execution timeout: the trace took more than {:?}", budget.timeout)));
            }
            result.map_err(|e| evm_error(e, *sender))?;
        }
    }
    Ok(Replayed { hash: stored.hash, txs: out })
}

/// The options the Parity and Otterscan traces are budgeted under: the call tracer's (no struct
/// log), with the debug tracers' default timeout.
fn parity_budget_options() -> GethDebugTracingOptions {
    GethDebugTracingOptions { tracer: Some(GethDebugTracerType::BuiltInTracer(GethDebugBuiltInTracerType::CallTracer)), ..Default::default() }
}

/// Runs `env` under revm-inspectors' Parity tracer on `db` (committing its changes): the
/// transaction's traces, top call first, in call order.
fn parity_traced<DB: DatabaseRef>(db: &mut CacheDB<DB>, block: BlockEnv, cfg: CfgEnv, env: TxEnv, refused: &[Address], budget: &TraceBudget) -> Result<Vec<TransactionTrace>, TraceError>
where
    DB::Error: std::fmt::Display,
{
    budget.check_time()?;
    let stopped = |e: ChainError| match budget.exceeded() {
        Some(why) => TraceError::Limit(why),
        None if e.to_string().contains("trace recorded byte limit exceeded") => TraceError::Limit(budget.too_large()),
        None => TraceError::Chain(e),
    };
    let sender = env.caller;
    let inspector = TracingInspector::new(TracingInspectorConfig::default_parity()).with_limits(budget.recording_limits());
    let mut evm = Context::mainnet().with_db(&mut *db).with_block(block).with_cfg(cfg).build_mainnet_with_inspector((inspector, (RefusedAt(refused), BudgetGuard::new(budget))));
    evm.inspect_tx_commit(env).map_err(|e| stopped(evm_error(e, sender)))?;
    let (inspector, _) = std::mem::replace(&mut evm.inspector, (TracingInspector::new(TracingInspectorConfig::none()), (RefusedAt(&[]), BudgetGuard::new(budget))));
    // The top call's gas is what the frame had (the limit less the intrinsic cost), as reth answers it.
    Ok(inspector.into_parity_builder().into_transaction_traces())
}

/// A system-module transaction's Parity trace: the call as its receipt records it (as its
/// debug trace is); a failed one is marked "Reverted", with its result kept, as a reverted EVM
/// call's is.
fn system_parity_trace(tx: &SignedTransaction, sender: Address, gas_used: u64, success: bool) -> Vec<TransactionTrace> {
    let action = Action::Call(CallAction {
        from: sender,
        call_type: CallType::Call,
        gas: tx.gas_limit(),
        input: tx.input().clone(),
        to: tx.to().unwrap_or_default(),
        value: tx.value(),
    });
    let result = Some(TraceOutput::Call(CallOutput { gas_used, output: Bytes::new() }));
    let error = (!success).then(|| "Reverted".to_string());
    vec![TransactionTrace { action, error, result, subtraces: 0, trace_address: Vec::new() }]
}

/// Parity's `trace_block` (all transactions) or `trace_transaction` (the one at `only`) of block
/// `number`: every call, creation and self-destruct of its transactions, with their places.
pub fn parity_trace_block(store: &Store, chain_id: u64, number: u64, only: Option<usize>, max_bytes: usize) -> Result<Vec<LocalizedTransactionTrace>, TraceError> {
    let budget = TraceBudget::new(&parity_budget_options(), max_bytes)?;
    parity_block(store, chain_id, number, only, &budget)
}

fn parity_block(store: &Store, chain_id: u64, number: u64, only: Option<usize>, budget: &TraceBudget) -> Result<Vec<LocalizedTransactionTrace>, TraceError> {
    let replayed = replay_block(store, chain_id, number, only, budget, |tx, sender, gas_used, success| Ok(system_parity_trace(tx, sender, gas_used, success)), |db, block, cfg, env, refused| {
        parity_traced(db, block, cfg, env, refused, budget)
    })?;
    let block_hash = replayed.hash;
    Ok(replayed
        .txs
        .into_iter()
        .flat_map(|t| {
            t.trace.into_iter().map(move |trace| LocalizedTransactionTrace {
                trace,
                block_hash: Some(block_hash),
                block_number: Some(number),
                transaction_hash: Some(t.hash),
                transaction_position: Some(t.index as u64),
            })
        })
        .collect())
}

/// What Parity's `trace_filter` asks for: blocks `from_block..=to_block`, senders, receivers
/// (an empty list matches any), traces to skip and the most to answer.
pub struct TraceFilter {
    pub from_block: u64,
    pub to_block: u64,
    pub from_addresses: Vec<Address>,
    pub to_addresses: Vec<Address>,
    pub after: usize,
    pub count: usize,
}

/// Parity's `trace_filter`: the traces of the filter's blocks whose sender (caller, creator,
/// self-destructing contract) is in `from_addresses` and whose receiver (callee, created contract,
/// self-destruct beneficiary) is in `to_addresses`, skipping the first `after`, at most `count`;
/// one budget (the debug tracers' default timeout, the reply limit) for all of it.
pub fn parity_trace_filter(store: &Store, chain_id: u64, filter: &TraceFilter, max_bytes: usize) -> Result<Vec<LocalizedTransactionTrace>, TraceError> {
    let budget = TraceBudget::new(&parity_budget_options(), max_bytes)?;
    let matches = |t: &TransactionTrace| {
        let (from, to) = match &t.action {
            Action::Call(c) => (Some(c.from), Some(c.to)),
            Action::Create(c) => (Some(c.from), t.result.as_ref().and_then(|r| match r {
                TraceOutput::Create(o) => Some(o.address),
                TraceOutput::Call(_) => None,
            })),
            Action::Selfdestruct(s) => (Some(s.address), Some(s.refund_address)),
            Action::Reward(r) => (None, Some(r.author)),
        };
        let hit = |list: &[Address], a: Option<Address>| list.is_empty() || a.is_some_and(|a| list.contains(&a));
        hit(&filter.from_addresses, from) && hit(&filter.to_addresses, to)
    };
    let mut skipped = 0usize;
    let mut out = Vec::new();
    for number in filter.from_block.max(1)..=filter.to_block {
        if out.len() >= filter.count {
            break;
        }
        let has_txs = store.view().body(number)?.is_some_and(|b| !b.txs.is_empty());
        if !has_txs {
            continue;
        }
        for trace in parity_block(store, chain_id, number, None, &budget)? {
            if !matches(&trace.trace) {
                continue;
            }
            if skipped < filter.after {
                skipped += 1;
                continue;
            }
            if out.len() < filter.count {
                out.push(trace);
            }
        }
    }
    Ok(out)
}

/// A value transfer or creation inside a transaction (the explorer's internal transactions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalTx {
    pub tx_index: u32,
    pub tx_hash: B256,
    /// Its place in the transaction's call tree (child indexes from the top call).
    pub trace_address: Vec<u32>,
    /// call, create, create2 or selfdestruct.
    pub kind: &'static str,
    pub from: Address,
    /// The callee, the created contract, or the self-destruct's beneficiary.
    pub to: Address,
    pub value: U256,
    pub gas: u64,
    pub gas_used: u64,
    /// Why the frame failed (its changes were undone).
    pub error: Option<String>,
}

/// The internal transactions of block `number`: every frame below a transaction's top call that
/// moves value (CALL, CALLCODE), creates a contract or self-destructs, from the block's call traces.
pub fn internal_transactions(store: &Store, chain_id: u64, number: u64, max_bytes: usize) -> Result<Vec<InternalTx>, TraceError> {
    internal_transactions_of(store, chain_id, number, None, max_bytes)
}

/// The internal transactions of block `number`'s transaction at `only` (Otterscan's internal
/// operations), or of all its transactions.
pub fn internal_transactions_of(store: &Store, chain_id: u64, number: u64, only: Option<usize>, max_bytes: usize) -> Result<Vec<InternalTx>, TraceError> {
    let opts = GethDebugTracingOptions { tracer: Some(GethDebugTracerType::BuiltInTracer(GethDebugBuiltInTracerType::CallTracer)), ..Default::default() };
    let traces = trace_block(store, chain_id, number, only, &opts, max_bytes)?;
    let first = only.unwrap_or(0);
    let mut out = Vec::new();
    for (index, (hash, trace)) in traces.into_iter().enumerate() {
        let GethTrace::CallTracer(top) = trace else { continue };
        let mut path = Vec::new();
        walk(&top, (first + index) as u32, hash, &mut path, &mut out);
    }
    Ok(out)
}

fn walk(frame: &CallFrame, tx_index: u32, tx_hash: B256, path: &mut Vec<u32>, out: &mut Vec<InternalTx>) {
    for (i, child) in frame.calls.iter().enumerate() {
        path.push(i as u32);
        let value = child.value.unwrap_or_default();
        let kind = match child.typ.as_str() {
            "CALL" | "CALLCODE" if !value.is_zero() => Some("call"),
            "CREATE" => Some("create"),
            "CREATE2" => Some("create2"),
            "SELFDESTRUCT" => Some("selfdestruct"),
            _ => None,
        };
        if let (Some(kind), Some(to)) = (kind, child.to) {
            out.push(InternalTx {
                tx_index,
                tx_hash,
                trace_address: path.clone(),
                kind,
                from: child.from,
                to,
                value,
                gas: child.gas.saturating_to(),
                gas_used: child.gas_used.saturating_to(),
                error: child.error.clone(),
            });
        }
        walk(child, tx_index, tx_hash, path, out);
        path.pop();
    }
}
