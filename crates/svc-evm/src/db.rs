//! revm's database over svc-store: the head's flat state or the trie at a historical root.

use alloy_primitives::{Address, B256, U256};
use revm::bytecode::Bytecode;
use revm::database_interface::{DBErrorMarker, DatabaseRef};
use revm::state::AccountInfo;
use svc_primitives::KECCAK_EMPTY;
use svc_store::{StateAt, StoreError};

/// A storage failure seen by revm.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreDbError(pub String);

impl DBErrorMarker for StoreDbError {}

impl From<StoreError> for StoreDbError {
    fn from(e: StoreError) -> Self {
        Self(e.to_string())
    }
}

/// Read-only state for revm at one point of the chain.
pub struct StoreDb<'a> {
    pub state: StateAt<'a>,
}

impl DatabaseRef for StoreDb<'_> {
    type Error = StoreDbError;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Self::Error> {
        Ok(self.state.account(&address)?.map(|a| AccountInfo {
            balance: a.balance,
            nonce: a.nonce,
            code_hash: a.code_hash,
            account_id: None,
            // Loaded lazily through code_by_hash_ref when execution needs it.
            code: None,
        }))
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Self::Error> {
        if code_hash == KECCAK_EMPTY || code_hash == B256::ZERO {
            return Ok(Bytecode::default());
        }
        let code = self
            .state
            .view()
            .code(&code_hash)?
            .ok_or_else(|| StoreDbError(format!("code {code_hash} is missing")))?;
        Ok(Bytecode::new_raw(code))
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Self::Error> {
        Ok(self.state.storage(&address, &B256::from(index))?)
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Self::Error> {
        Ok(self.state.view().block_hash(number)?.unwrap_or_default())
    }
}
