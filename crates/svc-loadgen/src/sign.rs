//! `svc-loadgen sign SPEC OUT`: signs the benchmarks' transactions natively, so that a run of
//! hundreds of thousands of transfers is prepared in seconds rather than the minutes JavaScript
//! signing takes (about 2,000 signatures a second on one core). The node under test verifies them
//! like any wallet's: EIP-1559 transactions, low-s ECDSA signatures over secp256k1.
//!
//! SPEC is a JSON file:
//! `{ "chainId": 9000, "to": "0x…", "gas": 60000, "maxFeePerGas": "100000000000",
//!    "maxPriorityFeePerGas": "1000000000",
//!    "senders": [{ "key": "0x…", "nonce": 0, "count": 300, "data": ["0xa9059cbb…"] }] }`
//! Sender s's k-th transaction has nonce `nonce + k` and calldata `data[k % data.len()]`.
//! OUT gets one line per transaction, `0x<raw> 0x<hash>`, sender after sender, each in nonce order.

use std::io::Write;

use alloy_consensus::transaction::SignableTransaction;
use alloy_consensus::{Signed, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip2930::AccessList;
use alloy_primitives::{Address, Bytes, Signature, TxKind, U256};
use secp256k1::{Message, SecretKey, SECP256K1};
use serde_json::Value;

#[derive(Debug)]
struct Sender {
    key: SecretKey,
    nonce: u64,
    count: u64,
    data: Vec<Bytes>,
}

#[derive(Debug)]
struct Spec {
    chain_id: u64,
    to: Address,
    gas: u64,
    max_fee: u128,
    tip: u128,
    senders: Vec<Sender>,
}

fn hex_bytes(v: &Value, what: &str) -> Result<Vec<u8>, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("{what} must be a 0x-hex string"))?;
    hex::decode(s.strip_prefix("0x").unwrap_or(s)).map_err(|e| format!("{what}: {e}"))
}

fn integer<T: std::str::FromStr>(v: &Value, what: &str) -> Result<T, String> {
    let text = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => return Err(format!("{what} must be an integer")),
    };
    text.parse()
        .map_err(|_| format!("{what} must be an integer, got {text}"))
}

fn parse(spec: &Value) -> Result<Spec, String> {
    let to = hex_bytes(&spec["to"], "to")?;
    if to.len() != 20 {
        return Err("to must be a 20-byte address".into());
    }
    let list = spec["senders"]
        .as_array()
        .ok_or("senders must be an array")?;
    let mut senders = Vec::with_capacity(list.len());
    for (i, s) in list.iter().enumerate() {
        let key = SecretKey::from_byte_array(
            hex_bytes(&s["key"], "key")?
                .try_into()
                .map_err(|_| format!("sender {i}: key must be 32 bytes"))?,
        )
        .map_err(|e| format!("sender {i}: {e}"))?;
        let data = s["data"]
            .as_array()
            .ok_or_else(|| format!("sender {i}: data must be an array"))?
            .iter()
            .map(|d| hex_bytes(d, "data").map(Bytes::from))
            .collect::<Result<Vec<_>, _>>()?;
        if data.is_empty() {
            return Err(format!("sender {i}: data is empty"));
        }
        senders.push(Sender {
            key,
            nonce: integer(&s["nonce"], "nonce")?,
            count: integer(&s["count"], "count")?,
            data,
        });
    }
    Ok(Spec {
        chain_id: integer(&spec["chainId"], "chainId")?,
        to: Address::from_slice(&to),
        gas: integer(&spec["gas"], "gas")?,
        max_fee: integer(&spec["maxFeePerGas"], "maxFeePerGas")?,
        tip: integer(&spec["maxPriorityFeePerGas"], "maxPriorityFeePerGas")?,
        senders,
    })
}

fn sign_one(spec: &Spec, sender: &Sender, k: u64) -> Vec<u8> {
    let tx = TxEip1559 {
        chain_id: spec.chain_id,
        nonce: sender.nonce + k,
        gas_limit: spec.gas,
        max_fee_per_gas: spec.max_fee,
        max_priority_fee_per_gas: spec.tip,
        to: TxKind::Call(spec.to),
        value: U256::ZERO,
        access_list: AccessList::default(),
        input: sender.data[(k % sender.data.len() as u64) as usize].clone(),
    };
    let msg = Message::from_digest(tx.signature_hash().0);
    // libsecp256k1 signs with low s (EIP-2).
    let (recid, bytes) = SECP256K1
        .sign_ecdsa_recoverable(msg, &sender.key)
        .serialize_compact();
    let sig = Signature::new(
        U256::from_be_slice(&bytes[..32]),
        U256::from_be_slice(&bytes[32..]),
        i32::from(recid) == 1,
    );
    TxEnvelope::Eip1559(Signed::new_unhashed(tx, sig)).encoded_2718()
}

/// Signs every sender's transactions on all cores; returns the lines in sender order.
fn sign_all(spec: &Spec) -> Vec<String> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(spec.senders.len().max(1));
    let per = spec.senders.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = spec
            .senders
            .chunks(per)
            .map(|chunk| {
                s.spawn(move || {
                    let mut lines = Vec::new();
                    for sender in chunk {
                        for k in 0..sender.count {
                            let raw = sign_one(spec, sender, k);
                            lines.push(format!(
                                "0x{} {}",
                                hex::encode(&raw),
                                alloy_primitives::keccak256(&raw)
                            ));
                        }
                    }
                    lines
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a signing thread"))
            .collect()
    })
}

/// Runs `sign SPEC OUT`; returns the number of transactions written.
pub fn run(spec_path: &str, out_path: &str) -> Result<usize, String> {
    let text = std::fs::read_to_string(spec_path).map_err(|e| format!("{spec_path}: {e}"))?;
    let spec = parse(&serde_json::from_str(&text).map_err(|e| format!("{spec_path}: {e}"))?)?;
    let lines = sign_all(&spec);
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(out_path).map_err(|e| format!("{out_path}: {e}"))?,
    );
    for line in &lines {
        writeln!(out, "{line}").map_err(|e| format!("{out_path}: {e}"))?;
    }
    out.flush().map_err(|e| format!("{out_path}: {e}"))?;
    Ok(lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_what_the_node_recovers() {
        // Hardhat's account 0.
        let key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
        let spec = parse(&serde_json::json!({
            "chainId": 9000, "to": "0x5fbdb2315678afecb367f032d93f642f64180aa3", "gas": 60000,
            "maxFeePerGas": "100000000000", "maxPriorityFeePerGas": 1000000000u64,
            "senders": [{ "key": key, "nonce": 7, "count": 3, "data": ["0x01", "0x0203"] }],
        }))
        .unwrap();
        let lines = sign_all(&spec);
        assert_eq!(lines.len(), 3);
        for (k, line) in lines.iter().enumerate() {
            let (raw, hash) = line.split_once(' ').unwrap();
            let tx = svc_primitives::SignedTransaction::decode(&hex::decode(&raw[2..]).unwrap())
                .unwrap();
            assert_eq!(tx.hash.to_string(), hash);
            assert_eq!(
                tx.recover_sender().unwrap().to_string().to_lowercase(),
                "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
            );
            assert_eq!(tx.nonce(), 7 + k as u64);
            assert_eq!(
                tx.input().as_ref(),
                if k == 1 { &[2u8, 3][..] } else { &[1u8][..] }
            );
            assert_eq!(tx.chain_id(), Some(9000));
        }
    }

    #[test]
    fn refuses_a_bad_spec() {
        assert!(parse(&serde_json::json!({ "to": "0x12", "senders": [] }))
            .unwrap_err()
            .contains("20-byte"));
        let no_data = serde_json::json!({
            "chainId": 1, "to": "0x5fbdb2315678afecb367f032d93f642f64180aa3", "gas": 1, "maxFeePerGas": 1, "maxPriorityFeePerGas": 1,
            "senders": [{ "key": format!("0x{}", "11".repeat(32)), "nonce": 0, "count": 1, "data": [] }],
        });
        assert!(parse(&no_data).unwrap_err().contains("data is empty"));
    }
}
