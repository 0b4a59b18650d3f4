//! Column families and key layouts. Numbers are big-endian so that keys sort in block order.

use alloy_primitives::{Address, B256};

/// Latest account of each address (flat, for fast reads at the head): value RLP(TrieAccount).
pub const CF_ACCOUNTS: &str = "accounts";
/// Latest non-zero storage slots (flat): key address ++ slot, value trimmed big-endian U256.
pub const CF_STORAGE: &str = "storage";
/// Contract code by keccak hash.
pub const CF_CODE: &str = "code";
/// Trie nodes (account and storage tries) by keccak of their RLP; never deleted (archive).
pub const CF_TRIE: &str = "trie";
/// Block number -> hash ++ RLP(header).
pub const CF_HEADERS: &str = "headers";
/// Block number -> transactions and senders.
pub const CF_BODIES: &str = "bodies";
/// Block number -> receipts.
pub const CF_RECEIPTS: &str = "receipts";
/// Block hash -> number.
pub const CF_HASH_TO_NUMBER: &str = "hash_to_number";
/// Transaction hash -> block number ++ index.
pub const CF_TX_INDEX: &str = "tx_index";
/// Head pointer, genesis hash, chain id.
pub const CF_META: &str = "meta";
/// Key/values of the TypeScript application modules, written in the block's batch.
pub const CF_APP: &str = "app";

/// Non-zero storage slots per account, kept as storage changes (not by scanning): address -> u64
/// big-endian; absent for none. A function of the state the root commits to (the number of leaves
/// of the account's storage trie), which the rent rules read.
pub const CF_SLOT_COUNTS: &str = "slot_counts";
/// Block number -> the accounts whose slot count the block changed, each with its new count
/// (20-byte address ++ u64 big-endian, ascending by address): what a block hook reads of its parent.
pub const CF_SLOT_CHANGES: &str = "slot_changes";
/// Block number -> the accounts with code that the block's execution loaded (20-byte addresses,
/// ascending): the activity the rent rules read of a block's parent.
pub const CF_ACTIVE_CODE: &str = "active_code";
/// Block number -> what a block did before its first EVM transaction and what re-executing it
/// cannot see otherwise (debug tracing): the accounts the moves before its transactions and its
/// system-module transactions changed (address ++ nonce u64 ++ balance 32 bytes each, after them),
/// then the dormant accounts its calls were refused at. Absent when both are empty.
pub const CF_TRACE_INPUTS: &str = "trace_inputs";

/// The explorer's indexes (address history, token transfers, holders, charts), derived from blocks.
pub const CF_EXPLORER: &str = "explorer";
/// Explorer users: accounts, refresh token families, API keys (as hashes), watchlists.
pub const CF_USERS: &str = "users";

pub const ALL_CFS: [&str; 17] = [
    CF_ACCOUNTS, CF_STORAGE, CF_CODE, CF_TRIE, CF_HEADERS, CF_BODIES, CF_RECEIPTS,
    CF_HASH_TO_NUMBER, CF_TX_INDEX, CF_META, CF_APP, CF_SLOT_COUNTS, CF_SLOT_CHANGES, CF_ACTIVE_CODE, CF_TRACE_INPUTS, CF_EXPLORER, CF_USERS,
];

/// Column families written outside block commits, by the node's own services (not consensus state).
pub const SERVICE_CFS: [&str; 2] = [CF_EXPLORER, CF_USERS];

pub const META_HEAD: &[u8] = b"head";
pub const META_GENESIS: &[u8] = b"genesis";
pub const META_CHAIN_ID: &[u8] = b"chain_id";
/// Present once CF_SLOT_COUNTS holds every account's count (a data dir from before the counts is
/// counted once when opened).
pub const META_SLOT_COUNTS: &[u8] = b"slot_counts_v1";

/// The first block whose state this data dir holds (the snapshot height of a node that joined by
/// state sync); absent: every block since genesis.
pub const META_STATE_FROM: &[u8] = b"state_from";
/// Present while a state sync restore is being written (the data dir is unusable until it finishes).
pub const META_RESTORING: &[u8] = b"restoring";

/// The first block whose trace inputs are kept (a data dir from before them keeps them from its next block).
pub const META_TRACE_INPUTS_FROM: &[u8] = b"trace_inputs_from";

pub fn number_key(number: u64) -> [u8; 8] {
    number.to_be_bytes()
}

pub fn storage_key(address: &Address, slot: &B256) -> [u8; 52] {
    let mut key = [0u8; 52];
    key[..20].copy_from_slice(address.as_slice());
    key[20..].copy_from_slice(slot.as_slice());
    key
}
