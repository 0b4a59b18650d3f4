//! geth's limits on calls: the RPC gas cap (one budget for a whole eth_simulateV1, a call's gas
//! within its block's), the RPC EVM timeout on eth_call, eth_estimateGas, eth_createAccessList and
//! eth_simulateV1, and the struct logger's reply counted with its stack, memory and storage.

mod common;

use std::time::{Duration, Instant};

use alloy_primitives::{Address, Bytes};
use alloy_rpc_types_trace::geth::GethDebugTracingOptions;
use common::*;
use svc_evm::call::SimulateBlock;
use svc_evm::debug_trace::TraceError;
use svc_evm::{BlockOverride, CallOverrides, CallRequest, CallStatus, Chain, ChainConfig, ChainError, GenesisAccount};

/// Init code that never ends: JUMPDEST PUSH1 0 JUMP (12 gas a turn).
const ENDLESS: [u8; 4] = [0x5b, 0x60, 0x00, 0x56];
const LOOPER: Address = Address::new([0x1c; 20]);
/// Far more gas than any limit here: only the deadline can stop it.
const UNENDING_GAS: u64 = 1 << 62;

/// Ten words on the stack, then 20 turns of: storage[i] = i, memory[32 i] = i, i -= 1.
fn looper_code() -> Vec<u8> {
    let mut code = [0x60, 0xff].repeat(10);
    code.extend_from_slice(&[
        0x60, 0x14, // PUSH1 20
        0x5b, // JUMPDEST (22)
        0x80, 0x80, 0x55, // DUP1 DUP1 SSTORE
        0x80, 0x80, 0x60, 0x05, 0x1b, 0x52, // DUP1 DUP1 PUSH1 5 SHL MSTORE
        0x60, 0x01, 0x90, 0x03, // PUSH1 1 SWAP1 SUB
        0x80, 0x60, 0x16, 0x57, // DUP1 PUSH1 22 JUMPI
        0x00,
    ]);
    code
}

fn chain_with(dir: &std::path::Path, config: ChainConfig) -> Chain {
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let mut spec = genesis(&keys);
    spec.alloc.push(GenesisAccount { address: LOOPER, code: Some(Bytes::from(looper_code())), ..Default::default() });
    Chain::open(dir, &spec, config).expect("open chain")
}

fn endless(gas: Option<u64>) -> CallRequest {
    CallRequest { data: Some(Bytes::from_static(&ENDLESS)), gas, ..Default::default() }
}

#[test]
fn a_simulation_shares_one_gas_budget_and_keeps_each_call_within_its_block() {
    let dir = tempfile::tempdir().unwrap();
    let chain = chain_with(dir.path(), ChainConfig { rpc_gas_cap: 1_000_000, ..Default::default() });
    let block = |calls: Vec<CallRequest>| vec![SimulateBlock { calls, ..Default::default() }];

    let simulated = chain.simulate(&block(vec![endless(Some(800_000)), endless(Some(800_000))]), 0, false, false).unwrap().expect("simulated");
    let calls = &simulated[0].calls;
    assert_eq!(calls[0].outcome.status, CallStatus::Halt);
    assert_eq!(calls[0].outcome.gas_used, 800_000);
    assert_eq!(calls[1].outcome.gas_used, 200_000, "the second call gets what the first left of the cap");

    let spent = chain.simulate(&block(vec![endless(Some(800_000)), endless(Some(800_000)), endless(None)]), 0, false, false).unwrap().unwrap_err();
    assert_eq!(spent.code, -32000);
    assert!(spent.message.contains("RPC gas cap (1000000)"), "{}", spent.message);

    // More gas than the block has is refused before anything runs (geth's -38015).
    let started = Instant::now();
    let beyond = chain.simulate(&block(vec![endless(Some(u64::MAX))]), 0, false, false).unwrap().unwrap_err();
    assert_eq!(beyond.code, -38015, "{}", beyond.message);
    assert!(beyond.message.starts_with("block gas limit reached"), "{}", beyond.message);
    assert!(started.elapsed() < Duration::from_secs(1));

    // Without a gas cap, a call without gas gets the block's gas: an endless loop ends there.
    drop(chain);
    let chain = chain_with(dir.path(), ChainConfig { rpc_gas_cap: 0, ..Default::default() });
    let simulated = chain.simulate(&block(vec![endless(None)]), 0, false, false).unwrap().expect("simulated");
    assert_eq!(simulated[0].calls[0].outcome.gas_used, 300_000_000);
}

#[test]
fn calls_estimates_access_lists_and_simulations_stop_at_the_evm_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let timeout = Duration::from_millis(300);
    let chain = chain_with(dir.path(), ChainConfig { rpc_gas_cap: 0, rpc_evm_timeout: timeout, ..Default::default() });
    let huge_block = CallOverrides { block: Some(BlockOverride { gas_limit: Some(UNENDING_GAS), ..Default::default() }), ..Default::default() };
    let is_timeout = |e: &ChainError| matches!(e, ChainError::Timeout(text) if text == "execution aborted (timeout = 300ms)");
    let timed = |what: &str, run: &dyn Fn() -> Result<(), ChainError>| {
        let started = Instant::now();
        let err = run().expect_err(what);
        assert!(is_timeout(&err), "{what}: {err}");
        let took = started.elapsed();
        assert!(took >= timeout && took < timeout * 4, "{what} took {took:?}");
    };
    timed("eth_call", &|| chain.call(&endless(Some(UNENDING_GAS)), 0).map(drop));
    timed("eth_estimateGas", &|| chain.estimate_gas_with_overrides(&endless(None), 0, &huge_block).map(drop));
    timed("eth_createAccessList", &|| chain.create_access_list(&endless(Some(UNENDING_GAS)), 0, &CallOverrides::default()).map(drop));
    let blocks = vec![SimulateBlock { overrides: huge_block.clone(), calls: vec![endless(None)] }];
    timed("eth_simulateV1", &|| chain.simulate(&blocks, 0, false, false).map(drop));
    // The bundler's validation call too.
    timed("validation trace", &|| chain.trace_call(&endless(Some(UNENDING_GAS)), 0, &[]).map(drop));

    // A call that ends in time is untouched.
    let quick = chain.call(&endless(Some(1_000_000)), 0).unwrap();
    assert_eq!(quick.status, CallStatus::Halt);
    assert_eq!(quick.error.as_deref(), Some("out of gas"));
}

#[test]
fn the_struct_logger_counts_its_reply_with_stack_memory_and_storage() {
    let dir = tempfile::tempdir().unwrap();
    let opts: GethDebugTracingOptions = serde_json::from_str(r#"{"enableMemory": true}"#).unwrap();
    let call = CallRequest { to: Some(LOOPER), ..Default::default() };
    let size = {
        let chain = chain_with(dir.path(), ChainConfig { max_response_bytes: 0, ..Default::default() });
        serde_json::to_vec(&chain.debug_trace_call(&call, 0, &opts).unwrap()).unwrap().len()
    };
    assert!(size > 50_000, "the trace is {size} bytes");
    // The count made while the trace runs is within a fifth of the JSON written.
    let fits = chain_with(dir.path(), ChainConfig { max_response_bytes: size * 5 / 4, ..Default::default() });
    assert!(fits.debug_trace_call(&call, 0, &opts).is_ok());
    drop(fits);
    let over = chain_with(dir.path(), ChainConfig { max_response_bytes: size * 4 / 5, ..Default::default() });
    match over.debug_trace_call(&call, 0, &opts) {
        Err(TraceError::Limit(text)) => assert!(text.starts_with("response too large: the struct log exceeds the reply limit"), "{text}"),
        other => panic!("expected the reply limit, got {:?}", other.map(|_| ())),
    }
    // callTracer's reply is small: the same limit lets it through.
    let call_tracer: GethDebugTracingOptions = serde_json::from_str(r#"{"tracer": "callTracer"}"#).unwrap();
    assert!(over.debug_trace_call(&call, 0, &call_tracer).is_ok());
}
