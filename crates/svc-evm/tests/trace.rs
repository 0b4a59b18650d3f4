//! The validation tracer: a call's frames with the opcodes each ran, the storage slots it read and
//! wrote, the keccak preimages, code inspections of empty accounts, GAS not followed by a call, a
//! call into an account without code, and code placed at an address for the traced call only.

mod common;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use common::*;
use svc_evm::{CallRequest, CallStatus, FrameKind, GenesisAccount};

const TRACEE: Address = Address::new([0x0c; 20]);
const EMPTY: Address = Address::new([0x0e; 20]);
const ELSEWHERE: Address = Address::new([0x0f; 20]);

/// TIMESTAMP; SLOAD 7; SSTORE 9 := 1; keccak(caller ‖ 0); EXTCODESIZE(EMPTY); GAS then POP; CALL(EMPTY); STOP.
fn tracee_code() -> Vec<u8> {
    let mut code = vec![
        0x42, 0x50, // TIMESTAMP POP
        0x60, 0x07, 0x54, 0x50, // SLOAD(7) POP
        0x60, 0x01, 0x60, 0x09, 0x55, // SSTORE(9, 1)
        0x33, 0x60, 0x00, 0x52, // MSTORE(0, CALLER)
        0x60, 0x40, 0x60, 0x00, 0x20, 0x50, // KECCAK256(0, 64) POP
        0x73, // PUSH20 EMPTY
    ];
    code.extend_from_slice(EMPTY.as_slice());
    code.extend_from_slice(&[0x3b, 0x50, 0x5a, 0x50]); // EXTCODESIZE POP, GAS POP
    code.extend_from_slice(&[0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x73]); // CALL(gas, EMPTY, 0, 0, 0, 0, 0)
    code.extend_from_slice(EMPTY.as_slice());
    code.extend_from_slice(&[0x5a, 0xf1, 0x50, 0x00]); // GAS CALL POP STOP
    code
}

#[test]
fn records_frames_opcodes_storage_keccak_and_code_access() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let mut spec = genesis(&keys);
    spec.alloc.push(GenesisAccount { address: TRACEE, code: Some(Bytes::from(tracee_code())), ..Default::default() });
    let chain = open(dir.path(), &spec);
    let caller = keys[0].address;
    let req = CallRequest { from: Some(caller), to: Some(TRACEE), gas: Some(1_000_000), ..Default::default() };

    let trace = chain.trace_call(&req, 0, &[]).unwrap();
    assert_eq!(trace.outcome.status, CallStatus::Success, "{:?}", trace.outcome.error);
    assert_eq!(trace.frames.len(), 2);
    let top = &trace.frames[0];
    assert_eq!((top.parent, top.depth, top.kind, top.from, top.to, top.has_code), (None, 0, FrameKind::Call, caller, TRACEE, true));
    assert!(top.success && !top.reverted && !top.out_of_gas);
    let count = |op: u8| top.opcodes.iter().find(|(o, _)| *o == op).map(|(_, n)| *n);
    assert_eq!(count(0x42), Some(1), "TIMESTAMP");
    assert_eq!(count(0x5a), Some(2), "GAS twice");
    assert_eq!(count(0xf1), Some(1), "CALL");
    assert!(top.gas_not_before_call, "the first GAS is followed by POP");
    // Storage: slot 7 read, slot 9 written, both in the tracee's storage.
    assert_eq!(top.storage.len(), 2);
    let slot = |n: u8| B256::from(U256::from(n).to_be_bytes::<32>());
    assert!(top.storage.iter().any(|s| s.address == TRACEE && s.slot == slot(7) && s.read && !s.write && !s.transient));
    assert!(top.storage.iter().any(|s| s.address == TRACEE && s.slot == slot(9) && s.write && !s.read));
    // The keccak of caller ‖ 0: first word and hash.
    let mut preimage = [0u8; 64];
    preimage[12..32].copy_from_slice(caller.as_slice());
    assert_eq!(trace.keccak, vec![(B256::from_slice(&preimage[..32]), keccak256(preimage))]);
    // EXTCODESIZE of an account without code.
    assert_eq!(top.code_accesses.len(), 1);
    assert_eq!((top.code_accesses[0].opcode, top.code_accesses[0].address, top.code_accesses[0].has_code), (0x3b, EMPTY, Some(false)));
    // The call into an account without code.
    let inner = &trace.frames[1];
    assert_eq!((inner.parent, inner.depth, inner.kind, inner.from, inner.to, inner.has_code), (Some(0), 1, FrameKind::Call, TRACEE, EMPTY, false));
    assert!(inner.success && inner.opcodes.is_empty());

    // Nothing was kept: slot 9 is still empty.
    assert_eq!(chain.storage(&TRACEE, &slot(9), 0).unwrap(), U256::ZERO);

    // Code placed at another address for the call only: the same record there, nothing kept.
    let moved = CallRequest { to: Some(ELSEWHERE), ..req };
    let trace = chain.trace_call(&moved, 0, &[(ELSEWHERE, Bytes::from(tracee_code()))]).unwrap();
    assert_eq!(trace.outcome.status, CallStatus::Success);
    assert_eq!(trace.frames[0].to, ELSEWHERE);
    assert!(trace.frames[0].storage.iter().all(|s| s.address == ELSEWHERE));
    assert!(chain.code(&ELSEWHERE, 0).unwrap().is_empty());

    // Out of gas is reported on the frame.
    let starved = CallRequest { gas: Some(21_000 + 2_100), ..CallRequest { from: Some(caller), to: Some(TRACEE), ..Default::default() } };
    let trace = chain.trace_call(&starved, 0, &[]).unwrap();
    assert_eq!(trace.outcome.status, CallStatus::Halt);
    assert!(trace.frames[0].out_of_gas && !trace.frames[0].success);
}
