//! eth_simulateV1's `traceTransfers` as geth answers it: a call's logs, in the order they were
//! emitted, with each ether move (a transaction's value, a CALL's or CREATE's value, a
//! SELFDESTRUCT's balance) inserted where it happened as an ERC-20 `Transfer(from, to, value)` log
//! emitted by the ERC-7528 ether address. A frame that fails takes its logs and its moves with it.
//! DELEGATECALL and CALLCODE move nothing and give no log.

use alloy_primitives::{address, b256, Address, Log, LogData, B256, U256};
use revm::context_interface::ContextTr;
use revm::interpreter::{CallInputs, CallOutcome, CallScheme, CreateInputs, CreateOutcome};
use revm::Inspector;

/// ERC-7528's address for ether, which emits the synthetic transfer logs.
pub const ETHER_ADDRESS: Address = address!("EeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE");
/// keccak256("Transfer(address,address,uint256)").
pub const TRANSFER_TOPIC: B256 = b256!("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");

/// One open frame's logs; `created` is the index of its CREATE transfer, whose recipient is known
/// only once the frame ends.
#[derive(Default)]
struct Frame {
    logs: Vec<Log>,
    created: Option<usize>,
}

/// Collects one call's logs, with ether moves as transfer logs when `transfers` is set.
pub struct TransferLogger {
    transfers: bool,
    open: Vec<Frame>,
    done: Vec<Log>,
}

impl TransferLogger {
    pub fn new(transfers: bool) -> Self {
        Self { transfers, open: Vec::new(), done: Vec::new() }
    }

    /// The call's logs, in order (empty when it failed).
    pub fn into_logs(self) -> Vec<Log> {
        self.done
    }

    fn transfer_log(from: Address, to: Address, value: U256) -> Log {
        let topics = vec![TRANSFER_TOPIC, from.into_word(), to.into_word()];
        Log { address: ETHER_ADDRESS, data: LogData::new_unchecked(topics, value.to_be_bytes::<32>().to_vec().into()) }
    }

    fn enter(&mut self, transfer: Option<(Address, Address, U256)>) -> Option<usize> {
        let mut frame = Frame::default();
        let mut at = None;
        if let Some((from, to, value)) = transfer {
            if self.transfers && value > U256::ZERO {
                frame.logs.push(Self::transfer_log(from, to, value));
                at = Some(0);
            }
        }
        self.open.push(frame);
        at
    }

    fn exit(&mut self, ok: bool, created: Option<Address>) {
        let Some(mut frame) = self.open.pop() else { return };
        if !ok {
            return;
        }
        if let (Some(i), Some(address)) = (frame.created, created) {
            let log = &mut frame.logs[i];
            let mut topics = log.data.topics().to_vec();
            topics[2] = address.into_word();
            log.data = LogData::new_unchecked(topics, log.data.data.clone());
        }
        match self.open.last_mut() {
            Some(parent) => parent.logs.append(&mut frame.logs),
            None => self.done = frame.logs,
        }
    }
}

impl<CTX: ContextTr> Inspector<CTX> for TransferLogger {
    fn log(&mut self, _context: &mut CTX, log: Log) {
        if let Some(frame) = self.open.last_mut() {
            frame.logs.push(log);
        }
    }

    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        let moves = matches!(inputs.scheme, CallScheme::Call) && inputs.transfers_value();
        self.enter(moves.then(|| (inputs.caller, inputs.target_address, inputs.value.get())));
        None
    }

    fn call_end(&mut self, _context: &mut CTX, _inputs: &CallInputs, outcome: &mut CallOutcome) {
        self.exit(outcome.result.result.is_ok(), None);
    }

    fn create(&mut self, _context: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        // The new address is filled in when the frame ends (CreateOutcome.address).
        let at = self.enter(Some((inputs.caller(), Address::ZERO, inputs.value())));
        if let Some(frame) = self.open.last_mut() {
            frame.created = at;
        }
        None
    }

    fn create_end(&mut self, _context: &mut CTX, _inputs: &CreateInputs, outcome: &mut CreateOutcome) {
        self.exit(outcome.result.result.is_ok(), outcome.address);
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        if self.transfers && value > U256::ZERO {
            if let Some(frame) = self.open.last_mut() {
                frame.logs.push(Self::transfer_log(contract, target, value));
            }
        }
    }
}
