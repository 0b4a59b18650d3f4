//! The database: open, atomic per-block commit, and read views pinned to a RocksDB snapshot.

use std::path::Path;
use std::sync::Arc;

use alloy_primitives::{Address, Bytes, B256, U256};
use alloy_rlp::Decodable;
use parking_lot::{Mutex, RwLock};
use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType, IteratorMode, Options,
    SnapshotWithThreadMode, WriteBatch, WriteOptions, DB,
};
use svc_primitives::{Header, TrieAccount, TxReceipt};

use crate::codec::{self, BlockBody};
use crate::recent::{BlockData, RecentBlocks};
use crate::schema::*;
use crate::state::StateUpdate;
use crate::trie::{NodeSource, TrieError};
use crate::{StoreError, StoreResult};

/// A header with its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBlock {
    pub hash: B256,
    pub header: Header,
}

impl StoredBlock {
    pub fn number(&self) -> u64 {
        self.header.number
    }
}

/// Everything one block writes, committed in a single atomic WriteBatch.
#[derive(Debug, Default)]
pub struct BlockCommit {
    pub header: Header,
    pub hash: B256,
    pub body: BlockBody,
    /// Hashes of `body.txs`, in order.
    pub tx_hashes: Vec<B256>,
    pub receipts: Vec<TxReceipt>,
    pub state: StateUpdate,
    /// Application key/values (None deletes), written in the same batch.
    pub app_writes: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// The explorer's index records of this block (None deletes), written in the same batch.
    pub explorer_writes: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// The accounts with code that the block's execution loaded, ascending.
    pub active_code: Vec<Address>,
    /// What re-executing the block for a trace needs besides its body (see CF_TRACE_INPUTS).
    pub trace_inputs: TraceInputs,
}

/// The state a block's EVM transactions started from beyond its parent's, and the dormant accounts
/// its calls were refused at: what debug tracing re-executes it with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceInputs {
    /// The block's leading transactions that system modules decided (not run in the EVM).
    pub system_txs: u32,
    /// Accounts as the moves before the transactions and the system-module transactions left them: (address, nonce, balance).
    pub accounts: Vec<(Address, u64, U256)>,
    pub refused: Vec<Address>,
}

impl TraceInputs {
    pub fn is_empty(&self) -> bool {
        self.system_txs == 0 && self.accounts.is_empty() && self.refused.is_empty()
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + self.accounts.len() * 60 + self.refused.len() * 20);
        out.extend_from_slice(&self.system_txs.to_be_bytes());
        out.extend_from_slice(&(self.accounts.len() as u32).to_be_bytes());
        for (address, nonce, balance) in &self.accounts {
            out.extend_from_slice(address.as_slice());
            out.extend_from_slice(&nonce.to_be_bytes());
            out.extend_from_slice(&balance.to_be_bytes::<32>());
        }
        out.extend_from_slice(&(self.refused.len() as u32).to_be_bytes());
        for address in &self.refused {
            out.extend_from_slice(address.as_slice());
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> StoreResult<Self> {
        let corrupt = || StoreError::Corrupt(format!("trace inputs: {} bytes", bytes.len()));
        let take = |at: &mut usize, n: usize| -> StoreResult<&[u8]> {
            let end = at.checked_add(n).filter(|e| *e <= bytes.len()).ok_or_else(corrupt)?;
            let out = &bytes[*at..end];
            *at = end;
            Ok(out)
        };
        let mut at = 0;
        let system_txs = u32::from_be_bytes(take(&mut at, 4)?.try_into().expect("4 bytes"));
        let count = u32::from_be_bytes(take(&mut at, 4)?.try_into().expect("4 bytes")) as usize;
        let mut accounts = Vec::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            let address = Address::from_slice(take(&mut at, 20)?);
            let nonce = u64::from_be_bytes(take(&mut at, 8)?.try_into().expect("8 bytes"));
            let balance = U256::from_be_slice(take(&mut at, 32)?);
            accounts.push((address, nonce, balance));
        }
        let count = u32::from_be_bytes(take(&mut at, 4)?.try_into().expect("4 bytes")) as usize;
        let mut refused = Vec::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            refused.push(Address::from_slice(take(&mut at, 20)?));
        }
        if at != bytes.len() {
            return Err(corrupt());
        }
        Ok(Self { system_txs, accounts, refused })
    }
}

/// The RocksDB database of one data directory.
pub struct Store {
    pub(crate) db: Arc<DB>,
    pub(crate) view: RwLock<Arc<ReadView>>,
    /// Serialises commits so the head only moves forward one block at a time.
    pub(crate) commit_lock: Mutex<()>,
    /// The newest blocks' transactions and receipts, decoded (shared with every view).
    pub(crate) recent: Arc<RecentBlocks>,
}

pub(crate) fn cf<'a>(db: &'a DB, name: &str) -> &'a ColumnFamily {
    db.cf_handle(name).expect("every column family is opened with the database")
}

impl Store {
    /// Open (or create) the database in `path` and pin a view at the stored head.
    pub fn open(path: &Path) -> StoreResult<Self> {
        let cache = Cache::new_lru_cache(256 << 20);
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&cache);
        table.set_bloom_filter(10.0, false);
        table.set_cache_index_and_filter_blocks(true);
        let mut cf_opts = Options::default();
        cf_opts.set_compression_type(DBCompressionType::Lz4);
        cf_opts.set_block_based_table_factory(&table);
        cf_opts.set_write_buffer_size(64 << 20);
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        opts.set_max_background_jobs(2);
        opts.set_max_open_files(1024);
        let descriptors = ALL_CFS.iter().map(|name| ColumnFamilyDescriptor::new(*name, cf_opts.clone()));
        let db = DB::open_cf_descriptors(&opts, path, descriptors).map_err(|e| {
            if e.to_string().contains("LOCK") {
                StoreError::Invalid(format!("data dir {} is already open in another chain or process", path.display()))
            } else {
                StoreError::Db(e)
            }
        })?;
        let db = Arc::new(db);
        if db.get_cf(cf(&db, CF_META), META_RESTORING)?.is_some() {
            return Err(StoreError::Invalid(format!(
                "data dir {} holds a state sync restore that did not finish: remove it and start the node again",
                path.display()
            )));
        }
        count_slots_once(&db)?;
        mark_trace_inputs_start(&db)?;
        let recent = Arc::new(RecentBlocks::new(RecentBlocks::DEFAULT_CAPACITY));
        let view = Arc::new(ReadView::pin(db.clone(), recent.clone())?);
        Ok(Self { db, view: RwLock::new(view), commit_lock: Mutex::new(()), recent })
    }

    fn service_cf(&self, name: &str) -> StoreResult<&ColumnFamily> {
        if !SERVICE_CFS.contains(&name) {
            return Err(StoreError::Invalid(format!("{name} is not a service column family ({})", SERVICE_CFS.join(", "))));
        }
        Ok(cf(&self.db, name))
    }

    /// A value of a service column family (explorer indexes, users), as last written.
    pub fn service_get(&self, cf_name: &str, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        Ok(self.db.get_cf(self.service_cf(cf_name)?, key)?)
    }

    /// Up to `limit` entries of a service column family whose keys start with `prefix`, from
    /// `from` (inclusive) forward, or from `from` backward when `reverse`; `from` None starts at
    /// the prefix's first (or, reversed, last) key.
    pub fn service_scan(&self, cf_name: &str, prefix: &[u8], from: Option<&[u8]>, limit: usize, reverse: bool) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let handle = self.service_cf(cf_name)?;
        let mut opts = rocksdb::ReadOptions::default();
        opts.set_total_order_seek(true);
        let upper = prefix_successor(prefix);
        let mode = match (from, reverse) {
            (Some(k), false) => IteratorMode::From(k, rocksdb::Direction::Forward),
            (Some(k), true) => IteratorMode::From(k, rocksdb::Direction::Reverse),
            (None, false) => IteratorMode::From(prefix, rocksdb::Direction::Forward),
            (None, true) => match &upper {
                Some(u) => IteratorMode::From(u, rocksdb::Direction::Reverse),
                None => IteratorMode::End,
            },
        };
        let mut out = Vec::new();
        for item in self.db.iterator_cf_opt(handle, opts, mode) {
            let (key, value) = item?;
            if !key.starts_with(prefix) {
                // Reversing from the prefix's successor lands on it first when it exists: skip it.
                if reverse && upper.as_deref().is_some_and(|u| key.as_ref() >= u) {
                    continue;
                }
                break;
            }
            out.push((key.to_vec(), value.to_vec()));
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    /// Writes (None deletes) to a service column family in one atomic, synced batch.
    pub fn service_write(&self, cf_name: &str, writes: &[(Vec<u8>, Option<Vec<u8>>)]) -> StoreResult<()> {
        let handle = self.service_cf(cf_name)?;
        let mut batch = WriteBatch::default();
        for (key, value) in writes {
            match value {
                Some(v) => batch.put_cf(handle, key, v),
                None => batch.delete_cf(handle, key),
            }
        }
        let mut opts = rocksdb::WriteOptions::default();
        opts.set_sync(true);
        self.db.write_opt(batch, &opts)?;
        Ok(())
    }

    /// The latest committed view (head and a snapshot taken right after its commit).
    pub fn view(&self) -> Arc<ReadView> {
        self.view.read().clone()
    }

    /// Genesis hash and chain id recorded when the database was created.
    pub fn identity(&self) -> StoreResult<Option<(B256, u64)>> {
        let meta = cf(&self.db, CF_META);
        let genesis = self.db.get_cf(meta, META_GENESIS)?;
        let chain_id = self.db.get_cf(meta, META_CHAIN_ID)?;
        match (genesis, chain_id) {
            (Some(g), Some(c)) if g.len() == 32 => Ok(Some((B256::from_slice(&g), codec::decode_u64(&c, "chain id")?))),
            (None, None) => Ok(None),
            _ => Err(StoreError::Corrupt("genesis identity is incomplete".into())),
        }
    }

    /// Write block 0 and the chain identity.
    pub fn commit_genesis(&self, block: BlockCommit, chain_id: u64) -> StoreResult<Arc<ReadView>> {
        let _guard = self.commit_lock.lock();
        if self.view.read().head.is_some() || block.header.number != 0 {
            return Err(StoreError::Invalid("genesis can only be written to an empty database".into()));
        }
        let mut batch = WriteBatch::default();
        let meta = cf(&self.db, CF_META);
        batch.put_cf(meta, META_GENESIS, block.hash);
        batch.put_cf(meta, META_CHAIN_ID, chain_id.to_be_bytes());
        batch.put_cf(meta, META_SLOT_COUNTS, []);
        batch.put_cf(meta, META_TRACE_INPUTS_FROM, 0u64.to_be_bytes());
        let view = self.write_block(batch, &block)?;
        self.remember(block);
        Ok(view)
    }

    /// Commit the child of the head in one atomic batch and move the read view to it.
    pub fn commit(&self, block: BlockCommit) -> StoreResult<Arc<ReadView>> {
        let _guard = self.commit_lock.lock();
        let head = self.view.read().head.clone();
        match head {
            Some(h) if h.number() + 1 == block.header.number && h.hash == block.header.parent_hash => {}
            Some(h) => {
                return Err(StoreError::Invalid(format!(
                    "block {} ({}) does not extend the head {} ({})",
                    block.header.number, block.header.parent_hash, h.number(), h.hash
                )))
            }
            None => return Err(StoreError::Invalid("the database has no genesis block".into())),
        }
        let view = self.write_block(WriteBatch::default(), &block)?;
        self.remember(block);
        Ok(view)
    }

    /// Rewrites every column family but the explorer's users to what `to` saw, in one synced
    /// batch, and moves the head back to `to`'s head: the devnet's `evm_revert`. Only the keys that
    /// differ are written; the scan reads the whole database, which a development chain keeps small.
    /// `to` must be a view of this store (pinned by `view()` earlier).
    pub fn rewind_to(&self, to: &ReadView) -> StoreResult<Arc<ReadView>> {
        let _guard = self.commit_lock.lock();
        if !Arc::ptr_eq(&self.db, &to.db) {
            return Err(StoreError::Invalid("the pinned state is not of this database".into()));
        }
        let db = &*self.db;
        let mut batch = WriteBatch::default();
        for name in ALL_CFS.iter().filter(|name| **name != CF_USERS) {
            let handle = cf(db, name);
            let mut live = db.iterator_cf(handle, IteratorMode::Start);
            let mut then = to.snapshot.iterator_cf(handle, IteratorMode::Start);
            let mut a = live.next().transpose()?;
            let mut b = then.next().transpose()?;
            loop {
                match (&a, &b) {
                    (None, None) => break,
                    (Some((key, _)), None) => {
                        batch.delete_cf(handle, key);
                        a = live.next().transpose()?;
                    }
                    (None, Some((key, value))) => {
                        batch.put_cf(handle, key, value);
                        b = then.next().transpose()?;
                    }
                    (Some((ka, va)), Some((kb, vb))) => match ka.cmp(kb) {
                        std::cmp::Ordering::Less => {
                            batch.delete_cf(handle, ka);
                            a = live.next().transpose()?;
                        }
                        std::cmp::Ordering::Greater => {
                            batch.put_cf(handle, kb, vb);
                            b = then.next().transpose()?;
                        }
                        std::cmp::Ordering::Equal => {
                            if va != vb {
                                batch.put_cf(handle, kb, vb);
                            }
                            a = live.next().transpose()?;
                            b = then.next().transpose()?;
                        }
                    },
                }
            }
        }
        let mut write = WriteOptions::default();
        write.set_sync(true);
        db.write_opt(batch, &write)?;
        self.recent.clear();
        let view = Arc::new(ReadView::pin(self.db.clone(), self.recent.clone())?);
        *self.view.write() = view.clone();
        Ok(view)
    }

    /// Hands a committed block's decoded transactions and receipts to the cache of recent blocks.
    fn remember(&self, block: BlockCommit) {
        let stored = StoredBlock { hash: block.hash, header: block.header };
        self.recent.insert(Arc::new(BlockData::new(stored, block.body, block.receipts)));
    }

    /// Blocks held decoded in memory now.
    pub fn recent_blocks(&self) -> usize {
        self.recent.len()
    }

    fn write_block(&self, mut batch: WriteBatch, block: &BlockCommit) -> StoreResult<Arc<ReadView>> {
        let db = &*self.db;
        let number = block.header.number;
        let nkey = number_key(number);
        let state = &block.state;

        let accounts = cf(db, CF_ACCOUNTS);
        for (address, account) in &state.accounts {
            match account {
                Some(a) => batch.put_cf(accounts, address, alloy_rlp::encode(a)),
                None => batch.delete_cf(accounts, address),
            }
        }
        let storage = cf(db, CF_STORAGE);
        for change in &state.storage {
            if change.wipe {
                let from = storage_key(&change.address, &B256::ZERO);
                let to = storage_key(&change.address, &B256::repeat_byte(0xff));
                batch.delete_range_cf(storage, from, to);
                batch.delete_cf(storage, to);
            }
            for (slot, value) in &change.slots {
                let key = storage_key(&change.address, slot);
                if value.is_zero() {
                    batch.delete_cf(storage, key);
                } else {
                    batch.put_cf(storage, key, codec::encode_slot_value(value));
                }
            }
        }
        let counts = cf(db, CF_SLOT_COUNTS);
        let mut changed = Vec::with_capacity(state.slot_counts.len() * 28);
        for (address, count) in &state.slot_counts {
            if *count == 0 {
                batch.delete_cf(counts, address);
            } else {
                batch.put_cf(counts, address, count.to_be_bytes());
            }
            changed.extend_from_slice(address.as_slice());
            changed.extend_from_slice(&count.to_be_bytes());
        }
        if !changed.is_empty() {
            batch.put_cf(cf(db, CF_SLOT_CHANGES), nkey, changed);
        }
        if !block.trace_inputs.is_empty() {
            batch.put_cf(cf(db, CF_TRACE_INPUTS), nkey, block.trace_inputs.encode());
        }
        if !block.active_code.is_empty() {
            let active: Vec<u8> = block.active_code.iter().flat_map(|a| a.as_slice().iter().copied()).collect();
            batch.put_cf(cf(db, CF_ACTIVE_CODE), nkey, active);
        }
        let code = cf(db, CF_CODE);
        for (hash, bytes) in &state.code {
            batch.put_cf(code, hash, bytes);
        }
        let trie = cf(db, CF_TRIE);
        for (hash, node) in &state.trie_nodes {
            batch.put_cf(trie, hash, node);
        }

        let mut header_value = Vec::with_capacity(600);
        header_value.extend_from_slice(block.hash.as_slice());
        alloy_rlp::Encodable::encode(&block.header, &mut header_value);
        batch.put_cf(cf(db, CF_HEADERS), nkey, header_value);
        batch.put_cf(cf(db, CF_BODIES), nkey, block.body.encode());
        batch.put_cf(cf(db, CF_RECEIPTS), nkey, codec::encode_receipts(&block.receipts));
        batch.put_cf(cf(db, CF_HASH_TO_NUMBER), block.hash, nkey);
        let tx_index = cf(db, CF_TX_INDEX);
        for (i, hash) in block.tx_hashes.iter().enumerate() {
            batch.put_cf(tx_index, hash, codec::encode_tx_location(number, i as u32));
        }
        let app = cf(db, CF_APP);
        for (key, value) in &block.app_writes {
            match value {
                Some(v) => batch.put_cf(app, key, v),
                None => batch.delete_cf(app, key),
            }
        }
        let explorer = cf(db, CF_EXPLORER);
        for (key, value) in &block.explorer_writes {
            match value {
                Some(v) => batch.put_cf(explorer, key, v),
                None => batch.delete_cf(explorer, key),
            }
        }
        batch.put_cf(cf(db, CF_META), META_HEAD, nkey);

        let mut write = WriteOptions::default();
        // The WAL is synced so that an acknowledged block survives a power loss too.
        write.set_sync(true);
        db.write_opt(batch, &write)?;
        let view = Arc::new(ReadView::pin(self.db.clone(), self.recent.clone())?);
        *self.view.write() = view.clone();
        Ok(view)
    }
}

/// A data dir written before trace inputs were kept keeps them from its next block on.
fn mark_trace_inputs_start(db: &DB) -> StoreResult<()> {
    let meta = cf(db, CF_META);
    if db.get_cf(meta, META_TRACE_INPUTS_FROM)?.is_some() {
        return Ok(());
    }
    let Some(head) = db.get_cf(meta, META_HEAD)? else { return Ok(()) };
    // The head pointer is the head block's number (big-endian) as the store writes it.
    let next = if head.len() >= 8 { u64::from_be_bytes(head[..8].try_into().expect("8 bytes")) + 1 } else { 0 };
    db.put_cf(meta, META_TRACE_INPUTS_FROM, next.to_be_bytes())?;
    Ok(())
}

/// A data dir written before slot counts were kept is counted once, from its flat storage (its
/// keys are address ++ slot, so one pass counts each address's run); later blocks keep the counts.
fn count_slots_once(db: &DB) -> StoreResult<()> {
    let meta = cf(db, CF_META);
    if db.get_cf(meta, META_SLOT_COUNTS)?.is_some() || db.get_cf(meta, META_HEAD)?.is_none() {
        return Ok(());
    }
    let mut batch = WriteBatch::default();
    let counts = cf(db, CF_SLOT_COUNTS);
    let mut current: Option<(Vec<u8>, u64)> = None;
    for item in db.iterator_cf(cf(db, CF_STORAGE), IteratorMode::Start) {
        let (key, _) = item?;
        let address = &key[..20];
        match &mut current {
            Some((a, n)) if a.as_slice() == address => *n += 1,
            _ => {
                if let Some((a, n)) = current.take() {
                    batch.put_cf(counts, a, n.to_be_bytes());
                }
                current = Some((address.to_vec(), 1));
            }
        }
    }
    if let Some((a, n)) = current {
        batch.put_cf(counts, a, n.to_be_bytes());
    }
    batch.put_cf(meta, META_SLOT_COUNTS, []);
    db.write(batch)?;
    Ok(())
}

/// An account of the flat state with its non-zero storage slots.
pub type FlatAccount = (Address, TrieAccount, Vec<(B256, U256)>);

/// A consistent view of the database: the head at the time it was pinned and a snapshot.
pub struct ReadView {
    // Declared before `db` so it is released before the database handle it points into.
    pub(crate) snapshot: SnapshotWithThreadMode<'static, DB>,
    pub(crate) db: Arc<DB>,
    head: Option<StoredBlock>,
    recent: Arc<RecentBlocks>,
    state_from: u64,
}

impl std::fmt::Debug for ReadView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadView").field("head", &self.head.as_ref().map(|h| (h.number(), h.hash))).finish()
    }
}

impl ReadView {
    pub(crate) fn pin(db: Arc<DB>, recent: Arc<RecentBlocks>) -> StoreResult<Self> {
        let snapshot = db.snapshot();
        // SAFETY: the snapshot borrows the DB inside `db`'s Arc, which this view owns and drops last.
        let snapshot: SnapshotWithThreadMode<'static, DB> = unsafe { std::mem::transmute(snapshot) };
        let mut view = Self { snapshot, db, head: None, recent, state_from: 0 };
        view.state_from = view.get(CF_META, META_STATE_FROM)?.map_or(Ok(0), |b| codec::decode_u64(&b, "state start"))?;
        if let Some(n) = view.get(CF_META, META_HEAD)? {
            let number = codec::decode_u64(&n, "head pointer")?;
            let head = view.block(number)?.ok_or_else(|| StoreError::Corrupt(format!("head block {number} is missing")))?;
            view.head = Some(head);
        }
        Ok(view)
    }

    fn get(&self, cf_name: &str, key: impl AsRef<[u8]>) -> StoreResult<Option<Vec<u8>>> {
        Ok(self.snapshot.get_cf(cf(&self.db, cf_name), key)?)
    }

    /// The head block of this view (None only before genesis is written).
    pub fn head(&self) -> Option<&StoredBlock> {
        self.head.as_ref()
    }

    /// The head block; an error before genesis.
    pub fn head_block(&self) -> StoreResult<&StoredBlock> {
        self.head.as_ref().ok_or_else(|| StoreError::Invalid("the database has no genesis block".into()))
    }

    /// The first block whose state this view holds: the snapshot height of a node that joined by
    /// state sync, else 0.
    pub fn state_from(&self) -> u64 {
        self.state_from
    }

    pub fn head_number(&self) -> u64 {
        self.head.as_ref().map_or(0, StoredBlock::number)
    }

    /// Header and hash of block `number`.
    pub fn block(&self, number: u64) -> StoreResult<Option<StoredBlock>> {
        let Some(bytes) = self.get(CF_HEADERS, number_key(number))? else { return Ok(None) };
        if bytes.len() < 32 {
            return Err(StoreError::Corrupt(format!("header {number}")));
        }
        let header = Header::decode(&mut &bytes[32..]).map_err(|e| StoreError::Corrupt(format!("header {number}: {e}")))?;
        Ok(Some(StoredBlock { hash: B256::from_slice(&bytes[..32]), header }))
    }

    /// Hash of block `number` (for BLOCKHASH).
    pub fn block_hash(&self, number: u64) -> StoreResult<Option<B256>> {
        let Some(bytes) = self.get(CF_HEADERS, number_key(number))? else { return Ok(None) };
        if bytes.len() < 32 {
            return Err(StoreError::Corrupt(format!("header {number}")));
        }
        Ok(Some(B256::from_slice(&bytes[..32])))
    }

    pub fn number_by_hash(&self, hash: &B256) -> StoreResult<Option<u64>> {
        self.get(CF_HASH_TO_NUMBER, hash)?.map(|b| codec::decode_u64(&b, "block number")).transpose()
    }

    pub fn body(&self, number: u64) -> StoreResult<Option<BlockBody>> {
        self.get(CF_BODIES, number_key(number))?.map(|b| BlockBody::decode(&b)).transpose()
    }

    pub fn receipts(&self, number: u64) -> StoreResult<Option<Vec<TxReceipt>>> {
        self.get(CF_RECEIPTS, number_key(number))?.map(|b| codec::decode_receipts(&b)).transpose()
    }

    /// Block `number` of this view with its transactions and receipts, decoded: from the cache of
    /// recent blocks, else decoded from the database and added to it.
    pub fn block_data(&self, number: u64) -> StoreResult<Option<Arc<BlockData>>> {
        let Some(block) = self.block(number)? else { return Ok(None) };
        if let Some(data) = self.recent.get(number, &block.hash) {
            return Ok(Some(data));
        }
        let body = self.body(number)?.ok_or_else(|| StoreError::Corrupt(format!("body of block {number} is missing")))?;
        let receipts = self.receipts(number)?.ok_or_else(|| StoreError::Corrupt(format!("receipts of block {number} are missing")))?;
        if body.txs.len() != receipts.len() || body.senders.len() != receipts.len() {
            return Err(StoreError::Corrupt(format!(
                "block {number} holds {} transactions, {} senders and {} receipts",
                body.txs.len(),
                body.senders.len(),
                receipts.len()
            )));
        }
        let data = Arc::new(BlockData::new(block, body, receipts));
        self.recent.insert(data.clone());
        Ok(Some(data))
    }

    /// Block number and index of a mined transaction.
    pub fn tx_location(&self, hash: &B256) -> StoreResult<Option<(u64, u32)>> {
        self.get(CF_TX_INDEX, hash)?.map(|b| codec::decode_tx_location(&b)).transpose()
    }

    pub fn code(&self, hash: &B256) -> StoreResult<Option<Bytes>> {
        Ok(self.get(CF_CODE, hash)?.map(Bytes::from))
    }

    /// The head's account of `address` from the flat state.
    pub fn flat_account(&self, address: &Address) -> StoreResult<Option<TrieAccount>> {
        self.get(CF_ACCOUNTS, address)?
            .map(|b| TrieAccount::decode(&mut b.as_slice()).map_err(|e| StoreError::Corrupt(format!("account {address}: {e}"))))
            .transpose()
    }

    /// The head's storage value from the flat state (zero when unset).
    pub fn flat_storage(&self, address: &Address, slot: &B256) -> StoreResult<U256> {
        match self.get(CF_STORAGE, storage_key(address, slot))? {
            Some(b) => codec::decode_slot_value(&b),
            None => Ok(U256::ZERO),
        }
    }

    /// The head's number of non-zero storage slots of `address`.
    pub fn slot_count(&self, address: &Address) -> StoreResult<u64> {
        self.get(CF_SLOT_COUNTS, address)?.map_or(Ok(0), |b| codec::decode_u64(&b, "slot count"))
    }

    /// The accounts whose slot count block `number` changed, with their new counts (ascending by address).
    pub fn block_slot_changes(&self, number: u64) -> StoreResult<Vec<(Address, u64)>> {
        let Some(bytes) = self.get(CF_SLOT_CHANGES, number_key(number))? else { return Ok(Vec::new()) };
        if bytes.len() % 28 != 0 {
            return Err(StoreError::Corrupt(format!("slot changes of block {number}: {} bytes", bytes.len())));
        }
        bytes
            .chunks_exact(28)
            .map(|c| Ok((Address::from_slice(&c[..20]), codec::decode_u64(&c[20..], "slot count")?)))
            .collect()
    }

    /// What re-executing block `number` for a trace needs besides its body; None for a block from
    /// before they were kept.
    pub fn trace_inputs(&self, number: u64) -> StoreResult<Option<TraceInputs>> {
        let from = self.get(CF_META, META_TRACE_INPUTS_FROM)?.map(|b| codec::decode_u64(&b, "trace inputs start")).transpose()?.unwrap_or(u64::MAX);
        if number < from {
            return Ok(None);
        }
        Ok(Some(self.get(CF_TRACE_INPUTS, number_key(number))?.map(|b| TraceInputs::decode(&b)).transpose()?.unwrap_or_default()))
    }

    /// The accounts with code that block `number`'s execution loaded, ascending by address.
    pub fn block_active_code(&self, number: u64) -> StoreResult<Vec<Address>> {
        let Some(bytes) = self.get(CF_ACTIVE_CODE, number_key(number))? else { return Ok(Vec::new()) };
        if bytes.len() % 20 != 0 {
            return Err(StoreError::Corrupt(format!("active code of block {number}: {} bytes", bytes.len())));
        }
        Ok(bytes.chunks_exact(20).map(Address::from_slice).collect())
    }

    /// Every account of the flat state with its non-zero storage, in address order.
    pub fn flat_state(&self) -> StoreResult<Vec<FlatAccount>> {
        let mut out: Vec<FlatAccount> = Vec::new();
        for item in self.snapshot.iterator_cf(cf(&self.db, CF_ACCOUNTS), IteratorMode::Start) {
            let (key, value) = item?;
            let account = TrieAccount::decode(&mut &value[..]).map_err(|e| StoreError::Corrupt(format!("account: {e}")))?;
            out.push((Address::from_slice(&key), account, Vec::new()));
        }
        for item in self.snapshot.iterator_cf(cf(&self.db, CF_STORAGE), IteratorMode::Start) {
            let (key, value) = item?;
            let address = Address::from_slice(&key[..20]);
            let slot = B256::from_slice(&key[20..]);
            let idx = out
                .binary_search_by(|(a, _, _)| a.cmp(&address))
                .map_err(|_| StoreError::Corrupt(format!("storage of missing account {address}")))?;
            out[idx].2.push((slot, codec::decode_slot_value(&value)?));
        }
        Ok(out)
    }

    /// A value written by the application modules.
    pub fn app_value(&self, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        self.get(CF_APP, key)
    }

    /// Every application key/value whose key starts with `prefix`, in key order.
    /// Whether any application value lies under `prefix` at this view (one seek).
    pub fn has_app_prefix(&self, prefix: &[u8]) -> StoreResult<bool> {
        let mode = IteratorMode::From(prefix, rocksdb::Direction::Forward);
        match self.snapshot.iterator_cf(cf(&self.db, CF_APP), mode).next() {
            Some(item) => Ok(item?.0.starts_with(prefix)),
            None => Ok(false),
        }
    }

    pub fn app_entries(&self, prefix: &[u8]) -> StoreResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        let mode = IteratorMode::From(prefix, rocksdb::Direction::Forward);
        for item in self.snapshot.iterator_cf(cf(&self.db, CF_APP), mode) {
            let (key, value) = item?;
            if !key.starts_with(prefix) {
                break;
            }
            out.push((key.to_vec(), value.to_vec()));
        }
        Ok(out)
    }
}

impl NodeSource for ReadView {
    fn node(&self, hash: &B256) -> Result<Option<Vec<u8>>, TrieError> {
        self.snapshot.get_cf(cf(&self.db, CF_TRIE), hash).map_err(|e| TrieError::Storage(e.to_string()))
    }
}

/// The smallest key greater than every key starting with `prefix` (None when there is none).
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut upper = prefix.to_vec();
    while let Some(last) = upper.pop() {
        if last < 0xff {
            upper.push(last + 1);
            return Some(upper);
        }
    }
    None
}
