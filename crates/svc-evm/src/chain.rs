//! The chain of one data directory: opening (genesis or resume), block production, and state
//! reads and calls at any block.

use std::path::Path;
use std::sync::Arc;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use parking_lot::Mutex;
use svc_primitives::TrieAccount;
use svc_store::{ReadView, StateAt, Store, StoredBlock};

use crate::block::{commit_block, finalize_block, BlockRequest, FinalizedBlock, ProducedBlock};
use crate::call::{self, AccessListOutcome, CallOutcome, CallOverrides, CallRequest, EstimateOutcome};
use crate::errors::ChainError;
use crate::genesis::{build_genesis, GenesisSpec};

/// One storage slot of an eth_getProof answer: its value and its proof in the account's storage trie.
#[derive(Debug, Clone)]
pub struct StorageProof {
    pub key: B256,
    pub value: U256,
    pub proof: Vec<Bytes>,
}

/// An eth_getProof answer: the account (None when absent) and its proof in the state trie.
#[derive(Debug, Clone)]
pub struct AccountProof {
    pub account: Option<TrieAccount>,
    pub proof: Vec<Bytes>,
    pub storage: Vec<StorageProof>,
}

#[derive(Debug, Clone, Copy)]
pub struct ChainConfig {
    /// Gas cap of eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall and of a whole
    /// eth_simulateV1 (geth's RPCGasCap; 0 = none).
    pub rpc_gas_cap: u64,
    /// How long those may run (geth's RPCEVMTimeout; zero = no limit).
    pub rpc_evm_timeout: std::time::Duration,
    /// Most bytes of one reply built here (a trace, a simulation, logs); 0 = no limit.
    pub max_response_bytes: usize,
    /// Most recent blocks whose state is served; 0 = all (archive).
    pub state_history: u64,
}

/// geth's defaults: 50,000,000 gas, 5 s; replies up to 100 MiB.
impl Default for ChainConfig {
    fn default() -> Self {
        Self { rpc_gas_cap: 50_000_000, rpc_evm_timeout: std::time::Duration::from_secs(5), max_response_bytes: 100 << 20, state_history: 0 }
    }
}

/// The chain database and execution engine.
pub struct Chain {
    store: Store,
    chain_id: u64,
    config: ChainConfig,
    /// Block production is sequential: one block on top of the head at a time.
    producing: Mutex<()>,
    /// Explorer records written beside blocks (a stored block's index, token metadata) and the
    /// devnet's rewind: taken after `producing` by those that take both, never held by a block.
    explorer_writes: Mutex<()>,
    /// The block finalized and waiting for its commit (at most one, as in ABCI).
    finalized: Mutex<Option<FinalizedBlock>>,
    /// Where the rent module records dormant accounts: calls at the head into them revert.
    dormancy_prefix: parking_lot::RwLock<Option<Vec<u8>>>,
    /// Explorer records written outside blocks (token metadata), counted: a stored block's index,
    /// built without the production lock, is rebuilt under it when one came in meanwhile.
    explorer_edits: std::sync::atomic::AtomicU64,
    /// Called while a stored block's index is being built, before the lock is taken (tests
    /// hold the build here to show that blocks are not held with it).
    index_build_hook: parking_lot::RwLock<Option<Box<dyn Fn(u64) + Send + Sync>>>,
    /// Blocks this process committed whose transactions made no internal transaction (see
    /// `InternalCallProbe`), by number with their hash: the explorer's indexer learns that they
    /// have none without re-executing them with a call tracer.
    quiet_blocks: Mutex<QuietBlocks>,
    /// Blocks re-executed with a call tracer for their internal transactions, counted for tests.
    internal_traces: std::sync::atomic::AtomicU64,
}

/// The newest `QUIET_BLOCKS_KEPT` blocks known to hold no internal transaction.
#[derive(Default)]
struct QuietBlocks {
    by_number: std::collections::HashMap<u64, B256>,
    order: std::collections::VecDeque<u64>,
}

/// About a day of one-second blocks; a block older than these is re-executed as before.
const QUIET_BLOCKS_KEPT: usize = 1 << 17;

impl QuietBlocks {
    fn note(&mut self, number: u64, hash: B256) {
        if self.by_number.insert(number, hash).is_none() {
            self.order.push_back(number);
        }
        while self.order.len() > QUIET_BLOCKS_KEPT {
            let oldest = self.order.pop_front().expect("longer than the limit");
            self.by_number.remove(&oldest);
        }
    }
}

impl Chain {
    /// Open `dir`: write genesis into an empty database, or resume from its head after checking
    /// that it holds this genesis and chain id.
    pub fn open(dir: &Path, genesis: &GenesisSpec, config: ChainConfig) -> Result<Self, ChainError> {
        std::fs::create_dir_all(dir).map_err(|e| ChainError::Invalid(format!("cannot create data dir {}: {e}", dir.display())))?;
        let block0 = build_genesis(genesis)?;
        let store = Store::open(dir)?;
        match store.identity()? {
            None => {
                store.commit_genesis(block0, genesis.chain_id)?;
            }
            Some((_, chain_id)) if chain_id != genesis.chain_id => {
                return Err(ChainError::Invalid(format!(
                    "data dir {} belongs to chain id {chain_id}, not {}",
                    dir.display(),
                    genesis.chain_id
                )))
            }
            Some((hash, _)) if hash != block0.hash => {
                return Err(ChainError::Invalid(format!(
                    "data dir {} holds genesis {hash}, but the genesis given hashes to {}",
                    dir.display(),
                    block0.hash
                )))
            }
            Some(_) => {}
        }
        let chain = Self {
            store,
            chain_id: genesis.chain_id,
            config,
            producing: Mutex::new(()),
            explorer_writes: Mutex::new(()),
            finalized: Mutex::new(None),
            dormancy_prefix: parking_lot::RwLock::new(None),
            explorer_edits: std::sync::atomic::AtomicU64::new(0),
            index_build_hook: parking_lot::RwLock::new(None),
            quiet_blocks: Mutex::new(QuietBlocks::default()),
            internal_traces: std::sync::atomic::AtomicU64::new(0),
        };
        // A new database indexes its genesis block; an older one is brought up to date by index_stored_block.
        chain.index_stored_block(0)?;
        Ok(chain)
    }

    /// Indexes stored block `number` for the explorer when the index has reached the block
    /// before it (databases made before the index existed, or whose index fell behind, and blocks
    /// too large to be indexed in their own batch); blocks produced while the index is current
    /// are indexed in their own batch. Returns whether it did.
    ///
    /// Neither the build nor the write takes the production lock: a large block's records take
    /// hundreds of milliseconds on the background lane, which runs at a lower priority, and the
    /// next block must not wait for them. No block writes them meanwhile: a block is indexed inline
    /// only when the index holds its parent, which it does not until this write. Token metadata
    /// may change a record they rewrite; then they are built again before the write.
    pub fn index_stored_block(&self, number: u64) -> Result<bool, ChainError> {
        use std::sync::atomic::Ordering;
        let edits = self.explorer_edits.load(Ordering::Acquire);
        let Some(writes) = self.stored_block_index(number)? else { return Ok(false) };
        if let Some(hook) = self.index_build_hook.read().as_ref() {
            hook(number);
        }
        let _guard = self.explorer_writes.lock();
        let writes = if self.explorer_edits.load(Ordering::Acquire) == edits {
            let source = crate::index::ExplorerSource(&self.store);
            if svc_index::indexed_height(&source).map_err(crate::index::index_error)? != number.checked_sub(1) {
                return Ok(false);
            }
            writes
        } else {
            let Some(writes) = self.stored_block_index(number)? else { return Ok(false) };
            writes
        };
        self.store.service_write("explorer", &writes)?;
        Ok(true)
    }

    /// Calls `hook` with the block's number each time a stored block's index has been built and
    /// before it is written (tests; None removes it).
    #[doc(hidden)]
    pub fn set_index_build_hook(&self, hook: Option<Box<dyn Fn(u64) + Send + Sync>>) {
        *self.index_build_hook.write() = hook;
    }

    /// The explorer records of stored block `number`, when the index has reached the block before it.
    fn stored_block_index(&self, number: u64) -> Result<Option<Vec<(Vec<u8>, Option<Vec<u8>>)>>, ChainError> {
        let source = crate::index::ExplorerSource(&self.store);
        let indexed = svc_index::indexed_height(&source).map_err(crate::index::index_error)?;
        if indexed != number.checked_sub(1) {
            return Ok(None);
        }
        let view = self.store.view();
        let Some(block) = view.block(number)? else { return Ok(None) };
        let body = view.body(number)?.ok_or_else(|| ChainError::Invalid(format!("block {number} has no body")))?;
        let receipts = view.receipts(number)?.ok_or_else(|| ChainError::Invalid(format!("block {number} has no receipts")))?;
        let txs = body
            .txs
            .iter()
            .map(|raw| svc_primitives::SignedTransaction::decode(raw).map_err(|e| ChainError::Invalid(format!("stored transaction is corrupt: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let parent_time_ms = match number {
            0 => None,
            n => view.block(n - 1)?.as_ref().and_then(crate::index::parent_time),
        };
        Ok(Some(crate::index::block_writes(&source, &block.header, parent_time_ms, &txs, &body.senders, &receipts)?))
    }

    /// Records a token's name, symbol and decimals (read by the node after the token first moved)
    /// and makes it searchable; serialised with block production so no block's update is lost.
    pub fn set_token_metadata(&self, token: &Address, name: Option<&str>, symbol: Option<&str>, decimals: Option<u8>) -> Result<(), ChainError> {
        let _guard = self.producing.lock();
        let _explorer = self.explorer_writes.lock();
        let source = crate::index::ExplorerSource(&self.store);
        let writes = svc_index::token_metadata_writes(&source, token, name, symbol, decimals).map_err(crate::index::index_error)?;
        self.explorer_edits.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        self.store.service_write("explorer", &writes)?;
        Ok(())
    }

    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    pub fn config(&self) -> ChainConfig {
        self.config
    }

    /// The RPC EVM timeout of a request that starts now.
    fn deadline(&self) -> crate::deadline::Deadline {
        crate::deadline::Deadline::after(self.config.rpc_evm_timeout)
    }

    /// The database, for the node's own services (explorer indexes, users) beside the chain.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The latest consistent view.
    pub fn view(&self) -> Arc<ReadView> {
        self.store.view()
    }

    pub fn head(&self) -> Result<StoredBlock, ChainError> {
        Ok(self.store.view().head_block()?.clone())
    }

    /// Execute, seal and commit the next block.
    pub fn produce_block(&self, req: BlockRequest) -> Result<ProducedBlock, ChainError> {
        let _guard = self.producing.lock();
        let finalized = finalize_block(&self.store, self.chain_id, req)?;
        self.commit_finalized(finalized)
    }

    /// Writes `finalized` and notes whether it made internal transactions.
    fn commit_finalized(&self, finalized: FinalizedBlock) -> Result<ProducedBlock, ChainError> {
        let block = &finalized.produced.block;
        let quiet = (!finalized.internal_calls).then_some((block.header.number, block.hash));
        let produced = commit_block(&self.store, finalized)?;
        if let Some((number, hash)) = quiet {
            self.quiet_blocks.lock().note(number, hash);
        }
        Ok(produced)
    }

    /// Execute and seal the next block without writing it (ABCI's FinalizeBlock): the result
    /// carries its hash and state root; `commit_block` writes it. A block finalized earlier and
    /// not committed is dropped.
    pub fn finalize_block(&self, req: BlockRequest) -> Result<ProducedBlock, ChainError> {
        let _guard = self.producing.lock();
        self.finalized.lock().take();
        let finalized = finalize_block(&self.store, self.chain_id, req)?;
        let produced = finalized.produced.clone();
        *self.finalized.lock() = Some(finalized);
        Ok(produced)
    }

    /// Writes the finalized block with this hash in one batch (ABCI's Commit).
    pub fn commit_block(&self, hash: B256) -> Result<ProducedBlock, ChainError> {
        let _guard = self.producing.lock();
        let mut slot = self.finalized.lock();
        match slot.as_ref() {
            Some(f) if f.produced.block.hash == hash => {}
            Some(f) => return Err(ChainError::Invalid(format!("block {hash} is not the finalized block ({})", f.produced.block.hash))),
            None => return Err(ChainError::Invalid(format!("block {hash} was not finalized"))),
        }
        let finalized = slot.take().expect("checked above");
        drop(slot);
        self.commit_finalized(finalized)
    }

    /// The devnet's `evm_revert`: rewinds the database (state, blocks, indexes, module records) to
    /// `to`, a view pinned by `evm_snapshot`, between blocks; returns the head it moved back to.
    pub fn rewind_to(&self, to: &ReadView) -> Result<StoredBlock, ChainError> {
        let _guard = self.producing.lock();
        let _explorer = self.explorer_writes.lock();
        self.finalized.lock().take();
        let view = self.store.rewind_to(to)?;
        Ok(view.head_block()?.clone())
    }

    /// Drops the finalized block, if any (a proposal that will not be committed).
    pub fn discard_finalized(&self) {
        self.finalized.lock().take();
    }

    /// The state after block `number` within `view`, refusing blocks beyond the head or outside
    /// the configured state history.
    pub fn state_at<'a>(&self, view: &'a ReadView, number: u64) -> Result<StateAt<'a>, ChainError> {
        let head = view.head_number();
        if number > head {
            return Err(ChainError::Invalid(format!("header not found: block {number} is beyond the head {head}")));
        }
        if self.config.state_history > 0 && head - number >= self.config.state_history {
            return Err(ChainError::StateUnavailable);
        }
        // A node that joined by state sync holds the state from its snapshot's block on.
        if number < view.state_from() {
            return Err(ChainError::StateUnavailable);
        }
        Ok(StateAt::at_block(view, number)?)
    }

    /// Account after block `number` (an empty account when it does not exist).
    pub fn account(&self, address: &Address, number: u64) -> Result<TrieAccount, ChainError> {
        let view = self.view();
        Ok(self.state_at(&view, number)?.account(address)?.unwrap_or_default())
    }

    pub fn code(&self, address: &Address, number: u64) -> Result<Bytes, ChainError> {
        let view = self.view();
        Ok(self.state_at(&view, number)?.code_of(address)?)
    }

    pub fn storage(&self, address: &Address, slot: &B256, number: u64) -> Result<U256, ChainError> {
        let view = self.view();
        Ok(self.state_at(&view, number)?.storage(address, slot)?)
    }

    fn header_of(view: &ReadView, number: u64) -> Result<svc_primitives::Header, ChainError> {
        Ok(view.block(number)?.ok_or_else(|| ChainError::Invalid(format!("header not found: block {number}")))?.header)
    }

    /// Sets where dormant accounts are recorded (the rent module's prefix); calls at the head then
    /// revert when they reach one, as they do in blocks.
    pub fn set_dormancy_prefix(&self, prefix: Option<Vec<u8>>) {
        *self.dormancy_prefix.write() = prefix;
    }

    /// The dormancy a call on `state` honours: at the head, when any account is dormant.
    fn dormancy_at(&self, view: &ReadView, state: &StateAt<'_>) -> Result<Option<crate::dormancy::Dormancy>, ChainError> {
        let Some(prefix) = self.dormancy_prefix.read().clone() else { return Ok(None) };
        if !matches!(state, StateAt::Latest(_)) || !view.has_app_prefix(&prefix)? {
            return Ok(None);
        }
        Ok(Some(crate::dormancy::Dormancy { prefix, dormant: Vec::new(), reactivated: Vec::new() }))
    }

    /// eth_call on the state after block `number`, in that block's context.
    pub fn call(&self, req: &CallRequest, number: u64) -> Result<CallOutcome, ChainError> {
        self.call_with_overrides(req, number, &CallOverrides::default())
    }

    /// eth_call with geth's state and block overrides.
    pub fn call_with_overrides(&self, req: &CallRequest, number: u64, overrides: &CallOverrides) -> Result<CallOutcome, ChainError> {
        let view = self.view();
        let state = self.state_at(&view, number)?;
        let header = Self::header_of(&view, number)?;
        let dormancy = self.dormancy_at(&view, &state)?;
        let check = dormancy.as_ref().map(|d| crate::dormancy::DormancyCheck::new(&view, d));
        let deadline = self.deadline();
        call::call(state, &header, self.chain_id, self.config.rpc_gas_cap, &deadline, req, check.as_ref(), overrides)
    }

    /// eth_createAccessList on the state after block `number`, with geth's overrides.
    pub fn create_access_list(&self, req: &CallRequest, number: u64, overrides: &CallOverrides) -> Result<AccessListOutcome, ChainError> {
        let view = self.view();
        let state = self.state_at(&view, number)?;
        let header = Self::header_of(&view, number)?;
        call::create_access_list(state, &header, self.chain_id, self.config.rpc_gas_cap, &self.deadline(), req, overrides)
    }

    /// eth_getProof: the account of `address` and the `slots` of its storage after block `number`,
    /// each with its Merkle proof against that block's state root (EIP-1186).
    pub fn proof(&self, address: &Address, slots: &[B256], number: u64) -> Result<AccountProof, ChainError> {
        let view = self.view();
        // Refuses blocks beyond the head or outside the state history, as every state read does.
        self.state_at(&view, number)?;
        let root = Self::header_of(&view, number)?.state_root;
        let proof = svc_store::trie::prove(&*view, root, &keccak256(address)).map_err(svc_store::StoreError::from)?;
        let account = svc_store::state::trie_account(&view, root, address)?;
        let storage_root = account.as_ref().map_or(svc_primitives::EMPTY_ROOT_HASH, |a| a.storage_root);
        let mut storage = Vec::with_capacity(slots.len());
        for slot in slots {
            let hashed = keccak256(slot);
            let proof = svc_store::trie::prove(&*view, storage_root, &hashed).map_err(svc_store::StoreError::from)?;
            let value = svc_store::state::trie_storage(&view, storage_root, slot)?;
            storage.push(StorageProof { key: *slot, value, proof: proof.into_iter().map(Bytes::from).collect() });
        }
        Ok(AccountProof { account, proof: proof.into_iter().map(Bytes::from).collect(), storage })
    }

    /// A call watched by the validation tracer on the state after block `number`, with code overrides.
    pub fn trace_call(&self, req: &CallRequest, number: u64, overrides: &[(alloy_primitives::Address, alloy_primitives::Bytes)]) -> Result<crate::ValidationTrace, ChainError> {
        let view = self.view();
        let state = self.state_at(&view, number)?;
        let header = Self::header_of(&view, number)?;
        call::trace_call(state, &header, self.chain_id, self.config.rpc_gas_cap, &self.deadline(), req, overrides)
    }

    /// eth_simulateV1 on the state after block `number`: the simulated blocks, or geth's refusal.
    pub fn simulate(
        &self,
        blocks: &[call::SimulateBlock],
        number: u64,
        validation: bool,
        trace_transfers: bool,
    ) -> Result<Result<Vec<call::SimulatedBlock>, call::SimulateError>, ChainError> {
        let view = self.view();
        let state = self.state_at(&view, number)?;
        let header = Self::header_of(&view, number)?;
        call::simulate(state, &header, self.chain_id, self.config.rpc_gas_cap, &self.deadline(), blocks, validation, trace_transfers)
    }

    /// geth's debug traces of block `number`'s transactions (all, or the one at index `only`).
    pub fn debug_trace_block(
        &self,
        number: u64,
        only: Option<usize>,
        opts: &alloy_rpc_types_trace::geth::GethDebugTracingOptions,
    ) -> Result<Vec<(B256, alloy_rpc_types_trace::geth::GethTrace)>, crate::debug_trace::TraceError> {
        crate::debug_trace::trace_block(&self.store, self.chain_id, number, only, opts, self.config.max_response_bytes)
    }

    /// Parity's traces of block `number`'s transactions (all, or the one at `only`).
    pub fn parity_trace_block(&self, number: u64, only: Option<usize>) -> Result<Vec<alloy_rpc_types_trace::parity::LocalizedTransactionTrace>, crate::debug_trace::TraceError> {
        crate::debug_trace::parity_trace_block(&self.store, self.chain_id, number, only, self.config.max_response_bytes)
    }

    /// Parity's `trace_filter` over stored blocks.
    pub fn parity_trace_filter(&self, filter: &crate::debug_trace::TraceFilter) -> Result<Vec<alloy_rpc_types_trace::parity::LocalizedTransactionTrace>, crate::debug_trace::TraceError> {
        crate::debug_trace::parity_trace_filter(&self.store, self.chain_id, filter, self.config.max_response_bytes)
    }

    /// The value transfers and creations inside block `number`'s transactions, from its call traces.
    pub fn internal_transactions(&self, number: u64) -> Result<Vec<crate::debug_trace::InternalTx>, crate::debug_trace::TraceError> {
        let quiet = self.quiet_blocks.lock().by_number.get(&number).copied();
        if let Some(hash) = quiet {
            // The same block is still stored at that height (a devnet rewind may have replaced it).
            if self.store.view().block_hash(number)? == Some(hash) {
                return Ok(Vec::new());
            }
        }
        self.internal_traces.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::debug_trace::internal_transactions(&self.store, self.chain_id, number, self.config.max_response_bytes)
    }

    /// How many blocks `internal_transactions` re-executed with a call tracer (tests show with it
    /// which blocks were answered without).
    #[doc(hidden)]
    pub fn internal_transaction_traces(&self) -> u64 {
        self.internal_traces.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The value transfers and creations inside the transaction at `index` of block `number`.
    pub fn internal_operations(&self, number: u64, index: usize) -> Result<Vec<crate::debug_trace::InternalTx>, crate::debug_trace::TraceError> {
        crate::debug_trace::internal_transactions_of(&self.store, self.chain_id, number, Some(index), self.config.max_response_bytes)
    }

    /// geth's debug trace of a call on the state after block `number` (debug_traceCall).
    pub fn debug_trace_call(
        &self,
        req: &CallRequest,
        number: u64,
        opts: &alloy_rpc_types_trace::geth::GethDebugTracingOptions,
    ) -> Result<alloy_rpc_types_trace::geth::GethTrace, crate::debug_trace::TraceError> {
        let view = self.view();
        let state = self.state_at(&view, number)?;
        let header = Self::header_of(&view, number)?;
        call::debug_trace_call(state, &header, self.chain_id, self.config.rpc_gas_cap, self.config.max_response_bytes, req, opts)
    }

    /// eth_estimateGas on the state after block `number`.
    pub fn estimate_gas(&self, req: &CallRequest, number: u64) -> Result<EstimateOutcome, ChainError> {
        self.estimate_gas_with_overrides(req, number, &CallOverrides::default())
    }

    /// eth_estimateGas with geth's state and block overrides.
    pub fn estimate_gas_with_overrides(&self, req: &CallRequest, number: u64, overrides: &CallOverrides) -> Result<EstimateOutcome, ChainError> {
        let view = self.view();
        let state = self.state_at(&view, number)?;
        let header = Self::header_of(&view, number)?;
        let dormancy = self.dormancy_at(&view, &state)?;
        let check = dormancy.as_ref().map(|d| crate::dormancy::DormancyCheck::new(&view, d));
        let deadline = self.deadline();
        call::estimate_gas(state, &header, self.chain_id, self.config.rpc_gas_cap, &deadline, req, check.as_ref(), overrides)
    }
}
