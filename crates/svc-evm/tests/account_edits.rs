//! Development edits (a devnet's dev messages): nonce, code and storage set before the block's
//! transactions, which then see them; the root commits to them and equal requests give equal roots.
mod common;

use alloy_primitives::{Address, Bytes, B256, U256};
use common::*;
use svc_evm::{AccountEdit, CallRequest, CallStatus};

/// Returns storage slot 0: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
const SLOT0_READER: [u8; 11] = [0x60, 0x00, 0x54, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3];

#[test]
fn edits_apply_before_the_transactions_and_the_root_commits_to_them() {
    let keys: Vec<Key> = (0..2).map(Key::new).collect();
    let spec = genesis(&keys);
    let edited = Address::new([0xed; 20]);
    let edits = vec![
        AccountEdit { address: edited, code: Some(Bytes::from_static(&SLOT0_READER)), storage: vec![(U256::ZERO, U256::from(42))], ..Default::default() },
        AccountEdit { address: keys[1].address, nonce: Some(5), ..Default::default() },
    ];
    let block = |edits: Vec<AccountEdit>| {
        let dir = tempfile::tempdir().unwrap();
        let chain = open(dir.path(), &spec);
        // keys[1] sends at the nonce the edit set: the transaction sees the edit.
        let tx = keys[1].tx1559(5, Some(edited), 0, vec![], 50_000);
        let produced = chain.produce_block(svc_evm::BlockRequest { account_edits: edits, ..request(&chain, vec![tx], vec![keys[1].address]) }).unwrap();
        assert_eq!(produced.included.len(), 1, "rejected: {:?}", produced.rejected);
        assert_eq!(chain.account(&keys[1].address, 1).unwrap().nonce, 6);
        assert_eq!(chain.code(&edited, 1).unwrap().as_ref(), &SLOT0_READER);
        let out = chain.call(&CallRequest { to: Some(edited), ..Default::default() }, 1).unwrap();
        assert_eq!(out.status, CallStatus::Success);
        (chain.storage(&edited, &B256::ZERO, 1).unwrap(), U256::from_be_slice(&out.output), produced.block.header.state_root)
    };
    let (stored, returned, root) = block(edits.clone());
    assert_eq!((stored, returned), (U256::from(42), U256::from(42)));
    assert_eq!(block(edits.clone()).2, root, "equal requests, equal roots");
    let mut other = edits;
    other[0].storage = vec![(U256::ZERO, U256::from(43))];
    assert_ne!(block(other).2, root, "the root commits to the edited storage");
}
