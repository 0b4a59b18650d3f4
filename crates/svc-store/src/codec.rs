//! Value encodings of the column families.

use alloy_primitives::{Address, Bytes, U256};
use svc_primitives::TxReceipt;

use crate::{StoreError, StoreResult};

/// Transactions of a block (EIP-2718 encodings) with their recovered senders.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BlockBody {
    pub txs: Vec<Bytes>,
    pub senders: Vec<Address>,
    /// System messages the block carries besides its transactions (encoded by the modules that
    /// decide them: proofs, registrations, shares, verdicts); bodies written before they existed
    /// decode with none.
    pub messages: Vec<Bytes>,
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("truncated {what}"))
}

struct Reader<'a> {
    buf: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> StoreResult<&'a [u8]> {
        if self.buf.len() < n {
            return Err(corrupt(self.what));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    fn u32(&mut self) -> StoreResult<u32> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
}

/// Length-prefixed list of byte strings.
fn encode_items<'a>(items: impl ExactSizeIterator<Item = &'a [u8]>, out: &mut Vec<u8>) {
    out.extend_from_slice(&(items.len() as u32).to_be_bytes());
    for item in items {
        out.extend_from_slice(&(item.len() as u32).to_be_bytes());
        out.extend_from_slice(item);
    }
}

fn decode_items<'a>(r: &mut Reader<'a>) -> StoreResult<Vec<&'a [u8]>> {
    let n = r.u32()? as usize;
    let mut items = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        let len = r.u32()? as usize;
        items.push(r.take(len)?);
    }
    Ok(items)
}

impl BlockBody {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.txs.iter().map(|t| t.len() + 4).sum::<usize>() + 24 * self.senders.len() + 8);
        encode_items(self.txs.iter().map(|t| t.as_ref()), &mut out);
        out.extend_from_slice(&(self.senders.len() as u32).to_be_bytes());
        for s in &self.senders {
            out.extend_from_slice(s.as_slice());
        }
        if !self.messages.is_empty() {
            encode_items(self.messages.iter().map(|m| m.as_ref()), &mut out);
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> StoreResult<Self> {
        let mut r = Reader { buf: bytes, what: "block body" };
        let txs = decode_items(&mut r)?.into_iter().map(Bytes::copy_from_slice).collect();
        let n = r.u32()? as usize;
        let mut senders = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            senders.push(Address::from_slice(r.take(20)?));
        }
        let messages = if r.buf.is_empty() { Vec::new() } else { decode_items(&mut r)?.into_iter().map(Bytes::copy_from_slice).collect() };
        if !r.buf.is_empty() {
            return Err(StoreError::Corrupt(format!("block body has {} bytes after its messages", r.buf.len())));
        }
        Ok(Self { txs, senders, messages })
    }
}

pub fn encode_receipts(receipts: &[TxReceipt]) -> Vec<u8> {
    let encoded: Vec<Vec<u8>> = receipts.iter().map(TxReceipt::encode_2718).collect();
    let mut out = Vec::with_capacity(encoded.iter().map(|e| e.len() + 4).sum::<usize>() + 4);
    encode_items(encoded.iter().map(|e| e.as_slice()), &mut out);
    out
}

pub fn decode_receipts(bytes: &[u8]) -> StoreResult<Vec<TxReceipt>> {
    let mut r = Reader { buf: bytes, what: "receipts" };
    decode_items(&mut r)?
        .into_iter()
        .map(|item| TxReceipt::decode_2718(item).map_err(|e| StoreError::Corrupt(format!("receipt: {e}"))))
        .collect()
}

/// Where a transaction sits: block number and index in the block.
pub fn encode_tx_location(number: u64, index: u32) -> [u8; 12] {
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&number.to_be_bytes());
    out[8..].copy_from_slice(&index.to_be_bytes());
    out
}

pub fn decode_tx_location(bytes: &[u8]) -> StoreResult<(u64, u32)> {
    if bytes.len() != 12 {
        return Err(corrupt("transaction location"));
    }
    Ok((
        u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes")),
        u32::from_be_bytes(bytes[8..].try_into().expect("4 bytes")),
    ))
}

pub fn decode_u64(bytes: &[u8], what: &str) -> StoreResult<u64> {
    let arr: [u8; 8] = bytes.try_into().map_err(|_| corrupt(what))?;
    Ok(u64::from_be_bytes(arr))
}

/// Flat storage value: big-endian without leading zeros (zero is never stored).
pub fn encode_slot_value(value: &U256) -> Vec<u8> {
    let bytes = value.to_be_bytes::<32>();
    let start = bytes.iter().position(|b| *b != 0).unwrap_or(32);
    bytes[start..].to_vec()
}

pub fn decode_slot_value(bytes: &[u8]) -> StoreResult<U256> {
    U256::try_from_be_slice(bytes).ok_or_else(|| corrupt("storage value"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_round_trip() {
        let body = BlockBody {
            txs: vec![Bytes::from_static(&[2, 0xc0]), Bytes::from_static(&[0xc1, 0x80])],
            senders: vec![Address::repeat_byte(1), Address::repeat_byte(2)],
            messages: Vec::new(),
        };
        assert_eq!(BlockBody::decode(&body.encode()).unwrap(), body);
        assert!(BlockBody::decode(&body.encode()[..5]).is_err());
        // With messages; and a body without them (as written before they existed) has none.
        let with = BlockBody { messages: vec![Bytes::from_static(b"{\"kind\":\"share\"}"), Bytes::new()], ..body.clone() };
        assert_eq!(BlockBody::decode(&with.encode()).unwrap(), with);
        assert!(BlockBody::decode(&with.encode()[..with.encode().len() - 1]).is_err());
        let mut trailing = with.encode();
        trailing.push(0);
        assert!(BlockBody::decode(&trailing).is_err());
    }

    #[test]
    fn slot_values_are_trimmed() {
        assert_eq!(encode_slot_value(&U256::from(0x0102u64)), vec![1, 2]);
        assert_eq!(decode_slot_value(&[1, 2]).unwrap(), U256::from(0x0102u64));
    }
}
