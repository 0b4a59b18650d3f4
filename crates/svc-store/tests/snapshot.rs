//! State sync snapshots on a real RocksDB: export of a consistent view in bounded chunks, import
//! into an empty data dir, verification against the trusted root, and refusal of bad snapshots.

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use svc_primitives::{header_hash, Header, EMPTY_ROOT_HASH, KECCAK_EMPTY};
use svc_store::codec::BlockBody;
use svc_store::snapshot::{self, SnapshotInfo, ANCESTORS};
use svc_store::state::{apply_changes, record_slot, record_word, AccountFields, StateChanges, StorageChange};
use svc_store::{BlockCommit, StateAt, Store};

const MODULE: Address = Address::new([0x5e; 20]);

/// Commit a block on top of the head with `changes` and module records `records` (committed in
/// MODULE's storage as the chain does).
fn commit(store: &Store, mut changes: StateChanges, records: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Header {
    let view = store.view();
    let parent = view.head().cloned();
    let parent_root = parent.as_ref().map_or(EMPTY_ROOT_HASH, |p| p.header.state_root);
    if !records.is_empty() {
        changes.accounts.push((MODULE, Some(AccountFields { nonce: 1, balance: U256::ZERO, code_hash: KECCAK_EMPTY })));
        changes.storage.push(StorageChange {
            address: MODULE,
            wipe: false,
            slots: records.iter().map(|(k, v)| (record_slot(k), record_word(v.as_deref()))).collect(),
        });
    }
    let update = apply_changes(&view, parent_root, changes).unwrap();
    let header = Header {
        parent_hash: parent.as_ref().map_or(B256::ZERO, |p| p.hash),
        number: parent.as_ref().map_or(0, |p| p.header.number + 1),
        state_root: update.root,
        gas_limit: 30_000_000,
        base_fee_per_gas: Some(7),
        ..Default::default()
    };
    let block = BlockCommit {
        header: header.clone(),
        hash: header_hash(&header),
        body: BlockBody::default(),
        state: update,
        app_writes: records,
        ..Default::default()
    };
    if parent.is_none() {
        store.commit_genesis(block, 9000).unwrap();
    } else {
        store.commit(block).unwrap();
    }
    header
}

fn account(n: u64) -> Address {
    let mut a = [0u8; 20];
    a[12..].copy_from_slice(&n.to_be_bytes());
    Address::new(a)
}

/// A chain of `blocks` blocks with balances, storage, code and module records (some deleted).
fn build_chain(dir: &std::path::Path, blocks: u64) -> Store {
    let store = Store::open(dir).unwrap();
    commit(&store, StateChanges { accounts: vec![(account(0), Some(AccountFields { nonce: 0, balance: U256::from(1u64 << 40), code_hash: KECCAK_EMPTY }))], ..Default::default() }, vec![]);
    let code = Bytes::from_static(&[0x60, 0x00, 0x60, 0x00, 0xf3]);
    for n in 1..=blocks {
        let contract = account(1000 + n % 7);
        let changes = StateChanges {
            accounts: vec![
                (account(n), Some(AccountFields { nonce: n, balance: U256::from(n * 1_000), code_hash: KECCAK_EMPTY })),
                (contract, Some(AccountFields { nonce: 1, balance: U256::from(n), code_hash: keccak256(&code) })),
            ],
            storage: vec![StorageChange { address: contract, wipe: false, slots: vec![(B256::from(U256::from(n % 13)), U256::from(n))] }],
            code: vec![(keccak256(&code), code.clone())],
        };
        let mut records = vec![(format!("staking/v/{}", n % 11).into_bytes(), Some(n.to_be_bytes().to_vec()))];
        if n % 5 == 0 {
            records.push((format!("staking/v/{}", (n + 3) % 11).into_bytes(), None));
        }
        commit(&store, changes, records);
    }
    store
}

fn export(store: &Store, chunk_bytes: usize) -> (SnapshotInfo, Vec<Vec<u8>>) {
    let mut chunks = Vec::new();
    let info = snapshot::export(&store.view(), chunk_bytes, &mut |i, c| {
        assert_eq!(i as usize, chunks.len());
        chunks.push(c);
        Ok(())
    })
    .unwrap();
    (info, chunks)
}

/// An empty node's store: genesis only.
fn empty(dir: &std::path::Path) -> Store {
    let store = Store::open(dir).unwrap();
    commit(&store, StateChanges { accounts: vec![(account(0), Some(AccountFields { nonce: 0, balance: U256::from(1u64 << 40), code_hash: KECCAK_EMPTY }))], ..Default::default() }, vec![]);
    store
}

#[test]
fn a_snapshot_round_trips_into_an_empty_store_and_verifies() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let source = build_chain(a.path(), 300);
    let head = source.view().head_block().unwrap().clone();
    let (info, chunks) = export(&source, 4096);
    assert_eq!((info.height, info.hash, info.root), (300, head.hash, head.header.state_root));
    assert!(chunks.len() > 3, "bounded chunks: {}", chunks.len());
    assert!(chunks.iter().all(|c| c.len() <= 4096));
    assert_eq!(info.chunk_hashes, chunks.iter().map(keccak256).collect::<Vec<_>>());

    // The source keeps committing while its pinned view is exported: the export is of block 300.
    commit(&source, StateChanges { accounts: vec![(account(1), None)], ..Default::default() }, vec![]);
    let (again, _) = export(&source, 4096);
    assert_eq!(again.height, 301);

    let target = empty(b.path());
    target.restore_begin().unwrap();
    for chunk in &chunks {
        target.restore_chunk(chunk).unwrap();
    }
    let view = target.restore_finish(info.height, info.root).unwrap();
    assert_eq!(view.head_block().unwrap().hash, head.hash);
    assert_eq!(view.state_from(), 300);
    let source_view = source.view();
    // Flat state, slot counts, module records and the trie agree with the source at block 300.
    let at = StateAt::at_block(&view, 300).unwrap();
    for n in [2u64, 150, 300] {
        assert_eq!(at.account(&account(n)).unwrap().unwrap().balance, U256::from(n * 1_000));
    }
    assert_eq!(view.flat_account(&account(300)).unwrap().unwrap().nonce, 300);
    assert_eq!(view.slot_count(&account(1003)).unwrap(), source_view.slot_count(&account(1003)).unwrap());
    // The source moved on one block without module records: its records are block 300's.
    assert_eq!(view.app_entries(b"staking/").unwrap(), source_view.app_entries(b"staking/").unwrap());
    assert!(!view.app_entries(b"staking/").unwrap().is_empty());
    assert_eq!(at.code_of(&account(1003)).unwrap().len(), 5);
    // The 256 ancestors BLOCKHASH reads, and no further.
    assert_eq!(view.block_hash(300 - ANCESTORS).unwrap(), source_view.block_hash(300 - ANCESTORS).unwrap());
    assert!(view.block_hash(300 - ANCESTORS - 1).unwrap().is_none());
    assert!(view.body(299).unwrap().is_some());
    drop((view, target));
    // Reopened, it resumes at the snapshot's block and takes the next one.
    let target = Store::open(b.path()).unwrap();
    assert_eq!(target.view().head_number(), 300);
    commit(&target, StateChanges { accounts: vec![(account(1), None)], ..Default::default() }, vec![]);
    assert_eq!(target.view().head_block().unwrap().header.state_root, source.view().head_block().unwrap().header.state_root);
}

#[test]
fn a_snapshot_that_does_not_match_the_trusted_root_is_refused() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let source = build_chain(a.path(), 40);
    let (info, chunks) = export(&source, 2048);
    let target = empty(b.path());

    // Another root than the one the light client trusts.
    target.restore_begin().unwrap();
    for chunk in &chunks {
        target.restore_chunk(chunk).unwrap();
    }
    let err = target.restore_finish(info.height, B256::repeat_byte(7)).unwrap_err().to_string();
    assert!(err.contains("trusted app hash"), "{err}");
    // Refused, it may start over (CometBFT offers another snapshot) and then verifies.
    target.restore_begin().unwrap();
    for chunk in &chunks {
        target.restore_chunk(chunk).unwrap();
    }
    target.restore_finish(info.height, info.root).unwrap();

    // A chunk left out: the trie or the flat state is incomplete.
    for skip in 0..chunks.len() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = empty(dir.path());
        fresh.restore_begin().unwrap();
        for (i, chunk) in chunks.iter().enumerate() {
            if i != skip {
                fresh.restore_chunk(chunk).unwrap();
            }
        }
        assert!(fresh.restore_finish(info.height, info.root).is_err(), "chunk {skip} of {} left out", chunks.len());
    }

    // A trie node altered in a chunk fails its hash check.
    let mut bad = chunks[0].clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let dir = tempfile::tempdir().unwrap();
    let fresh = empty(dir.path());
    fresh.restore_begin().unwrap();
    assert!(fresh.restore_chunk(&bad).unwrap_err().to_string().contains("does not hash"));
    // A truncated chunk is refused.
    assert!(fresh.restore_chunk(&chunks[1][..chunks[1].len() - 3]).is_err());
    drop(fresh);
    // An unfinished restore leaves a data dir that does not open.
    let err = Store::open(dir.path()).err().unwrap().to_string();
    assert!(err.contains("did not finish"), "{err}");
}

#[test]
fn a_restore_is_refused_into_a_data_dir_with_blocks() {
    let a = tempfile::tempdir().unwrap();
    let store = build_chain(a.path(), 3);
    assert!(store.restore_begin().unwrap_err().to_string().contains("empty data dir"));
    assert!(store.restore_chunk(&[]).is_err());
}
