// The miner's keys: one Ed25519 seed (--private-key) signs proofs and registrations, and derives
// the wallet's secp256k1 key (walletKeyOf in wire.ts), so one secret backs up both. The wallet
// address (--wallet) is the EVM address of that derived key.
import { randomBytes } from 'node:crypto';
import { SvcError } from '../errors.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  bytesOf, hexOf, proofMessage, registrationMessage, walletKeyOf,
  type GpuTierName, type Hex, type InferenceProofJson, type MinerRegistrationJson,
} from '../modules/compute/wire.js';

/** The keys a miner works with, all derived from `seed`. */
export interface MinerKeys {
  seed: Uint8Array;
  /** Ed25519 public key, 0x-hex. */
  publicKey: Hex;
  /** The secp256k1 key derived from the seed (what an Ethereum wallet imports). */
  walletKey: Hex;
  /** The wallet's address, EIP-55 checksummed. */
  address: Hex;
  account: PrivateKeyAccount;
}

/** What `svc-miner --generate-wallet` prints. */
export interface GeneratedWallet {
  address: Hex;
  privateKey: Hex;
  publicKey: Hex;
  walletKey: Hex;
}

/** A --private-key or --wallet value that cannot be used. */
export class KeyError extends SvcError {
  override name = 'KeyError';
  override readonly code = 'KEY';
}

/** Parses an Ed25519 private key: 32 bytes as (0x-prefixed) hex. */
export function parseSeed(text: string): Uint8Array {
  const t = text.trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(t)) {
    throw new KeyError('--private-key must be an Ed25519 private key: 32 bytes as 0x-prefixed hex (64 hex digits)');
  }
  return new Uint8Array(bytesOf(t.toLowerCase()));
}

/** Derives the public key, wallet key and wallet address from a seed (throws RangeError for the rare seed without a wallet key). */
export function deriveKeys(seed: Uint8Array): MinerKeys {
  const walletKey = walletKeyOf(seed);
  const account = privateKeyToAccount(walletKey);
  return { seed, publicKey: hexOf(ed25519.getPublicKey(seed)), walletKey, address: account.address, account };
}

/** A fresh random seed and what derives from it; retries the (1 in 2^128) seeds without a wallet key. */
export function generateWallet(random: (n: number) => Uint8Array = (n) => randomBytes(n)): GeneratedWallet {
  for (;;) {
    const seed = random(32);
    let keys: MinerKeys;
    try {
      keys = deriveKeys(seed);
    } catch (e) {
      if (e instanceof RangeError) continue;
      throw e;
    }
    return { address: keys.address, privateKey: hexOf(seed), publicKey: keys.publicKey, walletKey: keys.walletKey };
  }
}

/**
 * The keys for --private-key, checked against --wallet: the wallet must be the address derived
 * from the key (the one --generate-wallet printed with it).
 */
export function minerKeys(privateKey: string, wallet: string): MinerKeys {
  if (!/^0x[0-9a-fA-F]{40}$/.test(wallet.trim())) {
    throw new KeyError(`--wallet must be an address (0x followed by 40 hex digits), got ${JSON.stringify(wallet)}`);
  }
  const seed = parseSeed(privateKey);
  let keys: MinerKeys;
  try {
    keys = deriveKeys(seed);
  } catch (e) {
    if (e instanceof RangeError) throw new KeyError(`--private-key: ${e.message}`);
    throw e;
  }
  if (keys.address.toLowerCase() !== wallet.trim().toLowerCase()) {
    throw new KeyError(
      `--wallet ${wallet.trim()} is not the wallet of this --private-key. The miner wallet is derived from the ` +
        'Ed25519 private key (secp256k1 key = keccak256("svc-miner/wallet/v1" || private key), wallet = its ' +
        `Ethereum address), so this key's wallet is ${keys.address}. Use the address that ` +
        '`svc-miner --generate-wallet` printed together with this private key.',
    );
  }
  return keys;
}

/** A registration signed by both keys (Ed25519 over registrationMessage, EIP-191 by the wallet over the same bytes). */
export async function signRegistration(
  keys: MinerKeys, chainId: number, tier: GpuTierName, models: readonly string[], sequence: number,
): Promise<MinerRegistrationJson> {
  const message = registrationMessage({
    chainId, wallet: bytesOf(keys.address), publicKey: bytesOf(keys.publicKey), tier, models, sequence,
  });
  return {
    wallet: keys.address,
    public_key: keys.publicKey,
    tier,
    models: [...models],
    sequence,
    signature: hexOf(ed25519.sign(message, keys.seed)),
    wallet_signature: await keys.account.signMessage({ message: { raw: message } }),
  };
}

/** What a proof reports about one model run. */
export interface ProofResult {
  chainId: number;
  validator: Hex;
  taskId: Hex;
  modelId: string;
  inputHash: Uint8Array;
  outputHash: Uint8Array;
  quantized: Int8Array;
  executionTimeMs: number;
  flops: number;
}

/** svc_submitInferenceProof's parameter, signed with the miner's Ed25519 key. */
export function signProof(keys: MinerKeys, r: ProofResult): InferenceProofJson {
  const message = proofMessage({
    chainId: r.chainId,
    taskId: bytesOf(r.taskId),
    validator: bytesOf(r.validator),
    miner: bytesOf(keys.address),
    modelId: r.modelId,
    inputHash: r.inputHash,
    outputHash: r.outputHash,
    executionTimeMs: r.executionTimeMs,
    flops: r.flops,
  });
  return {
    validator: r.validator,
    miner: keys.address,
    public_key: keys.publicKey,
    task_id: r.taskId,
    model_id: r.modelId,
    input_hash: hexOf(r.inputHash),
    output_hash: hexOf(r.outputHash),
    quantized: hexOf(new Uint8Array(r.quantized.buffer, r.quantized.byteOffset, r.quantized.byteLength)),
    execution_time_ms: r.executionTimeMs,
    flops: r.flops,
    signature: hexOf(ed25519.sign(message, keys.seed)),
  };
}
