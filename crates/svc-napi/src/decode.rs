//! Transactions decoded and their senders recovered off the JavaScript thread, many at once.
//!
//! Recovering a sender (secp256k1) is most of what admitting a transaction to the pool costs.
//! `decodeTransactions` takes every transaction the pool received in one event-loop turn and
//! recovers them on libuv's pool, split over the cores, so that the event loop (which also finishes
//! every block and answers every request the native port hands on) only runs the pool's rules.

use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi::{Env, Task};
use napi_derive::napi;
use svc_primitives::{Address, SignedTransaction, TrieAccount};

use crate::chain::Chain;
use crate::convert::*;
use crate::types::DecodedTx;

/// One transaction of a batch: decoded, or why not (geth's text, as decodeTransaction throws it).
#[napi(object)]
pub struct DecodeOutcome {
    pub tx: Option<DecodedTx>,
    pub error: Option<String>,
}

pub struct Decoded {
    tx: SignedTransaction,
    from: Address,
    account: TrieAccount,
}

/// Batches at least this long are split over the cores.
const SPLIT_AT: usize = 32;

fn decode_one(chain: &svc_evm::Chain, raw: &[u8]) -> Result<Decoded, String> {
    let tx = SignedTransaction::decode(raw).map_err(|e| e.to_string())?;
    let from = tx.recover_sender().map_err(|e| e.to_string())?;
    let account = chain.view().flat_account(&from).map_err(|e| e.to_string())?.unwrap_or_default();
    Ok(Decoded { tx, from, account })
}

pub struct DecodeTask {
    chain: Arc<svc_evm::Chain>,
    raws: Vec<Vec<u8>>,
}

impl Task for DecodeTask {
    type Output = Vec<Result<Decoded, String>>;
    type JsValue = Vec<DecodeOutcome>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let (chain, raws) = (&self.chain, &self.raws);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        if raws.len() < SPLIT_AT || threads == 1 {
            return Ok(raws.iter().map(|r| decode_one(chain, r)).collect());
        }
        let per = raws.len().div_ceil(threads);
        Ok(std::thread::scope(|s| {
            let parts: Vec<_> = raws.chunks(per).map(|part| s.spawn(move || part.iter().map(|r| decode_one(chain, r)).collect::<Vec<_>>())).collect();
            parts.into_iter().flat_map(|p| p.join().expect("a decoding thread does not panic")).collect()
        }))
    }

    fn resolve(&mut self, _env: Env, out: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(out
            .into_iter()
            .map(|r| match r {
                Ok(d) => DecodeOutcome { tx: Some(decoded_tx(&d.tx, &d.from, &d.account)), error: None },
                Err(e) => DecodeOutcome { tx: None, error: Some(e) },
            })
            .collect())
    }
}

/// The JavaScript object of a decoded transaction with its sender's state at the head.
pub(crate) fn decoded_tx(tx: &SignedTransaction, from: &Address, account: &TrieAccount) -> DecodedTx {
    let ig = tx.intrinsic_gas();
    DecodedTx {
        hash: buffer(tx.hash.as_slice()),
        from: buffer(from.as_slice()),
        to: tx.to().map(|a| buffer(a.as_slice())),
        tx_type: tx.tx_type() as u32,
        chain_id: tx.chain_id().map(num),
        nonce: from_u64(tx.nonce()),
        gas_limit: from_u64(tx.gas_limit()),
        max_fee_per_gas: from_u128(tx.max_fee_per_gas()),
        max_priority_fee_per_gas: from_u128(tx.max_priority_fee_per_gas()),
        value: from_u256(tx.value()),
        data: buffer(tx.input()),
        intrinsic_gas: from_u64(ig.minimum()),
        size: tx.size as u32,
        sender_nonce: from_u64(account.nonce),
        sender_balance: from_u256(account.balance),
    }
}

#[napi]
impl Chain {
    /// decodeTransaction of each raw transaction, in order, off the JS thread (split over the cores
    /// for long batches); a transaction that does not decode carries its error text instead.
    #[napi(ts_return_type = "Promise<DecodeOutcome[]>")]
    pub fn decode_transactions(&self, raws: Vec<Buffer>) -> napi::Result<AsyncTask<DecodeTask>> {
        Ok(AsyncTask::new(DecodeTask { chain: self.shared()?, raws: raws.iter().map(|r| r.to_vec()).collect() }))
    }
}
