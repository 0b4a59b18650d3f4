//! The transaction precheck and effective gas price for the app: svc-evm's one copy, which the
//! block builder also runs, so that a system module's transaction is decided by the same rules
//! (and texts) as any other before its module executes it, and the pool admits by the same rules
//! (writing its own texts from the rule and its numbers).

use napi::bindgen_prelude::{BigInt, Buffer};
use napi_derive::napi;
use svc_evm::{check_transaction, TxCheck, TxCheckOutcome};
use svc_primitives::SignedTransaction;

use crate::convert::*;

/// The block and sender a transaction is checked against.
#[napi(object)]
pub struct PrecheckInput {
    pub chain_id: i64,
    pub gas_limit: i64,
    /// Gas the block's earlier transactions used.
    pub gas_used: i64,
    pub base_fee_per_gas: BigInt,
    /// The sender's nonce and balance as the block has them so far (none: no account).
    pub nonce: Option<BigInt>,
    pub balance: Option<BigInt>,
    /// The sender's code, when it has any.
    pub code: Option<Buffer>,
}

#[napi(object)]
pub struct PrecheckVerdict {
    /// `include`, `defer` (not enough gas left in the block: the next block takes it) or `reject`.
    #[napi(ts_type = "'include' | 'defer' | 'reject'")]
    pub verdict: String,
    /// geth's text for a rejected transaction (the block builder's, geth's state transition's).
    pub reason: Option<String>,
    /// The rule a rejected transaction breaks (`intrinsic-gas`, `insufficient-funds`, ...: svc-evm's `TxViolation::rule`).
    pub rule: Option<String>,
    /// What the transaction has and what the rule wants (gas and intrinsic gas, balance and cost, fee cap and base fee, ...).
    pub have: Option<BigInt>,
    pub want: Option<BigInt>,
    /// What the sender pays per gas in this block: min(maxFeePerGas, baseFee + maxPriorityFeePerGas).
    pub effective_gas_price: BigInt,
}

/// geth's checks of the transaction `raw` from `sender` against the block and the sender's account,
/// as the block builder runs them, with the price per gas it would pay.
#[napi]
pub fn precheck_transaction(raw: Buffer, sender: Buffer, input: PrecheckInput) -> napi::Result<PrecheckVerdict> {
    let tx = SignedTransaction::decode(&raw).map_err(js_error)?;
    let sender = to_address(&sender, "sender")?;
    let base_fee = to_u64(&input.base_fee_per_gas, "baseFeePerGas")?;
    let account = match (&input.nonce, &input.balance) {
        (None, None) => None,
        (nonce, balance) => Some((
            nonce.as_ref().map(|n| to_u64(n, "nonce")).transpose()?.unwrap_or(0),
            balance.as_ref().map(|b| to_u256(b, "balance")).transpose()?.unwrap_or_default(),
        )),
    };
    let check = TxCheck {
        chain_id: to_count(input.chain_id, "chainId")?,
        gas_limit: to_count(input.gas_limit, "gasLimit")?,
        gas_used: to_count(input.gas_used, "gasUsed")?,
        base_fee,
        account,
        code: input.code.as_ref().map(|c| c.as_ref()),
    };
    let effective_gas_price = from_u128(tx.effective_gas_price(base_fee));
    Ok(match check_transaction(&tx, &check) {
        None => PrecheckVerdict { verdict: "include".into(), reason: None, rule: None, have: None, want: None, effective_gas_price },
        Some(TxCheckOutcome::Defer) => PrecheckVerdict { verdict: "defer".into(), reason: None, rule: None, have: None, want: None, effective_gas_price },
        Some(TxCheckOutcome::Violation(v)) => {
            let numbers = v.numbers();
            PrecheckVerdict {
                verdict: "reject".into(),
                reason: Some(v.text(sender)),
                rule: Some(v.rule().into()),
                have: numbers.map(|(h, _)| from_u256(h)),
                want: numbers.map(|(_, w)| from_u256(w)),
                effective_gas_price,
            }
        }
    })
}
