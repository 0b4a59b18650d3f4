//! The last few blocks' transactions and receipts, decoded and kept in memory.
//!
//! A block's receipts are stored as one record. Reading one receipt from it means decoding all of
//! them (a block of 6,500 transfers holds 6,500), and clients poll the receipts of the newest
//! blocks many times each (viem asks every block, per transaction). So the store keeps the decoded
//! bodies and receipts of the most recent blocks, handed over at commit (the committer owns them
//! already: nothing is decoded or copied), and a read of a receipt costs that one receipt.
//! Older blocks are decoded on demand and join the cache like new ones.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use svc_primitives::TxReceipt;

use crate::codec::BlockBody;
use crate::store::StoredBlock;

/// A mined block with its transactions and receipts, decoded.
#[derive(Debug)]
pub struct BlockData {
    pub block: StoredBlock,
    pub body: BlockBody,
    pub receipts: Vec<TxReceipt>,
    /// Block-wide index of the first log of each transaction.
    first_log_index: Vec<u32>,
}

impl BlockData {
    pub fn new(block: StoredBlock, body: BlockBody, receipts: Vec<TxReceipt>) -> Self {
        let mut first_log_index = Vec::with_capacity(receipts.len());
        let mut next = 0u32;
        for r in &receipts {
            first_log_index.push(next);
            next += r.logs.len() as u32;
        }
        Self {
            block,
            body,
            receipts,
            first_log_index,
        }
    }

    /// Transactions in the block.
    pub fn len(&self) -> usize {
        self.receipts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.receipts.is_empty()
    }

    /// Block-wide index of the first log of transaction `index`.
    pub fn first_log_index(&self, index: usize) -> u32 {
        self.first_log_index[index]
    }

    /// Gas used by transaction `index` alone.
    pub fn gas_used(&self, index: usize) -> u64 {
        let before = if index == 0 {
            0
        } else {
            self.receipts[index - 1].cumulative_gas_used
        };
        self.receipts[index].cumulative_gas_used - before
    }
}

/// The decoded blocks kept, newest last, identified by hash (a number alone could name another
/// block on a database that was written again).
pub struct RecentBlocks {
    capacity: usize,
    blocks: Mutex<VecDeque<Arc<BlockData>>>,
}

impl RecentBlocks {
    /// Blocks kept: a full block of transfers decodes to a few megabytes.
    pub const DEFAULT_CAPACITY: usize = 8;

    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            blocks: Mutex::new(VecDeque::with_capacity(capacity.max(1))),
        }
    }

    /// The cached block `number` whose hash is `hash`.
    pub fn get(&self, number: u64, hash: &alloy_primitives::B256) -> Option<Arc<BlockData>> {
        let blocks = self.blocks.lock();
        blocks
            .iter()
            .rev()
            .find(|b| b.block.number() == number && b.block.hash == *hash)
            .cloned()
    }

    /// Keeps `data`, dropping the entry with the lowest number when full (pollers ask for the newest blocks).
    pub fn insert(&self, data: Arc<BlockData>) {
        let mut blocks = self.blocks.lock();
        if blocks.iter().any(|b| b.block.hash == data.block.hash) {
            return;
        }
        if blocks.len() >= self.capacity {
            if let Some(lowest) = blocks
                .iter()
                .enumerate()
                .min_by_key(|(_, b)| b.block.number())
                .map(|(i, _)| i)
            {
                blocks.remove(lowest);
            }
        }
        blocks.push_back(data);
    }

    /// Forgets every block (the chain's head moved back: cached numbers may name other blocks).
    pub fn clear(&self) {
        self.blocks.lock().clear();
    }

    /// Blocks held now.
    pub fn len(&self) -> usize {
        self.blocks.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
