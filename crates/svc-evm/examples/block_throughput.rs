//! Throughput of block production: blocks of 3,000 ERC-20 transfers (OpenZeppelin token) from
//! 3,000 distinct senders to fresh recipients, on a real RocksDB. Prints a table of timings.
//!
//! cargo run --release -p svc-evm --example block_throughput [-- <transfers per block> <blocks>]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use alloy_primitives::{Address, B256, U256};
use common::*;
use svc_evm::GenesisAccount;

const TOKEN: Address = Address::new([0x70; 20]);

fn main() {
    let mut args = std::env::args().skip(1);
    let per_block: usize = args.next().map_or(3_000, |a| a.parse().expect("transfers per block"));
    let blocks: u64 = args.next().map_or(5, |a| a.parse().expect("blocks"));

    let keys: Vec<Key> = (0..per_block as u64).map(Key::new).collect();
    let mut spec = genesis(&keys);
    let supply_each = U256::from(1_000_000u64) * U256::from(ETHER);
    let mut storage: Vec<(B256, B256)> =
        keys.iter().map(|k| (erc20_balance_slot(k.address), B256::from(supply_each))).collect();
    // _totalSupply lives in slot 2 of OpenZeppelin's ERC20.
    storage.push((B256::with_last_byte(2), B256::from(supply_each * U256::from(per_block))));
    spec.alloc.push(GenesisAccount { address: TOKEN, code: Some(contract("Token").deployed.into()), storage, ..Default::default() });

    let dir = tempfile::tempdir().expect("temp dir");
    let opened = Instant::now();
    let chain = open(dir.path(), &spec);
    println!("genesis with {} accounts: {:.1} ms", spec.alloc.len(), opened.elapsed().as_secs_f64() * 1e3);

    println!("{:>5} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}", "block", "txs", "gas", "exec ms", "root ms", "commit ms", "total ms", "tx/s");
    let mut total_txs = 0usize;
    let mut total_secs = 0f64;
    for round in 0..blocks {
        let txs = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let mut recipient = [0u8; 20];
                recipient[..8].copy_from_slice(&round.to_be_bytes());
                recipient[8..16].copy_from_slice(&(i as u64).to_be_bytes());
                recipient[19] = 0xee;
                let data = calldata("transfer(address,uint256)", &[address_word(Address::new(recipient)), word(U256::from(1_000u64))]);
                k.tx1559(round, Some(TOKEN), 0, data, 80_000)
            })
            .collect();
        let senders = keys.iter().map(|k| k.address).collect();
        let started = Instant::now();
        let produced = chain.produce_block(request(&chain, txs, senders)).expect("block");
        let secs = started.elapsed().as_secs_f64();
        assert_eq!(produced.included.len(), per_block, "rejected: {:?}", produced.rejected.first());
        let t = produced.timings;
        println!(
            "{:>5} {:>6} {:>10} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>9.0}",
            produced.block.header.number,
            produced.included.len(),
            produced.block.header.gas_used,
            t.execute.as_secs_f64() * 1e3,
            t.state_root.as_secs_f64() * 1e3,
            t.commit.as_secs_f64() * 1e3,
            secs * 1e3,
            per_block as f64 / secs
        );
        total_txs += per_block;
        total_secs += secs;
    }
    println!("mean: {:.0} transfers/s over {blocks} blocks", total_txs as f64 / total_secs);
}
