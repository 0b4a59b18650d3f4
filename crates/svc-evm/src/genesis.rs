//! The genesis block: allocation (balances, nonces, code, storage, constructor-run init code),
//! its state root, and block 0.

use std::collections::BTreeMap;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use revm::context::{BlockEnv, CfgEnv, Context};
use revm::database::{CacheDB, EmptyDB};
use revm::handler::{MainBuilder, MainContext, SystemCallEvm};
use revm::primitives::hardfork::SpecId;
use revm::state::AccountInfo;
use svc_primitives::{header_hash, prague_header, Header, TrieAccount, EMPTY_ROOT_HASH, KECCAK_EMPTY};
use svc_store::state::{StateUpdate, StorageChange};
use svc_store::trie::{self, MemoryNodes};
use svc_store::BlockCommit;

use crate::errors::{halt_text, ChainError};

/// One account of the genesis allocation.
#[derive(Debug, Clone, Default)]
pub struct GenesisAccount {
    pub address: Address,
    pub balance: U256,
    pub nonce: u64,
    pub code: Option<Bytes>,
    /// Run at genesis with the account as its own address; the returned bytes become the code.
    pub init_code: Option<Bytes>,
    pub storage: Vec<(B256, B256)>,
}

#[derive(Debug, Clone, Default)]
pub struct GenesisSpec {
    pub chain_id: u64,
    pub timestamp: u64,
    pub gas_limit: u64,
    pub base_fee_per_gas: u64,
    pub coinbase: Address,
    pub extra_data: Bytes,
    pub alloc: Vec<GenesisAccount>,
}

struct GenesisAccountState {
    nonce: u64,
    balance: U256,
    code: Bytes,
    storage: BTreeMap<B256, U256>,
}

/// Build block 0 and the writes of its state.
pub fn build_genesis(spec: &GenesisSpec) -> Result<BlockCommit, ChainError> {
    let mut accounts: BTreeMap<Address, GenesisAccountState> = BTreeMap::new();
    for a in &spec.alloc {
        if a.code.is_some() && a.init_code.is_some() {
            return Err(ChainError::Invalid(format!("genesis account {} has both code and initCode", a.address)));
        }
        if accounts.contains_key(&a.address) {
            return Err(ChainError::Invalid(format!("genesis account {} is listed twice", a.address)));
        }
        let storage = a.storage.iter().map(|(k, v)| (*k, U256::from_be_bytes(v.0))).filter(|(_, v)| !v.is_zero()).collect();
        accounts.insert(
            a.address,
            GenesisAccountState { nonce: a.nonce, balance: a.balance, code: a.code.clone().unwrap_or_default(), storage },
        );
    }
    for a in spec.alloc.iter().filter(|a| a.init_code.is_some()) {
        let outcome = run_init_code(spec, &accounts, a.address, a.init_code.clone().unwrap_or_default())?;
        let entry = accounts.get_mut(&a.address).expect("inserted above");
        entry.code = outcome.code;
        entry.balance = outcome.balance;
        entry.storage.extend(outcome.storage);
        entry.storage.retain(|_, v| !v.is_zero());
        // A created contract starts at nonce 1 (EIP-161); each CREATE of its constructor adds one.
        entry.nonce = outcome.nonce.max(1);
        for (address, created) in outcome.created {
            if accounts.contains_key(&address) {
                return Err(ChainError::Invalid(format!(
                    "genesis initCode of {} creates {address}, which the allocation already lists",
                    a.address
                )));
            }
            accounts.insert(address, created);
        }
    }

    let mut nodes = MemoryNodes::default();
    let mut update = StateUpdate::default();
    let mut account_leaves = Vec::with_capacity(accounts.len());
    for (address, a) in &accounts {
        let code_hash = if a.code.is_empty() { KECCAK_EMPTY } else { keccak256(&a.code) };
        if !a.code.is_empty() {
            update.code.push((code_hash, a.code.clone()));
        }
        let mut storage_root = EMPTY_ROOT_HASH;
        if !a.storage.is_empty() {
            let leaves: BTreeMap<B256, Option<Vec<u8>>> =
                a.storage.iter().map(|(slot, value)| (keccak256(slot), Some(alloy_rlp::encode(value)))).collect();
            let leaves: Vec<_> = leaves.into_iter().collect();
            let commit = trie::update(&nodes, EMPTY_ROOT_HASH, &leaves).map_err(svc_store::StoreError::from)?;
            nodes.insert_all(&commit.nodes);
            update.trie_nodes.extend(commit.nodes);
            storage_root = commit.root;
            update.storage.push(StorageChange { address: *address, wipe: false, slots: a.storage.iter().map(|(k, v)| (*k, *v)).collect() });
            update.slot_counts.push((*address, a.storage.len() as u64));
        }
        let account = TrieAccount::new(a.nonce, a.balance, storage_root, code_hash);
        account_leaves.push((keccak256(address), Some(alloy_rlp::encode(account))));
        update.accounts.push((*address, Some(account)));
    }
    account_leaves.sort_unstable_by_key(|leaf| leaf.0);
    let commit = trie::update(&nodes, EMPTY_ROOT_HASH, &account_leaves).map_err(svc_store::StoreError::from)?;
    update.trie_nodes.extend(commit.nodes);
    update.root = commit.root;

    let header = Header {
        parent_hash: B256::ZERO,
        beneficiary: spec.coinbase,
        state_root: update.root,
        transactions_root: EMPTY_ROOT_HASH,
        receipts_root: EMPTY_ROOT_HASH,
        number: 0,
        gas_limit: spec.gas_limit,
        gas_used: 0,
        timestamp: spec.timestamp,
        extra_data: spec.extra_data.clone(),
        base_fee_per_gas: Some(spec.base_fee_per_gas),
        ..prague_header()
    };
    let hash = header_hash(&header);
    Ok(BlockCommit { header, hash, state: update, ..Default::default() })
}

/// What running a genesis account's init code left: the target's runtime code, balance, nonce and
/// storage, and the contracts its constructor created.
struct InitOutcome {
    code: Bytes,
    balance: U256,
    nonce: u64,
    storage: Vec<(B256, U256)>,
    created: Vec<(Address, GenesisAccountState)>,
}

/// Execute `init_code` as the constructor of `target` over the allocation. As in a CREATE, the
/// target runs at nonce 1 (EIP-161), so a contract its constructor creates (`new C()`) lands at
/// CREATE(target, 1), CREATE(target, 2), … as on a network where it was deployed by a transaction.
/// Kept: the target's own changes and the accounts created during the run; changes to other
/// accounts of the allocation are dropped.
fn run_init_code(
    spec: &GenesisSpec,
    accounts: &BTreeMap<Address, GenesisAccountState>,
    target: Address,
    init_code: Bytes,
) -> Result<InitOutcome, ChainError> {
    let mut db = CacheDB::new(EmptyDB::default());
    for (address, a) in accounts {
        let code = if *address == target { init_code.clone() } else { a.code.clone() };
        let nonce = if *address == target { a.nonce.max(1) } else { a.nonce };
        let bytecode = revm::bytecode::Bytecode::new_raw(code.clone());
        let code_hash = if code.is_empty() { KECCAK_EMPTY } else { keccak256(&code) };
        db.insert_account_info(*address, AccountInfo::new(a.balance, nonce, code_hash, bytecode));
        for (slot, value) in &a.storage {
            db.insert_account_storage(*address, (*slot).into(), *value)
                .map_err(|e| ChainError::Evm(e.to_string()))?;
        }
    }
    let block = BlockEnv {
        number: U256::ZERO,
        timestamp: U256::from(spec.timestamp),
        gas_limit: spec.gas_limit,
        basefee: 0,
        beneficiary: spec.coinbase,
        prevrandao: Some(B256::ZERO),
        ..Default::default()
    };
    let mut cfg = CfgEnv::new_with_spec(SpecId::PRAGUE);
    cfg.chain_id = spec.chain_id;
    let mut evm = Context::mainnet().with_db(db).with_block(block).with_cfg(cfg).build_mainnet();
    let out = evm
        .system_call_with_caller(Address::ZERO, target, Bytes::new())
        .map_err(|e| ChainError::Invalid(format!("genesis initCode of {target} failed: {e}")))?;
    let result = out.result;
    let code = match result {
        revm::context::result::ExecutionResult::Success { output, .. } => output.into_data(),
        revm::context::result::ExecutionResult::Revert { .. } => {
            return Err(ChainError::Invalid(format!("genesis initCode of {target} reverted")))
        }
        revm::context::result::ExecutionResult::Halt { reason, .. } => {
            return Err(ChainError::Invalid(format!("genesis initCode of {target} failed: {}", halt_text(&reason))))
        }
    };
    if code.first() == Some(&0xef) {
        return Err(ChainError::Invalid(format!("genesis initCode of {target} returned code starting with 0xef")));
    }
    let own = &accounts[&target];
    let mut outcome = InitOutcome { code, balance: own.balance, nonce: own.nonce.max(1), storage: Vec::new(), created: Vec::new() };
    for (address, account) in &out.state {
        let storage = || account.storage.iter().map(|(k, slot)| (B256::from(*k), slot.present_value));
        if *address == target {
            outcome.balance = account.info.balance;
            outcome.nonce = account.info.nonce;
            outcome.storage = storage().collect();
        } else if account.is_created() && !account.is_selfdestructed() {
            let code = account.info.code.as_ref().map(|c| c.original_bytes()).unwrap_or_default();
            if code.first() == Some(&0xef) {
                return Err(ChainError::Invalid(format!("genesis initCode of {target} created {address} with code starting with 0xef")));
            }
            let state = GenesisAccountState {
                nonce: account.info.nonce,
                balance: account.info.balance,
                code,
                storage: storage().filter(|(_, v)| !v.is_zero()).collect(),
            };
            outcome.created.push((*address, state));
        }
    }
    Ok(outcome)
}
