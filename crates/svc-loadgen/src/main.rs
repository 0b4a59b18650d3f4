//! svc-loadgen: N kept-alive HTTP/1.1 connections, each POSTing the same JSON-RPC body and waiting
//! for the answer before sending the next, for a fixed time. One thread, so that the generator's
//! own cost stays small and the servers it measures get the machine. Prints one JSON object.
//!
//! usage: svc-loadgen --url http://127.0.0.1:8545/ --body '{"jsonrpc":"2.0",...}' [--connections 32] [--duration-ms 5000]
//!        svc-loadgen --method GET --url 'http://127.0.0.1:8080/api/v1/blocks?limit=25' --expect '"ok":true' --reject '"ok":false'
//! An answer counts when its status is 200, it contains --expect (default "result") and not
//! --reject (default "error").
//!
//!        svc-loadgen sign SPEC OUT   signs the benchmarks' transactions (see sign.rs)

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

struct Args {
    url: String,
    method: hyper::Method,
    body: String,
    expect: String,
    reject: String,
    connections: usize,
    duration: Duration,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        url: String::new(),
        method: hyper::Method::POST,
        body: String::new(),
        expect: "\"result\"".into(),
        reject: "\"error\"".into(),
        connections: 32,
        duration: Duration::from_millis(5_000),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => args.url = value()?,
            "--body" => args.body = value()?,
            "--method" => args.method = value()?.parse().map_err(|_| "--method must be an HTTP method")?,
            "--expect" => args.expect = value()?,
            "--reject" => args.reject = value()?,
            "--connections" => args.connections = value()?.parse().map_err(|_| "--connections must be a positive integer")?,
            "--duration-ms" => args.duration = Duration::from_millis(value()?.parse().map_err(|_| "--duration-ms must be an integer")?),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if args.url.is_empty() || (args.method == hyper::Method::POST && args.body.is_empty()) || args.connections == 0 {
        return Err("usage: svc-loadgen --url URL [--method GET] [--body JSON] [--expect TEXT] [--reject TEXT] [--connections N] [--duration-ms MS]".into());
    }
    Ok(args)
}

#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
}

impl Tally {
    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }
}

/// What one connection sends and how it judges answers.
#[derive(Clone)]
struct Load {
    method: hyper::Method,
    authority: String,
    path: String,
    body: Bytes,
    expect: String,
    reject: String,
}

/// One connection's loop; reconnects when the server closes it.
async fn worker(addr: SocketAddr, load: Load, deadline: Instant) -> Tally {
    let mut tally = Tally::default();
    'connect: while Instant::now() < deadline {
        let stream = match TcpStream::connect(addr).await {
            Ok(s) => s,
            Err(e) => {
                tally.error(format!("connect: {e}"));
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (mut sender, connection) = match hyper::client::conn::http1::handshake(TokioIo::new(stream)).await {
            Ok(pair) => pair,
            Err(e) => {
                tally.error(format!("handshake: {e}"));
                continue;
            }
        };
        tokio::spawn(connection);
        while Instant::now() < deadline {
            if sender.ready().await.is_err() {
                continue 'connect;
            }
            let request = Request::builder()
                .method(load.method.clone())
                .uri(load.path.as_str())
                .header(HOST, load.authority.as_str())
                .header(CONTENT_TYPE, "application/json")
                .body(Full::new(load.body.clone()))
                .expect("a valid request");
            let started = Instant::now();
            let response = match sender.send_request(request).await {
                Ok(r) => r,
                Err(e) => {
                    tally.error(format!("request: {e}"));
                    continue 'connect;
                }
            };
            let status = response.status();
            let text = match response.into_body().collect().await {
                Ok(b) => b.to_bytes(),
                Err(e) => {
                    tally.error(format!("body: {e}"));
                    continue 'connect;
                }
            };
            let text = String::from_utf8_lossy(&text);
            // A result and no error: a real answer, not a refusal.
            if status == 200 && text.contains(&load.expect) && !text.contains(&load.reject) {
                tally.latencies_us.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
            } else {
                tally.error(format!("HTTP {status} {}", text.chars().take(200).collect::<String>()));
            }
        }
    }
    tally
}

/// CPU seconds this process used (Linux: /proc/self/stat, in the kernel's fixed 100 ticks/s), else None.
fn own_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn percentile_ms(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len() - 1);
    f64::from(sorted[i]) / 1000.0
}

mod sign;

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("sign") {
        let (Some(spec), Some(out)) = (argv.get(2), argv.get(3)) else {
            eprintln!("svc-loadgen: usage: svc-loadgen sign SPEC OUT");
            std::process::exit(2);
        };
        match sign::run(spec, out) {
            Ok(n) => println!("{{\"signed\":{n}}}"),
            Err(e) => {
                eprintln!("svc-loadgen sign: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("svc-loadgen: {e}");
            std::process::exit(2);
        }
    };
    let rest = args.url.strip_prefix("http://").unwrap_or_else(|| {
        eprintln!("svc-loadgen: only http:// URLs are supported");
        std::process::exit(2);
    });
    let (authority, path) = match rest.find('/') {
        Some(i) => (rest[..i].to_owned(), rest[i..].to_owned()),
        None => (rest.to_owned(), "/".to_owned()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let result = runtime.block_on(async move {
        let addr = tokio::net::lookup_host(authority.as_str()).await.ok().and_then(|mut a| a.next()).unwrap_or_else(|| {
            eprintln!("svc-loadgen: cannot resolve {authority}");
            std::process::exit(2);
        });
        let load = Load { method: args.method, authority, path, body: Bytes::from(args.body), expect: args.expect, reject: args.reject };
        let started = Instant::now();
        let deadline = started + args.duration;
        let handles: Vec<_> = (0..args.connections).map(|_| tokio::spawn(worker(addr, load.clone(), deadline))).collect();
        let mut all = Tally::default();
        for h in handles {
            let t = h.await.expect("a worker");
            all.latencies_us.extend(t.latencies_us);
            all.errors += t.errors;
            if all.first_error.is_none() {
                all.first_error = t.first_error;
            }
        }
        (all, started.elapsed())
    });
    let (mut tally, elapsed) = result;
    tally.latencies_us.sort_unstable();
    let seconds = elapsed.as_secs_f64();
    let out = serde_json::json!({
        "requests": tally.latencies_us.len(),
        "errors": tally.errors,
        "firstError": tally.first_error,
        "seconds": seconds,
        "perSecond": tally.latencies_us.len() as f64 / seconds,
        "p50Ms": percentile_ms(&tally.latencies_us, 0.5),
        "p99Ms": percentile_ms(&tally.latencies_us, 0.99),
        "cpuSeconds": own_cpu_seconds(),
    });
    println!("{out}");
}
