//! The JSON-RPC HTTP front of the node. Plain state reads (the bulk of what wallets and dapps
//! send) are answered here without crossing into JavaScript; every other request is handed to a
//! `Fallback` (the TypeScript dispatcher), which owns the methods, the error texts and the other
//! routes. Rate limits and body limits apply to both paths.

pub mod connections;
pub mod fast;
pub mod limiter;
pub mod server;
pub mod shape;
pub mod timed_io;

pub use fast::{FastLimits, FAST_METHODS};
pub use limiter::{Admission, RateLimiter};
pub use server::{CannedBodies, Fallback, ForwardedRequest, HttpServer, Reply, ReplyFuture, ServerOptions, ServerStats};
