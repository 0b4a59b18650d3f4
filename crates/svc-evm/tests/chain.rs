//! The engine end to end on a real RocksDB: genesis, transfers, deployment, calls, reverts,
//! rejections, restart, historical state and the state root.

mod common;

use alloy_primitives::{Address, Bytes, B256, U256};
use common::*;
use svc_evm::{BlockRequest, CallRequest, CallStatus, Chain, ChainConfig, RecordWrite};
use svc_store::state::{record_slot, record_word};
use svc_store::query::{block_logs, find_logs, LogFilter};

/// The state root recomputed from scratch (alloy's HashBuilder) over the flat state.
fn scratch_root(chain: &Chain) -> B256 {
    let view = chain.view();
    let accounts = view.flat_state().unwrap();
    let mut leaves = Vec::new();
    for (address, account, storage) in accounts {
        let root = alloy_trie::root::storage_root_unhashed(storage);
        assert_eq!(root, account.storage_root, "storage root of {address}");
        leaves.push((address, account));
    }
    alloy_trie::root::state_root_unhashed(leaves)
}

fn balance(chain: &Chain, a: Address, n: u64) -> U256 {
    chain.account(&a, n).unwrap().balance
}

#[test]
fn genesis_places_accounts_and_runs_init_code() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..3).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let head = chain.head().unwrap();
    assert_eq!(head.header.number, 0);
    assert_eq!(head.header.state_root, scratch_root(&chain));
    assert_eq!(head.header.base_fee_per_gas, Some(GWEI as u64));
    assert_eq!(balance(&chain, keys[1].address, 0), U256::from(10_000 * ETHER));
    assert_eq!(chain.code(&PROBE, 0).unwrap().to_vec(), contract("Probe").deployed);
    assert_eq!(chain.account(&PROBE, 0).unwrap().nonce, 1);
}

#[test]
fn transfers_deployment_calls_and_reverts() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..3).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let (a, b) = (&keys[0], &keys[1]);
    let probe = contract("Probe");

    // Block 1: a value transfer, a deployment, a legacy transfer.
    let txs = vec![
        a.tx1559(0, Some(b.address), ETHER, vec![], 21_000),
        a.tx1559(1, None, 0, probe.bytecode.clone(), 500_000),
        b.legacy(0, Some(keys[2].address), 5, vec![], 21_000, 2 * GWEI),
    ];
    let produced = chain.produce_block(request(&chain, txs, vec![a.address, a.address, b.address])).unwrap();
    assert_eq!(produced.included.len(), 3, "rejected: {:?}", produced.rejected);
    let header = &produced.block.header;
    assert_eq!(header.number, 1);
    assert_eq!(header.state_root, scratch_root(&chain));
    let receipts = chain.view().receipts(1).unwrap().unwrap();
    assert!(receipts.iter().all(|r| r.success));
    assert_eq!(receipts[0].cumulative_gas_used, 21_000);
    assert_eq!(header.gas_used, receipts[2].cumulative_gas_used);

    let base_fee = header.base_fee_per_gas.unwrap() as u128;
    let deploy_gas = (receipts[1].cumulative_gas_used - 21_000) as u128;
    let a_paid = ETHER + (21_000 + deploy_gas) * (base_fee + GWEI);
    assert_eq!(balance(&chain, a.address, 1), U256::from(10_000 * ETHER - a_paid));
    assert_eq!(balance(&chain, keys[2].address, 1), U256::from(10_000 * ETHER + 5));
    // The coinbase earns the tips; the base fee is burnt.
    let tips = (21_000 + deploy_gas) * GWEI + 21_000 * (2 * GWEI - base_fee);
    assert_eq!(balance(&chain, COINBASE, 1), U256::from(tips));

    let deployed = a.address.create(1);
    assert_eq!(chain.code(&deployed, 1).unwrap().to_vec(), probe.deployed);

    // Block 2: bump (storage + event) and a reverting call.
    let txs = vec![
        b.tx1559(1, Some(deployed), 0, selector("bump()"), 100_000),
        b.tx1559(2, Some(deployed), 0, selector("fail()"), 100_000),
    ];
    let produced = chain.produce_block(request(&chain, txs, vec![b.address, b.address])).unwrap();
    assert_eq!(produced.included.len(), 2);
    let receipts = chain.view().receipts(2).unwrap().unwrap();
    assert!(receipts[0].success);
    assert!(!receipts[1].success);
    assert_eq!(receipts[0].logs.len(), 1);
    assert_eq!(receipts[0].logs[0].address, deployed);
    assert_eq!(chain.storage(&deployed, &B256::ZERO, 2).unwrap(), U256::from(1));
    assert_eq!(chain.storage(&deployed, &B256::ZERO, 1).unwrap(), U256::ZERO);
    assert_eq!(produced.block.header.state_root, scratch_root(&chain));

    // eth_call at the head and at an older block.
    let count = CallRequest { to: Some(deployed), data: Some(selector("count()").into()), ..Default::default() };
    let out = chain.call(&count, 2).unwrap();
    assert_eq!(out.status, CallStatus::Success);
    assert_eq!(U256::from_be_slice(&out.output), U256::from(1));
    assert_eq!(U256::from_be_slice(&chain.call(&count, 1).unwrap().output), U256::ZERO);

    let fail = CallRequest { to: Some(deployed), data: Some(selector("fail()").into()), ..Default::default() };
    let out = chain.call(&fail, 2).unwrap();
    assert_eq!(out.status, CallStatus::Revert);
    assert_eq!(out.output.to_vec(), calldata("Nope(uint256)", &[word(U256::from(7))]));
    let est = chain.estimate_gas(&fail, 2).unwrap();
    assert_eq!(est.status, CallStatus::Revert);
    assert_eq!(est.output, out.output);

    // Logs through the bloom-filtered scan.
    let logs = find_logs(&chain.view(), &LogFilter { from_block: 0, to_block: 2, addresses: vec![deployed], limit: 100, ..Default::default() }).unwrap();
    assert_eq!(logs.logs.len(), 1);
    assert_eq!(logs.logs[0].tx_hash, produced.included[0]);
    assert!(!logs.truncated);
    assert_eq!(block_logs(&chain.view(), 2).unwrap().len(), 1);
}

#[test]
fn invalid_transactions_are_rejected_with_geth_texts_and_full_blocks_defer() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..3).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let (a, b) = (&keys[0], &keys[1]);
    let poor = Key::new(99);
    let txs = vec![
        a.tx1559(0, Some(b.address), 1, vec![], 21_000),
        a.tx1559(0, Some(b.address), 1, vec![], 21_000),
        a.tx1559(5, Some(b.address), 1, vec![], 21_000),
        poor.tx1559(0, Some(b.address), 1, vec![], 21_000),
        b.tx1559(0, Some(a.address), 1, vec![1, 2, 3], 21_000),
        b.legacy(0, Some(a.address), 1, vec![], 21_000, 1),
    ];
    let senders = vec![a.address, a.address, a.address, poor.address, b.address, b.address];
    let produced = chain.produce_block(request(&chain, txs, senders)).unwrap();
    assert_eq!(produced.included.len(), 1);
    let reasons: Vec<&str> = produced.rejected.iter().map(|(_, r)| r.as_str()).collect();
    assert_eq!(reasons[0], format!("nonce too low: address {}, tx: 0 state: 1", a.address));
    assert_eq!(reasons[1], format!("nonce too high: address {}, tx: 5 state: 1", a.address));
    assert!(reasons[2].starts_with(&format!("insufficient funds for gas * price + value: address {} have 0 want", poor.address)), "{}", reasons[2]);
    assert_eq!(reasons[3], "intrinsic gas too low: have 21000, want 21048");
    assert!(reasons[4].starts_with("max fee per gas less than block base fee"), "{}", reasons[4]);

    // A block with room for only one transfer defers the second.
    let mut req = request(&chain, vec![a.tx1559(1, Some(b.address), 1, vec![], 21_000), a.tx1559(2, Some(b.address), 1, vec![], 21_000)], vec![a.address, a.address]);
    req.gas_limit = 30_000;
    let produced = chain.produce_block(req).unwrap();
    assert_eq!(produced.included.len(), 1);
    assert_eq!(produced.deferred.len(), 1);
    assert!(produced.rejected.is_empty());
}

#[test]
fn reopening_resumes_the_head_and_refuses_another_chain() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..2).map(Key::new).collect();
    let spec = genesis(&keys);
    let (hash1, hash2) = {
        let chain = open(dir.path(), &spec);
        let b1 = chain.produce_block(request(&chain, vec![keys[0].tx1559(0, Some(keys[1].address), 7, vec![], 21_000)], vec![keys[0].address])).unwrap();
        let b2 = chain.produce_block(request(&chain, vec![], vec![])).unwrap();
        (b1.block.hash, b2.block.hash)
    };
    let chain = open(dir.path(), &spec);
    let head = chain.head().unwrap();
    assert_eq!(head.header.number, 2);
    assert_eq!(head.hash, hash2);
    assert_eq!(chain.view().block(1).unwrap().unwrap().hash, hash1);
    assert_eq!(balance(&chain, keys[1].address, 2), U256::from(10_000 * ETHER + 7));
    // Historical balance through the trie at block 0's root.
    assert_eq!(balance(&chain, keys[1].address, 0), U256::from(10_000 * ETHER));
    let b3 = chain.produce_block(request(&chain, vec![keys[0].tx1559(1, Some(keys[1].address), 1, vec![], 21_000)], vec![keys[0].address])).unwrap();
    assert_eq!(b3.block.header.parent_hash, hash2);
    assert_eq!(b3.included.len(), 1);
    drop(chain);

    let mut other = spec.clone();
    other.chain_id = 1;
    let err = Chain::open(dir.path(), &other, ChainConfig::default()).err().expect("other chain id refused").to_string();
    assert!(err.contains("chain id 9000"), "{err}");
    let mut other = spec.clone();
    other.alloc[0].balance = U256::from(1);
    let err = Chain::open(dir.path(), &other, ChainConfig::default()).err().expect("other genesis refused").to_string();
    assert!(err.contains("genesis"), "{err}");
}

#[test]
fn state_history_limits_historical_reads() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = Chain::open(dir.path(), &genesis(&keys), ChainConfig { rpc_gas_cap: 50_000_000, state_history: 2, ..Default::default() }).unwrap();
    for _ in 0..3 {
        chain.produce_block(request(&chain, vec![], vec![])).unwrap();
    }
    assert!(chain.account(&keys[0].address, 2).is_ok());
    assert_eq!(chain.account(&keys[0].address, 1).unwrap_err().to_string(), "historical state not available");
    assert!(chain.account(&keys[0].address, 9).unwrap_err().to_string().starts_with("header not found"));
}

#[test]
fn estimate_gas_follows_geth() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..2).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let a = &keys[0];

    let transfer = CallRequest { from: Some(a.address), to: Some(keys[1].address), value: Some(U256::from(1)), ..Default::default() };
    assert_eq!(chain.estimate_gas(&transfer, 0).unwrap().gas, 21_000);

    // A gasleft() guard: the estimate must clear it although the bare use is far lower.
    let needs = CallRequest { from: Some(a.address), to: Some(PROBE), data: Some(selector("needsGas()").into()), ..Default::default() };
    let est = chain.estimate_gas(&needs, 0).unwrap();
    assert_eq!(est.status, CallStatus::Success);
    assert!(est.gas > 100_000, "{}", est.gas);
    assert_eq!(chain.call(&CallRequest { gas: Some(est.gas), ..needs.clone() }, 0).unwrap().status, CallStatus::Success);

    // Storage-heavy call: the estimate lets the transaction succeed when mined.
    let fill = calldata("fill(uint256)", &[word(U256::from(20))]);
    let req = CallRequest { from: Some(a.address), to: Some(PROBE), data: Some(fill.clone().into()), ..Default::default() };
    let est = chain.estimate_gas(&req, 0).unwrap();
    assert_eq!(est.status, CallStatus::Success);
    let produced = chain.produce_block(request(&chain, vec![a.tx1559(0, Some(PROBE), 0, fill, est.gas)], vec![a.address])).unwrap();
    assert_eq!(produced.included.len(), 1);
    let receipt = &chain.view().receipts(1).unwrap().unwrap()[0];
    assert!(receipt.success);
    assert!(est.gas <= receipt.cumulative_gas_used * 103 / 100 + 2_300, "estimate {} used {}", est.gas, receipt.cumulative_gas_used);

    // A fee-paying estimate is capped by what the balance buys; beyond it geth says so.
    let poor = CallRequest { from: Some(Key::new(77).address), to: Some(PROBE), gas_price: Some(GWEI), data: Some(selector("count()").into()), ..Default::default() };
    let est = chain.estimate_gas(&poor, 1).unwrap();
    assert_eq!(est.status, CallStatus::Halt);
    assert_eq!(est.error.as_deref(), Some("insufficient funds for transfer"));
    // 10,000 ether at 1e18 wei per gas buys 10,000 gas: less than the call needs.
    let pricey = CallRequest { from: Some(keys[1].address), gas_price: Some(ETHER), ..poor.clone() };
    let est = chain.estimate_gas(&pricey, 1).unwrap();
    assert_eq!(est.error.as_deref(), Some("gas required exceeds allowance (10000)"));

    // Calls without a price run from an empty account and need no funds.
    let call = CallRequest { to: Some(PROBE), data: Some(selector("count()").into()), ..Default::default() };
    assert_eq!(chain.call(&call, 1).unwrap().status, CallStatus::Success);
    let funded = CallRequest { gas_price: Some(GWEI), value: Some(U256::from(1)), ..call };
    let out = chain.call(&funded, 1).unwrap();
    assert_eq!(out.status, CallStatus::Halt);
    assert!(out.error.unwrap().starts_with("insufficient funds for gas * price + value"));
}

#[test]
fn blockhash_reads_stored_hashes_and_app_values_commit_with_the_block() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let mut req = request(&chain, vec![], vec![]);
    req.app_writes = vec![record(b"staking/v1", Some(b"hello")), record(b"gone", None)];
    let b1 = chain.produce_block(req).unwrap();
    chain.produce_block(request(&chain, vec![], vec![])).unwrap();
    let call = CallRequest { to: Some(PROBE), data: Some(calldata("hashOf(uint256)", &[word(U256::from(1))]).into()), ..Default::default() };
    assert_eq!(chain.call(&call, 2).unwrap().output, Bytes::copy_from_slice(b1.block.hash.as_slice()));
    assert_eq!(chain.view().app_value(b"staking/v1").unwrap(), Some(b"hello".to_vec()));
    assert_eq!(chain.view().app_value(b"gone").unwrap(), None);
}

#[test]
fn fee_history_weights_tips_by_gas_used() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..3).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    // Tips: the legacy transaction pays its price over the base fee; the 1559 one its 1 gwei tip.
    let txs = vec![
        keys[0].legacy(0, Some(PROBE), 0, calldata("fill(uint256)", &[word(U256::from(3))]), 200_000, 3 * GWEI),
        keys[1].tx1559(0, Some(keys[2].address), 1, vec![], 21_000),
    ];
    let produced = chain.produce_block(request(&chain, txs, vec![keys[0].address, keys[1].address])).unwrap();
    assert_eq!(produced.included.len(), 2);
    let header = &produced.block.header;
    let view = chain.view();
    let h = svc_store::query::fee_history(&view, 1, 10, &[0.0, 10.0, 50.0, 100.0]).unwrap();
    assert_eq!(h.oldest_block, 0);
    assert_eq!(h.base_fee_per_gas.len(), 3);
    assert_eq!(h.base_fee_per_gas[2], svc_primitives::next_base_fee(header.gas_used, header.gas_limit, header.base_fee_per_gas.unwrap()) as u128);
    assert_eq!(h.reward[0], vec![0, 0, 0, 0]);
    // Sorted by tip: the transfer (1 gwei, 21000 gas, under 10% of the block's gas) then the
    // legacy fill, whose tip is its price over the base fee and which used most of the gas.
    let legacy_tip = 3 * GWEI - header.base_fee_per_gas.unwrap() as u128;
    assert!(legacy_tip > GWEI);
    assert_eq!(h.reward[1], vec![GWEI, GWEI, legacy_tip, legacy_tip]);
    assert!((h.gas_used_ratio[1] - header.gas_used as f64 / header.gas_limit as f64).abs() < 1e-12);
    assert!(svc_store::query::fee_history(&view, 2, 1, &[]).is_err());
    assert!(svc_store::query::fee_history(&view, 1, 1, &[50.0, 10.0]).is_err());
}

#[test]
fn the_explorer_index_is_written_with_each_block_and_a_backfill_rebuilds_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..3).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let (a, b) = (&keys[0], &keys[1]);
    let probe = contract("Probe");
    chain
        .produce_block(request(&chain, vec![a.tx1559(0, Some(b.address), ETHER, vec![], 21_000), a.tx1559(1, None, 0, probe.bytecode.clone(), 500_000)], vec![a.address; 2]))
        .unwrap();
    chain.produce_block(request(&chain, vec![b.legacy(0, Some(keys[2].address), 5, vec![], 21_000, 2 * GWEI)], vec![b.address])).unwrap();
    chain.produce_block(request(&chain, vec![], vec![])).unwrap();

    let store = chain.store();
    let all = || store.service_scan("explorer", b"", None, 100_000, false).unwrap();
    let inline = all();
    let key = |k: &str| inline.iter().find(|(key, _)| key.as_slice() == k.as_bytes()).map(|(_, v)| String::from_utf8(v.clone()).unwrap());
    assert_eq!(key("m/indexed").as_deref(), Some("3"), "every block was indexed as it was made");
    assert_eq!(key("m/transactions").as_deref(), Some("3"));
    let contracts = inline.iter().filter(|(k, _)| k.starts_with(b"c/")).count();
    assert_eq!(contracts, 1, "the deployment is a contract creation");
    let history_of_b = inline.iter().filter(|(k, _)| k.starts_with(&[b"a/".as_slice(), b.address.as_slice()].concat())).count();
    assert_eq!(history_of_b, 2, "b received one transaction and sent one");

    // A database whose index is gone (or never existed) is rebuilt block by block to the same records.
    let deletes: Vec<(Vec<u8>, Option<Vec<u8>>)> = inline.iter().map(|(k, _)| (k.clone(), None)).collect();
    store.service_write("explorer", &deletes).unwrap();
    assert!(!chain.index_stored_block(2).unwrap(), "a block waits for the one before it");
    for n in 0..=3 {
        assert!(chain.index_stored_block(n).unwrap(), "block {n}");
    }
    assert!(!chain.index_stored_block(4).unwrap(), "no block 4 yet");
    assert_eq!(all(), inline);
}

#[test]
fn a_block_past_the_inline_index_size_is_indexed_after_its_commit() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..2).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let (a, b) = (&keys[0], &keys[1]);
    let indexed = || {
        let found = chain.store().service_scan("explorer", b"m/indexed", None, 1, false).unwrap();
        found.first().filter(|(k, _)| k.as_slice() == b"m/indexed").map(|(_, v)| String::from_utf8(v.clone()).unwrap())
    };
    let transfers = |from: &Key, first: u64, n: usize| (0..n as u64).map(|i| from.tx1559(first + i, Some(keys[1].address), 1, vec![], 21_000)).collect::<Vec<_>>();

    // At the limit the block's records are in its own batch.
    let n = svc_evm::block::INLINE_INDEX_MAX_TXS;
    chain.produce_block(request(&chain, transfers(a, 0, n), vec![a.address; n])).unwrap();
    assert_eq!(indexed().as_deref(), Some("1"), "a block of {n} transactions is indexed as it is made");

    // One more and the block is committed alone; the next (small) block waits for it too.
    chain.produce_block(request(&chain, transfers(a, n as u64, n + 1), vec![a.address; n + 1])).unwrap();
    assert_eq!(chain.head().unwrap().number(), 2);
    assert_eq!(indexed().as_deref(), Some("1"), "a larger block leaves its records to the background lane");
    chain.produce_block(request(&chain, vec![b.tx1559(0, Some(a.address), 1, vec![], 21_000)], vec![b.address])).unwrap();
    assert_eq!(indexed().as_deref(), Some("1"), "a block is indexed inline only when the index has every block before it");
    assert!(chain.index_stored_block(2).unwrap());
    assert!(chain.index_stored_block(3).unwrap());
    assert_eq!(indexed().as_deref(), Some("3"));
    let history_of_a = chain.store().service_scan("explorer", &[b"a/".as_slice(), a.address.as_slice()].concat(), None, 100_000, false).unwrap();
    let history_of_a = history_of_a.iter().filter(|(k, _)| k.starts_with(&[b"a/".as_slice(), a.address.as_slice()].concat())).count();
    assert_eq!(history_of_a, 2 * n + 2, "every transaction a sent or received is in its history");

    // A small block on a current index is inline again.
    chain.produce_block(request(&chain, vec![b.tx1559(1, Some(a.address), 1, vec![], 21_000)], vec![b.address])).unwrap();
    assert_eq!(indexed().as_deref(), Some("4"));
}

/// The explorer record of `token` (its metadata, holders and transfers), as the index holds it.
fn token_record(chain: &Chain, token: Address) -> serde_json::Value {
    let key = [b"T/".as_slice(), token.as_slice()].concat();
    let found = chain.store().service_scan("explorer", &key, None, 1, false).unwrap();
    let (k, v) = found.first().expect("the token has a record");
    assert_eq!(k, &key);
    serde_json::from_slice(v).unwrap()
}

#[test]
fn a_block_is_made_while_a_large_block_before_it_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..2).map(Key::new).collect();
    let chain = std::sync::Arc::new(open(dir.path(), &genesis(&keys)));
    let (a, b) = (&keys[0], &keys[1]);
    let indexed = |chain: &Chain| {
        let found = chain.store().service_scan("explorer", b"m/indexed", None, 1, false).unwrap();
        found.first().filter(|(k, _)| k.as_slice() == b"m/indexed").map(|(_, v)| String::from_utf8(v.clone()).unwrap())
    };
    // Block 1 (small, indexed inline) deploys an ERC-20; block 2 is past the inline size and moves it.
    let mut deploy = contract("Token").bytecode;
    deploy.extend_from_slice(&address_word(a.address));
    deploy.extend_from_slice(&word(U256::from(1_000_000u64)));
    chain.produce_block(request(&chain, vec![a.tx1559(0, None, 0, deploy, 3_000_000)], vec![a.address])).unwrap();
    let token = a.address.create(0);
    let n = svc_evm::block::INLINE_INDEX_MAX_TXS;
    let mut txs: Vec<Bytes> = (0..n as u64).map(|i| a.tx1559(1 + i, Some(b.address), 1, vec![], 21_000)).collect();
    let mut transfer = selector("transfer(address,uint256)");
    transfer.extend_from_slice(&address_word(b.address));
    transfer.extend_from_slice(&word(U256::from(5u64)));
    txs.push(a.tx1559(1 + n as u64, Some(token), 0, transfer, 100_000));
    chain.produce_block(request(&chain, txs, vec![a.address; n + 1])).unwrap();
    assert_eq!(indexed(&chain).as_deref(), Some("1"), "block 2 is left to index_stored_block");
    assert!(token_record(&chain, token)["name"].is_null(), "no metadata yet");

    // The background lane's build of block 2's records is held (the hook) until block 3 is made.
    let (built, at_hook) = std::sync::mpsc::channel::<u64>();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = parking_lot::Mutex::new(released);
    let metadata = chain.clone();
    chain.set_index_build_hook(Some(Box::new(move |number| {
        // Token metadata arrives while the records are being built: they are built again under the lock.
        metadata.set_token_metadata(&token, Some("Test Token"), Some("TST"), Some(18)).unwrap();
        built.send(number).unwrap();
        let _ = released.lock().recv_timeout(std::time::Duration::from_secs(60));
    })));
    let indexer = {
        let chain = chain.clone();
        std::thread::spawn(move || chain.index_stored_block(2).unwrap())
    };
    assert_eq!(at_hook.recv_timeout(std::time::Duration::from_secs(60)).unwrap(), 2);
    let (done, made) = std::sync::mpsc::channel();
    let producer = {
        let chain = chain.clone();
        let req = request(&chain, vec![b.tx1559(0, Some(a.address), 1, vec![], 21_000)], vec![b.address]);
        std::thread::spawn(move || done.send(chain.produce_block(req).map(|p| p.block.header.number)).unwrap())
    };
    // A block that waited for the index build would time out here (the build is released after).
    let made = made.recv_timeout(std::time::Duration::from_secs(20));
    release.send(()).unwrap();
    assert_eq!(made.expect("block 3 is made while block 2's records are built").unwrap(), 3);
    producer.join().unwrap();
    assert!(indexer.join().unwrap(), "block 2 is indexed");
    chain.set_index_build_hook(None);
    assert_eq!(indexed(&chain).as_deref(), Some("2"));
    let record = token_record(&chain, token);
    assert_eq!(record["name"], "Test Token", "the metadata set during the build is kept: {record}");
    assert_eq!(record["symbol"], "TST");

    // Block 3 (small, made when the index lacked block 2) comes next, then blocks are inline again.
    assert!(chain.index_stored_block(3).unwrap());
    chain.produce_block(request(&chain, vec![b.tx1559(1, Some(a.address), 1, vec![], 21_000)], vec![b.address])).unwrap();
    assert_eq!(indexed(&chain).as_deref(), Some("4"));
}

const MODULE: Address = Address::new([0x5e; 20]);

fn record(key: &[u8], value: Option<&[u8]>) -> RecordWrite {
    RecordWrite { module: MODULE, key: key.to_vec(), value: value.map(<[u8]>::to_vec) }
}

/// The state root after one block on a fresh chain that writes `writes`.
fn root_after(writes: Vec<RecordWrite>) -> B256 {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let mut req = request(&chain, vec![], vec![]);
    req.app_writes = writes;
    chain.produce_block(req).unwrap().block.header.state_root
}

#[test]
fn the_state_root_commits_to_every_module_record() {
    let base = root_after(vec![record(b"m/a", Some(b"1")), record(b"m/b", Some(b"2"))]);
    // Same records, same root; one record's value, one more record, or another module: another root.
    assert_eq!(root_after(vec![record(b"m/b", Some(b"2")), record(b"m/a", Some(b"1"))]), base);
    assert_ne!(root_after(vec![record(b"m/a", Some(b"1")), record(b"m/b", Some(b"3"))]), base);
    assert_ne!(root_after(vec![record(b"m/a", Some(b"1")), record(b"m/b", Some(b"2")), record(b"m/c", Some(b""))]), base);
    let other = RecordWrite { module: Address::new([0x5f; 20]), ..record(b"m/b", Some(b"2")) };
    assert_ne!(root_after(vec![record(b"m/a", Some(b"1")), other]), base);
    // Without records the module account does not exist and the root is the EVM state's alone.
    assert_ne!(root_after(vec![]), base);
}

#[test]
fn module_records_are_slots_of_the_module_account_and_deletes_clear_them() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let mut req = request(&chain, vec![], vec![]);
    req.app_writes = vec![record(b"m/a", Some(b"one")), record(b"m/b", Some(b"two"))];
    let b1 = chain.produce_block(req).unwrap();
    assert_eq!(chain.account(&MODULE, 1).unwrap().nonce, 1, "a module account holding records is never empty");
    assert_eq!(chain.storage(&MODULE, &record_slot(b"m/a"), 1).unwrap(), record_word(Some(b"one")));
    assert_eq!(U256::from_be_bytes(alloy_primitives::keccak256(b"two").0), record_word(Some(b"two")));
    assert_eq!(chain.storage(&MODULE, &record_slot(b"m/b"), 1).unwrap(), record_word(Some(b"two")));

    let mut req = request(&chain, vec![], vec![]);
    req.app_writes = vec![record(b"m/b", None)];
    let b2 = chain.produce_block(req).unwrap();
    assert_ne!(b2.block.header.state_root, b1.block.header.state_root);
    assert_eq!(chain.storage(&MODULE, &record_slot(b"m/b"), 2).unwrap(), U256::ZERO);
    assert_eq!(chain.view().app_value(b"m/b").unwrap(), None);
    // History keeps the record's commitment at the height it was written.
    assert_eq!(chain.storage(&MODULE, &record_slot(b"m/b"), 1).unwrap(), record_word(Some(b"two")));

    // A block that writes nothing keeps the root; reopening the data dir reads the same head.
    let b3 = chain.produce_block(request(&chain, vec![], vec![])).unwrap();
    assert_eq!(b3.block.header.state_root, b2.block.header.state_root);
    drop(chain);
    let reopened = open(dir.path(), &genesis(&keys));
    assert_eq!(reopened.head().unwrap().header.state_root, b3.block.header.state_root);
    assert_eq!(reopened.storage(&MODULE, &record_slot(b"m/a"), 3).unwrap(), record_word(Some(b"one")));
}

#[test]
fn records_of_a_module_that_also_receives_value_keep_its_balance() {
    // A module account that holds a balance (stake sent to it) gets nonce 1 and keeps the balance.
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let pay = keys[0].tx1559(0, Some(MODULE), 5, vec![], 21_000);
    let mut req = request(&chain, vec![pay], vec![keys[0].address]);
    req.app_writes = vec![record(b"m/a", Some(b"x"))];
    chain.produce_block(req).unwrap();
    let account = chain.account(&MODULE, 1).unwrap();
    assert_eq!((account.nonce, account.balance), (1, U256::from(5)));
    assert_eq!(chain.storage(&MODULE, &record_slot(b"m/a"), 1).unwrap(), record_word(Some(b"x")));
}

#[test]
fn block_times_carry_milliseconds_and_strictly_increase() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..1).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let genesis_ms = svc_primitives::header_time_ms(&chain.head().unwrap().header);
    assert_eq!(genesis_ms, 1_700_000_000_000);
    let at = |ms: u64| BlockRequest { timestamp_ms: ms, ..request(&chain, vec![], vec![]) };
    // Two blocks half a second apart within one second share the header's seconds.
    let b1 = chain.produce_block(at(genesis_ms + 1_250)).unwrap().block;
    let b2 = chain.produce_block(at(genesis_ms + 1_750)).unwrap().block;
    assert_eq!((b1.header.timestamp, b2.header.timestamp), (1_700_000_001, 1_700_000_001));
    assert_eq!(svc_primitives::header_time_ms(&b1.header), genesis_ms + 1_250);
    assert_eq!(svc_primitives::header_time_ms(&b2.header), genesis_ms + 1_750);
    // mixHash keeps the PREVRANDAO seed from the parent in its first 30 bytes.
    assert_eq!(&b2.header.mix_hash[..30], &alloy_primitives::keccak256(b1.hash)[..30]);
    // A time not after the parent's is raised to the parent's + 1 ms.
    let b3 = chain.produce_block(at(genesis_ms + 1_000)).unwrap().block;
    assert_eq!(svc_primitives::header_time_ms(&b3.header), genesis_ms + 1_751);
    // A reopened chain reads the same times back.
    drop(chain);
    let chain = open(dir.path(), &genesis(&keys));
    assert_eq!(svc_primitives::header_time_ms(&chain.head().unwrap().header), genesis_ms + 1_751);
}

#[test]
fn rewind_to_a_pinned_view_restores_state_blocks_and_the_head() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..3).map(Key::new).collect();
    let chain = open(dir.path(), &genesis(&keys));
    let (a, b) = (&keys[0], &keys[1]);
    let first = chain.produce_block(request(&chain, vec![a.tx1559(0, Some(b.address), ETHER, vec![], 21_000)], vec![a.address])).unwrap();
    let pinned = chain.view();
    let root_then = scratch_root(&chain);
    let b_then = balance(&chain, b.address, 1);

    // Two more blocks: a transfer and a deployment.
    let later = a.tx1559(1, Some(b.address), 2 * ETHER, vec![], 21_000);
    let later_hash = alloy_primitives::keccak256(&later);
    chain.produce_block(request(&chain, vec![later], vec![a.address])).unwrap();
    chain.produce_block(request(&chain, vec![a.tx1559(2, None, 0, contract("Probe").bytecode, 500_000)], vec![a.address])).unwrap();
    assert_eq!(chain.head().unwrap().header.number, 3);

    let head = chain.rewind_to(&pinned).unwrap();
    assert_eq!(head.hash, first.block.hash);
    assert_eq!(chain.head().unwrap().header.number, 1);
    assert_eq!(scratch_root(&chain), root_then, "the flat state is the pinned block's");
    assert_eq!(head.header.state_root, root_then);
    assert_eq!(balance(&chain, b.address, 1), b_then);
    let view = chain.view();
    assert!(view.block(2).unwrap().is_none(), "blocks after the pinned head are gone");
    assert!(view.tx_location(&later_hash).unwrap().is_none(), "and their transactions' index");
    assert_eq!(chain.account(&a.address, 1).unwrap().nonce, 1);

    // The chain goes on from the rewound head, with the nonce it had there.
    let again = chain.produce_block(request(&chain, vec![a.tx1559(1, Some(keys[2].address), 1, vec![], 21_000)], vec![a.address])).unwrap();
    assert_eq!(again.included.len(), 1, "rejected: {:?}", again.rejected);
    assert_eq!(again.block.header.number, 2);
    assert_eq!(again.block.header.state_root, scratch_root(&chain));
    drop(view);

    // The rewound data dir opens at the pinned head's successor after a restart.
    drop(pinned);
    drop(chain);
    let reopened = open(dir.path(), &genesis(&keys));
    assert_eq!(reopened.head().unwrap().hash, again.block.hash);
}

/// A block whose transactions made no internal transaction is answered without re-executing it;
/// one that did is re-executed, and both answers agree with each transaction's traced operations.
#[test]
fn blocks_without_internal_transactions_are_known_without_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..2).map(Key::new).collect();
    let payee = Address::new([0x0e; 20]);
    let forwarder = Address::new([0xf0; 20]);
    let factory = Address::new([0xfa; 20]);
    let mut spec = genesis(&keys);
    // CALL(gas, payee, CALLVALUE, 0, 0, 0, 0): forwards the value it is sent to the payee.
    let mut forward = vec![0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x34, 0x73];
    forward.extend_from_slice(payee.as_slice());
    forward.extend_from_slice(&[0x5a, 0xf1, 0x00]);
    spec.alloc.push(svc_evm::GenesisAccount { address: forwarder, code: Some(forward.into()), ..Default::default() });
    // CREATE(0, 0, 0): makes an empty contract.
    spec.alloc.push(svc_evm::GenesisAccount { address: factory, code: Some(vec![0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0xf0, 0x00].into()), ..Default::default() });
    let chain = open(dir.path(), &spec);
    let sender = &keys[0];
    let cases: [(Option<Address>, u128, bool); 5] = [
        (Some(keys[1].address), 7, false), // a plain transfer
        (Some(forwarder), 0, false),       // an inner call that moves no value
        (Some(forwarder), 5, true),        // an inner call that moves 5 wei
        (Some(factory), 0, true),          // a contract created by a contract
        (None, 0, false),                  // a contract created by the transaction itself
    ];
    for (nonce, (to, value, internal)) in cases.into_iter().enumerate() {
        let tx = sender.tx1559(nonce as u64, to, value, vec![], 200_000);
        let block = chain.produce_block(request(&chain, vec![tx], vec![sender.address])).unwrap();
        assert_eq!(block.included.len(), 1);
        let number = block.block.header.number;
        let traced = chain.internal_operations(number, 0).unwrap();
        let before = chain.internal_transaction_traces();
        let answered = chain.internal_transactions(number).unwrap();
        assert_eq!(answered, traced, "block {number}: the answer agrees with the traced transaction");
        assert_eq!(!answered.is_empty(), internal, "block {number}");
        assert_eq!(chain.internal_transaction_traces() - before, u64::from(internal), "block {number}: re-executed only when it holds internal transactions");
    }
    // A reopened node has not seen the blocks made: it re-executes them and gives the same answer.
    drop(chain);
    let chain = open(dir.path(), &spec);
    assert!(chain.internal_transactions(1).unwrap().is_empty());
    assert_eq!(chain.internal_transaction_traces(), 1);
}
