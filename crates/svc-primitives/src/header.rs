//! Block headers: Prague-shaped alloy headers hashed as keccak(rlp(header)).

use alloy_consensus::Header;
use alloy_primitives::B256;

pub use alloy_consensus::EMPTY_OMMER_ROOT_HASH;

/// EIP-7685 commitment to an empty list of execution-layer requests (sha256 of nothing).
pub fn empty_requests_hash() -> B256 {
    alloy_eips::eip7685::EMPTY_REQUESTS_HASH
}

/// A header with the fields this chain keeps constant under Prague (no uncles, withdrawals, blobs,
/// beacon root or requests); block builders fill in the rest with `..prague_header()`.
pub fn prague_header() -> Header {
    Header {
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        withdrawals_root: Some(alloy_trie::EMPTY_ROOT_HASH),
        blob_gas_used: Some(0),
        excess_blob_gas: Some(0),
        parent_beacon_block_root: Some(B256::ZERO),
        requests_hash: Some(empty_requests_hash()),
        ..Default::default()
    }
}

/// A block's time in milliseconds: `timestamp` holds the seconds (non-decreasing, so that blocks
/// shorter than a second keep Ethereum's header shape) and the last two bytes of `mixHash` the
/// milliseconds within that second, as BSC carries the milliseconds of its block time. The rest of
/// `mixHash` stays the PREVRANDAO seed derived from the parent. A value over 999 there (headers
/// sealed before the millisecond time, whose `mixHash` is a whole hash) counts as 0.
pub fn header_time_ms(header: &Header) -> u64 {
    header.timestamp.saturating_mul(1000) + u64::from(millis_of(&header.mix_hash))
}

/// The milliseconds within the second that `mix_hash` carries (0 when it carries none).
fn millis_of(mix_hash: &B256) -> u16 {
    let ms = u16::from_be_bytes([mix_hash[30], mix_hash[31]]);
    if ms < 1000 { ms } else { 0 }
}

/// `seed` with its last two bytes replaced by the milliseconds of `time_ms` within its second.
pub fn mix_hash_with_millis(seed: B256, time_ms: u64) -> B256 {
    let mut out = seed;
    out[30..32].copy_from_slice(&((time_ms % 1000) as u16).to_be_bytes());
    out
}

/// Block hash: keccak256 of the RLP of the header.
pub fn header_hash(header: &Header) -> B256 {
    header.hash_slow()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::b256;

    #[test]
    fn empty_commitments() {
        assert_eq!(empty_requests_hash(), b256!("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        assert_eq!(EMPTY_OMMER_ROOT_HASH, b256!("1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"));
    }

    #[test]
    fn time_in_milliseconds() {
        let seed = B256::repeat_byte(0xab);
        let header = Header { timestamp: 1_700_000_123, mix_hash: mix_hash_with_millis(seed, 1_700_000_123_456), ..Default::default() };
        assert_eq!(header_time_ms(&header), 1_700_000_123_456);
        assert_eq!(&header.mix_hash[..30], &seed[..30]);
        // A whole hash in mixHash (a header sealed before the millisecond time) carries no milliseconds.
        assert_eq!(header_time_ms(&Header { timestamp: 5, mix_hash: B256::repeat_byte(0xff), ..Default::default() }), 5_000);
        assert_eq!(header_time_ms(&Header { timestamp: 5, mix_hash: mix_hash_with_millis(seed, 999), ..Default::default() }), 5_999);
    }

    #[test]
    fn hash_is_keccak_of_rlp() {
        let header = Header { number: 1, gas_limit: 30_000_000, base_fee_per_gas: Some(7), ..Default::default() };
        let mut rlp = Vec::new();
        alloy_rlp::Encodable::encode(&header, &mut rlp);
        assert_eq!(header_hash(&header), alloy_primitives::keccak256(&rlp));
        assert_ne!(header_hash(&header), header_hash(&Header { number: 2, ..header.clone() }));
    }
}
