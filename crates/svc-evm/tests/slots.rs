//! Storage slot counts: kept by the store as blocks change storage (a slot set from zero is one
//! more, cleared one less, the last write in a block counting), from genesis storage on, listed
//! per block for the accounts whose count a block changed, equal to what a scan of the flat state
//! finds, and counted once from the flat storage for a data dir written before counts were kept.

mod common;

use alloy_primitives::{Address, B256, U256};
use common::*;
use svc_evm::{Chain, GenesisAccount, GenesisSpec};

const SLOTS: Address = Address::new([0x5d; 20]);
const HOLDER: Address = Address::new([0x4e; 20]);

fn spec(key: &Key) -> GenesisSpec {
    let mut g = genesis(std::slice::from_ref(key));
    g.alloc.push(GenesisAccount { address: SLOTS, init_code: Some(contract("Slots").bytecode.into()), ..Default::default() });
    g.alloc.push(GenesisAccount {
        address: HOLDER,
        code: Some(vec![0x00].into()),
        storage: vec![(B256::with_last_byte(1), B256::with_last_byte(5)), (B256::with_last_byte(2), B256::with_last_byte(6))],
        ..Default::default()
    });
    g
}

fn set(start: u64, n: u64, value: u64) -> Vec<u8> {
    calldata("set(uint256,uint256,uint256)", &[word(U256::from(start)), word(U256::from(n)), word(U256::from(value))])
}

/// What a scan of the flat state finds: the account's non-zero slots.
fn scanned(chain: &Chain, address: Address) -> u64 {
    chain.view().flat_state().unwrap().into_iter().find(|(a, _, _)| *a == address).map_or(0, |(_, _, s)| s.len() as u64)
}

#[test]
fn counts_slots_as_blocks_change_storage() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new(1);
    let spec = spec(&key);
    let chain = open(dir.path(), &spec);
    let count = |a: Address| chain.view().slot_count(&a).unwrap();
    assert_eq!(count(HOLDER), 2, "genesis storage is counted");
    assert_eq!(count(SLOTS), 0);

    // 100 slots set.
    let b1 = chain.produce_block(request(&chain, vec![key.tx1559(0, Some(SLOTS), 0, set(0, 100, 7), 5_000_000)], vec![key.address])).unwrap();
    assert_eq!(b1.included.len(), 1);
    assert_eq!(count(SLOTS), 100);
    assert_eq!(chain.view().block_slot_changes(1).unwrap(), vec![(SLOTS, 100)]);

    // In one block: 40 cleared, 5 new, one set and cleared in the same call, 10 set and cleared by
    // two transactions: 100 - 40 + 5 = 65.
    let txs = vec![
        key.tx1559(1, Some(SLOTS), 0, set(0, 40, 0), 5_000_000),
        key.tx1559(2, Some(SLOTS), 0, set(200, 5, 9), 5_000_000),
        key.tx1559(3, Some(SLOTS), 0, calldata("flip(uint256)", &[word(U256::from(500))]), 100_000),
        key.tx1559(4, Some(SLOTS), 0, set(300, 10, 1), 5_000_000),
        key.tx1559(5, Some(SLOTS), 0, set(300, 10, 0), 5_000_000),
    ];
    let b2 = chain.produce_block(request(&chain, txs, vec![key.address; 5])).unwrap();
    assert_eq!(b2.included.len(), 5);
    assert_eq!(count(SLOTS), 65);
    assert_eq!(scanned(&chain, SLOTS), 65);
    assert_eq!(chain.view().block_slot_changes(2).unwrap(), vec![(SLOTS, 65)]);

    // Overwriting set slots with other non-zero values changes no count; the block lists nothing.
    chain.produce_block(request(&chain, vec![key.tx1559(6, Some(SLOTS), 0, set(60, 10, 3), 5_000_000)], vec![key.address])).unwrap();
    assert_eq!(count(SLOTS), 65);
    assert!(chain.view().block_slot_changes(3).unwrap().is_empty());

    // Every slot cleared: no count left.
    chain.produce_block(request(&chain, vec![key.tx1559(7, Some(SLOTS), 0, set(40, 60, 0), 5_000_000), key.tx1559(8, Some(SLOTS), 0, set(200, 5, 0), 5_000_000)], vec![key.address; 2])).unwrap();
    assert_eq!(count(SLOTS), 0);
    assert_eq!(scanned(&chain, SLOTS), 0);
    assert_eq!(chain.view().block_slot_changes(4).unwrap(), vec![(SLOTS, 0)]);
}

#[test]
fn counts_a_data_dir_from_before_the_counts_once_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new(2);
    let spec = spec(&key);
    {
        let chain = open(dir.path(), &spec);
        chain.produce_block(request(&chain, vec![key.tx1559(0, Some(SLOTS), 0, set(10, 25, 4), 5_000_000)], vec![key.address])).unwrap();
    }
    // The dir as an older node left it: no counts, no marker.
    {
        let mut opts = rocksdb::Options::default();
        opts.create_missing_column_families(true);
        let db = rocksdb::DB::open_cf(&opts, dir.path(), svc_store::schema::ALL_CFS).unwrap();
        let counts = db.cf_handle(svc_store::schema::CF_SLOT_COUNTS).unwrap();
        let keys: Vec<Vec<u8>> = db.iterator_cf(counts, rocksdb::IteratorMode::Start).map(|i| i.unwrap().0.to_vec()).collect();
        assert_eq!(keys.len(), 2);
        for k in keys {
            db.delete_cf(counts, k).unwrap();
        }
        db.delete_cf(db.cf_handle(svc_store::schema::CF_META).unwrap(), svc_store::schema::META_SLOT_COUNTS).unwrap();
    }
    let chain = open(dir.path(), &spec);
    assert_eq!(chain.view().slot_count(&SLOTS).unwrap(), 25);
    assert_eq!(chain.view().slot_count(&HOLDER).unwrap(), 2);
    chain.produce_block(request(&chain, vec![key.tx1559(1, Some(SLOTS), 0, set(10, 5, 0), 5_000_000)], vec![key.address])).unwrap();
    assert_eq!(chain.view().slot_count(&SLOTS).unwrap(), 20);
}
