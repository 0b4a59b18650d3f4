//! State sync snapshots: the whole consensus state at a block, exported from a pinned read view
//! (a RocksDB snapshot, so the block path never waits for it) in chunks of bounded size, and
//! imported into an empty data directory, verified against the state root a light client trusts.
//!
//! A snapshot (format 1) is a stream of records `tag u8 ++ key_len u32 ++ key ++ value_len u32 ++
//! value`, cut into chunks at record boundaries. It holds:
//! - the state trie nodes reachable from the block's state root (account trie and every storage
//!   trie), the flat accounts and storage, contract code and the slot counts;
//! - every module record (the app column family), which the root commits to;
//! - the block and its 256 ancestors (headers, bodies, receipts and their per-block records): the
//!   hashes BLOCKHASH reads and what the next block's hooks read of their parent.
//!
//! Import checks every record (tags, sizes, trie nodes and code by their hash), and at the end that
//! the trie under the trusted root is complete, that the flat state equals the trie's leaves
//! exactly, that every module record is committed in its module's storage, and that the head
//! header carries the root and its ancestors link up by hash.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use alloy_primitives::{keccak256, Address, B256, U256};
use alloy_rlp::Decodable;
use rocksdb::{IteratorMode, WriteBatch, WriteOptions};
use svc_primitives::{header_hash, Header, TrieAccount, EMPTY_ROOT_HASH, KECCAK_EMPTY};

use crate::codec;
use crate::schema::*;
use crate::state::{record_slot, record_word};
use crate::store::{cf, ReadView, Store};
use crate::trie::{self, TrieError};
use crate::{StoreError, StoreResult};

/// The snapshot format this node writes and restores.
pub const SNAPSHOT_FORMAT: u32 = 1;

/// Blocks below the snapshot height whose headers (and bodies, receipts) a snapshot carries: the
/// 256 hashes the EVM's BLOCKHASH reads.
pub const ANCESTORS: u64 = 256;

/// The column families a snapshot carries, by record tag.
const TAGS: [&str; 13] = [
    CF_TRIE, CF_ACCOUNTS, CF_STORAGE, CF_CODE, CF_SLOT_COUNTS, CF_APP, CF_HEADERS, CF_BODIES, CF_RECEIPTS,
    CF_HASH_TO_NUMBER, CF_SLOT_CHANGES, CF_ACTIVE_CODE, CF_TRACE_INPUTS,
];
const TAG_TRIE: u8 = 0;
const TAG_CODE: u8 = 3;

/// The consensus column families an import replaces (everything but meta and the services' own).
const RESTORED: [&str; 14] = [
    CF_ACCOUNTS, CF_STORAGE, CF_CODE, CF_TRIE, CF_HEADERS, CF_BODIES, CF_RECEIPTS, CF_HASH_TO_NUMBER, CF_TX_INDEX,
    CF_APP, CF_SLOT_COUNTS, CF_SLOT_CHANGES, CF_ACTIVE_CODE, CF_TRACE_INPUTS,
];

/// What a finished export describes: the block, its state root, and each chunk's keccak256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    pub height: u64,
    pub hash: B256,
    pub root: B256,
    pub chunk_hashes: Vec<B256>,
}

/// Cuts the record stream into chunks of at most `limit` bytes (a record bigger than that gets a chunk of its own).
struct Chunker<'a> {
    limit: usize,
    current: Vec<u8>,
    hashes: Vec<B256>,
    sink: &'a mut dyn FnMut(u32, Vec<u8>) -> StoreResult<()>,
}

impl Chunker<'_> {
    fn record(&mut self, tag: u8, key: &[u8], value: &[u8]) -> StoreResult<()> {
        let size = 9 + key.len() + value.len();
        if !self.current.is_empty() && self.current.len() + size > self.limit {
            self.flush()?;
        }
        self.current.push(tag);
        self.current.extend_from_slice(&(key.len() as u32).to_be_bytes());
        self.current.extend_from_slice(key);
        self.current.extend_from_slice(&(value.len() as u32).to_be_bytes());
        self.current.extend_from_slice(value);
        Ok(())
    }

    fn flush(&mut self) -> StoreResult<()> {
        let chunk = std::mem::take(&mut self.current);
        self.hashes.push(keccak256(&chunk));
        (self.sink)(self.hashes.len() as u32 - 1, chunk)
    }
}

fn storage_error(e: StoreError) -> TrieError {
    TrieError::Storage(e.to_string())
}

/// Export the state of `view`'s head in chunks of at most `chunk_bytes`, each handed to `sink`
/// (index, bytes) as it fills. Reads only the view's snapshot: run it on any thread.
pub fn export(view: &ReadView, chunk_bytes: usize, sink: &mut dyn FnMut(u32, Vec<u8>) -> StoreResult<()>) -> StoreResult<SnapshotInfo> {
    let head = view.head_block()?.clone();
    let root = head.header.state_root;
    let mut out = Chunker { limit: chunk_bytes.max(1024), current: Vec::new(), hashes: Vec::new(), sink };

    // The trie nodes under the root, then under every distinct storage root.
    let mut storage_roots = Vec::new();
    {
        let mut on_node = |hash: B256, rlp: &[u8]| out.record(TAG_TRIE, hash.as_slice(), rlp).map_err(storage_error);
        let mut on_leaf = |_key: B256, value: &[u8]| {
            let account = TrieAccount::decode(&mut &value[..]).map_err(|e| TrieError::Storage(format!("account leaf: {e}")))?;
            if account.storage_root != EMPTY_ROOT_HASH {
                storage_roots.push(account.storage_root);
            }
            Ok(())
        };
        trie::walk(view, root, &mut on_node, &mut on_leaf)?;
    }
    let mut seen = HashSet::new();
    for storage_root in storage_roots {
        if !seen.insert(storage_root) {
            continue;
        }
        let mut on_node = |hash: B256, rlp: &[u8]| out.record(TAG_TRIE, hash.as_slice(), rlp).map_err(storage_error);
        trie::walk(view, storage_root, &mut on_node, &mut |_, _| Ok(()))?;
    }
    // The flat state, code, slot counts and module records, as they are.
    for tag in 1..=5u8 {
        for item in view.snapshot.iterator_cf(cf(&view.db, TAGS[tag as usize]), IteratorMode::Start) {
            let (key, value) = item?;
            out.record(tag, &key, &value)?;
        }
    }
    // The block and its ancestors.
    let from = head.number().saturating_sub(ANCESTORS);
    for number in from..=head.number() {
        let nkey = number_key(number);
        for tag in 6..TAGS.len() as u8 {
            let name = TAGS[tag as usize];
            let key: Vec<u8> = if name == CF_HASH_TO_NUMBER {
                view.block_hash(number)?.ok_or_else(|| StoreError::Corrupt(format!("header {number} is missing")))?.to_vec()
            } else {
                nkey.to_vec()
            };
            if let Some(value) = view.snapshot.get_cf(cf(&view.db, name), &key)? {
                out.record(tag, &key, &value)?;
            }
        }
    }
    if !out.current.is_empty() || out.hashes.is_empty() {
        out.flush()?;
    }
    Ok(SnapshotInfo { height: head.number(), hash: head.hash, root, chunk_hashes: out.hashes })
}

/// Parse a chunk into its records, refusing anything malformed.
fn records(chunk: &[u8]) -> StoreResult<Vec<(u8, &[u8], &[u8])>> {
    let bad = |why: &str| StoreError::Invalid(format!("snapshot chunk: {why}"));
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut take = |n: usize| -> StoreResult<&[u8]> {
        let end = at.checked_add(n).filter(|e| *e <= chunk.len()).ok_or_else(|| bad("truncated record"))?;
        let s = &chunk[at..end];
        at = end;
        Ok(s)
    };
    loop {
        let Ok(tag) = take(1) else { break };
        let tag = tag[0];
        if tag as usize >= TAGS.len() {
            return Err(bad(&format!("unknown record tag {tag}")));
        }
        let klen = u32::from_be_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
        let key = take(klen)?;
        let vlen = u32::from_be_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
        let value = take(vlen)?;
        out.push((tag, key, value));
    }
    Ok(out)
}

impl Store {
    /// Start restoring a snapshot into this data dir: refused unless it holds nothing beyond
    /// genesis; empties the consensus column families and marks the dir as being restored.
    pub fn restore_begin(&self) -> StoreResult<()> {
        let _guard = self.commit_lock.lock();
        let head = self.view.read().head_number();
        if head != 0 {
            return Err(StoreError::Invalid(format!("state sync restores into an empty data dir; this one is at block {head}")));
        }
        let db = &*self.db;
        db.put_cf(cf(db, CF_META), META_RESTORING, [])?;
        let mut batch = WriteBatch::default();
        for name in RESTORED {
            batch.delete_range_cf(cf(db, name), &[][..], &[0xffu8; 128][..]);
        }
        batch.delete_cf(cf(db, CF_META), META_HEAD);
        db.write(batch)?;
        Ok(())
    }

    /// Write one chunk of a snapshot being restored (after restore_begin).
    pub fn restore_chunk(&self, chunk: &[u8]) -> StoreResult<()> {
        let db = &*self.db;
        if db.get_cf(cf(db, CF_META), META_RESTORING)?.is_none() {
            return Err(StoreError::Invalid("no state sync restore in progress".into()));
        }
        let mut batch = WriteBatch::default();
        for (tag, key, value) in records(chunk)? {
            if (tag == TAG_TRIE || tag == TAG_CODE) && (key.len() != 32 || keccak256(value).as_slice() != key) {
                return Err(StoreError::Invalid(format!("snapshot chunk: a {} record does not hash to its key", TAGS[tag as usize])));
            }
            batch.put_cf(cf(db, TAGS[tag as usize]), key, value);
        }
        db.write(batch)?;
        Ok(())
    }

    /// Finish a restore: verify what was written against `root` (the app hash the light client
    /// trusts at `height`) and make the block the head. On failure the data dir stays marked
    /// (restore_begin may start over).
    pub fn restore_finish(&self, height: u64, root: B256) -> StoreResult<Arc<ReadView>> {
        let _guard = self.commit_lock.lock();
        let db = &*self.db;
        if db.get_cf(cf(db, CF_META), META_RESTORING)?.is_none() {
            return Err(StoreError::Invalid("no state sync restore in progress".into()));
        }
        // A view over what was written (its head pointer is not set yet).
        let view = ReadView::pin(self.db.clone(), self.recent.clone())?;
        verify(&view, height, root)?;
        let mut batch = WriteBatch::default();
        let meta = cf(db, CF_META);
        batch.put_cf(meta, META_HEAD, number_key(height));
        batch.put_cf(meta, META_STATE_FROM, height.to_be_bytes());
        batch.put_cf(meta, META_TRACE_INPUTS_FROM, (height + 1).to_be_bytes());
        batch.delete_cf(meta, META_RESTORING);
        let mut write = WriteOptions::default();
        write.set_sync(true);
        db.write_opt(batch, &write)?;
        let view = Arc::new(ReadView::pin(self.db.clone(), self.recent.clone())?);
        *self.view.write() = view.clone();
        Ok(view)
    }
}

fn invalid(why: String) -> StoreError {
    StoreError::Invalid(format!("snapshot does not verify: {why}"))
}

fn verify(view: &ReadView, height: u64, root: B256) -> StoreResult<()> {
    // The head and its ancestors: hashes, links, and the root.
    let head = view.block(height)?.ok_or_else(|| invalid(format!("no header of block {height}")))?;
    if head.header.state_root != root {
        return Err(invalid(format!("block {height} has state root {}, the trusted app hash is {root}", head.header.state_root)));
    }
    let mut child: Option<Header> = None;
    for number in (height.saturating_sub(ANCESTORS)..=height).rev() {
        let block = view.block(number)?.ok_or_else(|| invalid(format!("no header of block {number}")))?;
        if header_hash(&block.header) != block.hash || block.header.number != number {
            return Err(invalid(format!("header {number} does not hash to its stored hash")));
        }
        if let Some(c) = &child {
            if c.parent_hash != block.hash {
                return Err(invalid(format!("header {} does not link to header {number}", number + 1)));
            }
        }
        if view.number_by_hash(&block.hash)? != Some(number) {
            return Err(invalid(format!("block hash index of {number}")));
        }
        child = Some(block.header);
    }

    // The account trie's leaves against the flat accounts.
    let mut leaves: HashMap<B256, Vec<u8>> = HashMap::new();
    trie::walk(view, root, &mut |_, _| Ok(()), &mut |key, value| {
        leaves.insert(key, value.to_vec());
        Ok(())
    })?;
    let mut accounts: BTreeMap<Address, TrieAccount> = BTreeMap::new();
    for item in view.snapshot.iterator_cf(cf(&view.db, CF_ACCOUNTS), IteratorMode::Start) {
        let (key, value) = item?;
        if key.len() != 20 {
            return Err(invalid("account key of the wrong length".into()));
        }
        let address = Address::from_slice(&key);
        if leaves.get(&keccak256(address)).map(Vec::as_slice) != Some(&value[..]) {
            return Err(invalid(format!("account {address} differs from the state trie")));
        }
        let account = TrieAccount::decode(&mut &value[..]).map_err(|e| invalid(format!("account {address}: {e}")))?;
        accounts.insert(address, account);
    }
    if accounts.len() != leaves.len() {
        return Err(invalid(format!("{} flat accounts, {} in the state trie", accounts.len(), leaves.len())));
    }
    drop(leaves);

    // Each account's storage: flat slots against its storage trie; slot counts; code.
    let mut flat: BTreeMap<Address, Vec<(B256, U256)>> = BTreeMap::new();
    for item in view.snapshot.iterator_cf(cf(&view.db, CF_STORAGE), IteratorMode::Start) {
        let (key, value) = item?;
        if key.len() != 52 {
            return Err(invalid("storage key of the wrong length".into()));
        }
        let address = Address::from_slice(&key[..20]);
        flat.entry(address).or_default().push((B256::from_slice(&key[20..]), codec::decode_slot_value(&value)?));
    }
    let mut committed: HashSet<(Address, B256, U256)> = HashSet::new();
    for (address, account) in &accounts {
        let slots = flat.remove(address).unwrap_or_default();
        let mut leaves: HashMap<B256, Vec<u8>> = HashMap::new();
        trie::walk(view, account.storage_root, &mut |_, _| Ok(()), &mut |key, value| {
            leaves.insert(key, value.to_vec());
            Ok(())
        })?;
        if leaves.len() != slots.len() || view.slot_count(address)? != slots.len() as u64 {
            return Err(invalid(format!("account {address}: {} flat slots, {} in its storage trie, slot count {}", slots.len(), leaves.len(), view.slot_count(address)?)));
        }
        for (slot, value) in slots {
            if leaves.get(&keccak256(slot)) != Some(&alloy_rlp::encode(value)) {
                return Err(invalid(format!("slot {slot} of {address} differs from its storage trie")));
            }
            committed.insert((*address, slot, value));
        }
        if account.code_hash != KECCAK_EMPTY && view.code(&account.code_hash)?.is_none() {
            return Err(invalid(format!("code {} of {address} is missing", account.code_hash)));
        }
    }
    if let Some((address, _)) = flat.into_iter().next() {
        return Err(invalid(format!("storage of {address}, which has no account")));
    }
    // Every module record is committed in some account's storage (its module's).
    let by_slot: HashMap<(B256, U256), ()> = committed.iter().map(|(_, s, v)| ((*s, *v), ())).collect();
    for item in view.snapshot.iterator_cf(cf(&view.db, CF_APP), IteratorMode::Start) {
        let (key, value) = item?;
        if !by_slot.contains_key(&(record_slot(&key), record_word(Some(&value)))) {
            return Err(invalid(format!("module record {} is not committed by the state root", String::from_utf8_lossy(&key))));
        }
    }
    Ok(())
}
