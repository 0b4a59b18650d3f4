//! The JS object shapes of src/native/index.ts (camelCase field names).

use napi::bindgen_prelude::{BigInt, Buffer};
use napi_derive::napi;

#[napi(object)]
pub struct StorageEntry {
    pub slot: Buffer,
    pub value: Buffer,
}

#[napi(object)]
pub struct GenesisAccount {
    pub address: Buffer,
    pub balance: BigInt,
    pub nonce: Option<BigInt>,
    pub code: Option<Buffer>,
    pub init_code: Option<Buffer>,
    pub storage: Option<Vec<StorageEntry>>,
}

#[napi(object)]
pub struct GenesisSpec {
    pub chain_id: i64,
    pub timestamp: i64,
    pub gas_limit: i64,
    pub base_fee_per_gas: BigInt,
    pub coinbase: Buffer,
    pub extra_data: Buffer,
    pub alloc: Vec<GenesisAccount>,
}

#[napi(object)]
pub struct ChainOptions {
    /// geth's RPCGasCap: the gas of eth_call and its kin, and of a whole eth_simulateV1 (0 = none).
    pub rpc_gas_cap: i64,
    /// geth's RPCEVMTimeout in ms (0 = none; default 5000).
    pub rpc_evm_timeout_ms: Option<i64>,
    /// Most bytes of one reply the chain writes (traces, simulations, logs; 0 = none; default 100 MiB).
    pub max_response_bytes: Option<i64>,
    pub state_history: i64,
}

#[napi(object)]
pub struct HeadInfo {
    pub number: i64,
    pub hash: Buffer,
    pub parent_hash: Buffer,
    /// Seconds (the header's `timestamp`; equal to the parent's when blocks are shorter than a second).
    pub timestamp: i64,
    /// The block's time in milliseconds (seconds from `timestamp`, milliseconds from `mixHash`).
    pub timestamp_ms: i64,
    pub gas_limit: i64,
    pub gas_used: i64,
    pub base_fee_per_gas: BigInt,
    pub state_root: Buffer,
}

/// What a stored block was made from: its header and the inputs its proposer chose (header
/// fields and transactions); a replay executes these on the parent state and compares roots.
#[napi(object)]
pub struct BlockInputs {
    pub head: HeadInfo,
    pub coinbase: Buffer,
    pub extra_data: Buffer,
    /// EIP-2718 encodings, in block order.
    pub txs: Vec<Buffer>,
    /// System messages, in block order.
    pub messages: Vec<Buffer>,
}

#[napi(object, use_nullable = true)]
pub struct DecodedTx {
    pub hash: Buffer,
    pub from: Buffer,
    pub to: Option<Buffer>,
    #[napi(js_name = "type")]
    pub tx_type: u32,
    pub chain_id: Option<i64>,
    pub nonce: BigInt,
    pub gas_limit: BigInt,
    pub max_fee_per_gas: BigInt,
    pub max_priority_fee_per_gas: BigInt,
    pub value: BigInt,
    /// The call data (init code for a creation).
    pub data: Buffer,
    pub intrinsic_gas: BigInt,
    pub size: u32,
    pub sender_nonce: BigInt,
    pub sender_balance: BigInt,
}

/// A system module's record written by a block; the state root commits to it through the storage
/// of the module's account.
#[napi(object)]
pub struct AppWrite {
    /// The module's address (20 bytes).
    pub module: Buffer,
    pub key: Buffer,
    pub value: Option<Buffer>,
}

/// A write to a service column family (node-local data beside the chain); no value deletes the key.
#[napi(object)]
pub struct ServiceWrite {
    pub key: Buffer,
    pub value: Option<Buffer>,
}

#[napi(object)]
pub struct ProduceBlockRequest {
    /// The block's time in milliseconds; raised to the parent's + 1 ms when not after it.
    pub timestamp_ms: i64,
    pub coinbase: Buffer,
    pub extra_data: Buffer,
    pub gas_limit: i64,
    pub txs: Vec<Buffer>,
    pub senders: Vec<Buffer>,
    pub app_writes: Option<Vec<AppWrite>>,
    /// Outcomes of the transactions addressed to system modules, decided by their module.
    pub system: Option<Vec<SystemTxOutcome>>,
    /// Balance moves before the first transaction (storage deposits taken and returned).
    pub pre_moves: Option<Vec<BalanceMoveJs>>,
    /// Balance moves after the last transaction (minted rewards, burned slashes).
    pub block_moves: Option<Vec<BalanceMoveJs>>,
    /// System messages the block carries besides its transactions, stored with its body.
    pub messages: Option<Vec<Buffer>>,
    /// Dormant accounts, whose calls revert; absent when none is dormant.
    pub dormancy: Option<DormancyJs>,
    /// Development edits of accounts (devnet), applied before the block's moves and transactions.
    pub account_edits: Option<Vec<AccountEditJs>>,
}

/// A development edit of one account: each field given replaces the account's.
#[napi(object, js_name = "AccountEdit")]
pub struct AccountEditJs {
    pub address: Buffer,
    pub nonce: Option<BigInt>,
    pub code: Option<Buffer>,
    /// Storage slots (32 bytes) and their new values (32 bytes).
    pub storage: Option<Vec<StorageEditJs>>,
}

/// One storage slot of an account edit.
#[napi(object, js_name = "StorageEdit")]
pub struct StorageEditJs {
    pub slot: Buffer,
    pub value: Buffer,
}

/// Which accounts a block treats as dormant: the records under `prefix` (the parent's) with the
/// block's own changes.
#[napi(object, js_name = "Dormancy")]
pub struct DormancyJs {
    pub prefix: Buffer,
    pub dormant: Vec<Buffer>,
    pub reactivated: Vec<Buffer>,
}

#[napi(object)]
pub struct ModuleLog {
    pub topics: Vec<Buffer>,
    pub data: Buffer,
}

/// A move of native balance: no `from` mints, no `to` burns.
#[napi(object, js_name = "BalanceMove")]
pub struct BalanceMoveJs {
    pub from: Option<Buffer>,
    pub to: Option<Buffer>,
    pub amount: BigInt,
}

#[napi(object)]
pub struct SystemTxOutcome {
    /// Index of the transaction in `txs`.
    pub index: u32,
    pub success: bool,
    pub gas_used: BigInt,
    pub logs: Vec<ModuleLog>,
    pub moves: Vec<BalanceMoveJs>,
}

#[napi(object)]
pub struct RejectedTx {
    pub hash: Buffer,
    pub reason: String,
}

#[napi(object)]
pub struct ProducedBlock {
    pub head: HeadInfo,
    pub included: Vec<Buffer>,
    pub rejected: Vec<RejectedTx>,
    pub deferred: Vec<Buffer>,
    pub timings: BlockTimings,
}

/// Where a block's native time went, in milliseconds.
#[napi(object)]
pub struct BlockTimings {
    /// Waiting for the block lane's thread (another block in flight).
    pub queued_ms: f64,
    pub execute_ms: f64,
    /// State, transactions and receipts roots, and the explorer's index records beside them.
    pub root_ms: f64,
    /// The one write batch, synced.
    pub commit_ms: f64,
}

#[napi(object)]
pub struct AccessListEntry {
    pub address: Buffer,
    pub storage_keys: Vec<Buffer>,
}

#[napi(object)]
pub struct CallRequest {
    pub from: Option<Buffer>,
    pub to: Option<Buffer>,
    pub gas: Option<BigInt>,
    pub gas_price: Option<BigInt>,
    pub max_fee_per_gas: Option<BigInt>,
    pub max_priority_fee_per_gas: Option<BigInt>,
    pub value: Option<BigInt>,
    pub data: Option<Buffer>,
    pub nonce: Option<BigInt>,
    pub access_list: Option<Vec<AccessListEntry>>,
    /// EIP-7702 authorizations: the call runs as a set-code transaction.
    pub authorization_list: Option<Vec<AuthorizationEntry>>,
}

/// A signed EIP-7702 authorization (geth's SetCodeAuthorization).
#[napi(object)]
pub struct AuthorizationEntry {
    pub chain_id: BigInt,
    pub address: Buffer,
    pub nonce: BigInt,
    pub y_parity: u32,
    pub r: BigInt,
    pub s: BigInt,
}

#[napi(object)]
pub struct CallResult {
    pub status: String,
    pub output: Buffer,
    pub gas_used: BigInt,
    pub error: Option<String>,
}

#[napi(object)]
pub struct EstimateResult {
    pub status: String,
    pub gas: BigInt,
    pub output: Buffer,
    pub error: Option<String>,
}

#[napi(object)]
pub struct LogFilter {
    pub from_block: i64,
    pub to_block: i64,
    pub addresses: Vec<Buffer>,
    pub topics: Vec<Option<Vec<Buffer>>>,
    pub limit: i64,
}

#[napi(object)]
pub struct LogQueryResult {
    /// RPC-shaped logs.
    #[napi(ts_type = "Record<string, unknown>[]")]
    pub logs: Vec<serde_json::Value>,
    pub truncated: bool,
    pub last_block: i64,
}

/// eth_getLogs' answer as JSON bytes, unless the query passed the result limit (`truncated`).
#[napi(object)]
pub struct LogQueryJson {
    /// The JSON array of the RPC-shaped logs (empty when truncated).
    pub json: Buffer,
    pub truncated: bool,
    pub last_block: i64,
}

#[napi(object)]
pub struct AccountState {
    pub nonce: BigInt,
    pub balance: BigInt,
    pub code_hash: Buffer,
}

#[napi(object)]
pub struct BlockSelector {
    pub number: Option<i64>,
    pub hash: Option<Buffer>,
}

#[napi(object)]
pub struct FeeHistoryResult {
    pub oldest_block: i64,
    pub base_fee_per_gas: Vec<BigInt>,
    pub gas_used_ratio: Vec<f64>,
    pub reward: Vec<Vec<BigInt>>,
}

/// Code placed at an address for one traced call (balance, nonce and storage stay).
#[napi(object)]
pub struct CodeOverride {
    pub address: Buffer,
    pub code: Buffer,
}

/// A storage slot a traced frame touched.
#[napi(object)]
pub struct TracedStorageAccess {
    pub address: Buffer,
    pub slot: Buffer,
    pub read: bool,
    pub write: bool,
    pub transient: bool,
}

/// An EXTCODESIZE / EXTCODEHASH / EXTCODECOPY of a traced frame (`hasCode` absent for EXTCODECOPY).
#[napi(object)]
pub struct TracedCodeAccess {
    pub opcode: u32,
    pub address: Buffer,
    pub has_code: Option<bool>,
}

/// One frame of a traced call, in the order frames were entered.
#[napi(object)]
pub struct TracedFrame {
    /// Index of the entering frame; -1 for the call itself.
    pub parent: i32,
    pub depth: u32,
    /// CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE or CREATE2.
    pub kind: String,
    pub from: Buffer,
    pub to: Buffer,
    pub code_address: Buffer,
    pub has_code: bool,
    pub selector: Buffer,
    pub value: BigInt,
    pub gas_limit: BigInt,
    pub gas_used: BigInt,
    pub success: bool,
    pub reverted: bool,
    pub out_of_gas: bool,
    pub output: Buffer,
    /// Opcodes the frame ran itself, as [opcode, count] pairs.
    pub opcodes: Vec<Vec<u32>>,
    pub gas_not_before_call: bool,
    pub storage: Vec<TracedStorageAccess>,
    pub code_accesses: Vec<TracedCodeAccess>,
}

/// A call watched by the validation tracer.
#[napi(object)]
pub struct ValidationTraceResult {
    pub status: String,
    pub output: Buffer,
    pub gas_used: BigInt,
    pub error: Option<String>,
    pub frames: Vec<TracedFrame>,
    /// Keccak preimages' first words and their hashes, as [word, hash] pairs.
    pub keccak: Vec<Vec<Buffer>>,
}

/// A value transfer or creation inside a transaction (the explorer's internal transactions).
#[napi(object)]
pub struct InternalTransaction {
    pub tx_index: u32,
    pub tx_hash: Buffer,
    /// Its place in the call tree: child indexes from the transaction's top call.
    pub trace_address: Vec<u32>,
    /// call, create, create2 or selfdestruct.
    pub kind: String,
    pub from: Buffer,
    /// The callee, the created contract or the self-destruct's beneficiary.
    pub to: Buffer,
    pub value: BigInt,
    pub gas: BigInt,
    pub gas_used: BigInt,
    /// Why the frame failed (its changes were undone).
    pub error: Option<String>,
}

/// A storage word of a state override: slot and value, 32 bytes each.
#[napi(object)]
pub struct StorageWord {
    pub slot: Buffer,
    pub value: Buffer,
}

/// geth's state override of one account.
#[napi(object)]
pub struct AccountOverrideJs {
    pub address: Buffer,
    pub balance: Option<BigInt>,
    pub nonce: Option<BigInt>,
    pub code: Option<Buffer>,
    /// Replaces the account's whole storage.
    pub state: Option<Vec<StorageWord>>,
    /// Replaces only the slots listed.
    pub state_diff: Option<Vec<StorageWord>>,
}

/// geth's block overrides.
#[napi(object)]
pub struct BlockOverrideJs {
    pub number: Option<BigInt>,
    pub time: Option<BigInt>,
    pub gas_limit: Option<BigInt>,
    pub fee_recipient: Option<Buffer>,
    pub prev_randao: Option<Buffer>,
    pub base_fee: Option<BigInt>,
}

/// The state and block overrides of eth_call, eth_estimateGas and eth_createAccessList.
#[napi(object)]
pub struct CallOverridesJs {
    pub state: Vec<AccountOverrideJs>,
    pub block: Option<BlockOverrideJs>,
}

/// eth_createAccessList's answer; `invalid` is geth's text when the call could not be applied.
#[napi(object)]
pub struct AccessListResult {
    pub access_list: Vec<AccessListEntry>,
    pub gas_used: BigInt,
    pub status: String,
    pub output: Buffer,
    pub error: Option<String>,
    pub invalid: Option<String>,
}

/// One storage key of eth_getProof: the slot (up to 32 bytes) and whether it was given as a full
/// 32-byte hash (then it is answered as given, else as a quantity, as geth does).
#[napi(object)]
pub struct ProofKey {
    pub slot: Buffer,
    pub exact: bool,
}

/// One block of eth_simulateV1: its overrides and calls.
#[napi(object)]
pub struct SimulateBlockJs {
    pub overrides: Option<CallOverridesJs>,
    pub calls: Vec<CallRequest>,
}
