//! eth_call and eth_estimateGas with geth's semantics.

use alloy_primitives::{Address, Bytes, TxKind, B256, U256};
use revm::context::result::{EVMError, ExecutionResult};
use revm::bytecode::Bytecode;
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::context_interface::transaction::AccessList;
use revm::database::CacheDB;
use revm::handler::{MainBuilder, MainContext};
use revm::InspectEvm;
use revm::DatabaseRef;
use svc_primitives::gas::TX_GAS;
use svc_primitives::{Header, SignedAuthorization};
use svc_store::StateAt;

use crate::block::{block_env, cfg_env, recovered_authorizations};
use crate::db::StoreDb;
use crate::errors::{halt_text, invalid_tx_text, ChainError};
use crate::deadline::{Deadline, DeadlineGuard};
use crate::dormancy::{DormancyCheck, DormancyGuard};
use crate::access_list::AccessListTracer;
use crate::trace::{ValidationTrace, ValidationTracer};

/// geth's estimateGasErrorRatio: stop the search once within 1.5% of the answer.
const ESTIMATE_ERROR_RATIO: f64 = 0.015;
/// Gas kept by a CALL with value for the callee (params.CallStipend).
const CALL_STIPEND: u64 = 2_300;

/// The arguments of eth_call / eth_estimateGas.
#[derive(Debug, Clone, Default)]
pub struct CallRequest {
    pub from: Option<Address>,
    pub to: Option<Address>,
    pub gas: Option<u64>,
    pub gas_price: Option<u128>,
    pub max_fee_per_gas: Option<u128>,
    pub max_priority_fee_per_gas: Option<u128>,
    pub value: Option<U256>,
    pub data: Option<Bytes>,
    pub nonce: Option<u64>,
    pub access_list: Option<AccessList>,
    /// EIP-7702 authorizations: the call runs as a set-code transaction (type 4), the
    /// delegations applied before it (geth's TransactionArgs.AuthorizationList).
    pub authorization_list: Option<Vec<SignedAuthorization>>,
}

/// geth's state override of one account (eth_call's third param): each field given replaces the
/// account's; `state` replaces all of its storage, `state_diff` only the slots listed.
#[derive(Debug, Clone, Default)]
pub struct AccountOverride {
    pub address: Address,
    pub balance: Option<U256>,
    pub nonce: Option<u64>,
    pub code: Option<Bytes>,
    pub state: Option<Vec<(B256, B256)>>,
    pub state_diff: Option<Vec<(B256, B256)>>,
}

/// geth's block overrides (eth_call's fourth param): the block context the call runs in.
#[derive(Debug, Clone, Default)]
pub struct BlockOverride {
    pub number: Option<u64>,
    pub time: Option<u64>,
    pub gas_limit: Option<u64>,
    pub fee_recipient: Option<Address>,
    pub prev_randao: Option<B256>,
    pub base_fee: Option<u64>,
}

/// The state and block overrides of one call (none by default).
#[derive(Debug, Clone, Default)]
pub struct CallOverrides {
    pub state: Vec<AccountOverride>,
    pub block: Option<BlockOverride>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    Success,
    Revert,
    Halt,
}

impl CallStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Revert => "revert",
            Self::Halt => "halt",
        }
    }
}

/// Result of eth_call: output (revert data for reverts), gas used, and geth's error text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    pub status: CallStatus,
    pub output: Bytes,
    pub gas_used: u64,
    pub error: Option<String>,
}

/// Result of eth_estimateGas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EstimateOutcome {
    pub status: CallStatus,
    pub gas: u64,
    pub output: Bytes,
    pub error: Option<String>,
}

/// One execution: an EVM result, or a validation failure with geth's text.
enum Run {
    Executed(ExecutionResult),
    Invalid(String),
}

/// Executes calls on one state; loaded accounts are cached across the runs of an estimate.
struct Caller<'a> {
    db: CacheDB<StoreDb<'a>>,
    header: &'a Header,
    chain_id: u64,
    req: &'a CallRequest,
    /// Dormant accounts at the head: calls into them revert (docs/rent.md).
    dormancy: Option<&'a DormancyCheck<'a>>,
    /// The block context's overrides, if any.
    block_override: Option<BlockOverride>,
    /// The request's RPC EVM timeout: every run stops at it.
    deadline: &'a Deadline,
}

impl<'a> Caller<'a> {
    fn new(state: StateAt<'a>, header: &'a Header, chain_id: u64, req: &'a CallRequest, deadline: &'a Deadline) -> Self {
        Self { db: CacheDB::new(StoreDb { state }), header, chain_id, req, dormancy: None, block_override: None, deadline }
    }

    fn sender(&self) -> Address {
        self.req.from.unwrap_or(Address::ZERO)
    }

    /// Price per gas the caller pays; zero means fees are off (geth's NoBaseFee with no price).
    fn fee_cap(&self) -> u128 {
        self.req.max_fee_per_gas.or(self.req.gas_price).unwrap_or(0)
    }

    /// The block, configuration and transaction of one run at `gas_limit`, or geth's refusal text.
    fn envs(&self, gas_limit: u64) -> Result<(BlockEnv, CfgEnv, TxEnv), String> {
        call_envs(self.header, self.chain_id, self.req, self.block_override.as_ref(), gas_limit)
    }

    fn run(&mut self, gas_limit: u64) -> Result<Run, ChainError> {
        self.deadline.check()?;
        let (block, cfg, tx) = match self.envs(gas_limit) {
            Ok(envs) => envs,
            Err(text) => return Ok(Run::Invalid(text)),
        };
        let sender = self.sender();
        let guard = (DormancyGuard { check: self.dormancy }, DeadlineGuard(self.deadline));
        let mut evm = Context::mainnet().with_db(&mut self.db).with_block(block).with_cfg(cfg).build_mainnet_with_inspector(guard);
        let result = evm.inspect_tx(tx).map(|o| o.result);
        if let Some(failure) = self.dormancy.and_then(|check| check.failure.borrow_mut().take()) {
            return Err(ChainError::Evm(format!("reading dormancy records: {failure}")));
        }
        settle(result, sender, self.deadline)
    }

    /// Applies geth's state and block overrides before the runs that follow.
    fn apply_overrides(&mut self, overrides: &CallOverrides) -> Result<(), ChainError> {
        apply_state_overrides(&mut self.db, &overrides.state)?;
        self.block_override = overrides.block.clone();
        Ok(())
    }

    /// Places `code` at each overridden address for the runs that follow (balance, nonce and storage stay).
    fn override_code(&mut self, overrides: &[(Address, Bytes)]) -> Result<(), ChainError> {
        for (address, code) in overrides {
            let mut info = self.db.basic_ref(*address).map_err(|e| ChainError::Evm(e.to_string()))?.unwrap_or_default();
            let bytecode = Bytecode::new_raw(code.clone());
            info.code_hash = bytecode.hash_slow();
            info.code = Some(bytecode);
            self.db.insert_account_info(*address, info);
        }
        Ok(())
    }

    /// One run at `gas_limit` with the access-list tracer watching.
    fn inspect_access(&mut self, gas_limit: u64, tracer: &mut AccessListTracer) -> Result<Run, ChainError> {
        let (block, cfg, tx) = match self.envs(gas_limit) {
            Ok(envs) => envs,
            Err(text) => return Ok(Run::Invalid(text)),
        };
        let sender = self.sender();
        let mut evm = Context::mainnet().with_db(&mut self.db).with_block(block).with_cfg(cfg).build_mainnet_with_inspector((tracer, DeadlineGuard(self.deadline)));
        settle(evm.inspect_tx(tx).map(|o| o.result), sender, self.deadline)
    }

    /// One run at `gas_limit` with `tracer` watching every frame.
    fn inspect(&mut self, gas_limit: u64, tracer: &mut ValidationTracer) -> Result<Run, ChainError> {
        let (block, cfg, tx) = match self.envs(gas_limit) {
            Ok(envs) => envs,
            Err(text) => return Ok(Run::Invalid(text)),
        };
        let sender = self.sender();
        let mut evm = Context::mainnet().with_db(&mut self.db).with_block(block).with_cfg(cfg).build_mainnet_with_inspector((tracer, DeadlineGuard(self.deadline)));
        settle(evm.inspect_tx(tx).map(|o| o.result), sender, self.deadline)
    }
}

/// geth's state overrides on `db`: balance, nonce and code replaced; storage replaced (`state`) or patched (`stateDiff`).
fn apply_state_overrides(db: &mut CacheDB<StoreDb<'_>>, state: &[AccountOverride]) -> Result<(), ChainError> {
    let db_err = |e: crate::db::StoreDbError| ChainError::Evm(e.to_string());
    for o in state {
        let mut info = db.load_account(o.address).map_err(db_err)?.info.clone();
        if let Some(balance) = o.balance {
            info.balance = balance;
        }
        if let Some(nonce) = o.nonce {
            info.nonce = nonce;
        }
        if let Some(code) = &o.code {
            let bytecode = Bytecode::new_raw(code.clone());
            info.code_hash = bytecode.hash_slow();
            info.code = Some(bytecode);
        }
        db.insert_account_info(o.address, info);
        if let Some(state) = &o.state {
            let storage = state.iter().map(|(k, v)| (U256::from_be_bytes(k.0), U256::from_be_bytes(v.0))).collect();
            db.replace_account_storage(o.address, storage).map_err(db_err)?;
        }
        if let Some(diff) = &o.state_diff {
            for (k, v) in diff {
                db.insert_account_storage(o.address, U256::from_be_bytes(k.0), U256::from_be_bytes(v.0)).map_err(db_err)?;
            }
        }
    }
    Ok(())
}

/// The block, configuration and transaction of one call at `gas_limit`, or geth's refusal text.
fn call_envs(header: &Header, chain_id: u64, req: &CallRequest, block_override: Option<&BlockOverride>, gas_limit: u64) -> Result<(BlockEnv, CfgEnv, TxEnv), String> {
        let sender = req.from.unwrap_or(Address::ZERO);
        let mut block = block_env(header);
        if let Some(o) = block_override {
            if let Some(n) = o.number {
                block.number = U256::from(n);
            }
            if let Some(t) = o.time {
                block.timestamp = U256::from(t);
            }
            if let Some(g) = o.gas_limit {
                block.gas_limit = g;
            }
            if let Some(a) = o.fee_recipient {
                block.beneficiary = a;
            }
            if let Some(r) = o.prev_randao {
                block.prevrandao = Some(r);
            }
            if let Some(f) = o.base_fee {
                block.basefee = f;
            }
        }
        let priced = req.gas_price.is_some_and(|p| p > 0)
            || req.max_fee_per_gas.is_some_and(|p| p > 0)
            || req.max_priority_fee_per_gas.is_some_and(|p| p > 0);
        if !priced {
            // geth lowers the base fee to 0 for unpriced calls so that they still validate.
            block.basefee = 0;
        }
        block.gas_limit = block.gas_limit.max(gas_limit);
        let mut cfg = cfg_env(chain_id);
        cfg.disable_nonce_check = true;
        cfg.disable_eip3607 = true;
        cfg.disable_block_gas_limit = true;
        cfg.tx_chain_id_check = false;

        let mut tx = TxEnv {
            caller: sender,
            gas_limit,
            kind: req.to.map_or(TxKind::Create, TxKind::Call),
            value: req.value.unwrap_or_default(),
            data: req.data.clone().unwrap_or_default(),
            nonce: req.nonce.unwrap_or_default(),
            chain_id: Some(chain_id),
            access_list: req.access_list.clone().unwrap_or_default(),
            ..Default::default()
        };
        if let Some(list) = &req.authorization_list {
            if req.to.is_none() {
                return Err("EIP-7702 transaction cannot be used to create contract".into());
            }
            tx.tx_type = 4;
            tx.authorization_list = recovered_authorizations(list);
            tx.gas_price = req.max_fee_per_gas.or(req.gas_price).unwrap_or(0);
            tx.gas_priority_fee = Some(req.max_priority_fee_per_gas.unwrap_or(0));
        } else if req.max_fee_per_gas.is_some() || req.max_priority_fee_per_gas.is_some() {
            tx.tx_type = 2;
            tx.gas_price = req.max_fee_per_gas.unwrap_or(0);
            tx.gas_priority_fee = Some(req.max_priority_fee_per_gas.unwrap_or(0));
        } else {
            tx.tx_type = if req.access_list.is_some() { 1 } else { 0 };
            tx.gas_price = req.gas_price.unwrap_or(0);
        }
        Ok((block, cfg, tx))
    }

/// An EVM result as a run: executed, refused with geth's text, stopped at the deadline, or a database failure.
fn settle<E: std::fmt::Display>(result: Result<ExecutionResult, EVMError<E>>, sender: Address, deadline: &Deadline) -> Result<Run, ChainError> {
    if deadline.stopped() {
        return Err(deadline.error());
    }
    match result {
        Ok(out) => Ok(Run::Executed(out)),
        Err(EVMError::Transaction(e)) => Ok(Run::Invalid(invalid_tx_text(&e, sender))),
        Err(EVMError::Database(e)) => Err(ChainError::Evm(e.to_string())),
        Err(e) => Err(ChainError::Evm(e.to_string())),
    }
}

fn outcome(run: Run) -> CallOutcome {
    match run {
        Run::Executed(ExecutionResult::Success { gas, output, .. }) => {
            CallOutcome { status: CallStatus::Success, output: output.into_data(), gas_used: gas.tx_gas_used(), error: None }
        }
        Run::Executed(ExecutionResult::Revert { gas, output, .. }) => CallOutcome {
            status: CallStatus::Revert,
            output,
            gas_used: gas.tx_gas_used(),
            error: Some("execution reverted".into()),
        },
        Run::Executed(ExecutionResult::Halt { reason, gas, .. }) => CallOutcome {
            status: CallStatus::Halt,
            output: Bytes::new(),
            gas_used: gas.tx_gas_used(),
            error: Some(halt_text(&reason)),
        },
        Run::Invalid(text) => CallOutcome { status: CallStatus::Halt, output: Bytes::new(), gas_used: 0, error: Some(text) },
    }
}

/// eth_call on `state` with `header` as the block context.
pub fn call<'a>(
    state: StateAt<'a>,
    header: &'a Header,
    chain_id: u64,
    rpc_gas_cap: u64,
    deadline: &'a Deadline,
    req: &'a CallRequest,
    dormancy: Option<&'a DormancyCheck<'a>>,
    overrides: &CallOverrides,
) -> Result<CallOutcome, ChainError> {
    let gas = call_gas(header, rpc_gas_cap, req, overrides);
    let mut caller = Caller::new(state, header, chain_id, req, deadline);
    caller.dormancy = dormancy;
    caller.apply_overrides(overrides)?;
    Ok(outcome(caller.run(gas)?))
}

/// The gas of a call without its own limit: the RPC gas cap within the (overridden) block gas limit.
fn call_gas(header: &Header, rpc_gas_cap: u64, req: &CallRequest, overrides: &CallOverrides) -> u64 {
    let block_gas = overrides.block.as_ref().and_then(|b| b.gas_limit).unwrap_or(header.gas_limit);
    match req.gas {
        Some(g) if rpc_gas_cap > 0 => g.min(rpc_gas_cap),
        Some(g) => g,
        None if rpc_gas_cap > 0 => rpc_gas_cap.min(block_gas),
        None => block_gas,
    }
}

fn failure(status: CallStatus, output: Bytes, error: String) -> EstimateOutcome {
    EstimateOutcome { status, gas: 0, output, error: Some(error) }
}

/// eth_estimateGas: geth's search (balance cap, try at the cap, optimistic guess, bisection).
pub fn estimate_gas<'a>(
    state: StateAt<'a>,
    header: &'a Header,
    chain_id: u64,
    rpc_gas_cap: u64,
    deadline: &'a Deadline,
    req: &'a CallRequest,
    dormancy: Option<&'a DormancyCheck<'a>>,
    overrides: &CallOverrides,
) -> Result<EstimateOutcome, ChainError> {
    let mut caller = Caller::new(state, header, chain_id, req, deadline);
    caller.dormancy = dormancy;
    caller.apply_overrides(overrides)?;
    let mut hi = match req.gas {
        Some(g) if g >= TX_GAS => g,
        _ => overrides.block.as_ref().and_then(|b| b.gas_limit).unwrap_or(header.gas_limit),
    };
    let fee_cap = caller.fee_cap();
    if fee_cap > 0 {
        let balance = caller.db.basic_ref(caller.sender()).map_err(|e| ChainError::Evm(e.to_string()))?.map(|a| a.balance).unwrap_or_default();
        let value = req.value.unwrap_or_default();
        // As geth: the value must leave something over to pay for gas.
        if value >= balance {
            return Ok(failure(CallStatus::Halt, Bytes::new(), "insufficient funds for transfer".into()));
        }
        let allowance = (balance.saturating_sub(value)) / U256::from(fee_cap);
        if let Ok(allowance) = u64::try_from(allowance) {
            hi = hi.min(allowance);
        }
    }
    if rpc_gas_cap > 0 {
        hi = hi.min(rpc_gas_cap);
    }

    // A plain transfer to an account without code: try 21000 first.
    if req.data.as_ref().is_none_or(|d| d.is_empty()) {
        if let Some(to) = req.to {
            let has_code = caller
                .db
                .basic_ref(to)
                .map_err(|e| ChainError::Evm(e.to_string()))?
                .is_some_and(|a| a.code_hash != svc_primitives::KECCAK_EMPTY);
            if !has_code {
                if let Run::Executed(r) = caller.run(TX_GAS)? {
                    if r.is_success() {
                        return Ok(EstimateOutcome { status: CallStatus::Success, gas: TX_GAS, output: Bytes::new(), error: None });
                    }
                }
            }
        }
    }

    let first = match caller.run(hi)? {
        Run::Invalid(text) if is_gas_shortage(&text) => {
            return Ok(failure(CallStatus::Halt, Bytes::new(), format!("gas required exceeds allowance ({hi})")))
        }
        Run::Invalid(text) => return Ok(failure(CallStatus::Halt, Bytes::new(), text)),
        Run::Executed(r) => r,
    };
    match &first {
        ExecutionResult::Success { .. } => {}
        ExecutionResult::Revert { output, .. } => {
            return Ok(failure(CallStatus::Revert, output.clone(), "execution reverted".into()))
        }
        ExecutionResult::Halt { reason, .. } => {
            let text = halt_text(reason);
            if text == "out of gas" {
                return Ok(failure(CallStatus::Halt, Bytes::new(), format!("gas required exceeds allowance ({hi})")));
            }
            return Ok(failure(CallStatus::Halt, Bytes::new(), text));
        }
    }
    let gas = first.gas();
    let used = first.tx_gas_used();
    let mut lo = used.saturating_sub(1);

    // Most transactions succeed with the gas they used plus their refund and a stipend.
    let optimistic = (used + gas.inner_refunded() + CALL_STIPEND) * 64 / 63;
    if optimistic < hi {
        if succeeds(&mut caller, optimistic)? {
            hi = optimistic;
        } else {
            lo = optimistic;
        }
    }
    while lo + 1 < hi {
        if ((hi - lo) as f64) / (hi as f64) < ESTIMATE_ERROR_RATIO {
            break;
        }
        let mut mid = lo + (hi - lo) / 2;
        if mid > lo.saturating_mul(2) {
            // Most transactions need little more than they use: bisect towards the low side.
            mid = lo * 2;
        }
        if succeeds(&mut caller, mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(EstimateOutcome { status: CallStatus::Success, gas: hi, output: Bytes::new(), error: None })
}

/// Validation failures that only mean "more gas is needed" (geth raises the limit on these).
fn is_gas_shortage(text: &str) -> bool {
    text.starts_with("intrinsic gas too low") || text.starts_with("insufficient gas for floor data gas cost")
}

fn succeeds(caller: &mut Caller<'_>, gas: u64) -> Result<bool, ChainError> {
    match caller.run(gas)? {
        Run::Executed(r) => Ok(r.is_success()),
        Run::Invalid(text) if is_gas_shortage(&text) => Ok(false),
        Run::Invalid(text) => Err(ChainError::Invalid(text)),
    }
}

/// eth_call watched by the validation tracer, with contract code replaced at `overrides` first
/// (balances, nonces and storage stay): a bundler's simulation of a user operation's validation.
pub fn trace_call(
    state: StateAt<'_>,
    header: &Header,
    chain_id: u64,
    rpc_gas_cap: u64,
    deadline: &Deadline,
    req: &CallRequest,
    overrides: &[(Address, Bytes)],
) -> Result<ValidationTrace, ChainError> {
    let gas = call_gas(header, rpc_gas_cap, req, &CallOverrides::default());
    let mut caller = Caller::new(state, header, chain_id, req, deadline);
    caller.override_code(overrides)?;
    let mut tracer = ValidationTracer::default();
    let run = caller.inspect(gas, &mut tracer)?;
    Ok(tracer.finish(outcome(run)))
}

/// debug_traceCall: the call as eth_call runs it (the same defaults and checks) on the state after
/// the block `header` closes, under geth's tracer `opts`.
pub fn debug_trace_call(
    state: StateAt<'_>,
    header: &Header,
    chain_id: u64,
    rpc_gas_cap: u64,
    max_response_bytes: usize,
    req: &CallRequest,
    opts: &alloy_rpc_types_trace::geth::GethDebugTracingOptions,
) -> Result<alloy_rpc_types_trace::geth::GethTrace, crate::debug_trace::TraceError> {
    let tracer = crate::debug_trace::Tracer::new(opts)?;
    let budget = crate::debug_trace::TraceBudget::new(opts, max_response_bytes)?;
    let gas = call_gas(header, rpc_gas_cap, req, &CallOverrides::default());
    // The trace's own timeout (the budget's) stops it.
    let untimed = Deadline::none();
    let mut caller = Caller::new(state, header, chain_id, req, &untimed);
    let (block, cfg, tx) = caller.envs(gas).map_err(|text| crate::debug_trace::TraceError::Chain(ChainError::Invalid(text)))?;
    crate::debug_trace::traced(&mut caller.db, block, cfg, tx, &[], tracer, &budget)
}

/// Most runs eth_createAccessList makes before giving up on a list that keeps changing (geth
/// has no bound; each run can only add what the previous list made reachable).
const MAX_ACCESS_LIST_ROUNDS: usize = 32;

/// Result of eth_createAccessList: the list, the gas the call used with it, and how the call ended;
/// `invalid` holds geth's text when the call could not be applied at all.
#[derive(Debug, Clone)]
pub struct AccessListOutcome {
    pub access_list: AccessList,
    pub gas_used: u64,
    pub status: CallStatus,
    pub output: Bytes,
    pub error: Option<String>,
    pub invalid: Option<String>,
}

/// eth_createAccessList as geth: run the call with the list of the previous run until a run
/// touches exactly the accounts and slots it was given.
pub fn create_access_list<'a>(
    state: StateAt<'a>,
    header: &'a Header,
    chain_id: u64,
    rpc_gas_cap: u64,
    deadline: &'a Deadline,
    req: &'a CallRequest,
    overrides: &CallOverrides,
) -> Result<AccessListOutcome, ChainError> {
    let gas = call_gas(header, rpc_gas_cap, req, overrides);
    let from = req.from.unwrap_or(Address::ZERO);
    let nonce = match req.nonce {
        Some(n) => n,
        None => {
            let mut probe = Caller::new(state, header, chain_id, req, deadline);
            probe.apply_overrides(overrides)?;
            probe.db.basic_ref(from).map_err(|e| ChainError::Evm(e.to_string()))?.map(|a| a.nonce).unwrap_or(0)
        }
    };
    let to = req.to.unwrap_or_else(|| from.create(nonce));
    let mut excluded: std::collections::HashSet<Address> =
        revm::precompile::Precompiles::prague().addresses().copied().collect();
    excluded.insert(from);
    excluded.insert(to);
    let mut previous = AccessListTracer::new(&req.access_list.clone().unwrap_or_default(), excluded.clone());
    for _ in 0..MAX_ACCESS_LIST_ROUNDS {
        let list = previous.access_list();
        let round = CallRequest { access_list: Some(list.clone()), nonce: Some(nonce), ..req.clone() };
        // Each round on the state as it was, as geth copies its state db.
        let mut caller = Caller::new(state, header, chain_id, &round, deadline);
        caller.apply_overrides(overrides)?;
        let mut tracer = AccessListTracer::new(&list, excluded.clone());
        let run = caller.inspect_access(gas, &mut tracer)?;
        if let Run::Invalid(text) = run {
            return Ok(AccessListOutcome { access_list: list, gas_used: 0, status: CallStatus::Halt, output: Bytes::new(), error: None, invalid: Some(text) });
        }
        if tracer.same_as(&previous) {
            let out = outcome(run);
            return Ok(AccessListOutcome { access_list: list, gas_used: out.gas_used, status: out.status, output: out.output, error: out.error, invalid: None });
        }
        previous = tracer;
    }
    Err(ChainError::Invalid(format!("access list did not settle after {MAX_ACCESS_LIST_ROUNDS} runs")))
}

/// One block of eth_simulateV1: its overrides and its calls, run in order.
#[derive(Debug, Clone, Default)]
pub struct SimulateBlock {
    pub overrides: CallOverrides,
    pub calls: Vec<CallRequest>,
}

/// One simulated call: how it ended, and its logs.
#[derive(Debug, Clone)]
pub struct SimulatedCall {
    pub outcome: CallOutcome,
    pub logs: Vec<svc_primitives::Log>,
    /// The hash of the call as an unsigned EIP-1559 transaction (what geth reports for it).
    pub tx_hash: alloy_primitives::B256,
}

/// One simulated block: its header (hashed as a block would be) and its calls.
#[derive(Debug, Clone)]
pub struct SimulatedBlock {
    pub header: Header,
    pub hash: alloy_primitives::B256,
    pub calls: Vec<SimulatedCall>,
}

/// Why a simulation was refused as a whole (geth's eth_simulateV1 error codes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulateError {
    pub code: i32,
    pub message: String,
}

/// Most blocks and calls one eth_simulateV1 may ask for (geth: 256 blocks; calls bounded by gas).
pub const MAX_SIMULATE_BLOCKS: usize = 256;
pub const MAX_SIMULATE_CALLS: usize = 1_000;

/// eth_simulateV1 as geth runs it: blocks after `parent`, each with its block and state overrides,
/// their calls run in order on one state (each call sees the ones before it, in every block).
/// Without `validation`, nonces are not checked and unpriced calls pay no base fee, as in eth_call.
/// A call gets the gas it names or what is left of its block's gas limit (more than that is
/// refused: -38015), within what is left of the RPC gas cap, which the whole simulation shares;
/// the deadline stops it all. With `trace_transfers`, each call's logs also carry its ether moves
/// as ERC-20 Transfer logs (crate::transfer_logs); the block's receipts keep the real logs only.
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    state: StateAt<'_>,
    parent: &Header,
    chain_id: u64,
    rpc_gas_cap: u64,
    deadline: &Deadline,
    blocks: &[SimulateBlock],
    validation: bool,
    trace_transfers: bool,
) -> Result<Result<Vec<SimulatedBlock>, SimulateError>, ChainError> {
    use alloy_consensus::{SignableTransaction, TxEip1559};
    use revm::InspectCommitEvm;
    if blocks.len() > MAX_SIMULATE_BLOCKS {
        return Ok(Err(SimulateError { code: -38026, message: format!("too many blocks: {} (at most {MAX_SIMULATE_BLOCKS})", blocks.len()) }));
    }
    if blocks.iter().map(|b| b.calls.len()).sum::<usize>() > MAX_SIMULATE_CALLS {
        return Ok(Err(SimulateError { code: -32602, message: format!("too many calls (at most {MAX_SIMULATE_CALLS})") }));
    }
    let mut db = CacheDB::new(StoreDb { state });
    // The gas the simulation may still use, over all its blocks (geth's simulation gas pool).
    let mut budget = if rpc_gas_cap == 0 { u64::MAX } else { rpc_gas_cap };
    let mut prev = parent.clone();
    let mut prev_hash = svc_primitives::header_hash(parent);
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        let o = block.overrides.block.clone().unwrap_or_default();
        let number = o.number.unwrap_or(prev.number + 1);
        if number <= prev.number {
            return Ok(Err(SimulateError { code: -38020, message: format!("block numbers must be in order: {number} <= {}", prev.number) }));
        }
        let timestamp = o.time.unwrap_or(prev.timestamp + 1);
        if timestamp <= prev.timestamp {
            return Ok(Err(SimulateError { code: -38021, message: format!("block timestamps must be in order: {timestamp} <= {}", prev.timestamp) }));
        }
        let base_fee = o.base_fee.unwrap_or(if validation { svc_primitives::next_base_fee(prev.gas_used, prev.gas_limit, prev.base_fee_per_gas.unwrap_or_default()) } else { 0 });
        let mut header = Header {
            parent_hash: prev_hash,
            number,
            timestamp,
            gas_limit: o.gas_limit.unwrap_or(parent.gas_limit),
            beneficiary: o.fee_recipient.unwrap_or(parent.beneficiary),
            mix_hash: o.prev_randao.unwrap_or_default(),
            base_fee_per_gas: Some(base_fee),
            ..svc_primitives::prague_header()
        };
        let block_override = BlockOverride { number: Some(number), time: Some(timestamp), gas_limit: Some(header.gas_limit), fee_recipient: Some(header.beneficiary), prev_randao: Some(header.mix_hash), base_fee: Some(base_fee) };
        // The block's state overrides, on the state the blocks before it left.
        apply_state_overrides(&mut db, &block.overrides.state)?;
        let mut calls = Vec::with_capacity(block.calls.len());
        let mut receipts = Vec::with_capacity(block.calls.len());
        let mut envelopes = Vec::with_capacity(block.calls.len());
        let mut gas_used = 0u64;
        for req in &block.calls {
            deadline.check()?;
            let left_in_block = header.gas_limit.saturating_sub(gas_used);
            let asked = req.gas.unwrap_or(left_in_block);
            if asked > left_in_block {
                return Ok(Err(SimulateError { code: -38015, message: format!("block gas limit reached: {gas_used} + {asked} > {}", header.gas_limit) }));
            }
            if budget == 0 {
                return Ok(Err(SimulateError { code: -32000, message: format!("the simulation used all of the RPC gas cap ({rpc_gas_cap})") }));
            }
            let gas = asked.min(budget);
            let sender = req.from.unwrap_or(Address::ZERO);
            let nonce = match req.nonce {
                Some(n) => n,
                None => db.basic_ref(sender).map_err(|e| ChainError::Evm(e.to_string()))?.map_or(0, |a| a.nonce),
            };
            let sized = CallRequest { gas: Some(gas), nonce: Some(nonce), ..req.clone() };
            let (block_env, mut cfg, tx) = match call_envs(&header, chain_id, &sized, Some(&block_override), gas) {
                Ok(envs) => envs,
                Err(text) => return Ok(Err(SimulateError { code: -38014, message: text })),
            };
            if validation {
                cfg.disable_nonce_check = false;
            }
            let mut logger = crate::transfer_logs::TransferLogger::new(trace_transfers);
            let result = {
                let mut evm = Context::mainnet().with_db(&mut db).with_block(block_env).with_cfg(cfg).build_mainnet_with_inspector((&mut logger, DeadlineGuard(deadline)));
                evm.inspect_tx_commit(tx)
            };
            if deadline.stopped() {
                return Err(deadline.error());
            }
            let run = match result {
                Ok(r) => Run::Executed(r),
                Err(EVMError::Transaction(e)) => {
                    let text = invalid_tx_text(&e, sender);
                    return Ok(Err(SimulateError { code: if validation { -38014 } else { -32000 }, message: text }));
                }
                Err(e) => return Err(ChainError::Evm(e.to_string())),
            };
            let logs = match &run {
                Run::Executed(r) => r.logs().to_vec(),
                Run::Invalid(_) => Vec::new(),
            };
            let call_logs = if trace_transfers && matches!(run, Run::Executed(_)) { logger.into_logs() } else { logs.clone() };
            let outcome = outcome(run);
            gas_used += outcome.gas_used;
            budget = budget.saturating_sub(outcome.gas_used);
            receipts.push(svc_primitives::TxReceipt::new(2, outcome.status == CallStatus::Success, gas_used, logs));
            let unsigned = TxEip1559 {
                chain_id,
                nonce,
                gas_limit: gas,
                max_fee_per_gas: req.max_fee_per_gas.or(req.gas_price).unwrap_or(0),
                max_priority_fee_per_gas: req.max_priority_fee_per_gas.unwrap_or(0),
                to: req.to.map_or(TxKind::Create, TxKind::Call),
                value: req.value.unwrap_or_default(),
                access_list: req.access_list.clone().unwrap_or_default(),
                input: req.data.clone().unwrap_or_default(),
            };
            let signed = unsigned.into_signed(alloy_primitives::Signature::new(U256::ZERO, U256::ZERO, false));
            let tx_hash = *signed.hash();
            envelopes.push(svc_primitives::TxEnvelope::Eip1559(signed));
            calls.push(SimulatedCall { outcome, logs: call_logs, tx_hash });
        }
        header.gas_used = gas_used;
        header.transactions_root = svc_primitives::transactions_root(&envelopes);
        header.receipts_root = svc_primitives::receipts_root(&receipts);
        header.logs_bloom = svc_primitives::logs_bloom(&receipts);
        let hash = svc_primitives::header_hash(&header);
        prev_hash = hash;
        prev = header.clone();
        out.push(SimulatedBlock { header, hash, calls });
    }
    Ok(Ok(out))
}
