//! What the block builder does for the rent rules (docs/rent.md): balance moves applied before the
//! first transaction, calls into dormant accounts reverted (in blocks, and by eth_call at the head
//! once the records say so), accounts made active again by the block itself, and the accounts with
//! code each block's execution loaded.

mod common;

use alloy_primitives::{Address, Bytes, B256, U256};
use common::*;
use svc_evm::{BalanceMove, CallRequest, CallStatus, Dormancy, GenesisAccount, RecordWrite};

const SLOTS: Address = Address::new([0x5d; 20]);
const MODULE: Address = Address::new([0x10; 20]);
const PREFIX: &[u8] = b"rent/dormant/";

fn set(start: u64, n: u64, value: u64) -> Vec<u8> {
    calldata("set(uint256,uint256,uint256)", &[word(U256::from(start)), word(U256::from(n)), word(U256::from(value))])
}

fn dormant_key(a: Address) -> Vec<u8> {
    let mut key = PREFIX.to_vec();
    key.extend_from_slice(alloy_primitives::hex::encode(a.as_slice()).as_bytes());
    key
}

#[test]
fn dormant_accounts_revert_calls_and_moves_come_first() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new(1);
    let mut spec = genesis(std::slice::from_ref(&key));
    spec.alloc.push(GenesisAccount { address: SLOTS, init_code: Some(contract("Slots").bytecode.into()), ..Default::default() });
    let chain = open(dir.path(), &spec);
    let slot = |n: u64| chain.storage(&SLOTS, &B256::from(U256::from(n).to_be_bytes::<32>()), chain.head().unwrap().header.number).unwrap();

    // Block 1: three slots written; the block lists the contract among the code it ran.
    let b1 = chain.produce_block(request(&chain, vec![key.tx1559(0, Some(SLOTS), 0, set(0, 3, 7), 5_000_000)], vec![key.address])).unwrap();
    assert_eq!(b1.included.len(), 1);
    assert_eq!(slot(1), U256::from(7));
    assert!(chain.view().block_active_code(1).unwrap().contains(&SLOTS));

    // Block 2 treats the contract as dormant (made so by its own hooks) and records its flag: the
    // call is included and reverts, nothing is written; the block still lists the contract.
    let mut req = request(&chain, vec![key.tx1559(1, Some(SLOTS), 0, set(0, 3, 0), 5_000_000)], vec![key.address]);
    req.dormancy = Some(Dormancy { prefix: PREFIX.to_vec(), dormant: vec![SLOTS], reactivated: vec![] });
    req.app_writes = vec![RecordWrite { module: MODULE, key: dormant_key(SLOTS), value: Some(b"1".to_vec()) }];
    let b2 = chain.produce_block(req).unwrap();
    assert_eq!(b2.included.len(), 1);
    let receipts = chain.view().receipts(2).unwrap().unwrap();
    assert!(!receipts[0].success, "a call into a dormant account reverts");
    assert_eq!(slot(1), U256::from(7), "its storage is kept");
    assert_eq!(chain.view().slot_count(&SLOTS).unwrap(), 3);

    // eth_call at the head reads the flag once the prefix is known: a revert with the reason.
    let call = CallRequest { from: Some(key.address), to: Some(SLOTS), data: Some(Bytes::from(set(0, 1, 1))), ..Default::default() };
    assert_eq!(chain.call(&call, 2).unwrap().status, CallStatus::Success, "without the prefix nothing is dormant");
    chain.set_dormancy_prefix(Some(PREFIX.to_vec()));
    let refused = chain.call(&call, 2).unwrap();
    assert_eq!(refused.status, CallStatus::Revert);
    assert!(String::from_utf8_lossy(&refused.output).contains("is dormant"), "{:?}", refused.output);
    // A call from the dormant account is refused too.
    let from_dormant = CallRequest { from: Some(SLOTS), to: Some(key.address), ..Default::default() };
    assert_eq!(chain.call(&from_dormant, 2).unwrap().status, CallStatus::Revert);
    // Older blocks keep no flags: a call there runs.
    assert_eq!(chain.call(&call, 1).unwrap().status, CallStatus::Success);

    // Block 3 reactivates it before its transactions (the flag is still the parent's): the call runs.
    let mut req = request(&chain, vec![key.tx1559(2, Some(SLOTS), 0, set(0, 3, 0), 5_000_000)], vec![key.address]);
    req.dormancy = Some(Dormancy { prefix: PREFIX.to_vec(), dormant: vec![], reactivated: vec![SLOTS] });
    req.app_writes = vec![RecordWrite { module: MODULE, key: dormant_key(SLOTS), value: None }];
    chain.produce_block(req).unwrap();
    assert!(chain.view().receipts(3).unwrap().unwrap()[0].success);
    assert_eq!(slot(1), U256::ZERO);
    assert_eq!(chain.call(&call, 3).unwrap().status, CallStatus::Success, "no flag left: calls run");

    // Moves before the first transaction: the sender's whole balance leaves before its transfer,
    // which is then refused for want of funds; a block without the move includes it.
    let balance = chain.account(&key.address, 3).unwrap().balance;
    let to = Address::new([0x77; 20]);
    let mut req = request(&chain, vec![key.tx1559(3, Some(to), 1, vec![], 21_000)], vec![key.address]);
    req.pre_moves = vec![BalanceMove { from: Some(key.address), to: Some(to), amount: balance }];
    let b4 = chain.produce_block(req).unwrap();
    assert!(b4.included.is_empty());
    assert_eq!(b4.rejected.len(), 1, "{:?}", b4.rejected);
    assert_eq!(chain.account(&to, 4).unwrap().balance, balance);
    assert_eq!(chain.account(&key.address, 4).unwrap().balance, U256::ZERO);
}
