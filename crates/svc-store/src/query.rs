//! Range queries over stored blocks: log filtering (eth_getLogs) and fee history (eth_feeHistory).

use alloy_primitives::{keccak256, Address, BloomInput, Log, B256};
use svc_primitives::{next_base_fee, SignedTransaction};

use crate::store::ReadView;
use crate::{StoreError, StoreResult};

/// An eth_getLogs filter over an inclusive block range.
#[derive(Debug, Clone, Default)]
pub struct LogFilter {
    pub from_block: u64,
    pub to_block: u64,
    /// Empty = any address.
    pub addresses: Vec<Address>,
    /// Per position: None = any, else any of the listed topics.
    pub topics: Vec<Option<Vec<B256>>>,
    /// Most logs returned; exceeding it truncates the answer at a block boundary.
    pub limit: usize,
}

/// A log with its position in the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedLog {
    pub block_number: u64,
    pub block_hash: B256,
    pub tx_hash: B256,
    pub tx_index: u32,
    /// Position among all logs of the block.
    pub log_index: u32,
    pub log: Log,
}

#[derive(Debug, Clone, Default)]
pub struct LogQueryOutput {
    pub logs: Vec<LocatedLog>,
    /// The limit was exceeded; `last_block` is the last block whose logs are all included.
    pub truncated: bool,
    /// Last block fully scanned (from_block - 1 when not even the first block fit).
    pub last_block: i64,
}

impl LogFilter {
    fn matches(&self, log: &Log) -> bool {
        if !self.addresses.is_empty() && !self.addresses.contains(&log.address) {
            return false;
        }
        let topics = log.topics();
        // As geth: a log needs at least as many topics as positions filtered, wildcards included.
        if self.topics.len() > topics.len() {
            return false;
        }
        self.topics.iter().enumerate().all(|(i, wanted)| match wanted {
            None => true,
            Some(list) => topics.get(i).is_some_and(|t| list.is_empty() || list.contains(t)),
        })
    }

    fn bloom_may_match(&self, bloom: &alloy_primitives::Bloom) -> bool {
        if !self.addresses.is_empty() && !self.addresses.iter().any(|a| bloom.contains_input(BloomInput::Raw(a.as_slice()))) {
            return false;
        }
        self.topics.iter().all(|wanted| match wanted {
            Some(list) if !list.is_empty() => list.iter().any(|t| bloom.contains_input(BloomInput::Raw(t.as_slice()))),
            _ => true,
        })
    }
}

/// Logs matching `filter`, scanning header blooms first and receipts only where they may match.
pub fn find_logs(view: &ReadView, filter: &LogFilter) -> StoreResult<LogQueryOutput> {
    let to = filter.to_block.min(view.head_number());
    let mut out = LogQueryOutput { logs: Vec::new(), truncated: false, last_block: to as i64 };
    if filter.from_block > to {
        out.last_block = filter.from_block as i64 - 1;
        return Ok(out);
    }
    for number in filter.from_block..=to {
        let block = view.block(number)?.ok_or_else(|| StoreError::Corrupt(format!("header {number} is missing")))?;
        if !filter.bloom_may_match(&block.header.logs_bloom) {
            continue;
        }
        let found = block_logs_matching(view, number, block.hash, Some(filter))?;
        if out.logs.len() + found.len() > filter.limit {
            out.truncated = true;
            out.last_block = number as i64 - 1;
            return Ok(out);
        }
        out.logs.extend(found);
    }
    Ok(out)
}

/// All logs of block `number` in order (or those matching `filter`).
pub fn block_logs(view: &ReadView, number: u64) -> StoreResult<Vec<LocatedLog>> {
    let Some(block) = view.block(number)? else { return Ok(Vec::new()) };
    block_logs_matching(view, number, block.hash, None)
}

fn block_logs_matching(view: &ReadView, number: u64, hash: B256, filter: Option<&LogFilter>) -> StoreResult<Vec<LocatedLog>> {
    let receipts = view.receipts(number)?.ok_or_else(|| StoreError::Corrupt(format!("receipts {number} are missing")))?;
    let body = view.body(number)?.ok_or_else(|| StoreError::Corrupt(format!("body {number} is missing")))?;
    let mut out = Vec::new();
    let mut log_index = 0u32;
    for (tx_index, receipt) in receipts.iter().enumerate() {
        let mut tx_hash = None;
        for log in &receipt.logs {
            if filter.is_none_or(|f| f.matches(log)) {
                let raw = body.txs.get(tx_index).ok_or_else(|| StoreError::Corrupt(format!("body {number} is short")))?;
                let tx_hash = *tx_hash.get_or_insert_with(|| keccak256(raw));
                out.push(LocatedLog { block_number: number, block_hash: hash, tx_hash, tx_index: tx_index as u32, log_index, log: log.clone() });
            }
            log_index += 1;
        }
    }
    Ok(out)
}

/// eth_feeHistory's answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FeeHistory {
    pub oldest_block: u64,
    /// One per block plus the base fee of the block after the newest.
    pub base_fee_per_gas: Vec<u128>,
    pub gas_used_ratio: Vec<f64>,
    /// Per block, the effective tip at each requested percentile of gas used.
    pub reward: Vec<Vec<u128>>,
}

/// Fee history of up to `block_count` blocks ending at `newest`, as geth computes it.
pub fn fee_history(view: &ReadView, newest: u64, block_count: u64, percentiles: &[f64]) -> StoreResult<FeeHistory> {
    for (i, p) in percentiles.iter().enumerate() {
        if !(0.0..=100.0).contains(p) {
            return Err(StoreError::Invalid(format!("invalid reward percentile: {p}")));
        }
        if i > 0 && *p < percentiles[i - 1] {
            return Err(StoreError::Invalid(format!("invalid reward percentile: #{}:{} > #{}:{}", i - 1, percentiles[i - 1], i, p)));
        }
    }
    let head = view.head_number();
    if newest > head {
        return Err(StoreError::Invalid(format!("request beyond head block: requested {newest}, head {head}")));
    }
    let count = block_count.min(newest + 1);
    let mut out = FeeHistory { oldest_block: newest + 1 - count, ..Default::default() };
    if count == 0 {
        return Ok(out);
    }
    for number in out.oldest_block..=newest {
        let block = view.block(number)?.ok_or_else(|| StoreError::Corrupt(format!("header {number} is missing")))?;
        let h = &block.header;
        let base_fee = h.base_fee_per_gas.unwrap_or_default();
        out.base_fee_per_gas.push(base_fee as u128);
        out.gas_used_ratio.push(if h.gas_limit == 0 { 0.0 } else { h.gas_used as f64 / h.gas_limit as f64 });
        if number == newest {
            out.base_fee_per_gas.push(next_base_fee(h.gas_used, h.gas_limit, base_fee) as u128);
        }
        if percentiles.is_empty() {
            continue;
        }
        out.reward.push(block_rewards(view, number, h.gas_used, base_fee, percentiles)?);
    }
    Ok(out)
}

fn block_rewards(view: &ReadView, number: u64, gas_used: u64, base_fee: u64, percentiles: &[f64]) -> StoreResult<Vec<u128>> {
    let body = view.body(number)?.ok_or_else(|| StoreError::Corrupt(format!("body {number} is missing")))?;
    if body.txs.is_empty() {
        return Ok(vec![0; percentiles.len()]);
    }
    let receipts = view.receipts(number)?.ok_or_else(|| StoreError::Corrupt(format!("receipts {number} are missing")))?;
    let mut sorter = Vec::with_capacity(body.txs.len());
    let mut previous = 0u64;
    for (raw, receipt) in body.txs.iter().zip(&receipts) {
        let tx = SignedTransaction::decode(raw).map_err(|e| StoreError::Corrupt(format!("transaction in block {number}: {e}")))?;
        let used = receipt.cumulative_gas_used - previous;
        previous = receipt.cumulative_gas_used;
        sorter.push((tx.effective_tip(base_fee).unwrap_or(0), used));
    }
    sorter.sort_by_key(|(tip, _)| *tip);
    let mut rewards = Vec::with_capacity(percentiles.len());
    let mut index = 0;
    let mut sum = sorter[0].1;
    for p in percentiles {
        let threshold = (gas_used as f64 * p / 100.0) as u64;
        while sum < threshold && index < sorter.len() - 1 {
            index += 1;
            sum += sorter[index].1;
        }
        rewards.push(sorter[index].0);
    }
    Ok(rewards)
}
