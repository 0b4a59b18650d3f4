//! Signed transactions: EIP-2718 decoding (legacy, EIP-2930, EIP-1559, EIP-7702) and sender
//! recovery; the authorities of EIP-7702 authorizations.

use alloy_consensus::transaction::{RlpEcdsaDecodableTx, SignableTransaction};
use alloy_consensus::{Signed, Transaction as _, TxEip1559, TxEip2930, TxEip7702, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip2930::AccessList;
use alloy_eips::eip7702::SignedAuthorization;
use alloy_primitives::{keccak256, Address, Bytes, Signature, TxKind, B256, U256};
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::Message;

use crate::gas::{intrinsic_gas, IntrinsicGas, PER_EMPTY_ACCOUNT_COST};
use crate::rlp_error::geth_rlp_message;

/// Order of the secp256k1 group.
const SECP256K1_N: U256 = U256::from_be_slice(&[
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
]);

/// Why a raw transaction was refused; `Display` is geth's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxError {
    #[error("{0}")]
    Rlp(String),
    #[error("typed transaction too short")]
    ShortTypedTx,
    #[error("transaction type not supported")]
    TypeNotSupported,
    #[error("invalid sender")]
    InvalidSender,
    /// geth's ErrEmptyAuthList.
    #[error("EIP-7702 transaction with empty auth list")]
    EmptyAuthList,
    /// geth's ErrSetCodeTxCreate: a set-code transaction has a 20-byte destination.
    #[error("EIP-7702 transaction cannot be used to create contract")]
    SetCodeTxCreate,
}

/// A decoded, signed transaction of a supported type with its hash and encoded size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedTransaction {
    pub envelope: TxEnvelope,
    pub hash: B256,
    /// Length of the EIP-2718 encoding in bytes.
    pub size: usize,
}

impl SignedTransaction {
    /// Decode one EIP-2718 envelope (the bytes of eth_sendRawTransaction); trailing bytes are refused.
    pub fn decode(raw: &[u8]) -> Result<Self, TxError> {
        let Some(&first) = raw.first() else {
            return Err(TxError::ShortTypedTx);
        };
        let envelope = if first >= 0xc0 {
            TxEnvelope::Legacy(decode_exact::<TxLegacy>(raw, "types.LegacyTx")?)
        } else if first > 0x7f {
            // A single RLP string is neither a legacy list nor a type byte.
            return Err(TxError::Rlp("rlp: expected input list for types.LegacyTx".into()));
        } else {
            if raw.len() <= 1 {
                return Err(TxError::ShortTypedTx);
            }
            let body = &raw[1..];
            match first {
                0x01 => TxEnvelope::Eip2930(decode_exact::<TxEip2930>(body, "types.AccessListTx")?),
                0x02 => TxEnvelope::Eip1559(decode_exact::<TxEip1559>(body, "types.DynamicFeeTx")?),
                0x04 => {
                    let signed = decode_exact::<TxEip7702>(body, "types.SetCodeTx").map_err(|e| {
                        if set_code_without_destination(body) { TxError::SetCodeTxCreate } else { e }
                    })?;
                    if signed.tx().authorization_list.is_empty() {
                        return Err(TxError::EmptyAuthList);
                    }
                    TxEnvelope::Eip7702(signed)
                }
                _ => return Err(TxError::TypeNotSupported),
            }
        };
        Ok(Self { envelope, hash: keccak256(raw), size: raw.len() })
    }

    /// Recover the sender from the signature: r and s in range, s in the lower half (EIP-2).
    pub fn recover_sender(&self) -> Result<Address, TxError> {
        let (signature, sighash) = match &self.envelope {
            TxEnvelope::Legacy(s) => (s.signature(), s.tx().signature_hash()),
            TxEnvelope::Eip2930(s) => (s.signature(), s.tx().signature_hash()),
            TxEnvelope::Eip1559(s) => (s.signature(), s.tx().signature_hash()),
            TxEnvelope::Eip7702(s) => (s.signature(), s.tx().signature_hash()),
            _ => return Err(TxError::TypeNotSupported),
        };
        recover_signer(signature, sighash)
    }

    /// 0 legacy, 1 EIP-2930, 2 EIP-1559, 4 EIP-7702.
    pub fn tx_type(&self) -> u8 {
        self.envelope.tx_type() as u8
    }

    pub fn chain_id(&self) -> Option<u64> {
        self.envelope.chain_id()
    }

    pub fn nonce(&self) -> u64 {
        self.envelope.nonce()
    }

    pub fn gas_limit(&self) -> u64 {
        self.envelope.gas_limit()
    }

    /// legacy/2930: gasPrice; 1559 and 7702: maxFeePerGas.
    pub fn max_fee_per_gas(&self) -> u128 {
        self.envelope.max_fee_per_gas()
    }

    /// legacy/2930: gasPrice; 1559 and 7702: maxPriorityFeePerGas.
    pub fn max_priority_fee_per_gas(&self) -> u128 {
        self.envelope.max_priority_fee_per_gas().unwrap_or_else(|| self.envelope.max_fee_per_gas())
    }

    /// Price per gas actually paid under a block with this base fee.
    pub fn effective_gas_price(&self, base_fee: u64) -> u128 {
        self.envelope.effective_gas_price(Some(base_fee))
    }

    /// Tip per gas paid to the coinbase under this base fee (None when the fee cap is below it).
    pub fn effective_tip(&self, base_fee: u64) -> Option<u128> {
        self.envelope.effective_tip_per_gas(base_fee)
    }

    pub fn kind(&self) -> TxKind {
        self.envelope.kind()
    }

    pub fn to(&self) -> Option<Address> {
        self.envelope.to()
    }

    pub fn value(&self) -> U256 {
        self.envelope.value()
    }

    pub fn input(&self) -> &Bytes {
        self.envelope.input()
    }

    pub fn access_list(&self) -> Option<&AccessList> {
        self.envelope.access_list()
    }

    /// The EIP-7702 authorizations of a set-code transaction (None for the other types).
    pub fn authorization_list(&self) -> Option<&[SignedAuthorization]> {
        self.envelope.authorization_list()
    }

    /// Whether the transaction carries an EIP-1559 fee pair (types 2 and 4).
    pub fn is_dynamic_fee(&self) -> bool {
        matches!(self.envelope, TxEnvelope::Eip1559(_) | TxEnvelope::Eip7702(_))
    }

    /// Intrinsic gas and EIP-7623 floor: calldata, creation, access list and, for a set-code
    /// transaction, PER_EMPTY_ACCOUNT_COST per authorization (geth's IntrinsicGas).
    pub fn intrinsic_gas(&self) -> IntrinsicGas {
        let mut ig = intrinsic_gas(self.input(), self.to().is_none(), self.access_list());
        let auths = self.authorization_list().map_or(0, |l| l.len() as u64);
        ig.intrinsic += auths * PER_EMPTY_ACCOUNT_COST;
        ig
    }

    pub fn signature(&self) -> &Signature {
        self.envelope.signature()
    }

    /// The `v` of the RPC object: EIP-155 value for legacy, y parity for typed transactions.
    pub fn v(&self) -> u64 {
        let parity = self.signature().v();
        match &self.envelope {
            TxEnvelope::Legacy(s) => match s.tx().chain_id {
                Some(id) => id * 2 + 35 + parity as u64,
                None => 27 + parity as u64,
            },
            _ => parity as u64,
        }
    }

    /// The EIP-2718 encoding (what was decoded).
    pub fn encoded(&self) -> Vec<u8> {
        self.envelope.encoded_2718()
    }
}

/// Whether a set-code body's sixth field (the destination) is the empty string: a creation, which
/// the type cannot express (its `to` is 20 bytes).
fn set_code_without_destination(body: &[u8]) -> bool {
    let mut buf = body;
    let Ok(list) = alloy_rlp::Header::decode(&mut buf) else { return false };
    if !list.list {
        return false;
    }
    for _ in 0..5 {
        let Ok(item) = alloy_rlp::Header::decode(&mut buf) else { return false };
        if item.payload_length > buf.len() {
            return false;
        }
        buf = &buf[item.payload_length..];
    }
    buf.first() == Some(&alloy_rlp::EMPTY_STRING_CODE)
}

/// The authority that signed an EIP-7702 authorization: ecrecover of
/// keccak(0x05 || rlp([chain_id, address, nonce])), with y parity 0 or 1, r and s in range and s in
/// the lower half. An authorization whose authority does not recover is skipped at execution.
pub fn recover_authority(auth: &SignedAuthorization) -> Result<Address, TxError> {
    let parity = match auth.y_parity() {
        0 => false,
        1 => true,
        _ => return Err(TxError::InvalidSender),
    };
    recover_signer(&Signature::new(auth.r(), auth.s(), parity), auth.signature_hash())
}

fn decode_exact<T: RlpEcdsaDecodableTx>(bytes: &[u8], ty: &str) -> Result<Signed<T>, TxError> {
    let mut buf = bytes;
    let (tx, signature) =
        T::rlp_decode_with_signature(&mut buf).map_err(|e| TxError::Rlp(geth_rlp_message(&e, ty)))?;
    if !buf.is_empty() {
        return Err(TxError::Rlp("rlp: input contains more than one value".into()));
    }
    Ok(Signed::new_unhashed(tx, signature))
}

/// Recover the address that signed `sighash`, refusing out-of-range or high-s signatures.
pub fn recover_signer(signature: &Signature, sighash: B256) -> Result<Address, TxError> {
    let (r, s) = (signature.r(), signature.s());
    if r.is_zero() || s.is_zero() || r >= SECP256K1_N || s > SECP256K1_N >> 1 {
        return Err(TxError::InvalidSender);
    }
    let mut compact = [0u8; 64];
    compact[..32].copy_from_slice(&r.to_be_bytes::<32>());
    compact[32..].copy_from_slice(&s.to_be_bytes::<32>());
    let recid = RecoveryId::try_from(signature.v() as i32).map_err(|_| TxError::InvalidSender)?;
    let sig = RecoverableSignature::from_compact(&compact, recid).map_err(|_| TxError::InvalidSender)?;
    let public = sig.recover(Message::from_digest(sighash.0)).map_err(|_| TxError::InvalidSender)?;
    let uncompressed = public.serialize_uncompressed();
    Ok(Address::from_slice(&keccak256(&uncompressed[1..])[12..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{address, b256, hex};
    use secp256k1::{SecretKey, SECP256K1};

    fn sign(tx: &impl SignableTransaction<Signature>, key: &SecretKey) -> Signature {
        let msg = Message::from_digest(tx.signature_hash().0);
        let (recid, bytes) = SECP256K1.sign_ecdsa_recoverable(msg, key).serialize_compact();
        Signature::new(
            U256::from_be_slice(&bytes[..32]),
            U256::from_be_slice(&bytes[32..]),
            i32::from(recid) == 1,
        )
    }

    fn address_of(key: &SecretKey) -> Address {
        let public = secp256k1::PublicKey::from_secret_key_global(key).serialize_uncompressed();
        Address::from_slice(&keccak256(&public[1..])[12..])
    }

    #[test]
    fn eip155_vector_from_the_eip() {
        let raw = hex!("f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83");
        let tx = SignedTransaction::decode(&raw).unwrap();
        assert_eq!(tx.tx_type(), 0);
        assert_eq!(tx.chain_id(), Some(1));
        assert_eq!(tx.nonce(), 9);
        assert_eq!(tx.max_fee_per_gas(), 20_000_000_000);
        assert_eq!(tx.gas_limit(), 21000);
        assert_eq!(tx.value(), U256::from(10u128.pow(18)));
        assert_eq!(tx.v(), 37);
        assert_eq!(tx.recover_sender().unwrap(), address!("9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F"));
        assert_eq!(tx.encoded(), raw.to_vec());
    }

    #[test]
    fn signs_and_recovers_every_supported_type() {
        let key = SecretKey::from_byte_array([0x42; 32]).unwrap();
        let to = TxKind::Call(address!("3535353535353535353535353535353535353535"));
        let legacy = TxLegacy { chain_id: Some(9000), nonce: 1, gas_price: 7, gas_limit: 21000, to, value: U256::from(5), input: Bytes::new() };
        let pre155 = TxLegacy { chain_id: None, ..legacy.clone() };
        let al = TxEip2930 { chain_id: 9000, nonce: 2, gas_price: 9, gas_limit: 30000, to, value: U256::ZERO, access_list: AccessList::default(), input: Bytes::from_static(&[1, 2]) };
        let dyn_fee = TxEip1559 { chain_id: 9000, nonce: 3, gas_limit: 50000, max_fee_per_gas: 100, max_priority_fee_per_gas: 2, to: TxKind::Create, value: U256::ZERO, access_list: AccessList::default(), input: Bytes::from_static(&[0x60, 0x00]) };
        let envelopes = [
            TxEnvelope::Legacy(Signed::new_unhashed(legacy.clone(), sign(&legacy, &key))),
            TxEnvelope::Legacy(Signed::new_unhashed(pre155.clone(), sign(&pre155, &key))),
            TxEnvelope::Eip2930(Signed::new_unhashed(al.clone(), sign(&al, &key))),
            TxEnvelope::Eip1559(Signed::new_unhashed(dyn_fee.clone(), sign(&dyn_fee, &key))),
        ];
        for (i, envelope) in envelopes.iter().enumerate() {
            let raw = envelope.encoded_2718();
            let tx = SignedTransaction::decode(&raw).unwrap();
            assert_eq!(tx.recover_sender().unwrap(), address_of(&key), "envelope {i}");
            assert_eq!(tx.hash, keccak256(&raw));
            assert_eq!(tx.size, raw.len());
        }
        assert_eq!(SignedTransaction::decode(&envelopes[1].encoded_2718()).unwrap().chain_id(), None);
        assert_eq!(SignedTransaction::decode(&envelopes[3].encoded_2718()).unwrap().tx_type(), 2);
    }

    #[test]
    fn refuses_high_s_and_garbage_signatures() {
        let key = SecretKey::from_byte_array([0x11; 32]).unwrap();
        let tx = TxEip1559 { chain_id: 9000, nonce: 0, gas_limit: 21000, max_fee_per_gas: 1, max_priority_fee_per_gas: 1, to: TxKind::Call(Address::ZERO), value: U256::ZERO, access_list: AccessList::default(), input: Bytes::new() };
        let sig = sign(&tx, &key);
        // The same signature with s' = n - s and the flipped parity is valid ECDSA but high-s.
        let high = Signature::new(sig.r(), SECP256K1_N - sig.s(), !sig.v());
        let raw = TxEnvelope::Eip1559(Signed::new_unhashed(tx.clone(), high)).encoded_2718();
        assert_eq!(SignedTransaction::decode(&raw).unwrap().recover_sender(), Err(TxError::InvalidSender));
        let zero = Signature::new(U256::ZERO, sig.s(), sig.v());
        let raw = TxEnvelope::Eip1559(Signed::new_unhashed(tx, zero)).encoded_2718();
        assert_eq!(SignedTransaction::decode(&raw).unwrap().recover_sender(), Err(TxError::InvalidSender));
    }

    #[test]
    fn refuses_bad_encodings_with_geth_text() {
        let raw = hex!("f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83");
        let mut trailing = raw.to_vec();
        trailing.push(0x00);
        assert_eq!(SignedTransaction::decode(&trailing).unwrap_err().to_string(), "rlp: input contains more than one value");
        let err = SignedTransaction::decode(&raw[..raw.len() - 3]).unwrap_err().to_string();
        assert!(err.starts_with("rlp: "), "{err}");
        assert_eq!(SignedTransaction::decode(&[]).unwrap_err(), TxError::ShortTypedTx);
        assert_eq!(SignedTransaction::decode(&[0x03, 0xc0]).unwrap_err().to_string(), "transaction type not supported");
        assert!(SignedTransaction::decode(&[0x04, 0xc0]).unwrap_err().to_string().starts_with("rlp: "));
        assert_eq!(SignedTransaction::decode(&[0x05, 0xc0]).unwrap_err().to_string(), "transaction type not supported");
        assert!(SignedTransaction::decode(&[0x02, 0x80]).unwrap_err().to_string().starts_with("rlp: expected input list"));
    }

    /// A set-code transaction that viem 2.57 signed (key 0x42…42, chain 9000) with two
    /// authorizations: one by the same key for chain 9000, nonce 7, and one by key 0x11…11 for any
    /// chain (id 0) delegating to the zero address.
    const VIEM_SET_CODE: [u8; 352] = hex!("04f9015c8223280302648301388094353535353535353535353535353535353535353505821234f838f79400000000000000000000000000000000000000aae1a00000000000000000000000000000000000000000000000000000000000000001f8baf85c8223289435353535353535353535353535353535353535350780a0407eb5a909f94401bef97fde9208d4fd77bcd0111bf1a984f75322e72c912370a01775a3e1becb9bca0aec486e45c52c8d57769dcfbbbf7a8f39fe14f5d2fdeda1f85a809400000000000000000000000000000000000000008001a036a9141d12a6a5ac448d602b8aef8cad98744204d15197dc9f78e501e792d07ea032e21e07bd4dfbe1a4f009a32d9e1e69006f290993324c31787e5f110a42e11501a0a78d692ebea156cbd97336662974dd0b328c6bd30e93e8ac661a368c842c8397a034489fdf50f210b0986e6919f62fbdfc6846f90c9bbebd159d93de7a93d64f3c");

    fn set_code_tx(authorization_list: Vec<SignedAuthorization>) -> TxEip7702 {
        let storage_key = B256::with_last_byte(1);
        TxEip7702 {
            chain_id: 9000,
            nonce: 3,
            gas_limit: 80_000,
            max_fee_per_gas: 100,
            max_priority_fee_per_gas: 2,
            to: address!("3535353535353535353535353535353535353535"),
            value: U256::from(5),
            access_list: AccessList(vec![alloy_eips::eip2930::AccessListItem {
                address: address!("00000000000000000000000000000000000000aa"),
                storage_keys: vec![storage_key],
            }]),
            authorization_list,
            input: Bytes::from_static(&[0x12, 0x34]),
        }
    }

    fn sign_authorization(chain_id: u64, address: Address, nonce: u64, key: &SecretKey) -> SignedAuthorization {
        let auth = crate::Authorization { chain_id: U256::from(chain_id), address, nonce };
        let msg = Message::from_digest(auth.signature_hash().0);
        let (recid, bytes) = SECP256K1.sign_ecdsa_recoverable(msg, key).serialize_compact();
        SignedAuthorization::new_unchecked(auth, i32::from(recid) as u8, U256::from_be_slice(&bytes[..32]), U256::from_be_slice(&bytes[32..]))
    }

    #[test]
    fn decodes_a_viem_set_code_transaction() {
        let tx = SignedTransaction::decode(&VIEM_SET_CODE).unwrap();
        assert_eq!(tx.tx_type(), 4);
        assert!(tx.is_dynamic_fee());
        assert_eq!(tx.hash, b256!("1ab5e4be2ce040fc5cc4d0be4c825403e370e25a3b1ade58ae12259c31e0564f"));
        assert_eq!(tx.chain_id(), Some(9000));
        assert_eq!((tx.nonce(), tx.gas_limit(), tx.max_fee_per_gas(), tx.max_priority_fee_per_gas()), (3, 80_000, 100, 2));
        assert_eq!(tx.to(), Some(address!("3535353535353535353535353535353535353535")));
        assert_eq!(tx.value(), U256::from(5));
        assert_eq!(tx.input().as_ref(), &[0x12, 0x34]);
        assert_eq!(tx.access_list().unwrap().len(), 1);
        assert_eq!(tx.recover_sender().unwrap(), address!("17c5185167401eD00cF5F5b2fc97D9BBfDb7D025"));
        assert_eq!(tx.v(), tx.signature().v() as u64);
        assert_eq!(tx.encoded(), VIEM_SET_CODE.to_vec());

        let auths = tx.authorization_list().unwrap();
        assert_eq!(auths.len(), 2);
        assert_eq!((auths[0].chain_id, auths[0].address, auths[0].nonce, auths[0].y_parity()), (U256::from(9000), address!("3535353535353535353535353535353535353535"), 7, 0));
        assert_eq!(recover_authority(&auths[0]).unwrap(), address!("17c5185167401eD00cF5F5b2fc97D9BBfDb7D025"));
        assert_eq!((auths[1].chain_id, auths[1].address, auths[1].y_parity()), (U256::ZERO, Address::ZERO, 1));
        assert_eq!(recover_authority(&auths[1]).unwrap(), address!("19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"));

        // 21000 + 2 non-zero bytes + one address and one key + 25000 per authorization.
        let ig = tx.intrinsic_gas();
        assert_eq!(ig.intrinsic, 21_000 + 2 * 16 + 2_400 + 1_900 + 2 * 25_000);
        assert_eq!(ig.floor, 21_000 + 2 * 4 * 10);
        assert_eq!(SignedTransaction::decode(&envelopes_legacy_vector()).unwrap().authorization_list(), None);
    }

    fn envelopes_legacy_vector() -> Vec<u8> {
        hex!("f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83").to_vec()
    }

    #[test]
    fn signs_set_code_transactions_as_viem_does() {
        let key = SecretKey::from_byte_array([0x42; 32]).unwrap();
        let other = SecretKey::from_byte_array([0x11; 32]).unwrap();
        let auths = vec![
            sign_authorization(9000, address!("3535353535353535353535353535353535353535"), 7, &key),
            sign_authorization(0, Address::ZERO, 0, &other),
        ];
        let tx = set_code_tx(auths);
        let raw = TxEnvelope::Eip7702(Signed::new_unhashed(tx.clone(), sign(&tx, &key))).encoded_2718();
        assert_eq!(raw, VIEM_SET_CODE.to_vec());
    }

    #[test]
    fn refuses_set_code_without_authorizations_or_destination() {
        let key = SecretKey::from_byte_array([0x42; 32]).unwrap();
        let tx = set_code_tx(Vec::new());
        let raw = TxEnvelope::Eip7702(Signed::new_unhashed(tx.clone(), sign(&tx, &key))).encoded_2718();
        assert_eq!(SignedTransaction::decode(&raw), Err(TxError::EmptyAuthList));
        assert_eq!(TxError::EmptyAuthList.to_string(), "EIP-7702 transaction with empty auth list");

        // The same fields with an empty destination, as a creation would encode it.
        use alloy_rlp::Encodable;
        let tx = set_code_tx(vec![sign_authorization(9000, Address::ZERO, 0, &key)]);
        let sig = sign(&tx, &key);
        let mut fields = Vec::new();
        tx.chain_id.encode(&mut fields);
        tx.nonce.encode(&mut fields);
        tx.max_priority_fee_per_gas.encode(&mut fields);
        tx.max_fee_per_gas.encode(&mut fields);
        tx.gas_limit.encode(&mut fields);
        Bytes::new().encode(&mut fields);
        tx.value.encode(&mut fields);
        tx.input.encode(&mut fields);
        tx.access_list.encode(&mut fields);
        tx.authorization_list.encode(&mut fields);
        sig.v().encode(&mut fields);
        sig.r().encode(&mut fields);
        sig.s().encode(&mut fields);
        let mut raw = vec![0x04];
        alloy_rlp::Header { list: true, payload_length: fields.len() }.encode(&mut raw);
        raw.extend_from_slice(&fields);
        assert_eq!(SignedTransaction::decode(&raw), Err(TxError::SetCodeTxCreate));
        assert_eq!(TxError::SetCodeTxCreate.to_string(), "EIP-7702 transaction cannot be used to create contract");
    }

    #[test]
    fn authority_refuses_bad_parity_and_high_s() {
        let key = SecretKey::from_byte_array([0x42; 32]).unwrap();
        let good = sign_authorization(9000, Address::ZERO, 0, &key);
        assert_eq!(recover_authority(&good).unwrap(), address_of(&key));
        let bad_parity = SignedAuthorization::new_unchecked(good.inner().clone(), 2, good.r(), good.s());
        assert_eq!(recover_authority(&bad_parity), Err(TxError::InvalidSender));
        let high_s = SignedAuthorization::new_unchecked(good.inner().clone(), 1 - good.y_parity(), good.r(), SECP256K1_N - good.s());
        assert_eq!(recover_authority(&high_s), Err(TxError::InvalidSender));
    }
}
