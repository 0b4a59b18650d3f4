//! Shared helpers of the engine tests: keys that sign real transactions, compiled fixtures,
//! and a devnet-like genesis.
#![allow(dead_code)]

use std::path::Path;

use alloy_consensus::transaction::SignableTransaction;
use alloy_consensus::{Signed, TxEip1559, TxEip7702, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip2930::AccessList;
use alloy_eips::eip7702::{Authorization, SignedAuthorization};
use alloy_primitives::{keccak256, Address, Bytes, Signature, TxKind, B256, U256};
use secp256k1::{Message, SecretKey, SECP256K1};
use svc_evm::{BlockRequest, Chain, ChainConfig, GenesisAccount, GenesisSpec};

pub const CHAIN_ID: u64 = 9000;
pub const GWEI: u128 = 1_000_000_000;
pub const ETHER: u128 = 1_000_000_000_000_000_000;

/// A test account that signs transactions.
pub struct Key {
    pub secret: SecretKey,
    pub address: Address,
}

impl Key {
    pub fn new(seed: u64) -> Self {
        let mut bytes = [0u8; 32];
        bytes[24..].copy_from_slice(&(seed + 1).to_be_bytes());
        bytes[0] = 0x01;
        let secret = SecretKey::from_byte_array(bytes).expect("valid key");
        let public = secp256k1::PublicKey::from_secret_key_global(&secret).serialize_uncompressed();
        Self { secret, address: Address::from_slice(&keccak256(&public[1..])[12..]) }
    }

    fn sign<T: SignableTransaction<Signature>>(&self, tx: &T) -> Signature {
        let msg = Message::from_digest(tx.signature_hash().0);
        let (recid, bytes) = SECP256K1.sign_ecdsa_recoverable(msg, &self.secret).serialize_compact();
        Signature::new(U256::from_be_slice(&bytes[..32]), U256::from_be_slice(&bytes[32..]), i32::from(recid) == 1)
    }

    /// EIP-1559 transaction (max fee 100 gwei, tip 1 gwei).
    pub fn tx1559(&self, nonce: u64, to: Option<Address>, value: u128, input: Vec<u8>, gas: u64) -> Bytes {
        let tx = TxEip1559 {
            chain_id: CHAIN_ID,
            nonce,
            gas_limit: gas,
            max_fee_per_gas: 100 * GWEI,
            max_priority_fee_per_gas: GWEI,
            to: to.map_or(TxKind::Create, TxKind::Call),
            value: U256::from(value),
            access_list: AccessList::default(),
            input: input.into(),
        };
        let sig = self.sign(&tx);
        TxEnvelope::Eip1559(Signed::new_unhashed(tx, sig)).encoded_2718().into()
    }

    /// An EIP-7702 authorization: this key's account delegates to `address`.
    pub fn authorize(&self, chain_id: u64, address: Address, nonce: u64) -> SignedAuthorization {
        let auth = Authorization { chain_id: U256::from(chain_id), address, nonce };
        let msg = Message::from_digest(auth.signature_hash().0);
        let (recid, bytes) = SECP256K1.sign_ecdsa_recoverable(msg, &self.secret).serialize_compact();
        SignedAuthorization::new_unchecked(auth, i32::from(recid) as u8, U256::from_be_slice(&bytes[..32]), U256::from_be_slice(&bytes[32..]))
    }

    /// EIP-7702 set-code transaction (max fee 100 gwei, tip 1 gwei).
    pub fn tx7702(&self, nonce: u64, to: Address, input: Vec<u8>, gas: u64, authorization_list: Vec<SignedAuthorization>) -> Bytes {
        let tx = TxEip7702 {
            chain_id: CHAIN_ID,
            nonce,
            gas_limit: gas,
            max_fee_per_gas: 100 * GWEI,
            max_priority_fee_per_gas: GWEI,
            to,
            value: U256::ZERO,
            access_list: AccessList::default(),
            authorization_list,
            input: input.into(),
        };
        let sig = self.sign(&tx);
        TxEnvelope::Eip7702(Signed::new_unhashed(tx, sig)).encoded_2718().into()
    }

    /// Legacy EIP-155 transaction at `gas_price`.
    pub fn legacy(&self, nonce: u64, to: Option<Address>, value: u128, input: Vec<u8>, gas: u64, gas_price: u128) -> Bytes {
        let tx = TxLegacy {
            chain_id: Some(CHAIN_ID),
            nonce,
            gas_price,
            gas_limit: gas,
            to: to.map_or(TxKind::Create, TxKind::Call),
            value: U256::from(value),
            input: input.into(),
        };
        let sig = self.sign(&tx);
        TxEnvelope::Legacy(Signed::new_unhashed(tx, sig)).encoded_2718().into()
    }
}

/// A compiled fixture contract.
pub struct Contract {
    pub bytecode: Vec<u8>,
    pub deployed: Vec<u8>,
}

pub fn contract(name: &str) -> Contract {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(format!("{name}.json"));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json");
    let hex_of = |k: &str| hex::decode(json[k].as_str().expect("hex field")).expect("hex");
    Contract { bytecode: hex_of("bytecode"), deployed: hex_of("deployedBytecode") }
}

/// 4-byte selector of a function signature.
pub fn selector(signature: &str) -> Vec<u8> {
    keccak256(signature.as_bytes())[..4].to_vec()
}

pub fn word(value: U256) -> [u8; 32] {
    value.to_be_bytes::<32>()
}

pub fn address_word(a: Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

/// Calldata: selector followed by 32-byte words.
pub fn calldata(signature: &str, words: &[[u8; 32]]) -> Vec<u8> {
    let mut out = selector(signature);
    for w in words {
        out.extend_from_slice(w);
    }
    out
}

/// Storage slot of `holder` in an OpenZeppelin ERC-20 `_balances` mapping (slot 0).
pub fn erc20_balance_slot(holder: Address) -> B256 {
    let mut buf = [0u8; 64];
    buf[..32].copy_from_slice(&address_word(holder));
    keccak256(buf)
}

pub const PROBE: Address = Address::new([0x0b; 20]);
pub const COINBASE: Address = Address::new([0xc0; 20]);

/// A genesis funding `keys` with 10,000 ether each and placing Probe via its init code.
pub fn genesis(keys: &[Key]) -> GenesisSpec {
    let mut alloc: Vec<GenesisAccount> = keys
        .iter()
        .map(|k| GenesisAccount { address: k.address, balance: U256::from(10_000 * ETHER), ..Default::default() })
        .collect();
    alloc.push(GenesisAccount { address: PROBE, init_code: Some(contract("Probe").bytecode.into()), ..Default::default() });
    GenesisSpec {
        chain_id: CHAIN_ID,
        timestamp: 1_700_000_000,
        gas_limit: 300_000_000,
        base_fee_per_gas: GWEI as u64,
        coinbase: COINBASE,
        extra_data: Bytes::from_static(b"svc"),
        alloc,
    }
}

pub fn open(dir: &Path, spec: &GenesisSpec) -> Chain {
    Chain::open(dir, spec, ChainConfig::default()).expect("open chain")
}

/// A block request for `txs` sent by `senders`, one second after the head.
pub fn request(chain: &Chain, txs: Vec<Bytes>, senders: Vec<Address>) -> BlockRequest {
    let head = chain.head().expect("head");
    BlockRequest {
        timestamp_ms: (head.header.timestamp + 1) * 1000,
        coinbase: COINBASE,
        extra_data: Bytes::new(),
        gas_limit: 300_000_000,
        txs,
        senders,
        ..Default::default()
    }
}
