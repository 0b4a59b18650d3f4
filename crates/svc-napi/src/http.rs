//! `RpcHttpServer`: thin bindings over svc_rpc_http. The server runs on threads of its own; the
//! requests it does not answer natively reach the JavaScript handler through a threadsafe
//! function, and the handler's promise carries the reply back.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::{AsyncTask, Buffer, Either, Promise};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::{Env, Status, Task};
use napi_derive::napi;
use parking_lot::Mutex;
use svc_rpc_http::{CannedBodies, Fallback, FastLimits, ForwardedRequest, HttpServer, Reply, ReplyFuture, ServerOptions};

use crate::chain::Chain;
use crate::convert::js_error;

#[napi(object)]
pub struct HttpServerOptions {
    pub host: String,
    /// 0 asks the system for a free port.
    pub port: u32,
    /// Threads serving connections; default: the machine's cores.
    pub threads: Option<u32>,
    pub max_body_bytes: u32,
    pub max_discard_bytes: u32,
    pub discard_timeout_ms: u32,
    pub idle_timeout_ms: u32,
    /// How long a request's body may take to arrive once its headers are read.
    pub read_timeout_ms: u32,
    /// How long a write may wait for the client to read before the connection is cut.
    pub write_timeout_ms: u32,
    /// Open connections per client IP; 0 = no cap (loopback exempt with `exempt_loopback`).
    pub max_connections_per_ip: u32,
    /// Requests per second per client; 0 = no limit.
    pub rate_limit_per_second: u32,
    pub exempt_loopback: bool,
    pub max_batch_items: u32,
    pub max_batch_response_bytes: u32,
    /// The JSON bodies of the 413, 429 and 500 answers the server gives itself.
    pub body_too_large: String,
    pub rate_limited: String,
    pub internal_error: String,
    pub request_timeout: String,
    pub too_many_connections: String,
}

/// A request handed to JavaScript.
#[napi(object)]
pub struct HttpRequestInfo {
    pub method: String,
    pub path: String,
    pub content_type: Option<String>,
    pub access_control_request_headers: Option<String>,
    pub remote_address: String,
    pub body: String,
}

/// JavaScript's answer to a handed-on request.
#[napi(object)]
pub struct HttpReply {
    pub status: u32,
    pub headers: HashMap<String, String>,
    /// A string, or bytes (a large answer, sent as they are without a copy).
    pub body: Option<Either<String, Buffer>>,
}

#[napi(object)]
pub struct MethodCount {
    pub method: String,
    pub count: i64,
}

#[napi(object)]
pub struct StatusCount {
    pub status: u32,
    pub count: i64,
}

/// What the server answered without JavaScript, since it started.
#[napi(object)]
pub struct HttpServerStats {
    pub calls: Vec<MethodCount>,
    pub responses: Vec<StatusCount>,
}

type Handler = ThreadsafeFunction<HttpRequestInfo, Promise<HttpReply>, HttpRequestInfo, Status, false>;

struct JsFallback {
    handler: Arc<Handler>,
}

impl Fallback for JsFallback {
    fn forward(&self, r: ForwardedRequest) -> ReplyFuture {
        let handler = self.handler.clone();
        Box::pin(async move {
            let info = HttpRequestInfo {
                method: r.method,
                path: r.path,
                content_type: r.content_type,
                access_control_request_headers: r.access_control_request_headers,
                remote_address: r.remote_address,
                body: r.body,
            };
            let promise = handler.call_async_catch(info).await.map_err(|e| e.to_string())?;
            let reply = promise.await.map_err(|e| e.to_string())?;
            let status = u16::try_from(reply.status).map_err(|_| format!("HTTP status {} out of range", reply.status))?;
            let body = reply.body.map(|b| match b {
                Either::A(text) => bytes::Bytes::from(text),
                Either::B(buffer) => bytes::Bytes::from_owner(buffer),
            });
            Ok(Reply { status, headers: reply.headers.into_iter().collect(), body })
        })
    }
}

/// The JSON-RPC HTTP server of one chain.
#[napi]
pub struct RpcHttpServer {
    server: Arc<Mutex<Option<HttpServer>>>,
    port: u32,
    stats: Arc<svc_rpc_http::ServerStats>,
}

#[napi]
impl RpcHttpServer {
    /// Bind and start serving; `handler` answers every request that is not a plain state read.
    #[napi(factory)]
    pub fn start(
        chain: &Chain,
        options: HttpServerOptions,
        #[napi(ts_arg_type = "(request: HttpRequestInfo) => Promise<HttpReply>")] handler: Handler,
    ) -> napi::Result<Self> {
        let threads = options.threads.map_or_else(
            || std::thread::available_parallelism().map_or(2, |n| n.get()),
            |n| n as usize,
        );
        let port = u16::try_from(options.port).map_err(|_| js_error(format!("port {} out of range", options.port)))?;
        let server_options = ServerOptions {
            host: options.host,
            port,
            threads,
            max_body_bytes: options.max_body_bytes as usize,
            max_discard_bytes: options.max_discard_bytes as usize,
            discard_timeout: Duration::from_millis(options.discard_timeout_ms.into()),
            idle_timeout: Duration::from_millis(options.idle_timeout_ms.into()),
            read_timeout: Duration::from_millis(options.read_timeout_ms.into()),
            write_timeout: Duration::from_millis(options.write_timeout_ms.into()),
            max_connections_per_ip: options.max_connections_per_ip as usize,
            rate_limit_per_second: options.rate_limit_per_second,
            exempt_loopback: options.exempt_loopback,
            limits: FastLimits {
                max_batch_items: options.max_batch_items as usize,
                max_batch_response_bytes: options.max_batch_response_bytes as usize,
            },
            canned: CannedBodies {
                body_too_large: options.body_too_large,
                rate_limited: options.rate_limited,
                internal_error: options.internal_error,
                request_timeout: options.request_timeout,
                too_many_connections: options.too_many_connections,
            },
        };
        let fallback = Arc::new(JsFallback { handler: Arc::new(handler) });
        let server = HttpServer::start(chain.shared()?, server_options, fallback).map_err(js_error)?;
        Ok(Self { port: server.local_addr().port().into(), stats: server.stats().clone(), server: Arc::new(Mutex::new(Some(server))) })
    }

    /// The port it listens on.
    #[napi(getter)]
    pub fn port(&self) -> u32 {
        self.port
    }

    #[napi]
    pub fn stats(&self) -> HttpServerStats {
        HttpServerStats {
            calls: self.stats.fast.snapshot().into_iter().map(|(m, c)| MethodCount { method: m.to_owned(), count: c as i64 }).collect(),
            responses: self.stats.responses().into_iter().map(|(s, c)| StatusCount { status: s.into(), count: c as i64 }).collect(),
        }
    }

    /// Stop accepting, close idle connections and wait for requests in flight (off the JS thread,
    /// which must stay free to answer the ones handed to it).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<CloseTask> {
        AsyncTask::new(CloseTask { server: self.server.clone() })
    }
}

pub struct CloseTask {
    server: Arc<Mutex<Option<HttpServer>>>,
}

impl Task for CloseTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<()> {
        let server = self.server.lock().take();
        if let Some(mut server) = server {
            server.shutdown();
        }
        Ok(())
    }

    fn resolve(&mut self, _env: Env, _out: ()) -> napi::Result<()> {
        Ok(())
    }
}
