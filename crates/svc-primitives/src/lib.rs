//! Primitive types of the svc chain: addresses, quantities, signed transactions with sender
//! recovery, intrinsic gas, receipts, block headers, trie roots and the EIP-1559 base fee.

pub mod fees;
pub mod gas;
pub mod header;
pub mod receipt;
pub mod rlp_error;
pub mod tx;

pub use alloy_consensus::{Header, TxEnvelope};
pub use alloy_eips::eip2930::{AccessList, AccessListItem};
pub use alloy_eips::eip7702::{Authorization, SignedAuthorization};
pub use alloy_primitives::{keccak256, Address, Bloom, Bytes, Log, LogData, TxKind, B256, U256};
pub use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH, KECCAK_EMPTY};

pub use fees::next_base_fee;
pub use gas::{intrinsic_gas, IntrinsicGas};
pub use header::{empty_requests_hash, header_hash, header_time_ms, mix_hash_with_millis, prague_header, EMPTY_OMMER_ROOT_HASH};
pub use receipt::{logs_bloom, receipts_root, transactions_root, TxReceipt};
pub use tx::{recover_authority, SignedTransaction, TxError};
