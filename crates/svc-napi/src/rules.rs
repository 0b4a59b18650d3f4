//! Chain rules the app and the explorer ask instead of keeping a copy: the header rules of the
//! block builder (svc-evm) and the token-transfer decoder of the block index (svc-index).

use napi::bindgen_prelude::{BigInt, Buffer};
use napi_derive::napi;

use crate::convert::*;

/// Why a proposed header cannot follow its parent; null when it can: its time (ms) after the
/// parent's by at least 1 ms, its extra data at most 32 bytes (the block builder's own rule).
#[napi]
pub fn header_problem(parent_time_ms: i64, time_ms: i64, extra_data_len: u32) -> napi::Result<Option<String>> {
    Ok(svc_evm::header_problem(to_count(parent_time_ms, "parentTimeMs")?, to_count(time_ms, "timeMs")?, extra_data_len as usize))
}

/// The time (ms) the block builder gives a block asked for at `requestedMs` on a parent at
/// `parentTimeMs`: raised to the parent's + 1 ms when not after it.
#[napi]
pub fn block_time_ms(requested_ms: i64, parent_time_ms: i64) -> napi::Result<i64> {
    Ok(num(svc_evm::block_time_ms(to_count(requested_ms, "requestedMs")?, to_count(parent_time_ms, "parentTimeMs")?)))
}

/// One token movement a log records.
#[napi(object)]
pub struct TokenTransfer {
    #[napi(ts_type = "'ERC-20' | 'ERC-721' | 'ERC-1155'")]
    pub standard: String,
    pub from: Buffer,
    pub to: Buffer,
    pub value: BigInt,
    /// ERC-721 and ERC-1155: the token id.
    pub token_id: Option<BigInt>,
}

/// The token movements of a log (32-byte topics, data), by the block index's decoder: a log too
/// short for what it announces (a truncated TransferBatch included) records none.
#[napi]
pub fn token_transfers_of_log(topics: Vec<Buffer>, data: Buffer) -> napi::Result<Vec<TokenTransfer>> {
    let topics = topics.iter().enumerate().map(|(i, t)| to_b256(t, &format!("topic {i}"))).collect::<napi::Result<Vec<_>>>()?;
    Ok(svc_index::token_movements(&topics, &data)
        .into_iter()
        .map(|m| TokenTransfer {
            standard: m.kind.name().to_string(),
            from: buffer(m.from.as_slice()),
            to: buffer(m.to.as_slice()),
            value: from_u256(m.value),
            token_id: m.token_id.map(from_u256),
        })
        .collect())
}
