//! The HTTP server: hyper (HTTP/1.1, keep-alive) on a tokio runtime of its own. It meters clients,
//! refuses oversized bodies, answers plain state reads natively (see `fast`) and hands every
//! other request to a `Fallback`, the TypeScript dispatcher in the node.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use svc_evm::Chain;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::{oneshot, watch};

use crate::fast::{self, FastCounters, FastLimits};
use crate::connections::ConnectionCounter;
use crate::limiter::{Admission, RateLimiter};
use crate::timed_io::TimedWrites;

/// Media types geth accepts for a JSON-RPC POST.
const JSON_MEDIA_TYPES: [&str; 3] = ["application/json", "application/json-rpc", "application/jsonrequest"];

/// Bodies of the refusals this server makes itself, written by the dispatcher that owns the texts.
#[derive(Debug, Clone)]
pub struct CannedBodies {
    pub body_too_large: String,
    pub rate_limited: String,
    pub internal_error: String,
    /// 408: the body did not arrive within the read timeout.
    pub request_timeout: String,
    /// 429 to a connection over the per-client cap (then closed).
    pub too_many_connections: String,
}

#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub host: String,
    /// 0 asks the system for a free port.
    pub port: u16,
    /// Threads serving connections (and native reads).
    pub threads: usize,
    pub max_body_bytes: usize,
    /// Bytes of a refused body read and thrown away so that the 413 reaches the client.
    pub max_discard_bytes: usize,
    pub discard_timeout: Duration,
    /// How long a connection may wait for the next request's headers, idle keep-alive time included.
    pub idle_timeout: Duration,
    /// How long a request's body may take to arrive once its headers are read (geth's ReadTimeout).
    pub read_timeout: Duration,
    /// How long a write may wait for the client to read (geth's WriteTimeout); past it the connection is cut.
    pub write_timeout: Duration,
    /// Open connections per client address; 0 = no cap. Loopback is exempt with `exempt_loopback`.
    pub max_connections_per_ip: usize,
    /// Requests per second per client; 0 = no limit.
    pub rate_limit_per_second: u32,
    pub exempt_loopback: bool,
    pub limits: FastLimits,
    pub canned: CannedBodies,
}

/// A request the fallback answers: the parts of it the dispatcher reads.
#[derive(Debug, Clone)]
pub struct ForwardedRequest {
    pub method: String,
    /// Path and query as sent.
    pub path: String,
    pub content_type: Option<String>,
    pub access_control_request_headers: Option<String>,
    pub remote_address: String,
    /// The body as UTF-8 (invalid sequences replaced), empty for bodiless requests.
    pub body: String,
}

/// The fallback's answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// None: no body at all. Bytes, so that a large answer made elsewhere is sent without a copy.
    pub body: Option<Bytes>,
}

pub type ReplyFuture = Pin<Box<dyn Future<Output = Result<Reply, String>> + Send>>;

/// Where requests that are not answered natively go.
pub trait Fallback: Send + Sync + 'static {
    fn forward(&self, request: ForwardedRequest) -> ReplyFuture;
}

/// HTTP statuses this server produces itself, in the order of their counters.
const NATIVE_STATUSES: [u16; 6] = [200, 400, 408, 413, 429, 500];

/// What the server answered itself (the fallback counts its own answers).
#[derive(Default)]
pub struct ServerStats {
    pub fast: FastCounters,
    responses: [AtomicU64; NATIVE_STATUSES.len()],
}

impl ServerStats {
    fn count(&self, status: StatusCode) {
        if let Some(i) = NATIVE_STATUSES.iter().position(|s| *s == status.as_u16()) {
            self.responses[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// HTTP responses by status code that did not come from the fallback.
    pub fn responses(&self) -> Vec<(u16, u64)> {
        NATIVE_STATUSES.iter().zip(&self.responses).map(|(s, c)| (*s, c.load(Ordering::Relaxed))).collect()
    }
}

struct State {
    chain: Arc<Chain>,
    options: ServerOptions,
    limiter: Option<RateLimiter>,
    fallback: Arc<dyn Fallback>,
    stats: Arc<ServerStats>,
}

/// A running server. `shutdown` (or drop) stops it.
pub struct HttpServer {
    local_addr: SocketAddr,
    stats: Arc<ServerStats>,
    stop: Option<watch::Sender<bool>>,
    stopped: Option<oneshot::Receiver<()>>,
    runtime: Option<Runtime>,
}

type Body = Full<Bytes>;

fn with_cors(mut response: Response<Body>) -> Response<Body> {
    let h = response.headers_mut();
    h.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    h.insert("access-control-allow-methods", HeaderValue::from_static("POST, GET, OPTIONS"));
    response
}

/// Headers on every answer of this port, the dispatcher's and this server's own alike (docs/rpc.md,
/// "Response headers"; the node's other ports add the same pair in src/net/edge-headers.ts).
const EDGE_HEADERS: [(&str, &str); 2] = [("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer")];

fn with_edge_headers<B>(mut response: Response<B>) -> Response<B> {
    for (name, value) in EDGE_HEADERS {
        response.headers_mut().insert(name, HeaderValue::from_static(value));
    }
    response
}

fn json(state: &State, status: StatusCode, body: String) -> Response<Body> {
    state.stats.count(status);
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    with_cors(response)
}

fn is_json(req: &Request<Incoming>) -> bool {
    let Some(value) = req.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else { return false };
    let media = value.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    JSON_MEDIA_TYPES.contains(&media.as_str())
}

fn header(req: &Request<Incoming>, name: &str) -> Option<String> {
    req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// Reads and throws away the rest of a refused body, within a byte cap and a time limit. Answering
/// only then lets the client read the answer; closing a socket with unread input resets it.
async fn discard(mut body: Incoming, mut read: usize, cap: usize, timeout: Duration) {
    let drain = async {
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { return };
            read += frame.data_ref().map_or(0, Bytes::len);
            if read > cap {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(timeout, drain).await;
}

enum BodyRead {
    Complete(Vec<u8>),
    TooLarge,
    Broken,
    TimedOut,
}

/// The whole body, or TooLarge as soon as it grows past the cap (the rest is discarded, not kept).
async fn read_body(mut body: Incoming, options: &ServerOptions) -> BodyRead {
    let mut buf = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { return BodyRead::Broken };
        if let Some(data) = frame.data_ref() {
            if buf.len() + data.len() > options.max_body_bytes {
                let read = buf.len() + data.len();
                discard(body, read, options.max_discard_bytes, options.discard_timeout).await;
                return BodyRead::TooLarge;
            }
            buf.extend_from_slice(data);
        }
    }
    BodyRead::Complete(buf)
}

/// Items of a batch body, for the limiter: what the dispatcher would run (1..=cap items), else 1.
fn batch_items(body: &[u8], cap: usize) -> usize {
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'[') {
        return 1;
    }
    match serde_json::from_slice::<Vec<&serde_json::value::RawValue>>(body) {
        Ok(items) if !items.is_empty() && items.len() <= cap => items.len(),
        _ => 1,
    }
}

async fn forward(state: &State, request: ForwardedRequest) -> Response<Body> {
    match state.fallback.forward(request).await {
        Ok(reply) => {
            let mut response = Response::new(Full::new(reply.body.unwrap_or_default()));
            *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            for (name, value) in reply.headers {
                if let (Ok(name), Ok(value)) = (hyper::header::HeaderName::try_from(name), HeaderValue::try_from(value)) {
                    response.headers_mut().insert(name, value);
                }
            }
            response
        }
        Err(_) => json(state, StatusCode::INTERNAL_SERVER_ERROR, state.options.canned.internal_error.clone()),
    }
}

async fn serve_rpc(req: Request<Incoming>, ip: IpAddr, state: Arc<State>) -> Response<Body> {
    if let Some(limiter) = &state.limiter {
        if let Admission::Refused { retry_after_seconds } = limiter.admit(ip) {
            let mut response = json(&state, StatusCode::TOO_MANY_REQUESTS, state.options.canned.rate_limited.clone());
            response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(retry_after_seconds));
            return response;
        }
    }
    let json_body = is_json(&req);
    let forwarded = ForwardedRequest {
        method: req.method().to_string(),
        path: req.uri().path_and_query().map_or("/", |p| p.as_str()).to_owned(),
        content_type: header(&req, "content-type"),
        access_control_request_headers: None,
        remote_address: ip.to_string(),
        body: String::new(),
    };
    // Anything but JSON is refused by the dispatcher (415) without reading the body.
    if !json_body {
        return forward(&state, forwarded).await;
    }
    let options = &state.options;
    let declared = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    let read = if declared.is_some_and(|n| n > options.max_body_bytes as u64) {
        discard(req.into_body(), 0, options.max_discard_bytes, options.discard_timeout).await;
        BodyRead::TooLarge
    } else {
        // A body that trickles in is cut at the read timeout, however slowly each byte comes.
        tokio::time::timeout(options.read_timeout, read_body(req.into_body(), options)).await.unwrap_or(BodyRead::TimedOut)
    };
    let body = match read {
        BodyRead::Complete(body) => body,
        BodyRead::TooLarge => {
            let mut response = json(&state, StatusCode::PAYLOAD_TOO_LARGE, options.canned.body_too_large.clone());
            response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
        BodyRead::TimedOut => {
            let mut response = json(&state, StatusCode::REQUEST_TIMEOUT, options.canned.request_timeout.clone());
            response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
        BodyRead::Broken => {
            state.stats.count(StatusCode::BAD_REQUEST);
            let mut response = Response::new(Body::default());
            *response.status_mut() = StatusCode::BAD_REQUEST;
            return response;
        }
    };

    if let Some(plan) = fast::plan(&body, &options.limits) {
        if let Some(limiter) = &state.limiter {
            limiter.charge(ip, plan.len() - 1);
        }
        let answer = if plan.executes() {
            // The EVM may run for a while: it runs on the exec lane, bounded like every other call.
            // A full lane hands the request to the dispatcher, which answers -32005 with the reason.
            let worker = state.clone();
            let (tx, rx) = oneshot::channel();
            let submitted = svc_lanes::lanes().exec.submit(move || {
                let _ = tx.send(fast::answer(&worker.chain, &plan, &worker.options.limits, &worker.stats.fast));
            });
            match submitted {
                Ok(()) => rx.await.ok().flatten(),
                Err(_) => None,
            }
        } else {
            fast::answer(&state.chain, &plan, &options.limits, &state.stats.fast)
        };
        if let Some(text) = answer {
            return json(&state, StatusCode::OK, text);
        }
    } else if let Some(limiter) = &state.limiter {
        limiter.charge(ip, batch_items(&body, options.limits.max_batch_items) - 1);
    }
    let body = match String::from_utf8(body) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    forward(&state, ForwardedRequest { body, ..forwarded }).await
}

async fn handle(req: Request<Incoming>, ip: IpAddr, state: Arc<State>) -> Result<Response<Body>, Infallible> {
    if req.method() == Method::POST && req.uri().path() == "/" {
        return Ok(serve_rpc(req, ip, state).await);
    }
    let request = ForwardedRequest {
        method: req.method().to_string(),
        path: req.uri().path_and_query().map_or("/", |p| p.as_str()).to_owned(),
        content_type: header(&req, "content-type"),
        access_control_request_headers: header(&req, "access-control-request-headers"),
        remote_address: ip.to_string(),
        body: String::new(),
    };
    Ok(forward(&state, request).await)
}

async fn accept_loop(listener: TcpListener, state: Arc<State>, mut stop: watch::Receiver<bool>, stopped: oneshot::Sender<()>) {
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(state.options.idle_timeout).keep_alive(true);
    let connections = ConnectionCounter::new(state.options.max_connections_per_ip, state.options.exempt_loopback);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, remote)) => {
                    let _ = stream.set_nodelay(true);
                    let ip = remote.ip();
                    let Some(slot) = connections.admit(ip) else {
                        state.stats.count(StatusCode::TOO_MANY_REQUESTS);
                        tokio::spawn(refuse_connection(stream, state.options.canned.too_many_connections.clone(), state.options.write_timeout));
                        continue;
                    };
                    let state = state.clone();
                    let io = TimedWrites::new(stream, state.options.write_timeout);
                    let service = service_fn(move |req| {
                        let answer = handle(req, ip, state.clone());
                        async move { answer.await.map(with_edge_headers) }
                    });
                    let connection = graceful.watch(http.serve_connection(TokioIo::new(io), service));
                    tokio::spawn(async move {
                        let _ = connection.await;
                        drop(slot);
                    });
                }
                // Out of file descriptors and the like: wait a little instead of spinning.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            _ = stop.changed() => break,
        }
    }
    drop(listener);
    // Idle kept-alive connections close now; requests in flight are answered first.
    let _ = tokio::time::timeout(Duration::from_secs(10), graceful.shutdown()).await;
    let _ = stopped.send(());
}

/// Answers a connection over the per-client cap with 429 and closes it, without reading its request.
async fn refuse_connection(mut stream: tokio::net::TcpStream, body: String, write_timeout: Duration) {
    use tokio::io::AsyncWriteExt;
    let edge: String = EDGE_HEADERS.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect();
    let head = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\naccess-control-allow-origin: *\r\n{edge}\r\n",
        body.len()
    );
    let write = async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(write_timeout, write).await;
}

impl HttpServer {
    /// Binds `options.host:options.port` and starts serving.
    pub fn start(chain: Arc<Chain>, options: ServerOptions, fallback: Arc<dyn Fallback>) -> io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(options.threads.max(1))
            .thread_name("svc-rpc-http")
            .enable_all()
            .build()?;
        let listener = runtime.block_on(async {
            let mut last = io::Error::new(io::ErrorKind::AddrNotAvailable, format!("{} resolves to no address", options.host));
            for addr in tokio::net::lookup_host((options.host.as_str(), options.port)).await? {
                match TcpListener::bind(addr).await {
                    Ok(listener) => return Ok(listener),
                    Err(e) => last = e,
                }
            }
            Err(last)
        })?;
        let local_addr = listener.local_addr()?;
        let stats = Arc::new(ServerStats::default());
        let limiter = (options.rate_limit_per_second > 0).then(|| RateLimiter::new(options.rate_limit_per_second, options.exempt_loopback));
        let state = Arc::new(State { chain, options, limiter, fallback, stats: stats.clone() });
        let (stop_tx, stop_rx) = watch::channel(false);
        let (stopped_tx, stopped_rx) = oneshot::channel();
        runtime.spawn(accept_loop(listener, state, stop_rx, stopped_tx));
        Ok(Self { local_addr, stats, stop: Some(stop_tx), stopped: Some(stopped_rx), runtime: Some(runtime) })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    pub fn stats(&self) -> &Arc<ServerStats> {
        &self.stats
    }

    /// Stops accepting, closes idle connections, waits for requests in flight (their fallback
    /// calls must still be answered: never call this on the thread that answers them), then
    /// ends the runtime. Idempotent.
    pub fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        if let (Some(stopped), Some(runtime)) = (self.stopped.take(), self.runtime.as_ref()) {
            let _ = runtime.block_on(stopped);
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
