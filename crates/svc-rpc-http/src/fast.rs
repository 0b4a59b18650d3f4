//! The reads answered without leaving Rust: eth_chainId, eth_blockNumber, eth_getBalance,
//! eth_getTransactionCount, eth_getCode, eth_getStorageAt and eth_call on committed blocks, and the
//! blocks, receipts and mined transactions that clients poll for (eth_getBlockByNumber,
//! eth_getTransactionReceipt, eth_getTransactionByHash, eth_getBlockReceipts), so that thousands of waiting wallets and the
//! indexers that follow the chain never queue on the event loop that block production shares.
//!
//! A body is answered here only when every call in it is well formed and succeeds; anything else
//! (an error to report, a revert, `pending` nonces and blocks, block hashes, notifications, unusual ids) goes
//! to the TypeScript dispatcher, which owns every error text. So both paths give the same answer,
//! and this one only ever gives the plain successful one — save an eth_call stopped at the RPC EVM
//! timeout, answered here with the engine's text as the dispatcher would: run again there, it would
//! hold an exec lane thread twice as long.

use std::sync::atomic::{AtomicU64, Ordering};

use alloy_primitives::{Address, Bytes, B256, U256};
use serde_json::{Map, Value};
use svc_evm::{CallRequest, CallStatus, Chain, ChainError};

use crate::shape;

/// The methods served here, in the order of their counters.
pub const FAST_METHODS: [&str; 11] = [
    "eth_chainId",
    "eth_blockNumber",
    "eth_getBalance",
    "eth_getTransactionCount",
    "eth_getCode",
    "eth_getStorageAt",
    "eth_call",
    "eth_getTransactionReceipt",
    "eth_getTransactionByHash",
    "eth_getBlockReceipts",
    "eth_getBlockByNumber",
];

/// Which block's state a read names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockRef {
    /// latest, pending, safe and finalized: the solo driver seals every block final.
    Head,
    Number(u64),
}

#[derive(Debug, Clone)]
enum Read {
    ChainId,
    BlockNumber,
    Balance(Address, BlockRef),
    Nonce(Address, BlockRef),
    Code(Address, BlockRef),
    Storage(Address, B256, BlockRef),
    Call(Box<CallRequest>, BlockRef),
    /// A receipt: null while the transaction is not mined (the answer geth gives too).
    Receipt(B256),
    /// A mined transaction; one that is not mined may be in the pool, which the dispatcher knows.
    Transaction(B256),
    /// Every receipt of a block named by number or tag (hashes go to the dispatcher).
    BlockReceipts(BlockRef),
    /// A block by number or tag, with transaction hashes or (true) whole transactions.
    Block(BlockRef, bool),
}

impl Read {
    fn method_index(&self) -> usize {
        match self {
            Read::ChainId => 0,
            Read::BlockNumber => 1,
            Read::Balance(..) => 2,
            Read::Nonce(..) => 3,
            Read::Code(..) => 4,
            Read::Storage(..) => 5,
            Read::Call(..) => 6,
            Read::Receipt(..) => 7,
            Read::Transaction(..) => 8,
            Read::BlockReceipts(..) => 9,
            Read::Block(..) => 10,
        }
    }
}

#[derive(Debug, Clone)]
struct Item {
    /// The request id, serialized as JSON.stringify would write it.
    id: String,
    read: Read,
}

/// A body that may be answered natively.
#[derive(Debug, Clone)]
pub struct Plan {
    items: Vec<Item>,
    batch: bool,
}

impl Plan {
    /// True when answering runs the EVM or shapes a whole block or its receipts (callers move such work
    /// off the I/O threads).
    pub fn executes(&self) -> bool {
        self.items.iter().any(|i| matches!(i.read, Read::Call(..) | Read::BlockReceipts(..) | Read::Block(..)))
    }

    /// Calls in the body (a batch counts its items).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// Limits a native answer must stay within to be the same as the dispatcher's.
#[derive(Debug, Clone, Copy)]
pub struct FastLimits {
    pub max_batch_items: usize,
    pub max_batch_response_bytes: usize,
}

/// Calls answered natively, per method of FAST_METHODS.
#[derive(Default)]
pub struct FastCounters {
    calls: [AtomicU64; FAST_METHODS.len()],
}

impl FastCounters {
    pub fn snapshot(&self) -> Vec<(&'static str, u64)> {
        FAST_METHODS.iter().zip(&self.calls).map(|(m, c)| (*m, c.load(Ordering::Relaxed))).collect()
    }
}

fn hex_digits(v: &Value) -> Option<&str> {
    let s = v.as_str()?;
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    digits.bytes().all(|b| b.is_ascii_hexdigit()).then_some(digits)
}

fn significant(digits: &str) -> Option<&str> {
    if digits.is_empty() {
        return None;
    }
    Some(digits.trim_start_matches('0'))
}

fn quantity_u64(v: &Value) -> Option<u64> {
    let d = significant(hex_digits(v)?)?;
    if d.is_empty() {
        return Some(0);
    }
    if d.len() > 16 {
        return None;
    }
    u64::from_str_radix(d, 16).ok()
}

fn quantity_u256(v: &Value) -> Option<U256> {
    let d = significant(hex_digits(v)?)?;
    if d.is_empty() {
        return Some(U256::ZERO);
    }
    if d.len() > 64 {
        return None;
    }
    U256::from_str_radix(d, 16).ok()
}

fn address(v: &Value) -> Option<Address> {
    let d = hex_digits(v)?;
    if d.len() != 40 {
        return None;
    }
    Some(Address::from_slice(&hex::decode(d).ok()?))
}

fn bytes(v: &Value) -> Option<Bytes> {
    let d = hex_digits(v)?;
    if d.len() % 2 != 0 {
        return None;
    }
    Some(Bytes::from(hex::decode(d).ok()?))
}

/// A 32-byte hash written in full, as the dispatcher requires.
fn hash(v: &Value) -> Option<B256> {
    let d = hex_digits(v)?;
    if d.len() != 64 {
        return None;
    }
    Some(B256::from_slice(&hex::decode(d).ok()?))
}

fn storage_slot(v: &Value) -> Option<B256> {
    let d = hex_digits(v)?;
    if d.len() > 64 {
        return None;
    }
    let padded = format!("{d:0>64}");
    Some(B256::from_slice(&hex::decode(padded).ok()?))
}

/// An optional block param: a tag or a number. Hashes and EIP-1898 objects go to the dispatcher.
fn block_ref(v: Option<&Value>, allow_pending: bool) -> Option<BlockRef> {
    let Some(v) = v.filter(|v| !v.is_null()) else { return Some(BlockRef::Head) };
    match v.as_str()? {
        "latest" | "safe" | "finalized" => Some(BlockRef::Head),
        "pending" if allow_pending => Some(BlockRef::Head),
        "earliest" => Some(BlockRef::Number(0)),
        s if s.len() == 66 => None,
        _ => quantity_u64(v).map(BlockRef::Number),
    }
}

fn present(v: &Value) -> Option<&Value> {
    (!v.is_null()).then_some(v)
}

/// A call object with only from, to, gas, value and data/input; any other field goes to the dispatcher.
fn call_object(v: &Value) -> Option<CallRequest> {
    let o = v.as_object()?;
    let mut req = CallRequest::default();
    let (mut data, mut input) = (None, None);
    for (key, value) in o {
        let Some(value) = present(value) else { continue };
        match key.as_str() {
            "from" => req.from = Some(address(value)?),
            "to" => req.to = Some(address(value)?),
            "gas" => req.gas = Some(quantity_u64(value)?),
            "value" => req.value = Some(quantity_u256(value)?),
            "data" => data = Some(bytes(value)?),
            "input" => input = Some(bytes(value)?),
            _ => return None,
        }
    }
    if let (Some(d), Some(i)) = (&data, &input) {
        if d != i {
            return None;
        }
    }
    req.data = input.or(data);
    Some(req)
}

/// The id as JSON.stringify writes it, for the ids whose writing is not in doubt.
fn id_text(id: &Value) -> Option<String> {
    match id {
        Value::Null => Some("null".into()),
        Value::Number(n) if n.is_i64() || n.is_u64() => {
            // Beyond 2^53 JavaScript rounds the number; those go to the dispatcher.
            let safe = n.as_i64().map_or(false, |i| i.unsigned_abs() <= (1u64 << 53));
            safe.then(|| n.to_string())
        }
        Value::String(s) if s.chars().all(|c| c >= ' ' && c != '"' && c != '\\') => Some(format!("\"{s}\"")),
        _ => None,
    }
}

fn params(o: &Map<String, Value>, arity: usize) -> Option<Vec<&Value>> {
    let list: &[Value] = match o.get("params") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(list)) => list,
        Some(_) => return None,
    };
    if list.len() > arity {
        return None;
    }
    Some(list.iter().collect())
}

fn required<'a>(p: &[&'a Value], i: usize) -> Option<&'a Value> {
    p.get(i).copied().and_then(present)
}

fn item(v: &Value) -> Option<Item> {
    let o = v.as_object()?;
    if o.get("jsonrpc")?.as_str()? != "2.0" {
        return None;
    }
    // A request without an id is a notification: the dispatcher runs it and answers nothing.
    let id = id_text(o.get("id")?)?;
    let read = match o.get("method")?.as_str()? {
        "eth_chainId" => {
            params(o, 0)?;
            Read::ChainId
        }
        "eth_blockNumber" => {
            params(o, 0)?;
            Read::BlockNumber
        }
        "eth_getBalance" => {
            let p = params(o, 2)?;
            Read::Balance(address(required(&p, 0)?)?, block_ref(p.get(1).copied(), true)?)
        }
        // `pending` nonces count the pool's transactions: the dispatcher knows them.
        "eth_getTransactionCount" => {
            let p = params(o, 2)?;
            Read::Nonce(address(required(&p, 0)?)?, block_ref(p.get(1).copied(), false)?)
        }
        "eth_getCode" => {
            let p = params(o, 2)?;
            Read::Code(address(required(&p, 0)?)?, block_ref(p.get(1).copied(), true)?)
        }
        "eth_getStorageAt" => {
            let p = params(o, 3)?;
            Read::Storage(address(required(&p, 0)?)?, storage_slot(required(&p, 1)?)?, block_ref(p.get(2).copied(), true)?)
        }
        "eth_call" => {
            let p = params(o, 4)?;
            // State and block overrides are the dispatcher's to judge.
            if p.len() > 2 && p[2..].iter().any(|v| !v.is_null()) {
                return None;
            }
            Read::Call(Box::new(call_object(required(&p, 0)?)?), block_ref(p.get(1).copied(), true)?)
        }
        "eth_getTransactionReceipt" => {
            let p = params(o, 1)?;
            Read::Receipt(hash(required(&p, 0)?)?)
        }
        "eth_getTransactionByHash" => {
            let p = params(o, 1)?;
            Read::Transaction(hash(required(&p, 0)?)?)
        }
        "eth_getBlockReceipts" => {
            let p = params(o, 1)?;
            Read::BlockReceipts(block_ref(Some(required(&p, 0)?), true)?)
        }
        "eth_getBlockByNumber" => {
            let p = params(o, 2)?;
            let full = match p.get(1).copied() {
                None | Some(Value::Null) => false,
                Some(v) => v.as_bool()?,
            };
            // The `pending` block is built from the pool: the dispatcher knows it.
            Read::Block(block_ref(Some(required(&p, 0)?), false)?, full)
        }
        _ => return None,
    };
    Some(Item { id, read })
}

/// Reads a body and says whether it can be answered natively.
pub fn plan(body: &[u8], limits: &FastLimits) -> Option<Plan> {
    let value: Value = serde_json::from_slice(body).ok()?;
    match value {
        Value::Array(list) => {
            if list.is_empty() || list.len() > limits.max_batch_items {
                return None;
            }
            let items = list.iter().map(item).collect::<Option<Vec<_>>>()?;
            Some(Plan { items, batch: true })
        }
        single => Some(Plan { items: vec![item(&single)?], batch: false }),
    }
}

fn quantity(v: impl std::fmt::LowerHex) -> String {
    format!("{v:#x}")
}

fn data(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + b.len() * 2);
    s.push_str("0x");
    s.push_str(&hex::encode(b));
    s
}

/// The block a read names, or None when it lies beyond the head.
fn resolve(at: BlockRef, head: u64) -> Option<u64> {
    match at {
        BlockRef::Head => Some(head),
        BlockRef::Number(n) => (n <= head).then_some(n),
    }
}

/// The result of a read as JSON text (Err: the JSON of the error object to answer), or None when
/// the dispatcher must answer.
fn result(chain: &Chain, read: &Read) -> Option<Result<String, String>> {
    let view = chain.view();
    let head = view.head_number();
    let text = |s: String| format!("\"{s}\"");
    Some(Ok(match read {
        Read::ChainId => text(quantity(chain.chain_id())),
        Read::BlockNumber => text(quantity(head)),
        Read::Balance(a, at) => text(quantity(chain.account(a, resolve(*at, head)?).ok()?.balance)),
        Read::Nonce(a, at) => text(quantity(chain.account(a, resolve(*at, head)?).ok()?.nonce)),
        Read::Code(a, at) => text(data(&chain.code(a, resolve(*at, head)?).ok()?)),
        Read::Storage(a, slot, at) => text(data(&chain.storage(a, slot, resolve(*at, head)?).ok()?.to_be_bytes::<32>())),
        Read::Call(req, at) => {
            let outcome = match chain.call(req, resolve(*at, head)?) {
                Ok(outcome) => outcome,
                Err(ChainError::Timeout(message)) => return Some(Err(serde_json::json!({ "code": -32000, "message": message }).to_string())),
                Err(_) => return None,
            };
            if outcome.status != CallStatus::Success {
                return None;
            }
            text(data(&outcome.output))
        }
        // A database fault is the dispatcher's to report, with its error text.
        Read::Receipt(hash) => match shape::mined_receipt(&view, hash).ok()? {
            Some(receipt) => serde_json::to_string(&receipt).ok()?,
            None => "null".into(),
        },
        Read::Transaction(hash) => serde_json::to_string(&shape::mined_transaction(&view, hash).ok()??).ok()?,
        Read::BlockReceipts(at) => {
            let data = view.block_data(resolve(*at, head)?).ok()??;
            serde_json::to_string(&shape::block_receipts(&data).ok()?).ok()?
        }
        Read::Block(at, full) => {
            let data = view.block_data(resolve(*at, head)?).ok()??;
            serde_json::to_string(&shape::block(&data.block, &data.body, *full)).ok()?
        }
    }))
}

/// The response body for a plan, or None when any call in it does not simply succeed.
pub fn answer(chain: &Chain, plan: &Plan, limits: &FastLimits, counters: &FastCounters) -> Option<String> {
    let mut parts = Vec::with_capacity(plan.items.len());
    let mut bytes = 0usize;
    for item in &plan.items {
        let part = match result(chain, &item.read)? {
            Ok(result) => format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{result}}}", item.id),
            Err(error) => format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{error}}}", item.id),
        };
        bytes += part.len();
        if plan.batch && bytes > limits.max_batch_response_bytes {
            return None;
        }
        parts.push(part);
    }
    for item in &plan.items {
        counters.calls[item.read.method_index()].fetch_add(1, Ordering::Relaxed);
    }
    Some(if plan.batch { format!("[{}]", parts.join(",")) } else { parts.pop()? })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: FastLimits = FastLimits { max_batch_items: 3, max_batch_response_bytes: 1 << 20 };

    fn plans(body: &str) -> bool {
        plan(body.as_bytes(), &LIMITS).is_some()
    }

    #[test]
    fn plain_reads_are_planned() {
        assert!(plans(r#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}"#));
        assert!(plans(r#"{"jsonrpc":"2.0","id":"a","method":"eth_chainId","params":[]}"#));
        assert!(plans(r#"{"jsonrpc":"2.0","id":null,"method":"eth_getBalance","params":["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","latest"]}"#));
        assert!(plans(r#"{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","0x01"]}"#));
        assert!(plans(r#"{"jsonrpc":"2.0","id":3,"method":"eth_getStorageAt","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","0x0"]}"#));
        assert!(plans(r#"{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"to":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","data":"0x70a08231","gas":null},"latest",null]}"#));
        assert!(plans(r#"[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}]"#));
    }

    #[test]
    fn anything_the_dispatcher_must_judge_is_not_planned() {
        for body in [
            "{",
            "[]",
            r#"[1,2]"#,
            // notifications, odd ids, wrong version, unknown methods
            r#"{"jsonrpc":"2.0","method":"eth_chainId"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"eth_chainId"}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"eth_chainId"}"#,
            r#"{"jsonrpc":"2.0","id":9007199254740993,"method":"eth_chainId"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x00"]}"#,
            // bad or surplus params
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x1234","latest"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","newest"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","0x"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","latest",1]}"#,
            // block hashes and objects, pending nonces
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","0x1111111111111111111111111111111111111111111111111111111111111111"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",{"blockNumber":"0x0"}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionCount","params":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","pending"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["pending",false]}"#,
            // call objects with fields the dispatcher checks, overrides, odd data
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","chainId":"0x1"}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","data":"0x1","input":"0x1"}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","data":"0x12","input":"0x34"}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"},"latest",{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266":{}}]}"#,
            // a batch over the item cap, or with one item that is not plain
            r#"[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"},{"jsonrpc":"2.0","id":3,"method":"eth_chainId"},{"jsonrpc":"2.0","id":4,"method":"eth_chainId"}]"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_chainId"}]"#,
        ] {
            assert!(!plans(body), "planned: {body}");
        }
    }

    #[test]
    fn ids_are_written_as_javascript_writes_them() {
        assert_eq!(id_text(&serde_json::json!(7)).as_deref(), Some("7"));
        assert_eq!(id_text(&serde_json::json!(-3)).as_deref(), Some("-3"));
        assert_eq!(id_text(&serde_json::json!("x-1")).as_deref(), Some("\"x-1\""));
        assert_eq!(id_text(&Value::Null).as_deref(), Some("null"));
        assert_eq!(id_text(&serde_json::json!("line\nbreak")), None);
    }

    #[test]
    fn quantities_and_slots_parse_as_the_dispatcher_does() {
        assert_eq!(quantity_u64(&serde_json::json!("0x0010")), Some(16));
        assert_eq!(quantity_u64(&serde_json::json!("0x00000000000000000001")), Some(1));
        assert_eq!(quantity_u64(&serde_json::json!("0x10000000000000000")), None);
        assert_eq!(quantity_u64(&serde_json::json!("0x")), None);
        assert_eq!(quantity_u64(&serde_json::json!("10")), None);
        assert_eq!(storage_slot(&serde_json::json!("0x")), Some(B256::ZERO));
        assert_eq!(storage_slot(&serde_json::json!("0x1")).map(|b| b[31]), Some(1));
    }
}
