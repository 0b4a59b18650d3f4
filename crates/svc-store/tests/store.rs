//! The store on a real RocksDB: atomic block commits, snapshot isolation of read views,
//! flat state agreeing with the trie, storage wipes, and resuming after reopen.

use alloy_primitives::{keccak256, Address, Bytes, Log, LogData, B256, U256};
use svc_primitives::{header_hash, Header, TxReceipt, EMPTY_ROOT_HASH, KECCAK_EMPTY};
use svc_store::codec::BlockBody;
use svc_store::query::{find_logs, LogFilter};
use svc_store::state::{apply_changes, AccountFields, StateChanges, StorageChange};
use svc_store::{BlockCommit, StateAt, Store};

fn fields(nonce: u64, balance: u64) -> Option<AccountFields> {
    Some(AccountFields { nonce, balance: U256::from(balance), code_hash: KECCAK_EMPTY })
}

/// Commit a block on top of the head applying `changes`, with `receipts` over fake transactions.
fn commit(store: &Store, changes: StateChanges, receipts: Vec<TxReceipt>) -> (B256, Header) {
    let view = store.view();
    let parent = view.head().cloned();
    let parent_root = parent.as_ref().map_or(EMPTY_ROOT_HASH, |p| p.header.state_root);
    let update = apply_changes(&view, parent_root, changes).unwrap();
    let txs: Vec<Bytes> = (0..receipts.len()).map(|i| Bytes::from(vec![0xc1, i as u8])).collect();
    let mut bloom = alloy_primitives::Bloom::ZERO;
    for r in &receipts {
        bloom |= r.logs_bloom;
    }
    let header = Header {
        parent_hash: parent.as_ref().map_or(B256::ZERO, |p| p.hash),
        number: parent.as_ref().map_or(0, |p| p.header.number + 1),
        state_root: update.root,
        logs_bloom: bloom,
        gas_limit: 30_000_000,
        base_fee_per_gas: Some(7),
        ..Default::default()
    };
    let hash = header_hash(&header);
    let block = BlockCommit {
        header: header.clone(),
        hash,
        tx_hashes: txs.iter().map(keccak256).collect(),
        body: BlockBody { senders: vec![Address::ZERO; txs.len()], txs, messages: Vec::new() },
        receipts,
        state: update,
        app_writes: Vec::new(),
        explorer_writes: Vec::new(),
        active_code: Vec::new(),
        trace_inputs: Default::default(),
    };
    if parent.is_none() {
        store.commit_genesis(block, 9000).unwrap();
    } else {
        store.commit(block).unwrap();
    }
    (hash, header)
}

const A: Address = Address::new([0xaa; 20]);
const B: Address = Address::new([0xbb; 20]);

#[test]
fn views_are_isolated_and_flat_state_matches_the_trie() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let slot = B256::with_last_byte(1);
    commit(
        &store,
        StateChanges {
            accounts: vec![(A, fields(1, 100)), (B, fields(0, 5))],
            storage: vec![StorageChange { address: A, wipe: false, slots: vec![(slot, U256::from(42))] }],
            code: vec![],
        },
        vec![],
    );
    let before = store.view();
    commit(
        &store,
        StateChanges {
            accounts: vec![(A, fields(2, 90)), (B, None)],
            storage: vec![StorageChange { address: A, wipe: false, slots: vec![(slot, U256::ZERO), (B256::with_last_byte(2), U256::from(7))] }],
            code: vec![],
        },
        vec![],
    );
    // A view pinned before the commit still sees block 0 in full.
    assert_eq!(before.head().unwrap().header.number, 0);
    assert_eq!(before.flat_account(&A).unwrap().unwrap().nonce, 1);
    assert_eq!(before.flat_storage(&A, &slot).unwrap(), U256::from(42));
    assert!(before.block(1).unwrap().is_none());

    let view = store.view();
    assert_eq!(view.head_number(), 1);
    let latest = StateAt::Latest(&view);
    let root1 = StateAt::Root(&view, view.block(1).unwrap().unwrap().header.state_root);
    let root0 = StateAt::Root(&view, view.block(0).unwrap().unwrap().header.state_root);
    for state in [latest, root1] {
        assert_eq!(state.account(&A).unwrap().unwrap().balance, U256::from(90));
        assert!(state.account(&B).unwrap().is_none());
        assert_eq!(state.storage(&A, &slot).unwrap(), U256::ZERO);
        assert_eq!(state.storage(&A, &B256::with_last_byte(2)).unwrap(), U256::from(7));
    }
    assert_eq!(root0.account(&B).unwrap().unwrap().balance, U256::from(5));
    assert_eq!(root0.storage(&A, &slot).unwrap(), U256::from(42));
}

#[test]
fn wiping_storage_clears_flat_and_trie() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let slots: Vec<(B256, U256)> = (1..=5u8).map(|i| (B256::with_last_byte(i), U256::from(i))).collect();
    commit(&store, StateChanges { accounts: vec![(A, fields(1, 1))], storage: vec![StorageChange { address: A, wipe: false, slots }], code: vec![] }, vec![]);
    commit(
        &store,
        StateChanges {
            accounts: vec![],
            storage: vec![StorageChange { address: A, wipe: true, slots: vec![(B256::with_last_byte(9), U256::from(9))] }],
            code: vec![],
        },
        vec![],
    );
    let view = store.view();
    let flat = view.flat_state().unwrap();
    assert_eq!(flat.len(), 1);
    assert_eq!(flat[0].2, vec![(B256::with_last_byte(9), U256::from(9))]);
    let account = view.flat_account(&A).unwrap().unwrap();
    assert_eq!(account.storage_root, alloy_trie::root::storage_root_unhashed(vec![(B256::with_last_byte(9), U256::from(9))]));
}

#[test]
fn commits_must_extend_the_head_and_reopen_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (hash1, header1) = {
        let store = Store::open(dir.path()).unwrap();
        commit(&store, StateChanges { accounts: vec![(A, fields(0, 1))], ..Default::default() }, vec![]);
        let (hash1, header1) = commit(&store, StateChanges::default(), vec![]);
        // A block that does not extend the head is refused and changes nothing.
        let stray = Header { number: 5, ..header1.clone() };
        let err = store.commit(BlockCommit { hash: header_hash(&stray), header: stray, ..Default::default() }).unwrap_err();
        assert!(err.to_string().contains("does not extend the head"), "{err}");
        assert_eq!(store.view().head_number(), 1);
        (hash1, header1)
    };
    let store = Store::open(dir.path()).unwrap();
    let err = Store::open(dir.path()).err().expect("second open refused").to_string();
    assert!(err.contains("already open"), "{err}");
    let view = store.view();
    assert_eq!(view.head().unwrap().hash, hash1);
    assert_eq!(view.head().unwrap().header, header1);
    assert_eq!(view.number_by_hash(&hash1).unwrap(), Some(1));
    assert_eq!(store.identity().unwrap().unwrap().1, 9000);
}

#[test]
fn log_queries_stop_at_block_boundaries_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    commit(&store, StateChanges::default(), vec![]);
    let topic = B256::repeat_byte(0x11);
    let log = |addr: Address| Log { address: addr, data: LogData::new_unchecked(vec![topic], Bytes::from_static(b"x")) };
    for _ in 0..3 {
        commit(&store, StateChanges::default(), vec![TxReceipt::new(2, true, 21_000, vec![log(A), log(B)]), TxReceipt::new(2, true, 42_000, vec![log(A)])]);
    }
    let view = store.view();
    let all = find_logs(&view, &LogFilter { from_block: 0, to_block: 10, topics: vec![Some(vec![topic])], limit: 100, ..Default::default() }).unwrap();
    assert_eq!(all.logs.len(), 9);
    assert_eq!(all.last_block, 3);
    assert_eq!(all.logs[2].log_index, 2);
    assert_eq!(all.logs[2].tx_index, 1);
    let only_a = find_logs(&view, &LogFilter { from_block: 1, to_block: 3, addresses: vec![A], limit: 100, ..Default::default() }).unwrap();
    assert_eq!(only_a.logs.len(), 6);
    assert!(only_a.logs.iter().all(|l| l.log.address == A));
    let limited = find_logs(&view, &LogFilter { from_block: 1, to_block: 3, addresses: vec![A], limit: 3, ..Default::default() }).unwrap();
    assert!(limited.truncated);
    assert_eq!(limited.last_block, 1);
    assert_eq!(limited.logs.len(), 2);
    let none = find_logs(&view, &LogFilter { from_block: 1, to_block: 3, topics: vec![Some(vec![B256::ZERO])], limit: 3, ..Default::default() }).unwrap();
    assert!(none.logs.is_empty());
    // A wildcard position still needs a topic there.
    let two = find_logs(&view, &LogFilter { from_block: 1, to_block: 3, topics: vec![None, None], limit: 100, ..Default::default() }).unwrap();
    assert!(two.logs.is_empty());
}

#[test]
fn log_queries_stop_gathering_past_their_byte_limit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    commit(&store, StateChanges::default(), vec![]);
    let log = Log { address: A, data: LogData::new_unchecked(vec![B256::repeat_byte(0x22)], Bytes::from(vec![7u8; 1000])) };
    for _ in 0..4 {
        commit(&store, StateChanges::default(), vec![TxReceipt::new(2, true, 21_000, vec![log.clone(), log.clone()])]);
    }
    let view = store.view();
    // Each log holds 1,032 bytes (its data and one topic): 8 of them fit in 10,000, not in 5,000.
    let all = find_logs(&view, &LogFilter { from_block: 1, to_block: 4, limit: 100, max_bytes: 10_000, ..Default::default() }).unwrap();
    assert!(!all.too_large);
    assert_eq!(all.logs.len(), 8);
    let capped = find_logs(&view, &LogFilter { from_block: 1, to_block: 4, limit: 100, max_bytes: 5_000, ..Default::default() }).unwrap();
    assert!(capped.too_large);
    assert!(capped.logs.len() <= 4, "stopped before holding more than the limit: {}", capped.logs.len());
    assert_eq!(capped.last_block, 2);
}

#[test]
fn service_column_families_scan_by_prefix_both_ways_and_write_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let put = |k: &[u8]| (k.to_vec(), Some(k.to_vec()));
    store
        .service_write("explorer", &[put(b"a/1"), put(b"a/2"), put(b"a/3"), put(b"a0"), put(b"b/1"), put(b"a/\xff")])
        .unwrap();
    let keys = |v: Vec<(Vec<u8>, Vec<u8>)>| v.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    assert_eq!(keys(store.service_scan("explorer", b"a/", None, 10, false).unwrap()), vec![b"a/1".to_vec(), b"a/2".to_vec(), b"a/3".to_vec(), b"a/\xff".to_vec()]);
    assert_eq!(keys(store.service_scan("explorer", b"a/", None, 2, true).unwrap()), vec![b"a/\xff".to_vec(), b"a/3".to_vec()]);
    assert_eq!(keys(store.service_scan("explorer", b"a/", Some(b"a/2"), 10, true).unwrap()), vec![b"a/2".to_vec(), b"a/1".to_vec()]);
    assert_eq!(keys(store.service_scan("explorer", b"a/", Some(b"a/2"), 10, false).unwrap()), vec![b"a/2".to_vec(), b"a/3".to_vec(), b"a/\xff".to_vec()]);
    // Deletes, and the column families are apart from each other and from the chain's.
    store.service_write("explorer", &[(b"a/2".to_vec(), None)]).unwrap();
    assert_eq!(store.service_get("explorer", b"a/2").unwrap(), None);
    assert_eq!(store.service_get("users", b"a/1").unwrap(), None);
    assert!(store.service_write("accounts", &[put(b"x")]).is_err(), "chain column families are not writable here");
    drop(store);
    let reopened = Store::open(dir.path()).unwrap();
    assert_eq!(reopened.service_get("explorer", b"a/1").unwrap(), Some(b"a/1".to_vec()));
}
