//! The validation tracer: what a bundler needs from a simulated call to apply ERC-7562's rules to a
//! user operation's validation (which opcodes each frame ran, which storage slots it read or wrote,
//! which code it inspected, which calls it made and how each ended, and the keccak preimages that
//! tell which slots belong to which address). It records facts only; the rules are in the bundler
//! (src/aa/rules.ts), which knows the entities behind each frame.

use std::collections::BTreeMap;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use revm::context_interface::ContextTr;
use revm::interpreter::interpreter_types::{Jumps, MemoryTr};
use revm::interpreter::{CallInputs, CallOutcome as FrameCallOutcome, CallScheme, CreateInputs, CreateOutcome, InstructionResult, Interpreter};
use revm::Inspector;
use svc_primitives::KECCAK_EMPTY;

use crate::call::CallOutcome;

const GAS: u8 = 0x5a;
const SLOAD: u8 = 0x54;
const SSTORE: u8 = 0x55;
const TLOAD: u8 = 0x5c;
const TSTORE: u8 = 0x5d;
const KECCAK256: u8 = 0x20;
const EXTCODESIZE: u8 = 0x3b;
const EXTCODECOPY: u8 = 0x3c;
const EXTCODEHASH: u8 = 0x3f;
const CALL: u8 = 0xf1;
const CALLCODE: u8 = 0xf2;
const DELEGATECALL: u8 = 0xf4;
const STATICCALL: u8 = 0xfa;

/// Keccak preimages longer than this are not kept (mapping keys are 64 bytes, nested ones a few words).
const MAX_KECCAK_PREIMAGE: usize = 1024;
/// At most this many preimages per trace: a validation that hashes more is refused by its gas limit first.
const MAX_KECCAKS: usize = 16_384;

/// How a frame was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Call,
    CallCode,
    DelegateCall,
    StaticCall,
    Create,
    Create2,
}

impl FrameKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Call => "CALL",
            Self::CallCode => "CALLCODE",
            Self::DelegateCall => "DELEGATECALL",
            Self::StaticCall => "STATICCALL",
            Self::Create => "CREATE",
            Self::Create2 => "CREATE2",
        }
    }
}

/// One storage slot a frame touched (transient storage flagged as such).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageAccess {
    pub address: Address,
    pub slot: B256,
    pub read: bool,
    pub write: bool,
    pub transient: bool,
}

/// An EXTCODESIZE / EXTCODEHASH / EXTCODECOPY: the address asked about and whether it had code
/// (None for EXTCODECOPY, whose result is not on the stack).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeAccess {
    pub opcode: u8,
    pub address: Address,
    pub has_code: Option<bool>,
}

/// One call or create frame, in the order frames were entered (the first is the call itself).
#[derive(Debug, Clone)]
pub struct TraceFrame {
    /// Index of the frame that entered this one (None for the first).
    pub parent: Option<usize>,
    pub depth: usize,
    pub kind: FrameKind,
    pub from: Address,
    /// The account whose storage the frame uses (the created address for a create, once known).
    pub to: Address,
    /// The account whose code runs (differs from `to` for DELEGATECALL and CALLCODE).
    pub code_address: Address,
    /// Whether the code that runs is non-empty.
    pub has_code: bool,
    /// The first four bytes of the input (a selector), or fewer.
    pub selector: Bytes,
    pub value: U256,
    pub gas_limit: u64,
    pub gas_used: u64,
    pub success: bool,
    pub reverted: bool,
    pub out_of_gas: bool,
    /// The frame's output (return or revert data; a create's is empty).
    pub output: Bytes,
    /// Opcodes this frame executed itself (not its children), with counts, in opcode order.
    pub opcodes: Vec<(u8, u32)>,
    /// A GAS opcode not immediately followed by a call opcode.
    pub gas_not_before_call: bool,
    pub storage: Vec<StorageAccess>,
    pub code_accesses: Vec<CodeAccess>,
}

/// What the tracer saw: the call's outcome, its frames, and the keccak preimages whose first word
/// might be an address (first word, hash).
#[derive(Debug, Clone)]
pub struct ValidationTrace {
    pub outcome: CallOutcome,
    pub frames: Vec<TraceFrame>,
    pub keccak: Vec<(B256, B256)>,
}

#[derive(Default)]
struct Open {
    opcodes: BTreeMap<u8, u32>,
    storage: BTreeMap<(Address, B256), (bool, bool, bool)>,
    last_op: Option<u8>,
    /// An EXTCODESIZE / EXTCODEHASH whose result step_end reads.
    pending_code: Option<(u8, Address)>,
}

/// The inspector (see the module documentation).
#[derive(Default)]
pub struct ValidationTracer {
    frames: Vec<TraceFrame>,
    open: Vec<(usize, Open)>,
    keccak: Vec<(B256, B256)>,
}

impl ValidationTracer {
    pub fn finish(self, outcome: CallOutcome) -> ValidationTrace {
        ValidationTrace { outcome, frames: self.frames, keccak: self.keccak }
    }

    fn enter(&mut self, mut frame: TraceFrame) {
        frame.parent = self.open.last().map(|(i, _)| *i);
        frame.depth = self.open.len();
        self.frames.push(frame);
        self.open.push((self.frames.len() - 1, Open::default()));
    }

    fn exit(&mut self, result: InstructionResult, gas_used: u64, output: Bytes, created: Option<Address>) {
        let Some((index, open)) = self.open.pop() else { return };
        let frame = &mut self.frames[index];
        frame.success = result.is_ok();
        frame.reverted = result.is_revert();
        frame.out_of_gas = matches!(
            result,
            InstructionResult::OutOfGas
                | InstructionResult::MemoryOOG
                | InstructionResult::MemoryLimitOOG
                | InstructionResult::PrecompileOOG
                | InstructionResult::InvalidOperandOOG
        );
        frame.gas_used = gas_used;
        frame.output = output;
        if let Some(address) = created {
            frame.to = address;
            frame.code_address = address;
        }
        frame.opcodes = open.opcodes.into_iter().collect();
        frame.gas_not_before_call |= open.last_op == Some(GAS);
        frame.storage = open
            .storage
            .into_iter()
            .map(|((address, slot), (read, write, transient))| StorageAccess { address, slot, read, write, transient })
            .collect();
    }
}

fn word(value: U256) -> B256 {
    B256::from(value.to_be_bytes::<32>())
}

fn address_of(value: U256) -> Address {
    Address::from_word(word(value))
}

fn frame(kind: FrameKind, from: Address, to: Address, code_address: Address, has_code: bool, input: &[u8], value: U256, gas_limit: u64) -> TraceFrame {
    TraceFrame {
        parent: None,
        depth: 0,
        kind,
        from,
        to,
        code_address,
        has_code,
        selector: Bytes::copy_from_slice(&input[..input.len().min(4)]),
        value,
        gas_limit,
        gas_used: 0,
        success: false,
        reverted: false,
        out_of_gas: false,
        output: Bytes::new(),
        opcodes: Vec::new(),
        gas_not_before_call: false,
        storage: Vec::new(),
        code_accesses: Vec::new(),
    }
}

impl<CTX: ContextTr> Inspector<CTX> for ValidationTracer {
    fn step(&mut self, interp: &mut Interpreter, _context: &mut CTX) {
        let Some((index, open)) = self.open.last_mut() else { return };
        let op = interp.bytecode.opcode();
        *open.opcodes.entry(op).or_default() += 1;
        if open.last_op == Some(GAS) && !matches!(op, CALL | CALLCODE | DELEGATECALL | STATICCALL) {
            self.frames[*index].gas_not_before_call = true;
        }
        open.last_op = Some(op);
        match op {
            SLOAD | SSTORE | TLOAD | TSTORE => {
                if let Ok(slot) = interp.stack.peek(0) {
                    let entry = open.storage.entry((interp.input.target_address, word(slot))).or_default();
                    if matches!(op, SLOAD | TLOAD) {
                        entry.0 = true;
                    } else {
                        entry.1 = true;
                    }
                    entry.2 |= matches!(op, TLOAD | TSTORE);
                }
            }
            KECCAK256 => {
                if let (Ok(offset), Ok(size)) = (interp.stack.peek(0), interp.stack.peek(1)) {
                    let (Ok(offset), Ok(size)) = (usize::try_from(offset), usize::try_from(size)) else { return };
                    if (32..=MAX_KECCAK_PREIMAGE).contains(&size) && self.keccak.len() < MAX_KECCAKS {
                        // Memory past its current size reads as zeros (the opcode expands it).
                        let mut preimage = vec![0u8; size];
                        let have = interp.memory.size();
                        if offset < have {
                            let end = (offset + size).min(have);
                            preimage[..end - offset].copy_from_slice(&interp.memory.slice(offset..end));
                        }
                        self.keccak.push((B256::from_slice(&preimage[..32]), keccak256(&preimage)));
                    }
                }
            }
            EXTCODESIZE | EXTCODEHASH | EXTCODECOPY => {
                if let Ok(target) = interp.stack.peek(0) {
                    let address = address_of(target);
                    if op == EXTCODECOPY {
                        self.frames[*index].code_accesses.push(CodeAccess { opcode: op, address, has_code: None });
                    } else {
                        open.pending_code = Some((op, address));
                    }
                }
            }
            _ => {}
        }
    }

    fn step_end(&mut self, interp: &mut Interpreter, _context: &mut CTX) {
        let Some((index, open)) = self.open.last_mut() else { return };
        let Some((op, address)) = open.pending_code.take() else { return };
        let has_code = interp.stack.peek(0).ok().map(|result| match op {
            EXTCODESIZE => !result.is_zero(),
            _ => !result.is_zero() && word(result) != KECCAK_EMPTY,
        });
        self.frames[*index].code_accesses.push(CodeAccess { opcode: op, address, has_code });
    }

    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<FrameCallOutcome> {
        let kind = match inputs.scheme {
            CallScheme::Call => FrameKind::Call,
            CallScheme::CallCode => FrameKind::CallCode,
            CallScheme::DelegateCall => FrameKind::DelegateCall,
            CallScheme::StaticCall => FrameKind::StaticCall,
        };
        let input = inputs.input.bytes(_context);
        let has_code = !inputs.known_bytecode.1.is_empty();
        self.enter(frame(
            kind,
            inputs.caller,
            inputs.target_address,
            inputs.bytecode_address,
            has_code,
            &input,
            inputs.value.get(),
            inputs.gas_limit,
        ));
        None
    }

    fn call_end(&mut self, _context: &mut CTX, _inputs: &CallInputs, outcome: &mut FrameCallOutcome) {
        let result = &outcome.result;
        self.exit(result.result, result.gas.total_gas_spent(), result.output.clone(), None);
    }

    fn create(&mut self, _context: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        let kind = match inputs.scheme() {
            revm::interpreter::CreateScheme::Create2 { .. } => FrameKind::Create2,
            _ => FrameKind::Create,
        };
        self.enter(frame(kind, inputs.caller(), Address::ZERO, Address::ZERO, !inputs.init_code().is_empty(), &[], inputs.value(), inputs.gas_limit()));
        None
    }

    fn create_end(&mut self, _context: &mut CTX, _inputs: &CreateInputs, outcome: &mut CreateOutcome) {
        let result = &outcome.result;
        self.exit(result.result, result.gas.total_gas_spent(), Bytes::new(), outcome.address);
    }
}
