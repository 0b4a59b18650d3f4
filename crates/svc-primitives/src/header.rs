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
    fn hash_is_keccak_of_rlp() {
        let header = Header { number: 1, gas_limit: 30_000_000, base_fee_per_gas: Some(7), ..Default::default() };
        let mut rlp = Vec::new();
        alloy_rlp::Encodable::encode(&header, &mut rlp);
        assert_eq!(header_hash(&header), alloy_primitives::keccak256(&rlp));
        assert_ne!(header_hash(&header), header_hash(&Header { number: 2, ..header.clone() }));
    }
}
