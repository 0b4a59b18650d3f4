//! Account state: reads at the head (flat) or at any state root (trie), and turning a block's
//! changes into flat writes, trie nodes and the new state root.

use std::collections::BTreeMap;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use alloy_rlp::Decodable;
use svc_primitives::{TrieAccount, EMPTY_ROOT_HASH, KECCAK_EMPTY};

use crate::store::ReadView;
use crate::trie;
use crate::{StoreError, StoreResult};

/// Where state is read: the head's flat state, or the trie under a (historical) state root.
#[derive(Clone, Copy)]
pub enum StateAt<'a> {
    Latest(&'a ReadView),
    Root(&'a ReadView, B256),
}

impl<'a> StateAt<'a> {
    /// State after block `number` as seen by `view`: flat at the head, trie otherwise.
    pub fn at_block(view: &'a ReadView, number: u64) -> StoreResult<Self> {
        if view.head().is_some_and(|h| h.number() == number) {
            return Ok(Self::Latest(view));
        }
        let block = view.block(number)?.ok_or_else(|| StoreError::Invalid(format!("block {number} not found")))?;
        Ok(Self::Root(view, block.header.state_root))
    }

    pub fn view(&self) -> &'a ReadView {
        match self {
            Self::Latest(v) | Self::Root(v, _) => v,
        }
    }

    pub fn account(&self, address: &Address) -> StoreResult<Option<TrieAccount>> {
        match self {
            Self::Latest(view) => view.flat_account(address),
            Self::Root(view, root) => trie_account(view, *root, address),
        }
    }

    /// Storage value of `slot` of `address` (zero when unset or the account does not exist).
    pub fn storage(&self, address: &Address, slot: &B256) -> StoreResult<U256> {
        match self {
            Self::Latest(view) => view.flat_storage(address, slot),
            Self::Root(view, root) => match trie_account(view, *root, address)? {
                Some(account) => trie_storage(view, account.storage_root, slot),
                None => Ok(U256::ZERO),
            },
        }
    }

    /// Code of the account (empty for accounts without code).
    pub fn code_of(&self, address: &Address) -> StoreResult<Bytes> {
        match self.account(address)? {
            Some(a) if a.code_hash != KECCAK_EMPTY => self
                .view()
                .code(&a.code_hash)?
                .ok_or_else(|| StoreError::Corrupt(format!("code {} is missing", a.code_hash))),
            _ => Ok(Bytes::new()),
        }
    }
}

/// Account under a state root.
pub fn trie_account(view: &ReadView, root: B256, address: &Address) -> StoreResult<Option<TrieAccount>> {
    match trie::get(view, root, &keccak256(address))? {
        Some(rlp) => Ok(Some(
            TrieAccount::decode(&mut rlp.as_slice()).map_err(|e| StoreError::Corrupt(format!("account {address}: {e}")))?,
        )),
        None => Ok(None),
    }
}

/// Storage value under a storage root.
pub fn trie_storage(view: &ReadView, storage_root: B256, slot: &B256) -> StoreResult<U256> {
    if storage_root == EMPTY_ROOT_HASH {
        return Ok(U256::ZERO);
    }
    match trie::get(view, storage_root, &keccak256(slot))? {
        Some(rlp) => U256::decode(&mut rlp.as_slice()).map_err(|e| StoreError::Corrupt(format!("storage value: {e}"))),
        None => Ok(U256::ZERO),
    }
}

/// The storage slot of a module's account that commits to the module record under `key`:
/// `keccak256(key)`. Module records live in the app column family, where they are read; the state
/// root covers them through these slots of the module's account (see docs/architecture.md).
pub fn record_slot(key: &[u8]) -> B256 {
    keccak256(key)
}

/// The word a record's slot holds: `keccak256(value)` (never zero); zero when the record is deleted.
pub fn record_word(value: Option<&[u8]>) -> U256 {
    value.map_or(U256::ZERO, |v| U256::from_be_bytes(keccak256(v).0))
}

/// The fields of an account that execution changes (the storage root is derived).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountFields {
    pub nonce: u64,
    pub balance: U256,
    pub code_hash: B256,
}

/// Storage writes of one account; `wipe` clears all its previous storage first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StorageChange {
    pub address: Address,
    pub wipe: bool,
    /// Slot -> new value (zero deletes).
    pub slots: Vec<(B256, U256)>,
}

/// What a block (or genesis) changed, relative to the parent state.
#[derive(Debug, Clone, Default)]
pub struct StateChanges {
    /// Accounts whose nonce, balance or code changed; None deletes the account.
    pub accounts: Vec<(Address, Option<AccountFields>)>,
    pub storage: Vec<StorageChange>,
    /// New contract code by hash.
    pub code: Vec<(B256, Bytes)>,
}

/// The writes that carry the state from the parent root to `root`.
#[derive(Debug, Clone, Default)]
pub struct StateUpdate {
    pub root: B256,
    pub accounts: Vec<(Address, Option<TrieAccount>)>,
    pub storage: Vec<StorageChange>,
    pub code: Vec<(B256, Bytes)>,
    pub trie_nodes: Vec<(B256, Vec<u8>)>,
    /// Accounts whose number of non-zero storage slots changed, with the new count (0: none left),
    /// ascending by address.
    pub slot_counts: Vec<(Address, u64)>,
}

/// Apply `changes` on top of the head state of `view` (its flat state and `parent_root`).
pub fn apply_changes(view: &ReadView, parent_root: B256, changes: StateChanges) -> StoreResult<StateUpdate> {
    // Per touched account: the new fields (outer None = unchanged) and its storage change.
    let mut touched: BTreeMap<Address, (Option<Option<AccountFields>>, Option<&StorageChange>)> = BTreeMap::new();
    for (address, fields) in &changes.accounts {
        touched.entry(*address).or_default().0 = Some(*fields);
    }
    for change in &changes.storage {
        touched.entry(change.address).or_default().1 = Some(change);
    }

    let mut trie_nodes = Vec::new();
    let mut account_updates: Vec<(B256, Option<Vec<u8>>)> = Vec::with_capacity(touched.len());
    let mut flat_accounts = Vec::with_capacity(touched.len());
    let mut flat_storage = Vec::new();
    let mut slot_counts = Vec::new();
    for (address, (fields, storage)) in touched {
        let current = view.flat_account(&address)?;
        let fields = match fields {
            Some(f) => f,
            None => current.map(|a| AccountFields { nonce: a.nonce, balance: a.balance, code_hash: a.code_hash }),
        };
        let Some(fields) = fields else {
            // Deleted (or never existed): its storage goes with it.
            let had_storage = current.is_some_and(|a| a.storage_root != EMPTY_ROOT_HASH);
            if current.is_some() {
                account_updates.push((keccak256(address), None));
                flat_accounts.push((address, None));
            }
            if had_storage || storage.is_some_and(|s| s.wipe) {
                flat_storage.push(StorageChange { address, wipe: true, slots: Vec::new() });
            }
            // Only an account that had storage can have a count to drop.
            if had_storage && view.slot_count(&address)? != 0 {
                slot_counts.push((address, 0));
            }
            continue;
        };
        let mut storage_root = current.map_or(EMPTY_ROOT_HASH, |a| a.storage_root);
        if let Some(change) = storage {
            if change.wipe {
                storage_root = EMPTY_ROOT_HASH;
            }
            // Sorted by hashed key and unique, the last write of a slot winning.
            let updates: Vec<(B256, Option<Vec<u8>>)> = change
                .slots
                .iter()
                .map(|(slot, value)| (keccak256(slot), (!value.is_zero()).then(|| alloy_rlp::encode(value))))
                .collect::<BTreeMap<_, _>>()
                .into_iter()
                .collect();
            if !updates.is_empty() {
                let commit = trie::update(view, storage_root, &updates)?;
                storage_root = commit.root;
                trie_nodes.extend(commit.nodes);
            }
            let count_before = view.slot_count(&address)?;
            let count = count_after(view, &address, count_before, change)?;
            if count != count_before {
                slot_counts.push((address, count));
            }
            flat_storage.push(change.clone());
        }
        let account = TrieAccount::new(fields.nonce, fields.balance, storage_root, fields.code_hash);
        if current.as_ref() != Some(&account) {
            account_updates.push((keccak256(address), Some(alloy_rlp::encode(account))));
            flat_accounts.push((address, Some(account)));
        }
    }
    account_updates.sort_unstable_by_key(|u| u.0);
    let root = if account_updates.is_empty() {
        parent_root
    } else {
        let commit = trie::update(view, parent_root, &account_updates)?;
        trie_nodes.extend(commit.nodes);
        commit.root
    };
    Ok(StateUpdate { root, accounts: flat_accounts, storage: flat_storage, code: changes.code, trie_nodes, slot_counts })
}

/// The account's number of non-zero slots after `change`: a slot written from zero to non-zero is
/// one more, from non-zero to zero one less (the previous value from the flat state, or zero after a
/// wipe); the last write of a slot counts.
fn count_after(view: &ReadView, address: &Address, before: u64, change: &StorageChange) -> StoreResult<u64> {
    let last: BTreeMap<B256, U256> = change.slots.iter().copied().collect();
    let mut count = if change.wipe { 0 } else { before };
    for (slot, value) in last {
        let was_set = !change.wipe && !view.flat_storage(address, &slot)?.is_zero();
        match (was_set, value.is_zero()) {
            (false, false) => count += 1,
            (true, true) => {
                count = count.checked_sub(1).ok_or_else(|| crate::StoreError::Corrupt(format!("slot count of {address} below zero")))?;
            }
            _ => {}
        }
    }
    Ok(count)
}
