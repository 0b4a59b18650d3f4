//! RocksDB storage of the svc chain: column families, one atomic WriteBatch per block, the state
//! Merkle-Patricia trie, and consistent read views over snapshots.

pub mod codec;
pub mod query;
pub mod recent;
pub mod schema;
pub mod snapshot;
pub mod state;
pub mod store;
pub mod trie;

pub use state::{StateAt, StateChanges, StateUpdate};
pub use recent::{BlockData, RecentBlocks};
pub use store::{BlockCommit, ReadView, Store, StoredBlock, TraceInputs};

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Db(#[from] rocksdb::Error),
    #[error("trie error: {0}")]
    Trie(#[from] trie::TrieError),
    #[error("corrupt database: {0}")]
    Corrupt(String),
    #[error("{0}")]
    Invalid(String),
}

pub type StoreResult<T> = Result<T, StoreError>;
