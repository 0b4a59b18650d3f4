//! The engine behind eth_getProof, eth_createAccessList and call overrides, on a real RocksDB:
//! proofs checked with alloy-trie's verifier against the block's state root, overrides seen by
//! the EVM and never written, and access lists as geth's tracer builds them.

mod common;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use alloy_trie::proof::verify_proof;
use alloy_trie::{Nibbles, TrieAccount};
use common::*;
use svc_evm::{AccountOverride, BlockOverride, CallOverrides, CallRequest, CallStatus, Chain};

/// Checks an account proof and its storage proofs against the state root of block `n`.
fn check_proof(chain: &Chain, address: Address, slots: &[B256], n: u64) -> (Option<TrieAccount>, Vec<U256>) {
    let root = chain.view().block(n).unwrap().unwrap().header.state_root;
    let p = chain.proof(&address, slots, n).unwrap();
    let expected = p.account.as_ref().map(alloy_rlp::encode);
    verify_proof(root, Nibbles::unpack(keccak256(address)), expected, &p.proof).unwrap();
    let storage_root = p.account.map_or(svc_primitives::EMPTY_ROOT_HASH, |a| a.storage_root);
    let mut values = Vec::new();
    for s in &p.storage {
        let expected = (!s.value.is_zero()).then(|| alloy_rlp::encode(s.value));
        verify_proof(storage_root, Nibbles::unpack(keccak256(s.key)), expected, &s.proof).unwrap();
        values.push(s.value);
    }
    (p.account, values)
}

#[test]
fn proofs_of_present_and_absent_accounts_and_slots_verify_at_the_head_and_in_the_past() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..2).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let bump = keys[0].tx1559(0, Some(PROBE), 0, selector("bump()"), 100_000);
    chain.produce_block(request(&chain, vec![bump], vec![keys[0].address])).unwrap();

    let absent_slot = B256::with_last_byte(9);
    let (account, values) = check_proof(&chain, PROBE, &[B256::ZERO, absent_slot], 1);
    assert_eq!(account.unwrap().nonce, 1);
    assert_eq!(values, vec![U256::from(1), U256::ZERO]);
    let (_, values) = check_proof(&chain, PROBE, &[B256::ZERO], 0);
    assert_eq!(values, vec![U256::ZERO]);
    let (account, values) = check_proof(&chain, Address::repeat_byte(0x77), &[B256::ZERO], 1);
    assert!(account.is_none());
    assert_eq!(values, vec![U256::ZERO]);
    assert_eq!(check_proof(&chain, keys[0].address, &[], 1).0.unwrap().nonce, 1);
    assert!(chain.proof(&PROBE, &[], 2).is_err(), "beyond the head");
}

#[test]
fn overrides_are_seen_by_the_call_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let count = CallRequest { to: Some(PROBE), data: Some(selector("count()").into()), ..Default::default() };
    let diff = CallOverrides {
        state: vec![AccountOverride { address: PROBE, state_diff: Some(vec![(B256::ZERO, B256::with_last_byte(5))]), ..Default::default() }],
        block: None,
    };
    assert_eq!(U256::from_be_slice(&chain.call_with_overrides(&count, 0, &diff).unwrap().output), U256::from(5));
    assert_eq!(U256::from_be_slice(&chain.call(&count, 0).unwrap().output), U256::ZERO);

    // NUMBER, then TIMESTAMP, COINBASE: each returned as one word by code placed at an empty address.
    let reader = Address::repeat_byte(0x42);
    let returns = |op: u8| Bytes::from(vec![op, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3]);
    let block = BlockOverride { number: Some(777), time: Some(1_234), fee_recipient: Some(Address::repeat_byte(0xcb)), ..Default::default() };
    for (op, want) in [(0x43, U256::from(777)), (0x42, U256::from(1_234)), (0x41, U256::from_be_slice(Address::repeat_byte(0xcb).as_slice()))] {
        let overrides = CallOverrides {
            state: vec![AccountOverride { address: reader, code: Some(returns(op)), ..Default::default() }],
            block: Some(block.clone()),
        };
        let out = chain.call_with_overrides(&CallRequest { to: Some(reader), ..Default::default() }, 0, &overrides).unwrap();
        assert_eq!(out.status, CallStatus::Success);
        assert_eq!(U256::from_be_slice(&out.output), want);
    }
    assert!(chain.code(&reader, 0).unwrap().is_empty());

    // A balance override funds a priced estimate from an empty account.
    let poor = Address::repeat_byte(0x55);
    let priced = CallRequest { from: Some(poor), to: Some(PROBE), gas_price: Some(10 * GWEI), data: Some(selector("count()").into()), ..Default::default() };
    assert_eq!(chain.estimate_gas(&priced, 0).unwrap().error.as_deref(), Some("insufficient funds for transfer"));
    let funded = CallOverrides { state: vec![AccountOverride { address: poor, balance: Some(U256::from(ETHER)), ..Default::default() }], block: None };
    assert_eq!(chain.estimate_gas_with_overrides(&priced, 0, &funded).unwrap().status, CallStatus::Success);
}

#[test]
fn access_lists_follow_geths_rules() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let from = keys[0].address;
    // The recipient's slots are listed with it (geth's addSlot), the sender is not.
    let count = CallRequest { from: Some(from), to: Some(PROBE), data: Some(selector("count()").into()), ..Default::default() };
    let out = chain.create_access_list(&count, 0, &CallOverrides::default()).unwrap();
    assert_eq!(out.status, CallStatus::Success);
    assert_eq!(out.access_list.0.len(), 1);
    assert_eq!(out.access_list.0[0].address, PROBE);
    assert_eq!(out.access_list.0[0].storage_keys, vec![B256::ZERO]);

    // BALANCE of another account, and of a precompile (excluded): code `PUSH20 a BALANCE PUSH20 0x01 BALANCE STOP`.
    let other = Address::repeat_byte(0x99);
    let mut code = vec![0x73];
    code.extend_from_slice(other.as_slice());
    code.push(0x31);
    code.push(0x73);
    code.extend_from_slice(Address::with_last_byte(1).as_slice());
    code.extend_from_slice(&[0x31, 0x00]);
    let probe_at = Address::repeat_byte(0x42);
    let overrides = CallOverrides { state: vec![AccountOverride { address: probe_at, code: Some(code.into()), ..Default::default() }], block: None };
    let req = CallRequest { from: Some(from), to: Some(probe_at), ..Default::default() };
    let out = chain.create_access_list(&req, 0, &overrides).unwrap();
    assert_eq!(out.access_list.0.iter().map(|i| i.address).collect::<Vec<_>>(), vec![other]);
    // The list costs gas: the call with it uses 2,400 for the address, not the cold 2,600 minus the warm 100.
    let plain = chain.call_with_overrides(&req, 0, &overrides).unwrap();
    assert_eq!(out.gas_used, plain.gas_used + 2_400 - 2_500);
}

#[test]
fn proofs_outside_the_state_history_are_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = Chain::open(dir.path(), &genesis(&keys), svc_evm::ChainConfig { state_history: 1, ..Default::default() }).unwrap();
    chain.produce_block(request(&chain, vec![], vec![])).unwrap();
    assert!(matches!(chain.proof(&PROBE, &[], 0), Err(svc_evm::ChainError::StateUnavailable)));
    check_proof(&chain, PROBE, &[B256::ZERO], 1);
}
