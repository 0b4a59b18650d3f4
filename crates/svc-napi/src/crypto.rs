//! Ed25519 verification bindings over svc_crypto: one signature on the JS thread (a verification
//! is about 40 µs), a batch off it.

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// One signature to verify.
#[napi(object)]
pub struct Ed25519Item {
    pub public_key: Buffer,
    pub message: Buffer,
    pub signature: Buffer,
}

/// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey` (strict: rejects
/// wrong lengths, small-order keys and malleable signatures).
#[napi]
pub fn ed25519_verify(public_key: Buffer, message: Buffer, signature: Buffer) -> bool {
    svc_crypto::ed25519_verify(&public_key, &message, &signature)
}

pub struct Ed25519BatchTask {
    /// (public key, message, signature) per item, copied off the JS heap.
    items: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
}

impl Task for Ed25519BatchTask {
    type Output = Vec<bool>;
    type JsValue = Vec<bool>;

    fn compute(&mut self) -> Result<Self::Output> {
        let items: Vec<(&[u8], &[u8], &[u8])> =
            self.items.iter().map(|(p, m, s)| (p.as_slice(), m.as_slice(), s.as_slice())).collect();
        Ok(svc_crypto::ed25519_verify_batch(&items))
    }

    fn resolve(&mut self, _env: Env, verdicts: Self::Output) -> Result<Vec<bool>> {
        Ok(verdicts)
    }
}

/// `ed25519Verify` of each item, in order, off the JS thread (split over cores for long batches).
#[napi(ts_return_type = "Promise<boolean[]>")]
pub fn ed25519_verify_batch(items: Vec<Ed25519Item>) -> AsyncTask<Ed25519BatchTask> {
    AsyncTask::new(Ed25519BatchTask {
        items: items.into_iter().map(|i| (i.public_key.to_vec(), i.message.to_vec(), i.signature.to_vec())).collect(),
    })
}

/// The address whose secp256k1 key signed the 32-byte `digest` with `signature` (65 bytes:
/// r ‖ s ‖ v, v 27 or 28), as the EVM's ecrecover finds it but stricter: a high `s`, an `r` or `s`
/// out of range, another `v` or another length gives null (so one signature has one encoding).
#[napi]
pub fn recover_signer(digest: Buffer, signature: Buffer) -> Option<Buffer> {
    if digest.len() != 32 || signature.len() != 65 {
        return None;
    }
    let parity = match signature[64] {
        27 => false,
        28 => true,
        _ => return None,
    };
    let r = svc_primitives::U256::from_be_slice(&signature[..32]);
    let s = svc_primitives::U256::from_be_slice(&signature[32..64]);
    let sig = alloy_primitives::Signature::new(r, s, parity);
    let hash = svc_primitives::B256::from_slice(&digest);
    svc_primitives::tx::recover_signer(&sig, hash).ok().map(|a| a.as_slice().to_vec().into())
}
