//! Receipts (typed EIP-2718 encoding), the ordered transaction and receipt tries, and blooms.

use alloy_consensus::{Eip658Value, Receipt, ReceiptEnvelope, ReceiptWithBloom, TxEnvelope};
use alloy_eips::eip2718::{Decodable2718, Encodable2718};
use alloy_primitives::{Bloom, Log, B256};

/// The consensus receipt of one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxReceipt {
    pub tx_type: u8,
    pub success: bool,
    pub cumulative_gas_used: u64,
    pub logs: Vec<Log>,
    pub logs_bloom: Bloom,
}

impl TxReceipt {
    /// Build a receipt and compute its bloom.
    pub fn new(tx_type: u8, success: bool, cumulative_gas_used: u64, logs: Vec<Log>) -> Self {
        let logs_bloom = alloy_primitives::logs_bloom(logs.iter());
        Self { tx_type, success, cumulative_gas_used, logs, logs_bloom }
    }

    fn envelope(&self) -> ReceiptEnvelope {
        let inner = ReceiptWithBloom {
            receipt: Receipt {
                status: Eip658Value::Eip658(self.success),
                cumulative_gas_used: self.cumulative_gas_used,
                logs: self.logs.clone(),
            },
            logs_bloom: self.logs_bloom,
        };
        match self.tx_type {
            1 => ReceiptEnvelope::Eip2930(inner),
            2 => ReceiptEnvelope::Eip1559(inner),
            4 => ReceiptEnvelope::Eip7702(inner),
            _ => ReceiptEnvelope::Legacy(inner),
        }
    }

    /// EIP-2718 encoding: the type byte (typed receipts) followed by rlp([status, gas, bloom, logs]).
    pub fn encode_2718(&self) -> Vec<u8> {
        self.envelope().encoded_2718()
    }

    /// Decode what `encode_2718` produced.
    pub fn decode_2718(bytes: &[u8]) -> Result<Self, alloy_eips::eip2718::Eip2718Error> {
        let mut buf = bytes;
        let envelope = ReceiptEnvelope::decode_2718(&mut buf)?;
        let tx_type = envelope.tx_type() as u8;
        let inner = envelope.as_receipt_with_bloom().expect("every receipt envelope carries a receipt");
        Ok(Self {
            tx_type,
            success: inner.receipt.status.coerce_status(),
            cumulative_gas_used: inner.receipt.cumulative_gas_used,
            logs: inner.receipt.logs.clone(),
            logs_bloom: inner.logs_bloom,
        })
    }
}

/// Root of the ordered trie of EIP-2718 transaction encodings.
pub fn transactions_root(txs: &[TxEnvelope]) -> B256 {
    alloy_consensus::proofs::calculate_transaction_root(txs)
}

/// Root of the ordered trie of EIP-2718 receipt encodings.
pub fn receipts_root(receipts: &[TxReceipt]) -> B256 {
    let envelopes: Vec<ReceiptEnvelope> = receipts.iter().map(TxReceipt::envelope).collect();
    alloy_consensus::proofs::calculate_receipt_root(&envelopes)
}

/// Union of the receipts' blooms (the header's logsBloom).
pub fn logs_bloom(receipts: &[TxReceipt]) -> Bloom {
    let mut bloom = Bloom::ZERO;
    for r in receipts {
        bloom |= r.logs_bloom;
    }
    bloom
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{address, b256, Bytes, LogData};

    #[test]
    fn empty_roots() {
        let empty = b256!("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
        assert_eq!(transactions_root(&[]), empty);
        assert_eq!(receipts_root(&[]), empty);
        assert_eq!(logs_bloom(&[]), Bloom::ZERO);
    }

    #[test]
    fn receipt_round_trips_and_blooms_its_logs() {
        let log = Log {
            address: address!("00000000000000000000000000000000000000aa"),
            data: LogData::new_unchecked(vec![B256::repeat_byte(1)], Bytes::from_static(b"hi")),
        };
        let r = TxReceipt::new(2, true, 42_000, vec![log.clone()]);
        assert!(r.logs_bloom.contains_input(alloy_primitives::BloomInput::Raw(log.address.as_slice())));
        let bytes = r.encode_2718();
        assert_eq!(bytes[0], 2);
        assert_eq!(TxReceipt::decode_2718(&bytes).unwrap(), r);
        let set_code = TxReceipt::new(4, true, 60_000, vec![log.clone()]);
        assert_eq!(set_code.encode_2718()[0], 4);
        assert_eq!(TxReceipt::decode_2718(&set_code.encode_2718()).unwrap(), set_code);
        let legacy = TxReceipt::new(0, false, 21_000, vec![]);
        assert_eq!(TxReceipt::decode_2718(&legacy.encode_2718()).unwrap(), legacy);
        assert_ne!(receipts_root(std::slice::from_ref(&r)), receipts_root(&[legacy]));
    }
}
