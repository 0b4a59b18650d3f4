//! Block production: execute the transactions on the head state under Prague, build receipts,
//! the new state root and the header, and commit it all in one batch.

use std::time::{Duration, Instant};

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use revm::context::result::{EVMError, ExecutionResult};
use revm::context::{BlockEnv, CfgEnv, Context, ContextTr, TxEnv};
use revm::context_interface::block::BlobExcessGasAndPrice;
use revm::context_interface::either::Either;
use revm::context_interface::transaction::{RecoveredAuthority, RecoveredAuthorization};
use revm::database::states::bundle_state::BundleRetention;
use revm::database::{OriginalValuesKnown, State};
use revm::handler::{MainBuilder, MainContext};
use revm::primitives::eip4844::BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE;
use revm::primitives::hardfork::SpecId;
use revm::interpreter::{CallInputs, CallOutcome, CreateInputs, CreateOutcome};
use revm::{Database, DatabaseCommit, InspectCommitEvm, Inspector};
use svc_primitives::gas::MAX_INITCODE_SIZE;
use svc_primitives::{
    header_hash, header_time_ms, logs_bloom, recover_authority, mix_hash_with_millis, next_base_fee, receipts_root, transactions_root, prague_header,
    Header, SignedAuthorization, SignedTransaction, TxEnvelope, TxReceipt, KECCAK_EMPTY,
};
use svc_store::codec::BlockBody;
use svc_store::state::{apply_changes, record_slot, record_word, AccountFields, StateChanges, StorageChange};
use svc_store::{BlockCommit, StateAt, Store, StoredBlock, TraceInputs};

use crate::db::StoreDb;
use crate::dormancy::{Dormancy, DormancyCheck, DormancyGuard};
use crate::errors::{invalid_tx_text, ChainError};

/// geth's MaximumExtraDataSize.
pub const MAX_EXTRA_DATA: usize = 32;

/// The most transactions a block may hold for the explorer's records of it to go into its own
/// batch. Indexing a block costs about as much as executing it and writing its state together
/// (`bench:rpc`, docs/performance.md): past this size that cost stays off the block path, and the
/// background lane indexes the block just after its commit, so the explorer is one block behind
/// the head for that time.
pub const INLINE_INDEX_MAX_TXS: usize = 1_000;

// The header rules live here, where the block is built; the app's proposal checks call them
// through the addon (`headerProblem`, `blockTimeMs`), so TypeScript holds no copy.

/// The time (ms) of a block asked for at `requested_ms` on a parent at `parent_time_ms`: raised to
/// the parent's time + 1 ms when not after it, so that block times strictly increase.
pub fn block_time_ms(requested_ms: u64, parent_time_ms: u64) -> u64 {
    requested_ms.max(parent_time_ms.saturating_add(1))
}

/// Why extra data of `len` bytes cannot be a header's; None when it can.
pub fn extra_data_problem(len: usize) -> Option<String> {
    (len > MAX_EXTRA_DATA).then(|| format!("extra data too long: {len} bytes, limit {MAX_EXTRA_DATA}"))
}

/// Why a proposed header (its time in ms and extra data length) cannot follow a parent at
/// `parent_time_ms`; None when it can: the time must be after the parent's (by at least 1 ms) and
/// the extra data at most MAX_EXTRA_DATA bytes.
pub fn header_problem(parent_time_ms: u64, time_ms: u64, extra_data_len: usize) -> Option<String> {
    if time_ms <= parent_time_ms {
        return Some(format!("time {time_ms} ms is not after the parent's {parent_time_ms} ms"));
    }
    extra_data_problem(extra_data_len)
}

/// What the consensus driver asks to be sealed on top of the head.
#[derive(Debug, Clone, Default)]
pub struct BlockRequest {
    /// The block's time in milliseconds (the header keeps its seconds in `timestamp` and the
    /// milliseconds in `mixHash`, see `header_time_ms`); raised to the parent's time + 1 ms when
    /// not after it, so that block times strictly increase.
    pub timestamp_ms: u64,
    pub coinbase: Address,
    pub extra_data: Bytes,
    pub gas_limit: u64,
    /// EIP-2718 encodings in execution order.
    pub txs: Vec<Bytes>,
    /// The recovered sender of each transaction.
    pub senders: Vec<Address>,
    /// System modules' records written by the block: kept for reads and covered by the state root
    /// through the storage of the module's account.
    pub app_writes: Vec<RecordWrite>,
    /// Transactions to system modules, by index in `txs`, with the outcome their module decided.
    /// They are charged and recorded like any transaction but not run in the EVM.
    pub system: Vec<(usize, SystemOutcome)>,
    /// Balance moves before the first transaction (storage deposits taken and returned).
    pub pre_moves: Vec<BalanceMove>,
    /// Balance moves after the last transaction: minted rewards, burned slashes.
    pub block_moves: Vec<BalanceMove>,
    /// Dormant accounts, whose calls revert (docs/rent.md); None when no account is dormant, and
    /// the block then runs without the guard.
    pub dormancy: Option<Dormancy>,
    /// System messages the block carries besides its transactions, stored with its body so the
    /// block can be replayed; the modules that decided them record their outcome in state.
    pub messages: Vec<Bytes>,
    /// Development edits of accounts (a devnet's dev messages, docs/rpc.md "Development
    /// methods"), applied in order before the moves and transactions of the block.
    pub account_edits: Vec<AccountEdit>,
}

/// A development edit of one account: each field given replaces the account's (storage slot by
/// slot). The app decides that the chain allows them; balances change through moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountEdit {
    pub address: Address,
    pub nonce: Option<u64>,
    pub code: Option<Bytes>,
    /// (slot, value) pairs.
    pub storage: Vec<(U256, U256)>,
}

/// One record of a system module written by a block (`value` None deletes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordWrite {
    /// The module's address: the account whose storage commits to the record.
    pub module: Address,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// What a system module decided for one transaction addressed to it.
#[derive(Debug, Clone, Default)]
pub struct SystemOutcome {
    pub success: bool,
    /// Gas charged, at least the intrinsic gas and at most the transaction's limit.
    pub gas_used: u64,
    /// Logs the module emits (address: the module, the transaction's `to`).
    pub logs: Vec<svc_primitives::Log>,
    /// Payouts the call makes; applied only on success, after the value reached the module.
    pub moves: Vec<BalanceMove>,
}

/// A move of native balance: `from` None mints, `to` None burns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceMove {
    pub from: Option<Address>,
    pub to: Option<Address>,
    pub amount: U256,
}

/// Where the time of a block went.
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockTimings {
    pub execute: Duration,
    pub state_root: Duration,
    pub commit: Duration,
}

#[derive(Debug, Clone)]
pub struct ProducedBlock {
    pub block: StoredBlock,
    pub included: Vec<B256>,
    /// Transactions invalid against the state, with geth's reason.
    pub rejected: Vec<(B256, String)>,
    /// Transactions that did not fit in the block's remaining gas.
    pub deferred: Vec<B256>,
    pub timings: BlockTimings,
}

/// Why a transaction does not run in a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// It does not fit in the block's remaining gas: it waits for the next block.
    Defer,
    /// It is invalid against the state, with geth's text.
    Reject(String),
}

/// What a transaction is checked against before it runs: the block and the sender's account.
#[derive(Debug, Clone, Copy)]
pub struct TxCheck<'a> {
    pub chain_id: u64,
    pub gas_limit: u64,
    /// Gas the block's earlier transactions used.
    pub gas_used: u64,
    pub base_fee: u64,
    /// The sender's account (nonce and balance; none when it does not exist).
    pub account: Option<(u64, U256)>,
    /// The sender's code, when it has any.
    pub code: Option<&'a [u8]>,
}

/// Execution environment of a block on top of `parent`.
pub(crate) fn block_env(header: &Header) -> BlockEnv {
    BlockEnv {
        number: U256::from(header.number),
        beneficiary: header.beneficiary,
        timestamp: U256::from(header.timestamp),
        gas_limit: header.gas_limit,
        basefee: header.base_fee_per_gas.unwrap_or_default(),
        difficulty: U256::ZERO,
        prevrandao: Some(header.mix_hash),
        blob_excess_gas_and_price: Some(BlobExcessGasAndPrice::new(0, BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE)),
        ..Default::default()
    }
}

pub(crate) fn cfg_env(chain_id: u64) -> CfgEnv {
    let mut cfg = CfgEnv::new_with_spec(SpecId::PRAGUE);
    cfg.chain_id = chain_id;
    cfg
}

/// revm's view of a signed transaction. A set-code transaction's authorizations go with their
/// authorities recovered here (libsecp256k1); revm applies them under EIP-7702's rules, skipping
/// those with another chain id, a bad signature, a stale nonce or an authority holding code.
pub(crate) fn tx_env(tx: &SignedTransaction, sender: Address) -> TxEnv {
    TxEnv {
        tx_type: tx.tx_type(),
        caller: sender,
        gas_limit: tx.gas_limit(),
        gas_price: tx.max_fee_per_gas(),
        gas_priority_fee: tx.is_dynamic_fee().then(|| tx.max_priority_fee_per_gas()),
        kind: tx.kind(),
        value: tx.value(),
        data: tx.input().clone(),
        nonce: tx.nonce(),
        chain_id: tx.chain_id(),
        access_list: tx.access_list().cloned().unwrap_or_default(),
        authorization_list: tx.authorization_list().map(recovered_authorizations).unwrap_or_default(),
        ..Default::default()
    }
}

/// Authorizations with their authorities, as revm takes them; one that does not recover is
/// marked invalid (revm skips it) rather than failing the transaction.
pub(crate) fn recovered_authorizations(list: &[SignedAuthorization]) -> Vec<Either<SignedAuthorization, RecoveredAuthorization>> {
    list.iter()
        .map(|auth| {
            let authority = recover_authority(auth).map_or(RecoveredAuthority::Invalid, RecoveredAuthority::Valid);
            Either::Right(RecoveredAuthorization::new_unchecked(auth.inner().clone(), authority))
        })
        .collect()
}

/// A block executed and sealed on the head but not yet written: what ABCI's FinalizeBlock
/// returns (its root and hash) and Commit writes in one batch.
#[derive(Debug)]
pub struct FinalizedBlock {
    pub(crate) commit: BlockCommit,
    pub produced: ProducedBlock,
    /// Whether an EVM transaction of the block did something a call tracer lists as an internal
    /// transaction (see `InternalCallProbe`); when not, the block has none, known without
    /// re-executing it.
    pub(crate) internal_calls: bool,
}

/// Watches a block's EVM transactions, as they run, for what the explorer's internal transactions
/// are made of (`debug_trace::internal_transactions`): below a transaction's top frame, a call that
/// carries value, a contract created, or a self-destruct at any depth. The block path's executor runs
/// every transaction with it, so that a block with none of them (most blocks) need not be
/// re-executed with a call tracer to learn it has no internal transactions. Its answer errs only
/// towards re-executing: a call with an apparent (delegated) value counts too.
#[derive(Debug, Default)]
pub(crate) struct InternalCallProbe {
    /// The transaction's top frame has started: every later call or create is an inner one.
    entered: bool,
    pub(crate) seen: bool,
}

impl InternalCallProbe {
    /// Called before each transaction.
    fn next_transaction(&mut self) {
        self.entered = false;
    }
}

impl<CTX: ContextTr> Inspector<CTX> for InternalCallProbe {
    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        if std::mem::replace(&mut self.entered, true) && !inputs.value.get().is_zero() {
            self.seen = true;
        }
        None
    }

    fn create(&mut self, _context: &mut CTX, _inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        if std::mem::replace(&mut self.entered, true) {
            self.seen = true;
        }
        None
    }

    fn selfdestruct(&mut self, _contract: Address, _target: Address, _value: U256) {
        self.seen = true;
    }
}

/// Writes a finalized block in one batch; refused when the head moved since it was executed.
pub(crate) fn commit_block(store: &Store, finalized: FinalizedBlock) -> Result<ProducedBlock, ChainError> {
    let started = Instant::now();
    let FinalizedBlock { commit, mut produced, .. } = finalized;
    store.commit(commit)?;
    produced.timings.commit = started.elapsed();
    Ok(produced)
}

/// Execute `req` on the head of `store`: the sealed block and everything its write holds.
pub(crate) fn finalize_block(store: &Store, chain_id: u64, req: BlockRequest) -> Result<FinalizedBlock, ChainError> {
    if req.senders.len() != req.txs.len() {
        return Err(ChainError::Invalid(format!(
            "{} senders given for {} transactions",
            req.senders.len(),
            req.txs.len()
        )));
    }
    if let Some(problem) = extra_data_problem(req.extra_data.len()) {
        return Err(ChainError::Invalid(problem));
    }
    if req.gas_limit == 0 {
        return Err(ChainError::Invalid("block gas limit must be positive".into()));
    }
    let started = Instant::now();
    let view = store.view();
    let parent = view.head_block()?.clone();
    let ph = &parent.header;
    let time_ms = block_time_ms(req.timestamp_ms, header_time_ms(ph));
    let mut header = Header {
        parent_hash: parent.hash,
        beneficiary: req.coinbase,
        number: ph.number + 1,
        gas_limit: req.gas_limit,
        timestamp: time_ms / 1000,
        extra_data: req.extra_data.clone(),
        // Deterministic PREVRANDAO: every node derives the same value from the parent; its last two
        // bytes carry the milliseconds of the block's time.
        mix_hash: mix_hash_with_millis(keccak256(parent.hash), time_ms),
        base_fee_per_gas: Some(next_base_fee(ph.gas_used, ph.gas_limit, ph.base_fee_per_gas.unwrap_or_default())),
        ..prague_header()
    };

    let mut state = State::builder()
        .with_database_ref(StoreDb { state: StateAt::Latest(&view) })
        .with_bundle_update()
        .build();
    let mut included_txs: Vec<SignedTransaction> = Vec::with_capacity(req.txs.len());
    let mut body = BlockBody { txs: Vec::with_capacity(req.txs.len()), senders: Vec::with_capacity(req.txs.len()), messages: req.messages.clone() };
    let mut tx_hashes = Vec::with_capacity(req.txs.len());
    let mut receipts = Vec::with_capacity(req.txs.len());
    let mut rejected = Vec::new();
    let mut deferred = Vec::new();
    let mut gas_used = 0u64;
    apply_account_edits(&mut state, &req.account_edits)?;
    apply_moves(&mut state, &req.pre_moves, None)?;
    // The accounts the moves before the transactions and the system transactions change: their
    // state before the first EVM transaction is kept for re-executing the block in a trace.
    let mut pre_evm: std::collections::BTreeSet<Address> = req.pre_moves.iter().flat_map(|m| [m.from, m.to]).flatten().collect();
    pre_evm.extend(req.account_edits.iter().map(|e| e.address));
    let mut before_evm: Option<Vec<(Address, u64, U256)>> = None;
    let mut system_txs = 0u32;
    let check = req.dormancy.as_ref().map(|d| DormancyCheck::new(&view, d));
    let guard = DormancyGuard { check: check.as_ref() };
    let internal_calls;
    {
        let mut evm = Context::mainnet()
            .with_db(&mut state)
            .with_block(block_env(&header))
            .with_cfg(cfg_env(chain_id))
            .build_mainnet_with_inspector((InternalCallProbe::default(), guard));
        let mut system: std::collections::HashMap<usize, SystemOutcome> = req.system.into_iter().collect();
        for (index, (raw, sender)) in req.txs.iter().zip(&req.senders).enumerate() {
            let tx = match SignedTransaction::decode(raw) {
                Ok(tx) => tx,
                Err(e) => {
                    rejected.push((keccak256(raw), e.to_string()));
                    continue;
                }
            };
            let account = evm.db_mut().basic(*sender).map_err(|e| ChainError::Evm(e.to_string()))?;
            let code = match &account {
                Some(a) if a.code_hash != KECCAK_EMPTY => {
                    Some(evm.db_mut().code_by_hash(a.code_hash).map_err(|e| ChainError::Evm(e.to_string()))?.original_bytes())
                }
                _ => None,
            };
            let check = precheck(
                &tx,
                *sender,
                &TxCheck {
                    chain_id,
                    gas_limit: header.gas_limit,
                    gas_used,
                    base_fee: header.base_fee_per_gas.unwrap_or_default(),
                    account: account.as_ref().map(|a| (a.nonce, a.balance)),
                    code: code.as_ref().map(|c| c.as_ref()),
                },
            );
            match check {
                Some(Skip::Defer) => {
                    deferred.push(tx.hash);
                    continue;
                }
                Some(Skip::Reject(reason)) => {
                    rejected.push((tx.hash, reason));
                    continue;
                }
                None => {}
            }
            if let Some(outcome) = system.remove(&index) {
                if before_evm.is_some() {
                    return Err(ChainError::Invalid("a system-module transaction follows an EVM transaction: system transactions come first".into()));
                }
                pre_evm.extend([*sender, header.beneficiary]);
                pre_evm.extend(tx.to());
                pre_evm.extend(outcome.moves.iter().flat_map(|m| [m.from, m.to]).flatten());
                let (success, logs) = apply_system_tx(evm.db_mut(), &tx, *sender, &header, &outcome)?;
                system_txs += 1;
                gas_used += outcome.gas_used;
                receipts.push(TxReceipt::new(tx.tx_type(), success, gas_used, logs));
                tx_hashes.push(tx.hash);
                body.txs.push(raw.clone());
                body.senders.push(*sender);
                included_txs.push(tx);
                continue;
            }
            if before_evm.is_none() {
                let mut accounts = Vec::with_capacity(pre_evm.len());
                for a in &pre_evm {
                    let info = evm.db_mut().basic(*a).map_err(|e| ChainError::Evm(e.to_string()))?.unwrap_or_default();
                    accounts.push((*a, info.nonce, info.balance));
                }
                before_evm = Some(accounts);
            }
            evm.inspector.0.next_transaction();
            let result = evm.inspect_tx_commit(tx_env(&tx, *sender));
            let result = match result {
                Ok(result) => result,
                Err(EVMError::Transaction(e)) => {
                    rejected.push((tx.hash, invalid_tx_text(&e, *sender)));
                    continue;
                }
                Err(e) => return Err(ChainError::Evm(e.to_string())),
            };
            gas_used += result.tx_gas_used();
            let success = matches!(result, ExecutionResult::Success { .. });
            receipts.push(TxReceipt::new(tx.tx_type(), success, gas_used, result.into_logs()));
            tx_hashes.push(tx.hash);
            body.txs.push(raw.clone());
            body.senders.push(*sender);
            included_txs.push(tx);
        }
        internal_calls = evm.inspector.0.seen;
    }
    if let Some(failure) = check.as_ref().and_then(|c| c.failure.borrow_mut().take()) {
        return Err(ChainError::Evm(format!("reading dormancy records: {failure}")));
    }
    let refused: Vec<Address> = check.as_ref().map(|c| c.refused.borrow().iter().copied().collect()).unwrap_or_default();
    drop(check);
    // The accounts with code that the block's execution loaded (called, created, or read by
    // BALANCE / EXTCODE*): what the rent rules count as activity, read by the next block's hooks.
    let mut active_code: Vec<Address> = state
        .cache
        .accounts
        .iter()
        .filter(|(_, a)| a.account.as_ref().is_some_and(|p| p.info.code_hash != KECCAK_EMPTY))
        .map(|(address, _)| *address)
        .collect();
    active_code.sort_unstable();
    apply_moves(&mut state, &req.block_moves, None)?;
    let executed = Instant::now();

    state.merge_transitions(BundleRetention::PlainState);
    let mut changes = to_state_changes(state.take_bundle().to_plain_state(OriginalValuesKnown::Yes));
    commit_records(&view, &mut changes, &req.app_writes)?;
    header.gas_used = gas_used;
    // The explorer's index goes into this block's batch when it has every block before this one and
    // the block is small (INLINE_INDEX_MAX_TXS). Its records need the block's number, time and
    // transactions but not its roots, so they are computed on a second thread while this one
    // computes the state, transactions and receipts roots. A larger block is committed without them
    // and indexed on the background lane right after (`Chain::index_stored_block`).
    let source = crate::index::ExplorerSource(store);
    let inline_index = included_txs.len() <= INLINE_INDEX_MAX_TXS && svc_index::indexed_height(&source).map_err(crate::index::index_error)? == Some(ph.number);
    let index_header = header.clone();
    let (update, explorer_writes) = std::thread::scope(|s| {
        let index = inline_index.then(|| {
            s.spawn(|| crate::index::block_writes(&source, &index_header, crate::index::parent_time(&parent), &included_txs, &body.senders, &receipts))
        });
        let update = apply_changes(&view, ph.state_root, changes);
        let envelopes: Vec<TxEnvelope> = included_txs.iter().map(|t| t.envelope.clone()).collect();
        header.transactions_root = transactions_root(&envelopes);
        header.receipts_root = receipts_root(&receipts);
        header.logs_bloom = logs_bloom(&receipts);
        (update, index.map_or(Ok(Vec::new()), |i| i.join().expect("the index thread does not panic")))
    });
    let update = update?;
    let explorer_writes = explorer_writes?;
    header.state_root = update.root;
    let hash = header_hash(&header);
    let rooted = Instant::now();
    drop(view);
    let commit = BlockCommit {
        header: header.clone(),
        hash,
        body,
        tx_hashes: tx_hashes.clone(),
        receipts,
        state: update,
        app_writes: req.app_writes.into_iter().map(|w| (w.key, w.value)).collect(),
        explorer_writes,
        active_code,
        trace_inputs: TraceInputs {
            system_txs,
            accounts: before_evm.unwrap_or_default(),
            refused,
        },
    };
    Ok(FinalizedBlock {
        commit,
        produced: ProducedBlock {
            block: StoredBlock { hash, header },
            included: tx_hashes,
            rejected,
            deferred,
            timings: BlockTimings { execute: executed - started, state_root: rooted - executed, commit: Duration::ZERO },
        },
        internal_calls,
    })
}

/// Adds the module records written by the block to its state changes: the slot `record_slot(key)`
/// of the module's account holds `record_word(value)`, so the state root commits to every record.
/// A module account that holds records has nonce 1 (as a contract does since EIP-161), so that an
/// EVM call touching it never clears it as empty.
pub(crate) fn commit_records(view: &svc_store::ReadView, changes: &mut StateChanges, writes: &[RecordWrite]) -> Result<(), ChainError> {
    if writes.is_empty() {
        return Ok(());
    }
    let mut by_module: std::collections::BTreeMap<Address, Vec<(B256, U256)>> = std::collections::BTreeMap::new();
    for w in writes {
        by_module.entry(w.module).or_default().push((record_slot(&w.key), record_word(w.value.as_deref())));
    }
    for (module, slots) in by_module {
        match changes.accounts.iter_mut().find(|(a, _)| *a == module) {
            Some((_, Some(fields))) => fields.nonce = fields.nonce.max(1),
            Some((_, fields @ None)) => *fields = Some(AccountFields { nonce: 1, balance: U256::ZERO, code_hash: KECCAK_EMPTY }),
            None => {
                let current = view.flat_account(&module)?;
                if current.as_ref().is_none_or(|a| a.nonce == 0) {
                    let (balance, code_hash) = current.map_or((U256::ZERO, KECCAK_EMPTY), |a| (a.balance, a.code_hash));
                    changes.accounts.push((module, Some(AccountFields { nonce: 1, balance, code_hash })));
                }
            }
        }
        match changes.storage.iter_mut().find(|s| s.address == module) {
            Some(change) => change.slots.extend(slots),
            None => changes.storage.push(StorageChange { address: module, wipe: false, slots }),
        }
    }
    Ok(())
}

/// Charges a system transaction as the EVM would (nonce, gas at the effective price, the tip to
/// the coinbase, the base fee burned), moves its value to the module and its payouts out of it
/// when the module accepted it. The module decided the outcome against the same state, so a
/// failure here is a fault of the node, not of the transaction.
fn apply_system_tx<DB: Database + DatabaseCommit>(
    db: &mut DB,
    tx: &SignedTransaction,
    sender: Address,
    header: &Header,
    outcome: &SystemOutcome,
) -> Result<(bool, Vec<svc_primitives::Log>), ChainError> {
    let module = tx.to().ok_or_else(|| ChainError::Invalid(format!("system transaction {} has no recipient", tx.hash)))?;
    let intrinsic = tx.intrinsic_gas().minimum();
    if outcome.gas_used > tx.gas_limit() || outcome.gas_used < intrinsic {
        return Err(ChainError::Invalid(format!(
            "system transaction {}: gas used {} outside {intrinsic}..={}",
            tx.hash,
            outcome.gas_used,
            tx.gas_limit()
        )));
    }
    let base_fee = header.base_fee_per_gas.unwrap_or_default() as u128;
    let price = tx.effective_gas_price(header.base_fee_per_gas.unwrap_or_default());
    let fee = U256::from(outcome.gas_used) * U256::from(price);
    let tip = U256::from(outcome.gas_used) * U256::from(price.saturating_sub(base_fee));
    let mut moves = vec![
        BalanceMove { from: Some(sender), to: None, amount: fee },
        BalanceMove { from: None, to: Some(header.beneficiary), amount: tip },
    ];
    if outcome.success {
        moves.push(BalanceMove { from: Some(sender), to: Some(module), amount: tx.value() });
        moves.extend(outcome.moves.iter().cloned());
    }
    apply_moves(db, &moves, Some(sender))?;
    let logs = if outcome.success {
        outcome.logs.iter().map(|l| svc_primitives::Log { address: module, data: l.data.clone() }).collect()
    } else {
        Vec::new()
    };
    Ok((outcome.success, logs))
}

/// Applies development edits (nonce, code, storage) to the block's state as one commit.
fn apply_account_edits<DB: Database + DatabaseCommit>(db: &mut DB, edits: &[AccountEdit]) -> Result<(), ChainError> {
    let db_err = |e: DB::Error| ChainError::Evm(e.to_string());
    for edit in edits {
        let info = db.basic(edit.address).map_err(db_err)?.unwrap_or_default();
        let mut account = revm::state::Account::from(info);
        account.mark_touch();
        if let Some(nonce) = edit.nonce {
            account.info.nonce = nonce;
        }
        if let Some(code) = &edit.code {
            let bytecode = revm::bytecode::Bytecode::new_raw(code.clone());
            account.info.code_hash = if code.is_empty() { KECCAK_EMPTY } else { bytecode.hash_slow() };
            account.info.code = Some(bytecode);
        }
        for (slot, value) in &edit.storage {
            let original = db.storage(edit.address, *slot).map_err(db_err)?;
            account.storage.insert(*slot, revm::state::EvmStorageSlot::new_changed(original, *value, revm::state::TransactionId::ZERO));
        }
        let mut touched = revm::state::EvmState::default();
        touched.insert(edit.address, account);
        db.commit(touched);
    }
    Ok(())
}

/// Applies balance moves (and a nonce bump) to the block's state as one commit.
fn apply_moves<DB: Database + DatabaseCommit>(db: &mut DB, moves: &[BalanceMove], bump_nonce: Option<Address>) -> Result<(), ChainError> {
    let mut touched = revm::state::EvmState::default();
    let load = |db: &mut DB, touched: &mut revm::state::EvmState, a: Address| -> Result<(), ChainError> {
        if !touched.contains_key(&a) {
            let info = db.basic(a).map_err(|e| ChainError::Evm(e.to_string()))?.unwrap_or_default();
            let mut account = revm::state::Account::from(info);
            account.mark_touch();
            touched.insert(a, account);
        }
        Ok(())
    };
    if let Some(a) = bump_nonce {
        load(db, &mut touched, a)?;
        let account = touched.get_mut(&a).expect("loaded");
        account.info.nonce += 1;
    }
    for m in moves.iter().filter(|m| !m.amount.is_zero()) {
        if let Some(from) = m.from {
            load(db, &mut touched, from)?;
            let account = touched.get_mut(&from).expect("loaded");
            account.info.balance = account.info.balance.checked_sub(m.amount).ok_or_else(|| {
                ChainError::Invalid(format!("balance move of {} from {from}, which holds {}", m.amount, account.info.balance))
            })?;
        }
        if let Some(to) = m.to {
            load(db, &mut touched, to)?;
            let account = touched.get_mut(&to).expect("loaded");
            account.info.balance = account.info.balance.checked_add(m.amount).ok_or_else(|| ChainError::Invalid("balance overflow".into()))?;
        }
    }
    if !touched.is_empty() {
        db.commit(touched);
    }
    Ok(())
}

/// One of geth's checks of a transaction against the state before execution that it fails, with
/// the numbers the check compared. The rule lives here, once: the block builder writes a violation
/// as geth's state-transition text (`text`), and the pool, which applies the same checks at
/// admission through the addon's `precheckTransaction` (its own nonce rules aside), as geth's pool
/// text from `rule()` and `numbers()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxViolation {
    GasAboveBlockLimit { gas: u64, limit: u64 },
    ChainId { have: u64, want: u64 },
    NonceTooHigh { tx: u64, state: u64 },
    NonceTooLow { tx: u64, state: u64 },
    NonceMax { state: u64 },
    SenderNotEoa { code_hash: B256 },
    TipAboveFeeCap { tip: u128, max_fee: u128 },
    FeeCapBelowBaseFee { max_fee: u128, base_fee: u128 },
    InsufficientFunds { balance: U256, want: U256 },
    IntrinsicGas { gas: u64, want: u64 },
    FloorDataGas { gas: u64, want: u64 },
    InitcodeSize { size: usize, limit: usize },
}

impl TxViolation {
    /// The check's name, as the addon reports it.
    pub fn rule(&self) -> &'static str {
        match self {
            TxViolation::GasAboveBlockLimit { .. } => "gas-above-block-limit",
            TxViolation::ChainId { .. } => "chain-id",
            TxViolation::NonceTooHigh { .. } => "nonce-too-high",
            TxViolation::NonceTooLow { .. } => "nonce-too-low",
            TxViolation::NonceMax { .. } => "nonce-max",
            TxViolation::SenderNotEoa { .. } => "sender-not-eoa",
            TxViolation::TipAboveFeeCap { .. } => "tip-above-fee-cap",
            TxViolation::FeeCapBelowBaseFee { .. } => "fee-cap-below-base-fee",
            TxViolation::InsufficientFunds { .. } => "insufficient-funds",
            TxViolation::IntrinsicGas { .. } => "intrinsic-gas",
            TxViolation::FloorDataGas { .. } => "floor-data-gas",
            TxViolation::InitcodeSize { .. } => "initcode-size",
        }
    }

    /// What the transaction has and what the check wants (none for the code hash).
    pub fn numbers(&self) -> Option<(U256, U256)> {
        let n = |a: u128, b: u128| Some((U256::from(a), U256::from(b)));
        match *self {
            TxViolation::GasAboveBlockLimit { gas, limit } => n(gas.into(), limit.into()),
            TxViolation::ChainId { have, want } => n(have.into(), want.into()),
            TxViolation::NonceTooHigh { tx, state } | TxViolation::NonceTooLow { tx, state } => n(tx.into(), state.into()),
            TxViolation::NonceMax { state } => n(state.into(), state.into()),
            TxViolation::SenderNotEoa { .. } => None,
            TxViolation::TipAboveFeeCap { tip, max_fee } => n(tip, max_fee),
            TxViolation::FeeCapBelowBaseFee { max_fee, base_fee } => n(max_fee, base_fee),
            TxViolation::InsufficientFunds { balance, want } => Some((balance, want)),
            TxViolation::IntrinsicGas { gas, want } | TxViolation::FloorDataGas { gas, want } => n(gas.into(), want.into()),
            TxViolation::InitcodeSize { size, limit } => n(size as u128, limit as u128),
        }
    }

    /// geth's state-transition text (what a block's rejected transaction carries).
    pub fn text(&self, sender: Address) -> String {
        match self {
            TxViolation::GasAboveBlockLimit { .. } => "exceeds block gas limit".into(),
            TxViolation::ChainId { have, want } => format!("invalid chain id for signer: have {have} want {want}"),
            TxViolation::NonceTooHigh { tx, state } => format!("nonce too high: address {sender}, tx: {tx} state: {state}"),
            TxViolation::NonceTooLow { tx, state } => format!("nonce too low: address {sender}, tx: {tx} state: {state}"),
            TxViolation::NonceMax { state } => format!("nonce has max value: address {sender}, nonce: {state}"),
            TxViolation::SenderNotEoa { code_hash } => format!("sender not an eoa: address {sender}, codehash: {code_hash}"),
            TxViolation::TipAboveFeeCap { tip, max_fee } => {
                format!("max priority fee per gas higher than max fee per gas: address {sender}, maxPriorityFeePerGas: {tip}, maxFeePerGas: {max_fee}")
            }
            TxViolation::FeeCapBelowBaseFee { max_fee, base_fee } => {
                format!("max fee per gas less than block base fee: address {sender}, maxFeePerGas: {max_fee}, baseFee: {base_fee}")
            }
            TxViolation::InsufficientFunds { balance, want } => format!("insufficient funds for gas * price + value: address {sender} have {balance} want {want}"),
            TxViolation::IntrinsicGas { gas, want } => format!("intrinsic gas too low: have {gas}, want {want}"),
            TxViolation::FloorDataGas { gas, want } => format!("insufficient gas for floor data gas cost: have {gas}, want {want}"),
            TxViolation::InitcodeSize { size, limit } => format!("max initcode size exceeded: code size {size} limit {limit}"),
        }
    }
}

/// What geth's checks decide of a transaction that does not pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxCheckOutcome {
    /// It does not fit in the block's remaining gas: it waits for the next block.
    Defer,
    Violation(TxViolation),
}

/// geth's checks of a transaction against the state before execution: the one copy, which the
/// block builder runs on every transaction, and the app (through the addon's `precheckTransaction`)
/// on a system module's transaction before its module decides it and the pool on a transaction it
/// admits. None when it passes.
pub fn check_transaction(tx: &SignedTransaction, c: &TxCheck<'_>) -> Option<TxCheckOutcome> {
    let v = |v: TxViolation| Some(TxCheckOutcome::Violation(v));
    let gas = tx.gas_limit();
    if gas > c.gas_limit {
        return v(TxViolation::GasAboveBlockLimit { gas, limit: c.gas_limit });
    }
    if gas > c.gas_limit.saturating_sub(c.gas_used) {
        return Some(TxCheckOutcome::Defer);
    }
    let (chain_id, account, code) = (c.chain_id, c.account, c.code);
    if let Some(id) = tx.chain_id() {
        if id != chain_id {
            return v(TxViolation::ChainId { have: id, want: chain_id });
        }
    }
    let (nonce, balance) = account.unwrap_or((0, U256::ZERO));
    if tx.nonce() > nonce {
        return v(TxViolation::NonceTooHigh { tx: tx.nonce(), state: nonce });
    }
    if tx.nonce() < nonce {
        return v(TxViolation::NonceTooLow { tx: tx.nonce(), state: nonce });
    }
    if nonce == u64::MAX {
        return v(TxViolation::NonceMax { state: nonce });
    }
    if let Some(code) = code {
        // EIP-3607, with EIP-7702 delegations still allowed to send.
        if !code.is_empty() && !code.starts_with(&[0xef, 0x01, 0x00]) {
            return v(TxViolation::SenderNotEoa { code_hash: keccak256(code) });
        }
    }
    let base_fee = c.base_fee as u128;
    let (max_fee, tip) = (tx.max_fee_per_gas(), tx.max_priority_fee_per_gas());
    if max_fee < tip {
        return v(TxViolation::TipAboveFeeCap { tip, max_fee });
    }
    if max_fee < base_fee {
        return v(TxViolation::FeeCapBelowBaseFee { max_fee, base_fee });
    }
    let want = U256::from(gas) * U256::from(max_fee) + tx.value();
    if balance < want {
        return v(TxViolation::InsufficientFunds { balance, want });
    }
    let is_create = tx.to().is_none();
    let ig = tx.intrinsic_gas();
    if gas < ig.intrinsic {
        return v(TxViolation::IntrinsicGas { gas, want: ig.intrinsic });
    }
    if gas < ig.floor {
        return v(TxViolation::FloorDataGas { gas, want: ig.floor });
    }
    if is_create && tx.input().len() > MAX_INITCODE_SIZE {
        return v(TxViolation::InitcodeSize { size: tx.input().len(), limit: MAX_INITCODE_SIZE });
    }
    None
}

/// `check_transaction` as the block builder uses it, with geth's state-transition texts.
pub fn precheck(tx: &SignedTransaction, sender: Address, c: &TxCheck<'_>) -> Option<Skip> {
    check_transaction(tx, c).map(|o| match o {
        TxCheckOutcome::Defer => Skip::Defer,
        TxCheckOutcome::Violation(v) => Skip::Reject(v.text(sender)),
    })
}

/// Convert revm's plain changeset into the store's state changes.
pub(crate) fn to_state_changes(set: revm::database::states::StateChangeset) -> StateChanges {
    StateChanges {
        accounts: set
            .accounts
            .into_iter()
            .map(|(address, info)| {
                (address, info.map(|i| AccountFields { nonce: i.nonce, balance: i.balance, code_hash: i.code_hash }))
            })
            .collect(),
        storage: set
            .storage
            .into_iter()
            .map(|s| StorageChange {
                address: s.address,
                wipe: s.wipe_storage,
                slots: s.storage.into_iter().map(|(k, v)| (B256::from(k), v)).collect(),
            })
            .collect(),
        code: set.contracts.into_iter().map(|(hash, code)| (hash, code.original_bytes())).collect(),
    }
}

#[cfg(test)]
mod header_rule_tests {
    use super::*;

    #[test]
    fn a_header_follows_its_parent_by_at_least_a_millisecond_with_at_most_32_bytes_of_extra_data() {
        assert_eq!(header_problem(1_000, 1_001, 32), None);
        assert_eq!(header_problem(1_000, 1_000, 0).as_deref(), Some("time 1000 ms is not after the parent's 1000 ms"));
        assert_eq!(header_problem(1_000, 999, 0).as_deref(), Some("time 999 ms is not after the parent's 1000 ms"));
        assert_eq!(header_problem(1_000, 2_000, 33).as_deref(), Some("extra data too long: 33 bytes, limit 32"));
        assert_eq!(block_time_ms(500, 1_000), 1_001);
        assert_eq!(block_time_ms(1_001, 1_000), 1_001);
        assert_eq!(block_time_ms(5_000, 1_000), 5_000);
        assert_eq!(block_time_ms(0, u64::MAX), u64::MAX);
    }
}
