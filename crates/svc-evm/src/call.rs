//! eth_call and eth_estimateGas with geth's semantics.

use alloy_primitives::{Address, Bytes, TxKind, U256};
use revm::context::result::{EVMError, ExecutionResult};
use revm::bytecode::Bytecode;
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::context_interface::transaction::AccessList;
use revm::database::CacheDB;
use revm::handler::{ExecuteEvm, MainBuilder, MainContext};
use revm::InspectEvm;
use revm::DatabaseRef;
use svc_primitives::gas::TX_GAS;
use svc_primitives::{Header, SignedAuthorization};
use svc_store::StateAt;

use crate::block::{block_env, cfg_env, recovered_authorizations};
use crate::db::StoreDb;
use crate::errors::{halt_text, invalid_tx_text, ChainError};
use crate::dormancy::{DormancyCheck, DormancyGuard};
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
}

impl<'a> Caller<'a> {
    fn new(state: StateAt<'a>, header: &'a Header, chain_id: u64, req: &'a CallRequest) -> Self {
        Self { db: CacheDB::new(StoreDb { state }), header, chain_id, req, dormancy: None }
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
        let req = self.req;
        let mut block = block_env(self.header);
        let priced = req.gas_price.is_some_and(|p| p > 0)
            || req.max_fee_per_gas.is_some_and(|p| p > 0)
            || req.max_priority_fee_per_gas.is_some_and(|p| p > 0);
        if !priced {
            // geth lowers the base fee to 0 for unpriced calls so that they still validate.
            block.basefee = 0;
        }
        block.gas_limit = block.gas_limit.max(gas_limit);
        let mut cfg = cfg_env(self.chain_id);
        cfg.disable_nonce_check = true;
        cfg.disable_eip3607 = true;
        cfg.disable_block_gas_limit = true;
        cfg.tx_chain_id_check = false;

        let mut tx = TxEnv {
            caller: self.sender(),
            gas_limit,
            kind: req.to.map_or(TxKind::Create, TxKind::Call),
            value: req.value.unwrap_or_default(),
            data: req.data.clone().unwrap_or_default(),
            nonce: req.nonce.unwrap_or_default(),
            chain_id: Some(self.chain_id),
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

    fn run(&mut self, gas_limit: u64) -> Result<Run, ChainError> {
        let (block, cfg, tx) = match self.envs(gas_limit) {
            Ok(envs) => envs,
            Err(text) => return Ok(Run::Invalid(text)),
        };
        let sender = self.sender();
        if let Some(check) = self.dormancy {
            let guard = DormancyGuard { check: Some(check) };
            let mut evm = Context::mainnet().with_db(&mut self.db).with_block(block).with_cfg(cfg).build_mainnet_with_inspector(guard);
            let result = evm.inspect_tx(tx).map(|o| o.result);
            if let Some(failure) = check.failure.borrow_mut().take() {
                return Err(ChainError::Evm(format!("reading dormancy records: {failure}")));
            }
            return settle(result, sender);
        }
        let mut evm = Context::mainnet().with_db(&mut self.db).with_block(block).with_cfg(cfg).build_mainnet();
        settle(evm.transact(tx).map(|o| o.result), sender)
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

    /// One run at `gas_limit` with `tracer` watching every frame.
    fn inspect(&mut self, gas_limit: u64, tracer: &mut ValidationTracer) -> Result<Run, ChainError> {
        let (block, cfg, tx) = match self.envs(gas_limit) {
            Ok(envs) => envs,
            Err(text) => return Ok(Run::Invalid(text)),
        };
        let sender = self.sender();
        let mut evm = Context::mainnet().with_db(&mut self.db).with_block(block).with_cfg(cfg).build_mainnet_with_inspector(tracer);
        settle(evm.inspect_tx(tx).map(|o| o.result), sender)
    }
}

/// An EVM result as a run: executed, refused with geth's text, or a database failure.
fn settle<E: std::fmt::Display>(result: Result<ExecutionResult, EVMError<E>>, sender: Address) -> Result<Run, ChainError> {
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
pub fn call<'a>(state: StateAt<'a>, header: &'a Header, chain_id: u64, rpc_gas_cap: u64, req: &'a CallRequest, dormancy: Option<&'a DormancyCheck<'a>>) -> Result<CallOutcome, ChainError> {
    let gas = call_gas(req, rpc_gas_cap, header);
    let mut caller = Caller::new(state, header, chain_id, req);
    caller.dormancy = dormancy;
    Ok(outcome(caller.run(gas)?))
}

/// The gas an eth_call runs with: the caller's, capped by the node's RPC gas cap; else the cap or the block's limit.
fn call_gas(req: &CallRequest, rpc_gas_cap: u64, header: &Header) -> u64 {
    match req.gas {
        Some(g) if rpc_gas_cap > 0 => g.min(rpc_gas_cap),
        Some(g) => g,
        None if rpc_gas_cap > 0 => rpc_gas_cap.min(header.gas_limit),
        None => header.gas_limit,
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
    req: &'a CallRequest,
    dormancy: Option<&'a DormancyCheck<'a>>,
) -> Result<EstimateOutcome, ChainError> {
    let mut caller = Caller::new(state, header, chain_id, req);
    caller.dormancy = dormancy;
    let mut hi = match req.gas {
        Some(g) if g >= TX_GAS => g,
        _ => header.gas_limit,
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
    req: &CallRequest,
    overrides: &[(Address, Bytes)],
) -> Result<ValidationTrace, ChainError> {
    let gas = call_gas(req, rpc_gas_cap, header);
    let mut caller = Caller::new(state, header, chain_id, req);
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
    req: &CallRequest,
    opts: &alloy_rpc_types_trace::geth::GethDebugTracingOptions,
) -> Result<alloy_rpc_types_trace::geth::GethTrace, crate::debug_trace::TraceError> {
    let tracer = crate::debug_trace::Tracer::new(opts)?;
    let gas = call_gas(req, rpc_gas_cap, header);
    let mut caller = Caller::new(state, header, chain_id, req);
    let (block, cfg, tx) = caller.envs(gas).map_err(|text| crate::debug_trace::TraceError::Chain(ChainError::Invalid(text)))?;
    Ok(crate::debug_trace::traced(&mut caller.db, block, cfg, tx, &[], tracer)?)
}
