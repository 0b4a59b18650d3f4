//! EIP-7702 set-code transactions in the engine: delegations written as 0xef0100 || address, calls
//! to a delegated account running the delegate's code on the account's storage, authorizations
//! that fail skipped without failing the transaction, delegations cleared, and eth_call with an
//! authorization list.

mod common;

use alloy_primitives::{Address, Bytes, B256, U256};
use common::*;
use svc_evm::{CallRequest, CallStatus};

fn delegation(to: Address) -> Vec<u8> {
    let mut code = vec![0xef, 0x01, 0x00];
    code.extend_from_slice(to.as_slice());
    code
}

#[test]
fn set_code_transactions_delegate_skip_bad_authorizations_and_clear() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..5).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let (a, b, c) = (&keys[0], &keys[1], &keys[2]);

    // Block 1: `a` delegates itself to Probe and calls bump() on itself in the same transaction
    // (its authorization's nonce is the transaction's + 1: the sender's nonce is bumped first).
    // `b` sponsors `c`'s delegation with an authorization signed for another chain: skipped.
    let txs = vec![
        a.tx7702(0, a.address, selector("bump()"), 200_000, vec![a.authorize(CHAIN_ID, PROBE, 1)]),
        b.tx7702(0, c.address, vec![], 100_000, vec![c.authorize(1, PROBE, 0)]),
    ];
    let produced = chain.produce_block(request(&chain, txs, vec![a.address, b.address])).unwrap();
    assert_eq!(produced.included.len(), 2, "rejected: {:?}", produced.rejected);
    let receipts = chain.view().receipts(1).unwrap().unwrap();
    assert!(receipts.iter().all(|r| r.success && r.tx_type == 4));
    assert_eq!(chain.code(&a.address, 1).unwrap().to_vec(), delegation(PROBE));
    assert_eq!(chain.account(&a.address, 1).unwrap().nonce, 2);
    // The delegate's code ran on the account's storage and logged as the account.
    assert_eq!(chain.storage(&a.address, &B256::ZERO, 1).unwrap(), U256::from(1));
    assert_eq!(chain.storage(&PROBE, &B256::ZERO, 1).unwrap(), U256::ZERO);
    assert_eq!(receipts[0].logs.len(), 1);
    assert_eq!(receipts[0].logs[0].address, a.address);
    // The authorization for chain 1 was skipped: no code, nonce untouched.
    assert!(chain.code(&c.address, 1).unwrap().is_empty());
    assert_eq!(chain.account(&c.address, 1).unwrap().nonce, 0);

    // Block 2: a plain call to the delegated account runs Probe on its storage; `a` can still send
    // (a delegation is not code under EIP-3607).
    let txs = vec![b.tx1559(1, Some(a.address), 0, selector("bump()"), 100_000), a.tx1559(2, Some(b.address), 1, vec![], 21_000)];
    let produced = chain.produce_block(request(&chain, txs, vec![b.address, a.address])).unwrap();
    assert_eq!(produced.included.len(), 2, "rejected: {:?}", produced.rejected);
    assert_eq!(chain.storage(&a.address, &B256::ZERO, 2).unwrap(), U256::from(2));
    let count = CallRequest { to: Some(a.address), data: Some(selector("count()").into()), ..Default::default() };
    assert_eq!(U256::from_be_slice(&chain.call(&count, 2).unwrap().output), U256::from(2));

    // eth_call with an authorization list: `d` is delegated for the call only.
    let d = &keys[3];
    let call = CallRequest {
        from: Some(b.address),
        to: Some(d.address),
        data: Some(Bytes::from(selector("bump()"))),
        authorization_list: Some(vec![d.authorize(CHAIN_ID, PROBE, 0)]),
        ..Default::default()
    };
    let out = chain.call(&call, 2).unwrap();
    assert_eq!(out.status, CallStatus::Success, "{:?}", out.error);
    assert!(chain.estimate_gas(&call, 2).unwrap().gas > 21_000 + 25_000);
    assert!(chain.code(&d.address, 2).unwrap().is_empty());
    let no_to = CallRequest { to: None, ..call.clone() };
    assert_eq!(chain.call(&no_to, 2).unwrap().error.as_deref(), Some("EIP-7702 transaction cannot be used to create contract"));
    let empty = CallRequest { authorization_list: Some(Vec::new()), ..call };
    assert_eq!(chain.call(&empty, 2).unwrap().error.as_deref(), Some("EIP-7702 transaction with empty auth list"));

    // Block 3: `a` clears its delegation by authorizing the zero address; the storage stays.
    let txs = vec![b.tx7702(2, b.address, vec![], 100_000, vec![a.authorize(0, Address::ZERO, 3)])];
    let produced = chain.produce_block(request(&chain, txs, vec![b.address])).unwrap();
    assert_eq!(produced.included.len(), 1, "rejected: {:?}", produced.rejected);
    assert!(chain.code(&a.address, 3).unwrap().is_empty());
    assert_eq!(chain.account(&a.address, 3).unwrap().nonce, 4);
    assert_eq!(chain.storage(&a.address, &B256::ZERO, 3).unwrap(), U256::from(2));

    // Intrinsic gas counts 25,000 per authorization.
    let short = b.tx7702(3, b.address, vec![], 40_000, vec![c.authorize(CHAIN_ID, PROBE, 0)]);
    let produced = chain.produce_block(request(&chain, vec![short], vec![b.address])).unwrap();
    assert_eq!(produced.rejected.len(), 1);
    assert_eq!(produced.rejected[0].1, "intrinsic gas too low: have 40000, want 46000");
}
