//! The explorer's block index, computed natively for each block and written in the block's own
//! atomic batch, so the index is never behind the chain. Records live in the "explorer" column
//! family; the TypeScript explorer reads them (src/explorer/indexer/records.ts holds the same key
//! layouts). Values are JSON in which large integers are strings tagged "\u0000n:" (the explorer's
//! codec turns them back into bigints).
//!
//! Keys (prefix ++ big-endian parts):
//!   m/indexed, m/transactions, m/addresses, m/tokens      numbers
//!   t/ block8 index4                                       transaction summary
//!   a/ address20 block8 index4                             {roles}
//!   k/ token20 block8 logIndex4, w/ address20 block8 logIndex4   token transfer
//!   T/ token20                                             token (type, metadata, holders, transfers)
//!   h/ token20 holder20, H/ holder20 token20               balance
//!   o/ token20 (2^256-1-balance)32 holder20                balance (holders by balance)
//!   i/ token20 id32                                        NFT instance
//!   c/ address20                                           contract creation
//!   A/ address20                                           counters
//!   d/ day4, D/ day4 address20                             daily aggregates, active addresses

use alloy_primitives::map::HashMap;
use alloy_primitives::{Address, B256, U256};
use serde_json::{json, Value};

pub const INDEXED_KEY: &[u8] = b"m/indexed";
const TOTAL_TRANSACTIONS: &[u8] = b"m/transactions";
const TOTAL_ADDRESSES: &[u8] = b"m/addresses";
const TOTAL_TOKENS: &[u8] = b"m/tokens";
/// New tokens whose name, symbol and decimals the node still has to read (by eth_call).
pub const METADATA_QUEUE: &[u8] = b"q/";

const TRANSFER: B256 = alloy_primitives::b256!("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
const TRANSFER_SINGLE: B256 = alloy_primitives::b256!("c3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62");
const TRANSFER_BATCH: B256 = alloy_primitives::b256!("4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d4cbcf3f7ce4b1d4d");
const SECONDS_PER_DAY: u64 = 86_400;
/// Most ids one TransferBatch log may carry before it is ignored as malformed.
const MAX_BATCH_IDS: usize = 10_000;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("explorer index record {key} is corrupt: {reason}")]
    Corrupt { key: String, reason: String },
    #[error("reading the explorer index: {0}")]
    Read(String),
}

/// One log of a transaction.
pub struct IndexLog<'a> {
    pub address: Address,
    pub topics: &'a [B256],
    pub data: &'a [u8],
    /// Block-wide log index.
    pub log_index: u32,
}

/// One transaction of the block with its outcome.
pub struct IndexTx<'a> {
    pub hash: B256,
    pub from: Address,
    pub to: Option<Address>,
    /// The contract a successful creation made.
    pub created: Option<Address>,
    pub value: U256,
    pub input: &'a [u8],
    pub success: bool,
    pub gas_used: u64,
    pub gas_price: u128,
    pub logs: Vec<IndexLog<'a>>,
}

pub struct IndexBlock<'a> {
    pub number: u64,
    /// Seconds (the header's timestamp).
    pub timestamp: u64,
    /// The block's time in milliseconds.
    pub time_ms: u64,
    /// The parent's time in milliseconds (None for genesis).
    pub parent_time_ms: Option<u64>,
    pub gas_used: u64,
    pub txs: Vec<IndexTx<'a>>,
}

/// Reads the current value of an explorer key.
pub trait IndexSource {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, IndexError>;
}

/// The height the index has reached (None: nothing indexed yet).
pub fn indexed_height(source: &dyn IndexSource) -> Result<Option<u64>, IndexError> {
    Ok(source.get(INDEXED_KEY)?.map(|v| decode(INDEXED_KEY, &v)).transpose()?.map(|v: Value| v.as_u64().unwrap_or(0)))
}

/// Reads up to `limit` explorer records under `prefix` from `from` (inclusive) on, or backward.
pub type IndexScan<'a> = dyn Fn(&[u8], &[u8], usize, bool) -> Result<Vec<(Vec<u8>, Vec<u8>)>, IndexError> + 'a;

/// The places (block, index) of the transactions in `address`'s history (its "a/" records: it sent
/// or received them, they created it, or they moved its tokens), from block `from_block` up
/// (ascending) or down (descending), at most `limit`: an index read, never a scan of the chain.
pub fn address_history(scan: &IndexScan<'_>, address: &Address, from_block: u64, limit: usize, descending: bool) -> Result<Vec<(u64, u32)>, IndexError> {
    let prefix = key(b"a/", &[address.as_slice()]);
    let from = key(&prefix, &[&position(from_block, if descending { u32::MAX } else { 0 })]);
    scan(&prefix, &from, limit, descending)?
        .into_iter()
        .map(|(k, _)| {
            let at = k.get(prefix.len()..).filter(|at| at.len() == 12).ok_or_else(|| IndexError::Corrupt { key: hex::encode(&k), reason: "not an address history key".into() })?;
            Ok((u64::from_be_bytes(at[..8].try_into().expect("8 bytes")), u32::from_be_bytes(at[8..].try_into().expect("4 bytes"))))
        })
        .collect()
}

const ROLE_FROM: u8 = 1;
const ROLE_TO: u8 = 2;
const ROLE_CREATED: u8 = 4;
const ROLE_TOKEN: u8 = 8;
const ROLE_NAMES: [(u8, &str); 4] = [(ROLE_FROM, "from"), (ROLE_TO, "to"), (ROLE_CREATED, "created"), (ROLE_TOKEN, "token")];

/// A tagged bigint as JSON text (the NUL escaped as JSON writes it).
fn big_json(v: impl std::fmt::Display) -> String {
    format!("\"\\u0000n:{v}\"")
}

fn addr_json(a: &Address) -> String {
    format!("\"0x{}\"", hex::encode(a.as_slice()))
}

fn opt_addr_json(a: Option<&Address>) -> String {
    a.map_or_else(|| "null".to_owned(), addr_json)
}

fn big(v: impl std::fmt::Display) -> Value {
    Value::String(format!("\u{0}n:{v}"))
}

fn addr(a: &Address) -> Value {
    Value::String(format!("0x{}", hex::encode(a.as_slice())))
}

fn decode(key: &[u8], bytes: &[u8]) -> Result<Value, IndexError> {
    serde_json::from_slice(bytes).map_err(|e| IndexError::Corrupt { key: String::from_utf8_lossy(key).into_owned(), reason: e.to_string() })
}

/// A bigint read back from its tagged form (0 when absent).
fn bigint_of(v: &Value) -> U256 {
    v.as_str().and_then(|s| s.strip_prefix("\u{0}n:")).and_then(|d| U256::from_str_radix(d, 10).ok()).unwrap_or(U256::ZERO)
}

fn key(prefix: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut k = prefix.to_vec();
    for p in parts {
        k.extend_from_slice(p);
    }
    k
}

fn position(block: u64, index: u32) -> Vec<u8> {
    let mut k = block.to_be_bytes().to_vec();
    k.extend_from_slice(&index.to_be_bytes());
    k
}

/// Reads through to the store once per key, then keeps the block's own writes.
/// A key's value in the block (None: absent or deleted) and whether the block changed it.
struct Slot {
    value: Option<Value>,
    dirty: bool,
}

struct Batch<'s> {
    source: &'s dyn IndexSource,
    values: HashMap<Vec<u8>, Slot>,
    /// Records written once and never read back in the block (transactions, transfers,
    /// creations), already serialised.
    raw: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

impl<'s> Batch<'s> {
    /// The current value of a key, taken out to be changed: every caller puts it back.
    fn get(&mut self, k: &[u8]) -> Result<Option<Value>, IndexError> {
        if let Some(slot) = self.values.get_mut(k) {
            return Ok(slot.value.take());
        }
        self.source.get(k)?.map(|b| decode(k, &b)).transpose()
    }

    /// Whether a key holds a value, without taking it.
    fn exists(&mut self, k: &[u8]) -> Result<bool, IndexError> {
        if let Some(slot) = self.values.get(k) {
            return Ok(slot.value.is_some());
        }
        let value = self.source.get(k)?.map(|b| decode(k, &b)).transpose()?;
        let found = value.is_some();
        self.values.insert(k.to_vec(), Slot { value, dirty: false });
        Ok(found)
    }

    fn put(&mut self, k: Vec<u8>, value: Option<Value>) {
        self.values.insert(k, Slot { value, dirty: true });
    }

    fn add(&mut self, k: &[u8], n: u64) -> Result<(), IndexError> {
        let current = self.get(k)?.and_then(|v| v.as_u64()).unwrap_or(0);
        self.put(k.to_vec(), Some(json!(current + n)));
        Ok(())
    }

    fn put_raw(&mut self, k: Vec<u8>, json: String) {
        self.raw.push((k, Some(json.into_bytes())));
    }

    fn writes(self) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
        let mut out = self.raw;
        out.extend(
            self.values
                .into_iter()
                .filter(|(_, slot)| slot.dirty)
                .map(|(k, slot)| (k, slot.value.map(|v| serde_json::to_vec(&v).expect("JSON values serialise")))),
        );
        out
    }
}

/// The token standard a movement follows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TokenType {
    Erc20,
    Erc721,
    Erc1155,
}

impl TokenType {
    /// "ERC-20", "ERC-721" or "ERC-1155", as the index and the explorer write it.
    pub fn name(self) -> &'static str {
        match self {
            TokenType::Erc20 => "ERC-20",
            TokenType::Erc721 => "ERC-721",
            TokenType::Erc1155 => "ERC-1155",
        }
    }
}

/// One token movement a log records.
#[derive(Debug, PartialEq, Eq)]
pub struct Movement {
    pub kind: TokenType,
    pub from: Address,
    pub to: Address,
    pub value: U256,
    pub token_id: Option<U256>,
}

fn topic_address(t: &B256) -> Address {
    Address::from_slice(&t[12..])
}

fn word(data: &[u8], i: usize) -> Option<U256> {
    let start = i.checked_mul(32)?;
    data.get(start..start.checked_add(32)?).map(U256::from_be_slice)
}

fn movements(log: &IndexLog<'_>) -> Vec<Movement> {
    token_movements(log.topics, log.data)
}

/// Token movements of a log (its topics and data): ERC-20/721 Transfer, ERC-1155 TransferSingle and
/// TransferBatch. The one decoder: the index applies it to every block, and the explorer's
/// per-transaction and per-block views call it through the addon (`core.tokenTransfersOfLog`).
/// A log whose data is too short for what it announces records nothing: a Transfer without its
/// amount word, a TransferSingle without id and value, and a TransferBatch whose offsets, lengths
/// or any id or value fall outside its data (or whose id and value counts differ, or that carries
/// more than MAX_BATCH_IDS) is dropped whole, never read as zeros.
pub fn token_movements(t: &[B256], data: &[u8]) -> Vec<Movement> {
    let log = IndexLog { address: Address::ZERO, topics: t, data, log_index: 0 };
    match t.first() {
        Some(t0) if *t0 == TRANSFER && t.len() == 4 => vec![Movement {
            kind: TokenType::Erc721,
            from: topic_address(&t[1]),
            to: topic_address(&t[2]),
            value: U256::from(1),
            token_id: Some(U256::from_be_bytes(t[3].0)),
        }],
        Some(t0) if *t0 == TRANSFER && t.len() == 3 => match word(log.data, 0) {
            Some(value) => vec![Movement { kind: TokenType::Erc20, from: topic_address(&t[1]), to: topic_address(&t[2]), value, token_id: None }],
            None => vec![],
        },
        Some(t0) if *t0 == TRANSFER_SINGLE && t.len() == 4 => match (word(log.data, 0), word(log.data, 1)) {
            (Some(id), Some(value)) => vec![Movement { kind: TokenType::Erc1155, from: topic_address(&t[2]), to: topic_address(&t[3]), value, token_id: Some(id) }],
            _ => vec![],
        },
        Some(t0) if *t0 == TRANSFER_BATCH && t.len() == 4 => {
            let at = |i: usize| word(log.data, i).and_then(|w| usize::try_from(w).ok());
            let (Some(ids_at), Some(values_at)) = (at(0).map(|o| o / 32), at(1).map(|o| o / 32)) else { return vec![] };
            let (Some(n), Some(m)) = (at(ids_at), at(values_at)) else { return vec![] };
            if n != m || n > MAX_BATCH_IDS {
                return vec![];
            }
            // Every id and value or none: a truncated batch is dropped whole.
            (0..n)
                .map(|i| {
                    Some(Movement {
                        kind: TokenType::Erc1155,
                        from: topic_address(&t[2]),
                        to: topic_address(&t[3]),
                        token_id: Some(word(log.data, ids_at.checked_add(1 + i)?)?),
                        value: word(log.data, values_at.checked_add(1 + i)?)?,
                    })
                })
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default()
        }
        _ => vec![],
    }
}

/// Every record a block adds or changes, with the new indexed height.
pub fn index_block(source: &dyn IndexSource, block: &IndexBlock<'_>) -> Result<Vec<(Vec<u8>, Option<Vec<u8>>)>, IndexError> {
    let mut b = Batch { source, values: HashMap::default(), raw: Vec::new() };
    let day = (block.timestamp / SECONDS_PER_DAY) as u32;
    let day_key = key(b"d/", &[&day.to_be_bytes()]);
    let mut stats = b.get(&day_key)?.unwrap_or_else(|| {
        json!({ "day": day, "blocks": 0, "transactions": 0, "gasUsed": big(0), "gasPriceSum": big(0), "blockTimeSumMs": 0, "activeAddresses": 0, "newAddresses": 0 })
    });
    let counter = |stats: &mut Value, field: &str, n: u64| {
        let v = stats[field].as_u64().unwrap_or(0) + n;
        stats[field] = json!(v);
    };
    counter(&mut stats, "blocks", 1);
    stats["gasUsed"] = big(bigint_of(&stats["gasUsed"]) + U256::from(block.gas_used));
    if let Some(parent) = block.parent_time_ms {
        counter(&mut stats, "blockTimeSumMs", block.time_ms.saturating_sub(parent));
    }
    let mut gas_price_sum = bigint_of(&stats["gasPriceSum"]);

    // An address seen in this block: counters, first sight, daily activity.
    let seen = |b: &mut Batch<'_>, stats: &mut Value, a: &Address, transfer: bool| -> Result<(), IndexError> {
        let ck = key(b"A/", &[a.as_slice()]);
        let mut c = b.get(&ck)?.unwrap_or_else(|| json!({ "transactions": 0, "tokenTransfers": 0, "firstBlock": block.number, "lastBlock": block.number }));
        if c["transactions"].as_u64() == Some(0) && c["tokenTransfers"].as_u64() == Some(0) {
            counter(stats, "newAddresses", 1);
            b.add(TOTAL_ADDRESSES, 1)?;
        }
        let field = if transfer { "tokenTransfers" } else { "transactions" };
        c[field] = json!(c[field].as_u64().unwrap_or(0) + 1);
        c["lastBlock"] = json!(block.number);
        b.put(ck, Some(c));
        let ak = key(b"D/", &[&day.to_be_bytes(), a.as_slice()]);
        if !b.exists(&ak)? {
            b.put(ak, Some(json!(1)));
            counter(stats, "activeAddresses", 1);
        }
        Ok(())
    };
    // An address's history entry carries the transaction's summary, so a page of history is one
    // scan; the roles an address plays in a transaction are gathered first, written at the end.
    let mut roles: HashMap<Vec<u8>, (u8, usize)> = HashMap::default();
    let mut summaries: Vec<String> = Vec::with_capacity(block.txs.len());
    let mut role = |a: &Address, at: &[u8], r: u8, tx: usize| {
        roles.entry(key(b"a/", &[a.as_slice(), at])).or_insert((0, tx)).0 |= r;
    };

    for (i, tx) in block.txs.iter().enumerate() {
        let at = position(block.number, i as u32);
        let method = hex::encode(&tx.input[..tx.input.len().min(4)]);
        let summary = format!(
            r#"{{"hash":"0x{}","blockNumber":{},"index":{i},"timestamp":{},"from":{},"to":{},"created":{},"value":{},"status":{},"gasUsed":{},"gasPrice":{},"method":"0x{method}"}}"#,
            hex::encode(tx.hash),
            block.number,
            block.timestamp,
            addr_json(&tx.from),
            opt_addr_json(tx.to.as_ref()),
            opt_addr_json(tx.created.as_ref()),
            big_json(tx.value),
            u8::from(tx.success),
            big_json(tx.gas_used),
            big_json(tx.gas_price),
        );
        b.put_raw(key(b"t/", &[&at]), summary.clone());
        summaries.push(summary);
        counter(&mut stats, "transactions", 1);
        gas_price_sum += U256::from(tx.gas_price);
        role(&tx.from, &at, ROLE_FROM, i);
        seen(&mut b, &mut stats, &tx.from, false)?;
        if let Some(to) = &tx.to {
            role(to, &at, ROLE_TO, i);
            if *to != tx.from {
                seen(&mut b, &mut stats, to, false)?;
            }
        }
        if let (Some(created), true) = (&tx.created, tx.success) {
            role(created, &at, ROLE_CREATED, i);
            seen(&mut b, &mut stats, created, false)?;
            b.put_raw(
                key(b"c/", &[created.as_slice()]),
                format!(
                    r#"{{"address":{},"creator":{},"txHash":"0x{}","blockNumber":{},"timestamp":{}}}"#,
                    addr_json(created),
                    addr_json(&tx.from),
                    hex::encode(tx.hash),
                    block.number,
                    block.timestamp
                ),
            );
        }
        if !tx.success {
            continue;
        }
        for log in &tx.logs {
            for m in movements(log) {
                transfer(&mut b, block, tx, log, &m)?;
                for party in [m.from, m.to] {
                    if party == Address::ZERO {
                        continue;
                    }
                    role(&party, &at, ROLE_TOKEN, i);
                    seen(&mut b, &mut stats, &party, true)?;
                }
            }
        }
    }
    for (k, (flags, tx)) in roles {
        let names: Vec<&str> = ROLE_NAMES.iter().filter(|(bit, _)| flags & bit != 0).map(|(_, n)| *n).collect();
        b.put_raw(k, format!(r#"{{"roles":["{}"],"tx":{}}}"#, names.join("\",\""), summaries[tx]));
    }
    stats["gasPriceSum"] = big(gas_price_sum);
    b.put(day_key, Some(stats));
    b.add(TOTAL_TRANSACTIONS, block.txs.len() as u64)?;
    b.put(INDEXED_KEY.to_vec(), Some(json!(block.number)));
    Ok(b.writes())
}

fn descending(amount: U256) -> [u8; 32] {
    (U256::MAX - amount).to_be_bytes::<32>()
}

fn transfer(b: &mut Batch<'_>, block: &IndexBlock<'_>, tx: &IndexTx<'_>, log: &IndexLog<'_>, m: &Movement) -> Result<(), IndexError> {
    let token = log.address;
    let tk = key(b"T/", &[token.as_slice()]);
    let mut record = match b.get(&tk)? {
        Some(r) => r,
        None => {
            b.add(TOTAL_TOKENS, 1)?;
            b.put(key(METADATA_QUEUE, &[token.as_slice()]), Some(json!(block.number)));
            json!({ "address": addr(&token), "type": m.kind.name(), "name": null, "symbol": null, "decimals": null, "holders": 0, "transfers": 0, "firstBlock": block.number })
        }
    };
    record["transfers"] = json!(record["transfers"].as_u64().unwrap_or(0) + 1);
    let at = position(block.number, log.log_index);
    let t = format!(
        r#"{{"token":{},"type":"{}","from":{},"to":{},"value":{},"tokenId":{},"txHash":"0x{}","blockNumber":{},"logIndex":{},"timestamp":{}}}"#,
        addr_json(&token),
        m.kind.name(),
        addr_json(&m.from),
        addr_json(&m.to),
        big_json(m.value),
        m.token_id.map_or_else(|| "null".to_owned(), big_json),
        hex::encode(tx.hash),
        block.number,
        log.log_index,
        block.timestamp,
    );
    for party in [m.from, m.to] {
        if party != Address::ZERO {
            b.put_raw(key(b"w/", &[party.as_slice(), &at]), t.clone());
        }
    }
    b.put_raw(key(b"k/", &[token.as_slice(), &at]), t);
    let amount = if m.kind == TokenType::Erc721 { U256::from(1) } else { m.value };
    let mut holders = record["holders"].as_i64().unwrap_or(0);
    for (holder, credit) in [(m.from, false), (m.to, true)] {
        if holder == Address::ZERO || amount.is_zero() {
            continue;
        }
        let bk = key(b"h/", &[token.as_slice(), holder.as_slice()]);
        let before = b.get(&bk)?.map(|v| bigint_of(&v)).unwrap_or(U256::ZERO);
        let after = if credit { before.saturating_add(amount) } else { before.saturating_sub(amount) };
        if !before.is_zero() {
            b.put(key(b"o/", &[token.as_slice(), &descending(before), holder.as_slice()]), None);
        }
        if !after.is_zero() {
            b.put(key(b"o/", &[token.as_slice(), &descending(after), holder.as_slice()]), Some(big(after)));
        }
        let value = (!after.is_zero()).then(|| big(after));
        b.put(bk, value.clone());
        b.put(key(b"H/", &[holder.as_slice(), token.as_slice()]), value);
        if before.is_zero() && !after.is_zero() {
            holders += 1;
        }
        if !before.is_zero() && after.is_zero() {
            holders -= 1;
        }
    }
    record["holders"] = json!(holders.max(0));
    if let Some(id) = m.token_id {
        let ik = key(b"i/", &[token.as_slice(), &id.to_be_bytes::<32>()]);
        let mut inst = b.get(&ik)?.unwrap_or_else(|| json!({ "token": addr(&token), "tokenId": big(id), "owner": null, "supply": big(0) }));
        if m.kind == TokenType::Erc721 {
            let burned = m.to == Address::ZERO;
            inst["owner"] = if burned { Value::Null } else { addr(&m.to) };
            inst["supply"] = big(if burned { 0 } else { 1 });
        } else {
            let mut supply = bigint_of(&inst["supply"]);
            if m.from == Address::ZERO {
                supply += m.value;
            }
            if m.to == Address::ZERO {
                supply = supply.saturating_sub(m.value);
            }
            inst["supply"] = big(supply);
        }
        b.put(ik, Some(inst));
    }
    b.put(tk, Some(record));
    Ok(())
}

/// Sets a token's name, symbol and decimals (read by the node after the token first moved), adds
/// it to the search index and takes it off the metadata queue.
pub fn token_metadata_writes(
    source: &dyn IndexSource,
    token: &Address,
    name: Option<&str>,
    symbol: Option<&str>,
    decimals: Option<u8>,
) -> Result<Vec<(Vec<u8>, Option<Vec<u8>>)>, IndexError> {
    let tk = key(b"T/", &[token.as_slice()]);
    let mut writes = vec![(key(METADATA_QUEUE, &[token.as_slice()]), None)];
    let Some(bytes) = source.get(&tk)? else { return Ok(writes) };
    let mut record = decode(&tk, &bytes)?;
    record["name"] = name.map_or(Value::Null, |n| json!(n));
    record["symbol"] = symbol.map_or(Value::Null, |s| json!(s));
    record["decimals"] = decimals.map_or(Value::Null, |d| json!(d));
    writes.push((tk, Some(serde_json::to_vec(&record).expect("JSON values serialise"))));
    for term in [name, symbol].into_iter().flatten() {
        let lower: String = term.to_lowercase().chars().take(64).collect();
        if !lower.is_empty() {
            writes.push((key(b"s/", &[lower.as_bytes(), &[0], token.as_slice()]), Some(b"1".to_vec())));
        }
    }
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    #[derive(Default)]
    struct Memory(RefCell<BTreeMap<Vec<u8>, Vec<u8>>>);

    impl IndexSource for Memory {
        fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, IndexError> {
            Ok(self.0.borrow().get(key).cloned())
        }
    }

    impl Memory {
        fn apply(&self, writes: Vec<(Vec<u8>, Option<Vec<u8>>)>) {
            let mut m = self.0.borrow_mut();
            for (k, v) in writes {
                match v {
                    Some(v) => m.insert(k, v),
                    None => m.remove(&k),
                };
            }
        }

        fn json(&self, k: &[u8]) -> Option<Value> {
            self.0.borrow().get(k).map(|v| serde_json::from_slice(v).unwrap())
        }
    }

    const A: Address = Address::new([0xaa; 20]);
    const B: Address = Address::new([0xbb; 20]);
    const TOKEN: Address = Address::new([0x70; 20]);

    fn transfer_log(from: Address, to: Address, amount: u64, topics: &mut Vec<B256>, data: &mut Vec<u8>) {
        topics.extend([TRANSFER, B256::left_padding_from(from.as_slice()), B256::left_padding_from(to.as_slice())]);
        data.extend_from_slice(&U256::from(amount).to_be_bytes::<32>());
    }

    #[test]
    fn a_truncated_transfer_batch_is_dropped_whole() {
        let topics = [TRANSFER_BATCH, B256::ZERO, B256::left_padding_from(A.as_slice()), B256::left_padding_from(B.as_slice())];
        // offsets 0x40 and 0xa0; ids [1, 2]; values [10, 20]
        let data: Vec<u8> = [0x40u64, 0xa0, 2, 1, 2, 2, 10, 20].iter().flat_map(|w| U256::from(*w).to_be_bytes::<32>()).collect();
        let full = token_movements(&topics, &data);
        assert_eq!(full.len(), 2);
        assert_eq!((full[1].token_id, full[1].value, full[1].from, full[1].to), (Some(U256::from(2)), U256::from(20), A, B));
        for cut in [32, 1, 64 + 1] {
            assert_eq!(token_movements(&topics, &data[..data.len() - cut]), vec![], "{cut} bytes short");
        }
        // A huge offset is no panic either.
        let mut far = data.clone();
        far[..32].copy_from_slice(&U256::MAX.to_be_bytes::<32>());
        assert_eq!(token_movements(&topics, &far), vec![]);
    }

    #[test]
    fn a_block_of_transfers_fills_every_record_and_the_next_block_builds_on_it() {
        let store = Memory::default();
        let (mut topics, mut data) = (Vec::new(), Vec::new());
        transfer_log(A, B, 70, &mut topics, &mut data);
        let logs = vec![IndexLog { address: TOKEN, topics: &topics, data: &data, log_index: 0 }];
        fn tx(logs: Vec<IndexLog<'_>>) -> IndexTx<'_> {
            IndexTx {
                hash: B256::repeat_byte(1),
                from: A,
                to: Some(TOKEN),
                created: None,
                value: U256::ZERO,
                input: &[0xa9, 0x05, 0x9c, 0xbb, 0],
                success: true,
                gas_used: 50_000,
                gas_price: 7,
                logs,
            }
        }
        let block = IndexBlock { number: 1, timestamp: 86_400 * 3 + 5, time_ms: (86_400 * 3 + 5) * 1000, parent_time_ms: Some((86_400 * 3 + 4) * 1000 + 500), gas_used: 50_000, txs: vec![tx(logs)] };
        store.apply(index_block(&store, &block).unwrap());

        assert_eq!(indexed_height(&store).unwrap(), Some(1));
        let summary = store.json(&key(b"t/", &[&position(1, 0)])).unwrap();
        assert_eq!(summary["method"], "0xa9059cbb");
        assert_eq!(summary["gasPrice"], "\u{0}n:7");
        assert_eq!(store.json(&key(b"a/", &[A.as_slice(), &position(1, 0)])).unwrap()["roles"], json!(["from", "token"]));
        assert_eq!(store.json(&key(b"a/", &[B.as_slice(), &position(1, 0)])).unwrap()["roles"], json!(["token"]));
        let token = store.json(&key(b"T/", &[TOKEN.as_slice()])).unwrap();
        assert_eq!((token["type"].as_str(), token["holders"].as_u64(), token["transfers"].as_u64()), (Some("ERC-20"), Some(1), Some(1)));
        assert_eq!(store.json(&key(b"h/", &[TOKEN.as_slice(), B.as_slice()])).unwrap(), json!("\u{0}n:70"));
        assert!(store.json(&key(METADATA_QUEUE, &[TOKEN.as_slice()])).is_some());
        let day = store.json(&key(b"d/", &[&3u32.to_be_bytes()])).unwrap();
        assert_eq!((day["transactions"].as_u64(), day["activeAddresses"].as_u64(), day["newAddresses"].as_u64()), (Some(1), Some(3), Some(3)));

        // B passes 70 back: B's balance goes, A joins as holder, the holder count stays 1.
        let (mut topics2, mut data2) = (Vec::new(), Vec::new());
        transfer_log(B, A, 70, &mut topics2, &mut data2);
        let logs2 = vec![IndexLog { address: TOKEN, topics: &topics2, data: &data2, log_index: 0 }];
        let block2 = IndexBlock { number: 2, timestamp: 86_400 * 3 + 6, time_ms: (86_400 * 3 + 6) * 1000, parent_time_ms: Some((86_400 * 3 + 5) * 1000), gas_used: 50_000, txs: vec![tx(logs2)] };
        store.apply(index_block(&store, &block2).unwrap());
        assert!(store.json(&key(b"h/", &[TOKEN.as_slice(), B.as_slice()])).is_none());
        assert_eq!(store.json(&key(b"T/", &[TOKEN.as_slice()])).unwrap()["holders"], json!(1));
        assert_eq!(store.json(TOTAL_TRANSACTIONS), Some(json!(2)));
        assert_eq!(store.json(&key(b"d/", &[&3u32.to_be_bytes()])).unwrap()["newAddresses"], json!(3));
        // Block times are summed in milliseconds: 500 ms, then 1,000 ms.
        assert_eq!(store.json(&key(b"d/", &[&3u32.to_be_bytes()])).unwrap()["blockTimeSumMs"], json!(1_500));

        store.apply(token_metadata_writes(&store, &TOKEN, Some("Test"), Some("TST"), Some(18)).unwrap());
        assert_eq!(store.json(&key(b"T/", &[TOKEN.as_slice()])).unwrap()["symbol"], "TST");
        assert!(store.json(&key(METADATA_QUEUE, &[TOKEN.as_slice()])).is_none());
        assert!(store.json(&key(b"s/", &[b"tst", &[0], TOKEN.as_slice()])).is_some());
    }

    #[test]
    fn nft_transfers_track_owners_and_1155_batches_track_supply() {
        let store = Memory::default();
        let topics = [TRANSFER, B256::ZERO, B256::left_padding_from(A.as_slice()), B256::with_last_byte(9)];
        let mut batch_data = Vec::new();
        for w in [64u64, 160, 2, 1, 2, 2, 5, 6] {
            batch_data.extend_from_slice(&U256::from(w).to_be_bytes::<32>());
        }
        let batch_topics = [TRANSFER_BATCH, B256::ZERO, B256::ZERO, B256::left_padding_from(B.as_slice())];
        let logs = vec![
            IndexLog { address: TOKEN, topics: &topics, data: &[], log_index: 0 },
            IndexLog { address: Address::repeat_byte(0x11), topics: &batch_topics, data: &batch_data, log_index: 1 },
        ];
        let tx = IndexTx { hash: B256::repeat_byte(2), from: A, to: Some(TOKEN), created: None, value: U256::ZERO, input: &[], success: true, gas_used: 1, gas_price: 1, logs };
        store.apply(index_block(&store, &IndexBlock { number: 1, timestamp: 10, time_ms: 10_000, parent_time_ms: Some(9_000), gas_used: 1, txs: vec![tx] }).unwrap());
        let nft = store.json(&key(b"i/", &[TOKEN.as_slice(), &U256::from(9).to_be_bytes::<32>()])).unwrap();
        assert_eq!(nft["owner"], addr(&A));
        let multi = Address::repeat_byte(0x11);
        assert_eq!(store.json(&key(b"T/", &[multi.as_slice()])).unwrap()["type"], "ERC-1155");
        assert_eq!(store.json(&key(b"i/", &[multi.as_slice(), &U256::from(2).to_be_bytes::<32>()])).unwrap()["supply"], "\u{0}n:6");
        assert_eq!(store.json(&key(b"h/", &[multi.as_slice(), B.as_slice()])).unwrap(), json!("\u{0}n:11"));
    }

    #[test]
    fn an_address_history_reads_its_places_up_or_down_from_a_block() {
        let store = Memory::default();
        for (block, index) in [(1u64, 0u32), (3, 1), (3, 4), (7, 0)] {
            store.apply(vec![(key(b"a/", &[A.as_slice(), &position(block, index)]), Some(b"{}".to_vec()))]);
        }
        store.apply(vec![(key(b"a/", &[B.as_slice(), &position(2, 0)]), Some(b"{}".to_vec()))]);
        let scan = |prefix: &[u8], from: &[u8], limit: usize, reverse: bool| {
            let m = store.0.borrow();
            let keys: Vec<_> = if reverse {
                m.range(..=from.to_vec()).rev().take_while(|(k, _)| k.starts_with(prefix)).take(limit).map(|(k, v)| (k.clone(), v.clone())).collect()
            } else {
                m.range(from.to_vec()..).take_while(|(k, _)| k.starts_with(prefix)).take(limit).map(|(k, v)| (k.clone(), v.clone())).collect()
            };
            Ok(keys)
        };
        assert_eq!(address_history(&scan, &A, 2, 10, false).unwrap(), vec![(3, 1), (3, 4), (7, 0)]);
        assert_eq!(address_history(&scan, &A, 3, 2, true).unwrap(), vec![(3, 4), (3, 1)]);
        assert_eq!(address_history(&scan, &A, 0, 10, true).unwrap(), vec![]);
        assert_eq!(address_history(&scan, &B, 0, 10, false).unwrap(), vec![(2, 0)]);
    }
}
