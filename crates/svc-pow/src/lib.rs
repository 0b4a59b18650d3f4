//! BLAKE3 proof-of-work hashing.

mod lanes;
pub mod search;

/// BLAKE3 digest (32 bytes) of `data`.
pub fn blake3_hash(data: &[u8]) -> [u8; 32] {
    *blake3::hash(data).as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_vector_of_the_empty_input() {
        let expected = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";
        let got: String = blake3_hash(b"").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got, expected);
    }
}
