//! The HTTP front over real sockets and a real chain in a temp dir: what it answers itself, what
//! it hands on, and the limits it enforces before either.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{address, Address, Bytes, U256};
use bytes::Bytes as RawBytes;
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::{BodyExt, Full};
use hyper::body::Frame;
use hyper::Request;
use hyper_util::rt::TokioIo;
use svc_evm::{Chain, ChainConfig, GenesisAccount, GenesisSpec};
use svc_rpc_http::{CannedBodies, Fallback, FastLimits, ForwardedRequest, HttpServer, Reply, ReplyFuture, ServerOptions};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

const RICH: Address = address!("f39fd6e51aad88f6f4ce6ab8827279cfffb92266");
/// Returns the word 42: PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
const ANSWER: Address = address!("00000000000000000000000000000000000000a1");
/// Reverts with no data: PUSH1 0 PUSH1 0 REVERT.
const REVERTER: Address = address!("00000000000000000000000000000000000000a2");
/// Emits one empty log: PUSH1 0 PUSH1 0 LOG0 STOP.
const LOGGER: Address = address!("00000000000000000000000000000000000000a3");
const MAX_BODY: usize = 4096;

/// Keys that sign real transactions (the engine tests' helpers).
#[path = "../../svc-evm/tests/common/mod.rs"]
mod common;

/// Records what it is handed and answers 200 with a body naming the path.
#[derive(Default)]
struct Recorder {
    seen: Arc<Mutex<Vec<ForwardedRequest>>>,
    calls: AtomicUsize,
}

impl Fallback for Recorder {
    fn forward(&self, request: ForwardedRequest) -> ReplyFuture {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let body = format!("{{\"from\":\"fallback\",\"path\":\"{}\"}}", request.path);
        let seen = self.seen.clone();
        Box::pin(async move {
            seen.lock().await.push(request);
            Ok(Reply { status: 200, headers: vec![("x-handled-by".into(), "fallback".into())], body: Some(body.into()) })
        })
    }
}

/// Fields drop in order: the server (and with it the chain) before the directory it lives in.
struct Fixture {
    server: HttpServer,
    chain: Arc<Chain>,
    recorder: Arc<Recorder>,
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Drop for Fixture {
    /// A clean stop, so that no server thread still holds the database when the test process exits.
    fn drop(&mut self) {
        self.server.shutdown();
    }
}

fn genesis() -> GenesisSpec {
    GenesisSpec {
        chain_id: 9000,
        timestamp: 1_700_000_000,
        gas_limit: 30_000_000,
        base_fee_per_gas: 1_000_000_000,
        coinbase: Address::ZERO,
        extra_data: Bytes::new(),
        alloc: vec![
            GenesisAccount { address: RICH, balance: U256::from(10_000u64) * U256::from(10u64).pow(U256::from(18)), ..Default::default() },
            GenesisAccount { address: ANSWER, code: Some(Bytes::from_static(&[0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3])), ..Default::default() },
            GenesisAccount { address: REVERTER, code: Some(Bytes::from_static(&[0x60, 0x00, 0x60, 0x00, 0xfd])), ..Default::default() },
            GenesisAccount { address: LOGGER, code: Some(Bytes::from_static(&[0x60, 0x00, 0x60, 0x00, 0xa0, 0x00])), ..Default::default() },
            GenesisAccount { address: common::Key::new(1).address, balance: U256::from(10u64).pow(U256::from(20)), ..Default::default() },
        ],
    }
}

fn start(rate_limit_per_second: u32, exempt_loopback: bool) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let chain = Arc::new(Chain::open(dir.path(), &genesis(), ChainConfig::default()).unwrap());
    let recorder = Arc::new(Recorder::default());
    let options = ServerOptions {
        host: "127.0.0.1".into(),
        port: 0,
        threads: 2,
        max_body_bytes: MAX_BODY,
        max_discard_bytes: 1 << 20,
        discard_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(30),
        read_timeout: Duration::from_secs(30),
        write_timeout: Duration::from_secs(30),
        max_connections_per_ip: 0,
        rate_limit_per_second,
        exempt_loopback,
        limits: FastLimits { max_batch_items: 10, max_batch_response_bytes: 1 << 20 },
        canned: CannedBodies { body_too_large: "\"too large\"".into(), rate_limited: "\"rate limited\"".into(), internal_error: "\"internal\"".into(), request_timeout: "\"timeout\"".into(), too_many_connections: "\"too many\"".into() },
    };
    let server = HttpServer::start(chain.clone(), options, recorder.clone()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    Fixture { server, chain, recorder, runtime, _dir: dir }
}

struct Answer {
    status: u16,
    headers: hyper::HeaderMap,
    body: String,
}

async fn send<B>(addr: SocketAddr, request: Request<B>) -> Answer
where
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(connection);
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = String::from_utf8(response.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    Answer { status, headers, body }
}

impl Fixture {
    fn post(&self, body: &str) -> Answer {
        let request = Request::post("/")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(RawBytes::from(body.to_owned())))
            .unwrap();
        self.runtime.block_on(send(self.server.local_addr(), request))
    }

    fn forwarded(&self) -> usize {
        self.recorder.calls.load(Ordering::SeqCst)
    }

    fn fast_count(&self, method: &str) -> u64 {
        self.server.stats().fast.snapshot().into_iter().find(|(m, _)| *m == method).map_or(0, |(_, c)| c)
    }
}

fn call(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{params}}}"#)
}

#[test]
fn plain_reads_are_answered_natively_with_the_id_echoed() {
    let f = start(0, false);
    let a = f.post(&call("eth_chainId", "[]"));
    assert_eq!(a.status, 200);
    assert_eq!(a.body, r#"{"jsonrpc":"2.0","id":7,"result":"0x2328"}"#);
    assert_eq!(a.headers["content-type"], "application/json");
    assert_eq!(a.headers["access-control-allow-origin"], "*");

    assert_eq!(f.post(&call("eth_blockNumber", "[]")).body, r#"{"jsonrpc":"2.0","id":7,"result":"0x0"}"#);
    let balance = f.post(&call("eth_getBalance", r#"["0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266","latest"]"#));
    assert_eq!(balance.body, r#"{"jsonrpc":"2.0","id":7,"result":"0x21e19e0c9bab2400000"}"#);
    let code = f.post(&call("eth_getCode", r#"["0x00000000000000000000000000000000000000a2"]"#));
    assert_eq!(code.body, r#"{"jsonrpc":"2.0","id":7,"result":"0x60006000fd"}"#);
    let slot = f.post(&call("eth_getStorageAt", r#"["0x00000000000000000000000000000000000000a1","0x0","earliest"]"#));
    assert!(slot.body.contains(&format!("\"0x{}\"", "0".repeat(64))), "{}", slot.body);
    let called = f.post(&call("eth_call", r#"[{"to":"0x00000000000000000000000000000000000000a1","data":"0x"},"0x0"]"#));
    assert_eq!(called.body, format!(r#"{{"jsonrpc":"2.0","id":7,"result":"0x{}2a"}}"#, "0".repeat(62)));

    let batch = f.post(&format!("[{},{}]", call("eth_chainId", "[]"), call("eth_getTransactionCount", r#"["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"]"#)));
    assert_eq!(batch.body, r#"[{"jsonrpc":"2.0","id":7,"result":"0x2328"},{"jsonrpc":"2.0","id":7,"result":"0x0"}]"#);

    assert_eq!(f.forwarded(), 0);
    assert_eq!(f.fast_count("eth_chainId"), 2);
    assert_eq!(f.fast_count("eth_call"), 1);
}

#[test]
fn receipts_and_mined_transactions_are_answered_natively_as_the_addon_builds_them() {
    let f = start(0, false);
    let key = common::Key::new(1);
    let txs = vec![key.tx1559(0, Some(LOGGER), 0, vec![], 50_000), key.tx1559(1, Some(LOGGER), 5, vec![], 50_000)];
    let produced = f.chain.produce_block(common::request(&f.chain, txs, vec![key.address; 2])).unwrap();
    let [first, second] = [produced.included[0], produced.included[1]];

    let receipt = |hash: &str| -> serde_json::Value {
        let a = f.post(&call("eth_getTransactionReceipt", &format!(r#"["{hash}"]"#)));
        assert_eq!(a.status, 200);
        serde_json::from_str(&a.body).unwrap()
    };
    let answer = receipt(&second.to_string());
    let r = &answer["result"];
    assert_eq!(answer["id"], 7);
    assert_eq!(r["transactionHash"], second.to_string());
    assert_eq!(r["transactionIndex"], "0x1");
    assert_eq!(r["blockNumber"], "0x1");
    assert_eq!(r["status"], "0x1");
    // Each transaction's own gas, and the block-wide index of its log.
    let cumulative = u64::from_str_radix(r["cumulativeGasUsed"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    let gas = u64::from_str_radix(r["gasUsed"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert!(gas > 21_000 && cumulative == 2 * gas, "gas {gas}, cumulative {cumulative}");
    assert_eq!(r["logs"][0]["logIndex"], "0x1");
    assert_eq!(r["logs"][0]["transactionIndex"], "0x1");
    assert_eq!(r["logs"][0]["address"].as_str().unwrap().to_lowercase(), LOGGER.to_string().to_lowercase());

    // The same objects the addon's methods give (one builder, svc_rpc_http::shape).
    let data = f.chain.view().block_data(1).unwrap().unwrap();
    let all = svc_rpc_http::shape::block_receipts(&data).unwrap();
    assert_eq!(receipt(&first.to_string())["result"], all[0]);
    assert_eq!(*r, all[1]);
    let block: serde_json::Value = serde_json::from_str(&f.post(&call("eth_getBlockReceipts", r#"["latest"]"#)).body).unwrap();
    assert_eq!(block["result"], serde_json::Value::Array(all.clone()));
    for (params, full) in [(r#"["0x1"]"#, false), (r#"["latest",false]"#, false), (r#"["latest",true]"#, true)] {
        let got: serde_json::Value = serde_json::from_str(&f.post(&call("eth_getBlockByNumber", params)).body).unwrap();
        assert_eq!(got["result"], svc_rpc_http::shape::block(&data.block, &data.body, full), "{params}");
    }
    assert_eq!(f.fast_count("eth_getBlockByNumber"), 3);
    // The explorer's list form: every field but the transactions, and their number.
    let mut summary = svc_rpc_http::shape::block_summary(&data.block, &data.body);
    assert_eq!(summary["transactionCount"], "0x2");
    summary.as_object_mut().unwrap().remove("transactionCount");
    let mut whole = svc_rpc_http::shape::block(&data.block, &data.body, false);
    whole.as_object_mut().unwrap().remove("transactions");
    assert_eq!(summary, whole);
    assert_eq!(f.post(&call("eth_getBlockByNumber", r#"["latest","yes"]"#)).headers["x-handled-by"], "fallback");
    let tx = f.post(&call("eth_getTransactionByHash", &format!(r#"["{second}"]"#)));
    let tx: serde_json::Value = serde_json::from_str(&tx.body).unwrap();
    assert_eq!(tx["result"], svc_rpc_http::shape::transaction_at(&data, 1).unwrap().unwrap());
    assert_eq!(tx["result"]["value"], "0x5");

    // Not mined: a null receipt here; the transaction may be in the pool, which the dispatcher knows.
    let unknown = format!("0x{}", "ab".repeat(32));
    assert_eq!(f.post(&call("eth_getTransactionReceipt", &format!(r#"["{unknown}"]"#))).body, r#"{"jsonrpc":"2.0","id":7,"result":null}"#);
    // Only the block asked for with a non-boolean flag went to the dispatcher so far.
    assert_eq!(f.forwarded(), 1);
    let pooled = f.post(&call("eth_getTransactionByHash", &format!(r#"["{unknown}"]"#)));
    assert_eq!(pooled.headers["x-handled-by"], "fallback");
    // A short hash is the dispatcher's to refuse, with its error text.
    let short = f.post(&call("eth_getTransactionReceipt", r#"["0xabcd"]"#));
    assert_eq!(short.headers["x-handled-by"], "fallback");
    assert_eq!(f.fast_count("eth_getTransactionReceipt"), 3);
    assert_eq!(f.fast_count("eth_getTransactionByHash"), 1);
    assert_eq!(f.fast_count("eth_getBlockReceipts"), 1);
    // A block beyond the head, or named by hash: the dispatcher's.
    assert_eq!(f.post(&call("eth_getBlockReceipts", r#"["0x9"]"#)).headers["x-handled-by"], "fallback");
    let by_hash = f.post(&call("eth_getBlockReceipts", &format!(r#"["{}"]"#, produced.block.hash)));
    assert_eq!(by_hash.headers["x-handled-by"], "fallback");

    // Once the block has left the cache of recent blocks, its receipts are decoded from the database alike.
    for nonce in 2..12 {
        f.chain.produce_block(common::request(&f.chain, vec![key.tx1559(nonce, Some(LOGGER), 0, vec![], 50_000)], vec![key.address])).unwrap();
    }
    assert_eq!(receipt(&second.to_string()), answer);
}

#[test]
fn errors_reverts_and_other_methods_are_handed_on_with_the_body() {
    let f = start(0, false);
    let bodies = [
        call("eth_sendRawTransaction", r#"["0x00"]"#),
        // a revert: the dispatcher writes code 3 and the data
        call("eth_call", r#"[{"to":"0x00000000000000000000000000000000000000a2"}]"#),
        // beyond the head: the dispatcher writes "header not found"
        call("eth_getBalance", r#"["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","0x5"]"#),
        call("eth_getTransactionCount", r#"["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","pending"]"#),
        "{not json".to_owned(),
    ];
    for (i, body) in bodies.iter().enumerate() {
        let a = f.post(body);
        assert_eq!(a.headers["x-handled-by"], "fallback", "{body}");
        assert_eq!(f.forwarded(), i + 1);
    }
    let seen = f.runtime.block_on(async { f.recorder.seen.lock().await.clone() });
    assert_eq!(seen.iter().map(|r| r.body.as_str()).collect::<Vec<_>>(), bodies.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(seen.iter().all(|r| r.method == "POST" && r.remote_address == "127.0.0.1"));
    assert_eq!(f.fast_count("eth_call"), 0);
}

#[test]
fn other_routes_and_content_types_are_handed_on_without_reading_a_body() {
    let f = start(0, false);
    let get = Request::get("/metrics?x=1").header("host", "localhost").body(Full::new(RawBytes::new())).unwrap();
    let a = f.runtime.block_on(send(f.server.local_addr(), get));
    assert_eq!(a.body, r#"{"from":"fallback","path":"/metrics?x=1"}"#);
    let text = Request::post("/").header("host", "localhost").header("content-type", "text/plain").body(Full::new(RawBytes::from("hello"))).unwrap();
    f.runtime.block_on(send(f.server.local_addr(), text));
    let seen = f.runtime.block_on(async { f.recorder.seen.lock().await.clone() });
    assert_eq!(seen[1].content_type.as_deref(), Some("text/plain"));
    assert_eq!(seen[1].body, "");
}

#[test]
fn bodies_over_the_cap_are_413_announced_or_streamed_and_the_connection_closes() {
    let f = start(0, false);
    let announced = f.post(&format!(r#"{{"jsonrpc":"2.0","id":1,"method":"eth_chainId","pad":"{}"}}"#, "x".repeat(MAX_BODY)));
    assert_eq!(announced.status, 413);
    assert_eq!(announced.body, "\"too large\"");
    assert_eq!(announced.headers["connection"], "close");

    let streamed = Request::post("/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .body(Chunks((0..8).map(|_| RawBytes::from(vec![b' '; 1024])).collect()))
        .unwrap();
    let a = f.runtime.block_on(send(f.server.local_addr(), streamed));
    assert_eq!(a.status, 413);
    assert_eq!(f.forwarded(), 0);
}

/// A body of several chunks with no announced length (sent with chunked transfer encoding).
struct Chunks(VecDeque<RawBytes>);

impl hyper::body::Body for Chunks {
    type Data = RawBytes;
    type Error = std::convert::Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Result<Frame<RawBytes>, Self::Error>>> {
        Poll::Ready(self.0.pop_front().map(|c| Ok(Frame::data(c))))
    }
}

#[test]
fn the_rate_limit_answers_429_with_retry_after_and_counts_batch_items() {
    let f = start(3, false);
    let batch = format!("[{},{},{}]", call("eth_chainId", "[]"), call("eth_chainId", "[]"), call("eth_chainId", "[]"));
    assert_eq!(f.post(&batch).status, 200);
    let refused = f.post(&call("eth_chainId", "[]"));
    assert_eq!(refused.status, 429);
    assert_eq!(refused.body, "\"rate limited\"");
    assert!(refused.headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
    // Handed-on requests are metered too.
    assert_eq!(f.post(&call("eth_sendRawTransaction", "[]")).status, 429);
    assert_eq!(f.forwarded(), 0);

    let exempt = start(1, true);
    for _ in 0..5 {
        assert_eq!(exempt.post(&call("eth_chainId", "[]")).status, 200);
    }
}

#[test]
fn shutdown_waits_for_nothing_when_idle_and_frees_the_port() {
    let mut f = start(0, false);
    let addr = f.server.local_addr();
    assert_eq!(f.post(&call("eth_chainId", "[]")).status, 200);
    f.server.shutdown();
    assert!(std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err());
}
