//! eth_createAccessList's tracer, with geth's rules (eth/tracers/logger/access_list_tracer.go):
//! every slot read or written (SLOAD, SSTORE) with its account, and every account whose code or
//! balance is reached (EXTCODE*, BALANCE, SELFDESTRUCT, the CALL family), except the sender, the
//! recipient (or the created contract) and the precompiles, which are warm anyway.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use alloy_primitives::{Address, B256, U256};
use revm::context_interface::ContextTr;
use revm::interpreter::interpreter_types::Jumps;
use revm::interpreter::Interpreter;
use revm::Inspector;
use svc_primitives::{AccessList, AccessListItem};

const SLOAD: u8 = 0x54;
const SSTORE: u8 = 0x55;
const BALANCE: u8 = 0x31;
const EXTCODESIZE: u8 = 0x3b;
const EXTCODECOPY: u8 = 0x3c;
const EXTCODEHASH: u8 = 0x3f;
const CALL: u8 = 0xf1;
const CALLCODE: u8 = 0xf2;
const DELEGATECALL: u8 = 0xf4;
const STATICCALL: u8 = 0xfa;
const SELFDESTRUCT: u8 = 0xff;

/// The accounts and slots one run touched (ordered, so that the answer is stable).
#[derive(Debug, Clone)]
pub struct AccessListTracer {
    excluded: HashSet<Address>,
    list: BTreeMap<Address, BTreeSet<B256>>,
}

impl AccessListTracer {
    /// A tracer that starts from `initial` (the access list the run is given), as geth's does.
    pub fn new(initial: &AccessList, excluded: HashSet<Address>) -> Self {
        let mut tracer = Self { excluded, list: BTreeMap::new() };
        for item in initial.0.iter() {
            if !tracer.excluded.contains(&item.address) {
                tracer.list.entry(item.address).or_default();
            }
            for slot in &item.storage_keys {
                tracer.add_slot(item.address, *slot);
            }
        }
        tracer
    }

    /// A slot goes in with its account, even an excluded one (geth's addSlot).
    fn add_slot(&mut self, address: Address, slot: B256) {
        self.list.entry(address).or_default().insert(slot);
    }

    fn add_address(&mut self, address: Address) {
        if !self.excluded.contains(&address) {
            self.list.entry(address).or_default();
        }
    }

    /// Whether two runs touched the same accounts and slots.
    pub fn same_as(&self, other: &Self) -> bool {
        self.list == other.list
    }

    /// The touched accounts and slots as an access list.
    pub fn access_list(&self) -> AccessList {
        AccessList(
            self.list
                .iter()
                .map(|(address, slots)| AccessListItem { address: *address, storage_keys: slots.iter().copied().collect() })
                .collect(),
        )
    }
}

fn address_of(value: U256) -> Address {
    Address::from_word(B256::from(value.to_be_bytes::<32>()))
}

impl<CTX: ContextTr> Inspector<CTX> for AccessListTracer {
    fn step(&mut self, interp: &mut Interpreter, _context: &mut CTX) {
        let op = interp.bytecode.opcode();
        match op {
            SLOAD | SSTORE => {
                if let Ok(slot) = interp.stack.peek(0) {
                    self.add_slot(interp.input.target_address, B256::from(slot.to_be_bytes::<32>()));
                }
            }
            EXTCODECOPY | EXTCODEHASH | EXTCODESIZE | BALANCE | SELFDESTRUCT => {
                if let Ok(target) = interp.stack.peek(0) {
                    self.add_address(address_of(target));
                }
            }
            DELEGATECALL | CALL | STATICCALL | CALLCODE if interp.stack.len() >= 5 => {
                if let Ok(target) = interp.stack.peek(1) {
                    self.add_address(address_of(target));
                }
            }
            _ => {}
        }
    }
}
