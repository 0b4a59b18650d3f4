//! Feeding the explorer's block index (svc-index) from executed or stored blocks.

use alloy_primitives::{Address, B256};
use svc_index::{IndexBlock, IndexError, IndexLog, IndexSource, IndexTx};
use svc_primitives::{Header, SignedTransaction, TxReceipt};
use svc_store::Store;

use crate::errors::ChainError;

/// The explorer column family as the index reads it.
pub(crate) struct ExplorerSource<'a>(pub &'a Store);

impl IndexSource for ExplorerSource<'_> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, IndexError> {
        self.0.service_get("explorer", key).map_err(|e| IndexError::Read(e.to_string()))
    }
}

/// The parent's time in milliseconds for block-time figures: none after genesis, whose time is fixed by the network's definition.
pub(crate) fn parent_time(parent: &svc_store::StoredBlock) -> Option<u64> {
    (parent.header.number > 0).then(|| svc_primitives::header_time_ms(&parent.header))
}

pub(crate) fn index_error(e: IndexError) -> ChainError {
    ChainError::Invalid(e.to_string())
}

/// The index records of a block from its header, transactions, senders and receipts.
pub(crate) fn block_writes(
    source: &dyn IndexSource,
    header: &Header,
    parent_time_ms: Option<u64>,
    txs: &[SignedTransaction],
    senders: &[Address],
    receipts: &[TxReceipt],
) -> Result<Vec<(Vec<u8>, Option<Vec<u8>>)>, ChainError> {
    let base_fee = header.base_fee_per_gas.unwrap_or_default();
    let topics: Vec<Vec<Vec<B256>>> = receipts.iter().map(|r| r.logs.iter().map(|l| l.topics().to_vec()).collect()).collect();
    let mut previous_gas = 0u64;
    let mut log_index = 0u32;
    let mut index_txs = Vec::with_capacity(txs.len());
    for (i, tx) in txs.iter().enumerate() {
        let receipt = &receipts[i];
        let sender = senders[i];
        let logs = receipt
            .logs
            .iter()
            .enumerate()
            .map(|(j, l)| {
                let entry = IndexLog { address: l.address, topics: &topics[i][j], data: &l.data.data, log_index };
                log_index += 1;
                entry
            })
            .collect();
        index_txs.push(IndexTx {
            hash: tx.hash,
            from: sender,
            to: tx.to(),
            created: (tx.to().is_none() && receipt.success).then(|| sender.create(tx.nonce())),
            value: tx.value(),
            input: tx.input(),
            success: receipt.success,
            gas_used: receipt.cumulative_gas_used - previous_gas,
            gas_price: tx.effective_gas_price(base_fee),
            logs,
        });
        previous_gas = receipt.cumulative_gas_used;
    }
    let block = IndexBlock { number: header.number, timestamp: header.timestamp, time_ms: svc_primitives::header_time_ms(header), parent_time_ms, gas_used: header.gas_used, txs: index_txs };
    svc_index::index_block(source, &block).map_err(index_error)
}
