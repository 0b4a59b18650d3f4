//! RPC-shaped objects (geth's field names, 0x-hex quantities and data) for blocks,
//! transactions, receipts and logs: one builder for the native port's answers and the addon's.

use serde_json::{json, Map, Value};
use svc_primitives::{Address, Bytes, SignedTransaction, TxReceipt, B256, U256};
use svc_store::codec::BlockBody;
use svc_store::query::LocatedLog;
use svc_store::{BlockData, ReadView, StoreError, StoredBlock};

pub fn qty(v: u64) -> Value {
    Value::String(format!("{v:#x}"))
}

pub fn qty128(v: u128) -> Value {
    Value::String(format!("{v:#x}"))
}

pub fn qty256(v: U256) -> Value {
    Value::String(format!("{v:#x}"))
}

pub fn data(bytes: &[u8]) -> Value {
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    s.push_str(&hex::encode(bytes));
    Value::String(s)
}

fn hash(h: &B256) -> Value {
    data(h.as_slice())
}

fn addr(a: &Address) -> Value {
    // EIP-55 checksummed, as anvil and Hardhat print them (clients accept either case).
    Value::String(a.to_checksum(None))
}

/// Where a mined transaction sits.
#[derive(Clone, Copy)]
pub struct TxPosition {
    pub block_hash: B256,
    pub block_number: u64,
    pub index: u32,
    pub base_fee: u64,
}

/// geth's RPCTransaction; `position` None for a pool transaction.
pub fn transaction(tx: &SignedTransaction, from: &Address, position: Option<TxPosition>) -> Value {
    let mut o = Map::new();
    match position {
        Some(p) => {
            o.insert("blockHash".into(), hash(&p.block_hash));
            o.insert("blockNumber".into(), qty(p.block_number));
            o.insert("transactionIndex".into(), qty(p.index as u64));
        }
        None => {
            o.insert("blockHash".into(), Value::Null);
            o.insert("blockNumber".into(), Value::Null);
            o.insert("transactionIndex".into(), Value::Null);
        }
    }
    let ty = tx.tx_type();
    o.insert("from".into(), addr(from));
    o.insert("gas".into(), qty(tx.gas_limit()));
    let gas_price = match position {
        Some(p) if tx.is_dynamic_fee() => tx.effective_gas_price(p.base_fee),
        _ => tx.max_fee_per_gas(),
    };
    o.insert("gasPrice".into(), qty128(gas_price));
    if tx.is_dynamic_fee() {
        o.insert("maxFeePerGas".into(), qty128(tx.max_fee_per_gas()));
        o.insert("maxPriorityFeePerGas".into(), qty128(tx.max_priority_fee_per_gas()));
    }
    o.insert("hash".into(), hash(&tx.hash));
    o.insert("input".into(), data(tx.input()));
    o.insert("nonce".into(), qty(tx.nonce()));
    o.insert("to".into(), tx.to().map_or(Value::Null, |a| addr(&a)));
    o.insert("value".into(), qty256(tx.value()));
    o.insert("type".into(), qty(ty as u64));
    if let Some(list) = tx.access_list() {
        let items: Vec<Value> = list
            .iter()
            .map(|item| {
                json!({
                    "address": addr(&item.address),
                    "storageKeys": item.storage_keys.iter().map(hash).collect::<Vec<_>>(),
                })
            })
            .collect();
        o.insert("accessList".into(), Value::Array(items));
    }
    if let Some(list) = tx.authorization_list() {
        // geth's SetCodeAuthorization: every member a quantity but the address.
        let items: Vec<Value> = list
            .iter()
            .map(|a| {
                json!({
                    "chainId": qty256(a.chain_id),
                    "address": addr(&a.address),
                    "nonce": qty(a.nonce),
                    "yParity": qty(a.y_parity() as u64),
                    "r": qty256(a.r()),
                    "s": qty256(a.s()),
                })
            })
            .collect();
        o.insert("authorizationList".into(), Value::Array(items));
    }
    if let Some(id) = tx.chain_id() {
        o.insert("chainId".into(), qty(id));
    }
    let sig = tx.signature();
    o.insert("v".into(), qty(tx.v()));
    o.insert("r".into(), qty256(sig.r()));
    o.insert("s".into(), qty256(sig.s()));
    if ty != 0 {
        o.insert("yParity".into(), qty(sig.v() as u64));
    }
    Value::Object(o)
}

/// geth's log object.
pub fn log(l: &LocatedLog) -> Value {
    json!({
        "address": addr(&l.log.address),
        "topics": l.log.topics().iter().map(hash).collect::<Vec<_>>(),
        "data": data(&l.log.data.data),
        "blockNumber": qty(l.block_number),
        "transactionHash": hash(&l.tx_hash),
        "transactionIndex": qty(l.tx_index as u64),
        "blockHash": hash(&l.block_hash),
        "logIndex": qty(l.log_index as u64),
        "removed": false,
    })
}

/// geth's receipt object; `first_log_index` is the block-wide index of its first log.
pub fn receipt(
    tx: &SignedTransaction,
    from: &Address,
    r: &TxReceipt,
    gas_used: u64,
    p: TxPosition,
    first_log_index: u32,
) -> Value {
    let logs: Vec<Value> = r
        .logs
        .iter()
        .enumerate()
        .map(|(i, l)| {
            log(&LocatedLog {
                block_number: p.block_number,
                block_hash: p.block_hash,
                tx_hash: tx.hash,
                tx_index: p.index,
                log_index: first_log_index + i as u32,
                log: l.clone(),
            })
        })
        .collect();
    let contract = if tx.to().is_none() { addr(&from.create(tx.nonce())) } else { Value::Null };
    json!({
        "transactionHash": hash(&tx.hash),
        "transactionIndex": qty(p.index as u64),
        "blockHash": hash(&p.block_hash),
        "blockNumber": qty(p.block_number),
        "from": addr(from),
        "to": tx.to().map_or(Value::Null, |a| addr(&a)),
        "cumulativeGasUsed": qty(r.cumulative_gas_used),
        "gasUsed": qty(gas_used),
        "contractAddress": contract,
        "logs": logs,
        "logsBloom": data(r.logs_bloom.as_slice()),
        "type": qty(r.tx_type as u64),
        "status": qty(r.success as u64),
        "effectiveGasPrice": qty128(tx.effective_gas_price(p.base_fee)),
    })
}

fn rlp_list_len(payload: usize) -> usize {
    alloy_rlp::length_of_length(payload) + payload
}

/// Size of the block's RLP: [header, transactions, uncles, withdrawals].
fn block_size(block: &StoredBlock, body: &BlockBody) -> usize {
    let header_len = alloy_rlp::Encodable::length(&block.header);
    let txs_payload: usize = body
        .txs
        .iter()
        .map(|raw| match raw.first() {
            // Typed transactions sit in the body as RLP strings of their EIP-2718 bytes.
            Some(b) if *b < 0x7f => alloy_rlp::Encodable::length(&Bytes::copy_from_slice(raw)),
            _ => raw.len(),
        })
        .sum();
    rlp_list_len(header_len + rlp_list_len(txs_payload) + 1 + 1)
}

/// geth's block object without its transactions, and their number as `transactionCount`: what a
/// list of blocks shows, without hashing every transaction of every block.
pub fn block_summary(b: &StoredBlock, body: &BlockBody) -> Value {
    let mut v = header_fields(b, body);
    v["transactionCount"] = qty(body.txs.len() as u64);
    v
}

/// geth's block object; `transactions` holds hashes or (with `full`) transaction objects.
pub fn block(b: &StoredBlock, body: &BlockBody, full: bool) -> Value {
    let h = &b.header;
    let base_fee = h.base_fee_per_gas.unwrap_or_default();
    let txs: Vec<Value> = body
        .txs
        .iter()
        .enumerate()
        .map(|(i, raw)| match SignedTransaction::decode(raw) {
            Ok(tx) if full => {
                let from = body.senders.get(i).copied().unwrap_or_default();
                transaction(&tx, &from, Some(TxPosition { block_hash: b.hash, block_number: h.number, index: i as u32, base_fee }))
            }
            Ok(tx) => hash(&tx.hash),
            Err(_) => hash(&svc_primitives::keccak256(raw)),
        })
        .collect();
    let mut v = header_fields(b, body);
    v["transactions"] = Value::Array(txs);
    v
}

/// Every field of geth's block object but `transactions`, in geth's order (the caller adds it).
fn header_fields(b: &StoredBlock, body: &BlockBody) -> Value {
    let h = &b.header;
    let base_fee = h.base_fee_per_gas.unwrap_or_default();
    json!({
        "number": qty(h.number),
        "hash": hash(&b.hash),
        "parentHash": hash(&h.parent_hash),
        "nonce": data(h.nonce.as_slice()),
        "sha3Uncles": hash(&h.ommers_hash),
        "logsBloom": data(h.logs_bloom.as_slice()),
        "transactionsRoot": hash(&h.transactions_root),
        "stateRoot": hash(&h.state_root),
        "receiptsRoot": hash(&h.receipts_root),
        "miner": addr(&h.beneficiary),
        "difficulty": qty256(h.difficulty),
        "totalDifficulty": qty(0),
        "extraData": data(&h.extra_data),
        "size": qty(block_size(b, body) as u64),
        "gasLimit": qty(h.gas_limit),
        "gasUsed": qty(h.gas_used),
        "timestamp": qty(h.timestamp),
        // The block's time in milliseconds (seconds from `timestamp`, milliseconds from `mixHash`).
        "timestampMs": qty(svc_primitives::header_time_ms(h)),
        "uncles": [],
        "mixHash": hash(&h.mix_hash),
        "baseFeePerGas": qty(base_fee),
        "withdrawals": [],
        "withdrawalsRoot": hash(&h.withdrawals_root.unwrap_or_default()),
        "blobGasUsed": qty(h.blob_gas_used.unwrap_or_default()),
        "excessBlobGas": qty(h.excess_blob_gas.unwrap_or_default()),
        "parentBeaconBlockRoot": hash(&h.parent_beacon_block_root.unwrap_or_default()),
        "requestsHash": hash(&h.requests_hash.unwrap_or_default()),
    })
}

/// Why a stored block cannot be shaped (a corrupt database, not a client's error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptBlock(pub String);

impl std::fmt::Display for CorruptBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CorruptBlock {}

impl From<StoreError> for CorruptBlock {
    fn from(e: StoreError) -> Self {
        CorruptBlock(e.to_string())
    }
}

fn decode_at(data: &BlockData, index: usize) -> Result<SignedTransaction, CorruptBlock> {
    SignedTransaction::decode(&data.body.txs[index]).map_err(|e| CorruptBlock(format!("stored transaction is corrupt: {e}")))
}

fn position(data: &BlockData, index: usize) -> TxPosition {
    TxPosition {
        block_hash: data.block.hash,
        block_number: data.block.number(),
        index: index as u32,
        base_fee: data.block.header.base_fee_per_gas.unwrap_or_default(),
    }
}

/// The receipt of transaction `index` of a block (None past its last transaction): only that
/// transaction is decoded.
pub fn receipt_at(data: &BlockData, index: usize) -> Result<Option<Value>, CorruptBlock> {
    if index >= data.len() {
        return Ok(None);
    }
    let tx = decode_at(data, index)?;
    let r = &data.receipts[index];
    Ok(Some(receipt(&tx, &data.body.senders[index], r, data.gas_used(index), position(data, index), data.first_log_index(index))))
}

/// Every receipt of a block, in order.
pub fn block_receipts(data: &BlockData) -> Result<Vec<Value>, CorruptBlock> {
    (0..data.len()).map(|i| receipt_at(data, i).map(|r| r.expect("index is below the length"))).collect()
}

/// Transaction `index` of a block as a mined transaction (None past its last transaction).
pub fn transaction_at(data: &BlockData, index: usize) -> Result<Option<Value>, CorruptBlock> {
    if index >= data.body.txs.len() {
        return Ok(None);
    }
    let tx = decode_at(data, index)?;
    Ok(Some(transaction(&tx, &data.body.senders[index], Some(position(data, index)))))
}

/// The receipt of a mined transaction of `view` (None when it is not mined there).
pub fn mined_receipt(view: &ReadView, hash: &B256) -> Result<Option<Value>, CorruptBlock> {
    let Some((number, index)) = view.tx_location(hash)? else { return Ok(None) };
    let Some(data) = view.block_data(number)? else { return Ok(None) };
    receipt_at(&data, index as usize)
}

/// A mined transaction of `view` (None when it is not mined there).
pub fn mined_transaction(view: &ReadView, hash: &B256) -> Result<Option<Value>, CorruptBlock> {
    let Some((number, index)) = view.tx_location(hash)? else { return Ok(None) };
    let Some(data) = view.block_data(number)? else { return Ok(None) };
    transaction_at(&data, index as usize)
}
