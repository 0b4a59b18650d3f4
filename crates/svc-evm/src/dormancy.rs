//! Calls into dormant accounts revert (docs/rent.md). Which accounts are dormant is decided by the
//! rent module in TypeScript and recorded as one record per dormant account (`prefix` ++ the
//! lowercase hex of its address) in the module's records; the block executes with the parent's
//! records plus what the block's own hooks and module transactions changed (`dormant`,
//! `reactivated`). This file holds no rent rule: it only honours the records.

use std::cell::RefCell;
use std::collections::HashMap;

use alloy_primitives::{Address, Bytes};
use revm::context::ContextTr;
use revm::interpreter::{CallInputs, CallOutcome, Gas, InstructionResult, InterpreterResult};
use revm::Inspector;
use svc_store::ReadView;

/// The dormant accounts as a block sees them.
#[derive(Debug, Clone, Default)]
pub struct Dormancy {
    /// The key prefix of the dormancy records (for example `rent/dormant/`).
    pub prefix: Vec<u8>,
    /// Accounts the block made dormant before its transactions.
    pub dormant: Vec<Address>,
    /// Accounts the block made active again before its EVM transactions.
    pub reactivated: Vec<Address>,
}

/// The record key of `address`'s dormancy.
pub fn dormancy_key(prefix: &[u8], address: &Address) -> Vec<u8> {
    let mut key = prefix.to_vec();
    key.extend_from_slice(alloy_primitives::hex::encode(address.as_slice()).as_bytes());
    key
}

/// Solidity's Error(string) revert data.
pub fn error_data(reason: &str) -> Bytes {
    let bytes = reason.as_bytes();
    let padded = bytes.len().div_ceil(32) * 32;
    let mut out = Vec::with_capacity(4 + 64 + padded);
    out.extend_from_slice(&[0x08, 0xc3, 0x79, 0xa0]);
    let mut word = [0u8; 32];
    word[31] = 0x20;
    out.extend_from_slice(&word);
    out.extend_from_slice(&alloy_primitives::U256::from(bytes.len()).to_be_bytes::<32>());
    out.extend_from_slice(bytes);
    out.resize(4 + 64 + padded, 0);
    Bytes::from(out)
}

/// The revert reason of a call into a dormant account.
pub fn dormant_reason(address: &Address) -> String {
    format!("rent: account {address:#x} is dormant; reactivate it through the rent module")
}

/// Reads dormancy for one block: the block's own changes first, then the parent's records.
pub struct DormancyCheck<'a> {
    view: &'a ReadView,
    dormancy: &'a Dormancy,
    known: RefCell<HashMap<Address, bool>>,
    /// A read of the records failed: the block must fail rather than run on a guess.
    pub failure: RefCell<Option<String>>,
    /// The dormant accounts a call was refused at (what a trace of the block re-applies).
    pub refused: RefCell<std::collections::BTreeSet<Address>>,
}

impl<'a> DormancyCheck<'a> {
    pub fn new(view: &'a ReadView, dormancy: &'a Dormancy) -> Self {
        Self { view, dormancy, known: RefCell::new(HashMap::new()), failure: RefCell::new(None), refused: RefCell::new(Default::default()) }
    }

    pub fn is_dormant(&self, address: &Address) -> bool {
        if self.dormancy.dormant.contains(address) {
            return true;
        }
        if self.dormancy.reactivated.contains(address) {
            return false;
        }
        if let Some(known) = self.known.borrow().get(address) {
            return *known;
        }
        let dormant = match self.view.app_value(&dormancy_key(&self.dormancy.prefix, address)) {
            Ok(value) => value.is_some(),
            Err(e) => {
                self.failure.borrow_mut().get_or_insert_with(|| e.to_string());
                false
            }
        };
        self.known.borrow_mut().insert(*address, dormant);
        dormant
    }
}

/// The inspector that reverts every call whose target or code is a dormant account, or whose caller
/// is (only the transaction's sender can be: a dormant contract never runs), returning the call's
/// gas; the calling contract sees a failed call with the reason as Error(string).
pub struct DormancyGuard<'c, 'a> {
    pub check: Option<&'c DormancyCheck<'a>>,
}

impl<CTX: ContextTr> Inspector<CTX> for DormancyGuard<'_, '_> {
    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        let check = self.check?;
        let target = [inputs.target_address, inputs.bytecode_address, inputs.caller].into_iter().find(|a| check.is_dormant(a))?;
        check.refused.borrow_mut().insert(target);
        Some(refusal(&target, inputs))
    }
}

/// The outcome of a call refused at dormant `target`: a revert with the reason, the call's gas returned.
pub fn refusal(target: &Address, inputs: &CallInputs) -> CallOutcome {
    CallOutcome::new(
        InterpreterResult::new(InstructionResult::Revert, error_data(&dormant_reason(target)), Gas::new(inputs.gas_limit)),
        inputs.return_memory_offset.clone(),
    )
}

/// Refuses calls at a fixed set of accounts: a traced block re-executed with the dormant accounts its
/// calls were refused at (the set is the same for every transaction of a block).
pub struct RefusedAt<'a>(pub &'a [Address]);

impl<CTX: ContextTr> Inspector<CTX> for RefusedAt<'_> {
    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        if self.0.is_empty() {
            return None;
        }
        let target = [inputs.target_address, inputs.bytecode_address, inputs.caller].into_iter().find(|a| self.0.contains(a))?;
        Some(refusal(&target, inputs))
    }
}
