//! RLP decoding errors rendered as geth renders them ("rlp: ..."), so clients see familiar text.

/// geth's text for an RLP decoding failure; `ty` names the value being decoded (e.g. `types.LegacyTx`).
pub fn geth_rlp_message(err: &alloy_rlp::Error, ty: &str) -> String {
    use alloy_rlp::Error as E;
    let what = match err {
        E::Overflow => "input string too long",
        E::LeadingZero => "non-canonical integer (leading zero bytes)",
        E::InputTooShort => "value size exceeds available input length",
        E::NonCanonicalSingleByte => "non-canonical size information",
        E::NonCanonicalSize => "non-canonical size information",
        E::UnexpectedLength => "unexpected length",
        E::UnexpectedString => "expected input list",
        E::UnexpectedList => "expected input string or byte",
        E::ListLengthMismatch { expected, got } if got > expected => "input list has too many elements",
        E::ListLengthMismatch { .. } => "too few elements",
        E::Custom(msg) => msg,
    };
    format!("rlp: {what} for {ty}")
}
