//! The core addon: thin N-API bindings over the svc crates. Types are converted here; all work
//! happens in svc-primitives, svc-store, svc-evm, svc-index, svc-pow and svc-crypto.

mod chain;
mod convert;
mod crypto;
mod decode;
mod dylib;
mod http;
mod lane;
mod pow;
mod precheck;
mod reply;
mod rules;
mod snapshot;
mod types;

use napi::bindgen_prelude::{BigInt, Buffer};
use napi_derive::napi;

pub use chain::Chain;
pub use http::RpcHttpServer;

/// keccak-256 of `data`.
#[napi]
pub fn keccak256(data: Buffer) -> Buffer {
    convert::buffer(svc_primitives::keccak256(&data).as_slice())
}

/// BLAKE3 of `data`.
#[napi]
pub fn blake3(data: Buffer) -> Buffer {
    convert::buffer(&svc_pow::blake3_hash(&data))
}

/// Intrinsic gas of a call with `data` under Prague rules (including the EIP-7623 calldata floor).
#[napi]
pub fn intrinsic_gas(data: Buffer) -> BigInt {
    BigInt::from(svc_primitives::intrinsic_gas(&data, false, None).minimum())
}

/// Version of the core addon.
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
