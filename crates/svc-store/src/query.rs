//! Range queries over stored blocks: log filtering (eth_getLogs) and fee history (eth_feeHistory).

use std::collections::HashSet;

use alloy_primitives::{keccak256, Address, Bloom, BloomInput, Log, B256};
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
    /// Most bytes of log data and topics the answer may gather (0: no limit); past it the query
    /// stops and says so (`too_large`), before it holds more.
    pub max_bytes: usize,
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
    /// The logs found were more than `max_bytes`: the query stopped, `logs` holds part of them.
    pub too_large: bool,
}

/// The bytes a log holds: its data and its topics.
pub fn log_bytes(log: &Log) -> usize {
    log.data.data.len() + 32 * log.data.topics().len()
}

/// Filters with at most this many items at a position check them one by one; longer ones use a [`BloomIndex`].
const DIRECT_BLOOM_ITEMS: usize = 8;

/// The bloom bits of one filter item: (byte index, mask) of each of its (up to 3) bits.
#[derive(Debug, Clone, Copy)]
struct BloomBits {
    bits: [(u8, u8); 3],
    len: u8,
}

impl BloomBits {
    fn of(input: &[u8]) -> Self {
        let mut bloom = Bloom::ZERO;
        bloom.accrue(BloomInput::Raw(input));
        let mut out = Self { bits: [(0, 0); 3], len: 0 };
        for (i, byte) in bloom.as_slice().iter().enumerate() {
            let mut rest = *byte;
            while rest != 0 {
                let mask = rest & rest.wrapping_neg();
                out.bits[out.len as usize] = (i as u8, mask);
                out.len += 1;
                rest &= !mask;
            }
        }
        out
    }

    fn within(&self, bloom: &[u8]) -> bool {
        self.bits[..self.len as usize].iter().all(|(i, mask)| bloom[*i as usize] & mask != 0)
    }
}

/// The bloom bits of a list of filter items, computed once per query and bucketed by their first
/// bit, so that testing a block's bloom against the list costs the bloom's set bits, not the list's length.
#[derive(Debug)]
enum BloomIndex {
    Direct(Vec<BloomBits>),
    /// Items by the byte of their first bit (256 buckets).
    Bucketed(Vec<Vec<BloomBits>>),
}

impl BloomIndex {
    fn new<'a>(items: impl ExactSizeIterator<Item = &'a [u8]>) -> Self {
        let bits = items.map(BloomBits::of);
        if bits.len() <= DIRECT_BLOOM_ITEMS {
            return Self::Direct(bits.collect());
        }
        let mut buckets = vec![Vec::new(); 256];
        for b in bits {
            buckets[b.bits[0].0 as usize].push(b);
        }
        Self::Bucketed(buckets)
    }

    /// Whether the bloom may contain any of the items.
    fn any_within(&self, bloom: &Bloom) -> bool {
        let bytes = bloom.as_slice();
        match self {
            Self::Direct(items) => items.iter().any(|b| b.within(bytes)),
            Self::Bucketed(buckets) => bytes
                .iter()
                .enumerate()
                .any(|(i, byte)| *byte != 0 && buckets[i].iter().any(|b| b.bits[0].1 & byte != 0 && b.within(bytes))),
        }
    }
}

/// A filter made ready for a scan: bloom bits computed once, addresses and topics in sets.
struct PreparedFilter<'a> {
    filter: &'a LogFilter,
    addresses: HashSet<Address>,
    address_bloom: Option<BloomIndex>,
    /// Per position: None = any.
    topics: Vec<Option<(HashSet<B256>, BloomIndex)>>,
}

impl<'a> PreparedFilter<'a> {
    fn new(filter: &'a LogFilter) -> Self {
        let addresses: HashSet<Address> = filter.addresses.iter().copied().collect();
        let address_bloom = (!addresses.is_empty()).then(|| BloomIndex::new(addresses.iter().map(|a| a.as_slice())));
        let topics = filter
            .topics
            .iter()
            .map(|wanted| match wanted {
                Some(list) if !list.is_empty() => {
                    let set: HashSet<B256> = list.iter().copied().collect();
                    let index = BloomIndex::new(set.iter().map(|t| t.as_slice()));
                    Some((set, index))
                }
                _ => None,
            })
            .collect();
        Self { filter, addresses, address_bloom, topics }
    }

    fn matches(&self, log: &Log) -> bool {
        if !self.addresses.is_empty() && !self.addresses.contains(&log.address) {
            return false;
        }
        let topics = log.topics();
        // As geth: a log needs at least as many topics as positions filtered, wildcards included.
        if self.filter.topics.len() > topics.len() {
            return false;
        }
        self.topics.iter().enumerate().all(|(i, wanted)| match wanted {
            None => true,
            Some((set, _)) => topics.get(i).is_some_and(|t| set.contains(t)),
        })
    }

    fn bloom_may_match(&self, bloom: &Bloom) -> bool {
        if self.address_bloom.as_ref().is_some_and(|index| !index.any_within(bloom)) {
            return false;
        }
        self.topics.iter().all(|wanted| wanted.as_ref().is_none_or(|(_, index)| index.any_within(bloom)))
    }
}

/// Logs matching `filter`, scanning header blooms first and receipts only where they may match.
/// The filter's bloom bits are computed once, so a block costs the same whatever the filter's length.
pub fn find_logs(view: &ReadView, filter: &LogFilter) -> StoreResult<LogQueryOutput> {
    let to = filter.to_block.min(view.head_number());
    let mut out = LogQueryOutput { logs: Vec::new(), truncated: false, last_block: to as i64, too_large: false };
    let mut bytes = 0usize;
    if filter.from_block > to {
        out.last_block = filter.from_block as i64 - 1;
        return Ok(out);
    }
    let prepared = PreparedFilter::new(filter);
    for number in filter.from_block..=to {
        let block = view.block(number)?.ok_or_else(|| StoreError::Corrupt(format!("header {number} is missing")))?;
        if !prepared.bloom_may_match(&block.header.logs_bloom) {
            continue;
        }
        let found = block_logs_matching(view, number, block.hash, Some(&prepared))?;
        if out.logs.len() + found.len() > filter.limit {
            out.truncated = true;
            out.last_block = number as i64 - 1;
            return Ok(out);
        }
        bytes += found.iter().map(|l| log_bytes(&l.log)).sum::<usize>();
        if filter.max_bytes > 0 && bytes > filter.max_bytes {
            out.too_large = true;
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

fn block_logs_matching(view: &ReadView, number: u64, hash: B256, filter: Option<&PreparedFilter<'_>>) -> StoreResult<Vec<LocatedLog>> {
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

#[cfg(test)]
mod bloom_tests {
    use super::*;
    use alloy_primitives::{address, b256};

    fn bloom_of(inputs: &[&[u8]]) -> Bloom {
        let mut bloom = Bloom::ZERO;
        for i in inputs {
            bloom.accrue(BloomInput::Raw(i));
        }
        bloom
    }

    #[test]
    fn bloom_index_agrees_with_contains_input_for_short_and_long_lists() {
        let members: Vec<Address> = (0u64..3000).map(|i| Address::from_word(keccak256(i.to_be_bytes()))).collect();
        let inside = address!("00000000000000000000000000000000000000aa");
        let bloom = bloom_of(&[inside.as_slice(), b256!("00000000000000000000000000000000000000000000000000000000000000bb").as_slice()]);
        for n in [1usize, 8, 9, 1000, 3000] {
            let mut list: Vec<&[u8]> = members[..n].iter().map(|a| a.as_slice()).collect();
            let expected = list.iter().any(|a| bloom.contains_input(BloomInput::Raw(a)));
            assert_eq!(BloomIndex::new(list.iter().copied()).any_within(&bloom), expected, "{n} items without the member");
            list.push(inside.as_slice());
            assert!(BloomIndex::new(list.iter().copied()).any_within(&bloom), "{n} items with the member");
        }
        assert!(!BloomIndex::new(members.iter().map(|a| a.as_slice())).any_within(&Bloom::ZERO));
    }
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
