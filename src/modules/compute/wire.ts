// The compute module's wire formats: the canonical bytes a miner signs (proofs with Ed25519,
// registrations with Ed25519 and the wallet's secp256k1 key), the miner wallet derived from the
// Ed25519 seed, and the JSON shapes of the svc_* inference methods. Shared by the node (which
// verifies) and svc-miner (which signs), so the two can never disagree. docs/compute.md describes
// every field.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { blake3 } from '@noble/hashes/blake3.js';

export type Hex = `0x${string}`;
export type GpuTierName = 'Hot' | 'Warm' | 'Cold';

/** Tiers in order; a tier serves the models of its own tier and the ones below it. */
export const TIERS: readonly GpuTierName[] = ['Cold', 'Warm', 'Hot'];

export const PROOF_DOMAIN = 'svc/inference-proof/v1';
export const REGISTRATION_DOMAIN = 'svc/miner-registration/v1';
export const WALLET_DOMAIN = 'svc-miner/wallet/v1';
export const OUTPUT_DOMAIN = 'svc/inference-output/v1';
export const MODE_DOMAIN = 'svc/compute-mode/v1';

/** The compute modes a validator announces, in the order of their byte in modeMessage(). */
export const COMPUTE_MODES = ['pow', 'inference', 'none'] as const;
export type ComputeModeName = (typeof COMPUTE_MODES)[number];

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** svc_submitInferenceProof's parameter: the spec's fields plus the miner, its key, the task and the quantised output. */
export interface InferenceProofJson {
  /** The validator the proof is submitted through (the node's validator, from svc_getInferenceTasks). */
  validator: Hex;
  /** The miner's wallet: rewards go here, penalties apply here. */
  miner: Hex;
  /** Ed25519 public key, 32 bytes. */
  public_key: Hex;
  task_id: Hex;
  /** `<model_name>@v<major.minor>`. */
  model_id: string;
  /** BLAKE3 of the task input's UTF-8 bytes. */
  input_hash: Hex;
  /** BLAKE3 commitment to the quantised output (see outputHash). */
  output_hash: Hex;
  /** The canonical int8 output, one byte per dimension (two's complement). */
  quantized: Hex;
  execution_time_ms: number;
  /** The miner's own FLOPs figure; signed but not trusted: the node computes its own. */
  flops: number;
  /** Ed25519 signature over proofMessage(). */
  signature: Hex;
}

/** svc_registerMiner's parameter. */
export interface MinerRegistrationJson {
  wallet: Hex;
  public_key: Hex;
  tier: GpuTierName;
  /** Approved model ids the miner has loaded and will take tasks for. */
  models: string[];
  /** Strictly increasing per key (svc-miner uses milliseconds since 1970), so an old registration cannot be replayed. */
  sequence: number;
  /** Ed25519 signature over registrationMessage(). */
  signature: Hex;
  /** The wallet's EIP-191 signature (personal_sign) over the same bytes: the wallet consents to the key. */
  wallet_signature: Hex;
}

/** A task as svc_getInferenceTasks and svc_getInferenceTask show it. */
export interface TaskJson {
  task_id: Hex;
  kind: 'public' | 'challenge';
  model_id: string;
  input: string;
  input_hash: Hex;
}

export const hexOf = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString('hex')}`;

export function bytesOf(h: string): Buffer {
  return Buffer.from(h.startsWith('0x') ? h.slice(2) : h, 'hex');
}

function u64(n: number | bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

function shortString(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  if (b.length > 255) throw new RangeError(`string longer than 255 bytes: ${s.slice(0, 40)}...`);
  return Buffer.concat([Buffer.from([b.length]), b]);
}

/** The fields a proof signature covers. */
export interface ProofFields {
  chainId: number;
  taskId: Uint8Array;
  validator: Uint8Array;
  miner: Uint8Array;
  modelId: string;
  inputHash: Uint8Array;
  outputHash: Uint8Array;
  executionTimeMs: number;
  flops: number | bigint;
}

/**
 * The bytes an Ed25519 proof signature covers:
 *   "svc/inference-proof/v1" || u64be chainId || task_id (32) || validator (20) || miner (20)
 *   || u8 len || model_id || input_hash (32) || output_hash (32) || u64be execution_time_ms || u64be flops
 * The quantised output is covered through output_hash, which commits to it.
 */
export function proofMessage(f: ProofFields): Buffer {
  return Buffer.concat([
    Buffer.from(PROOF_DOMAIN, 'ascii'),
    u64(f.chainId),
    Buffer.from(f.taskId),
    Buffer.from(f.validator),
    Buffer.from(f.miner),
    shortString(f.modelId),
    Buffer.from(f.inputHash),
    Buffer.from(f.outputHash),
    u64(f.executionTimeMs),
    u64(f.flops),
  ]);
}

/** The fields a registration signature covers. */
export interface RegistrationFields {
  chainId: number;
  wallet: Uint8Array;
  publicKey: Uint8Array;
  tier: GpuTierName;
  models: readonly string[];
  sequence: number | bigint;
}

/**
 * The bytes both registration signatures cover:
 *   "svc/miner-registration/v1" || u64be chainId || wallet (20) || public_key (32) || u8 tier (0 Cold, 1 Warm, 2 Hot)
 *   || u8 count || (u8 len || model_id)* || u64be sequence
 */
export function registrationMessage(f: RegistrationFields): Buffer {
  const tier = TIERS.indexOf(f.tier);
  if (tier < 0) throw new RangeError(`unknown tier ${f.tier}`);
  if (f.models.length > 255) throw new RangeError('too many models');
  return Buffer.concat([
    Buffer.from(REGISTRATION_DOMAIN, 'ascii'),
    u64(f.chainId),
    Buffer.from(f.wallet),
    Buffer.from(f.publicKey),
    Buffer.from([tier, f.models.length]),
    ...f.models.map(shortString),
    u64(f.sequence),
  ]);
}

/** The fields a validator's compute-mode announcement signature covers. */
export interface ModeFields {
  chainId: number;
  /** The validator's operator address (20 bytes). */
  validator: Uint8Array;
  mode: ComputeModeName;
  /** The signer's committed head when it signed: the announcement is newer than anything recorded before it. */
  height: number;
}

/**
 * The bytes a validator's consensus key (Ed25519, CometBFT's priv_validator_key.json) signs to
 * announce its compute mode:
 *   "svc/compute-mode/v1" || u64be chainId || validator (20) || u8 mode (0 pow, 1 inference, 2 none) || u64be height
 */
export function modeMessage(f: ModeFields): Buffer {
  const mode = COMPUTE_MODES.indexOf(f.mode);
  if (mode < 0) throw new RangeError(`unknown compute mode ${String(f.mode)}`);
  if (f.validator.length !== 20) throw new RangeError('a validator address is 20 bytes');
  return Buffer.concat([Buffer.from(MODE_DOMAIN, 'ascii'), u64(f.chainId), Buffer.from(f.validator), Buffer.from([mode]), u64(f.height)]);
}

/** BLAKE3 of the input's UTF-8 bytes (the proof's input_hash). */
export function inputHash(input: string): Buffer {
  return Buffer.from(blake3(Buffer.from(input, 'utf8')));
}

/**
 * The output commitment (as crates/svc-infer computes it):
 *   BLAKE3("svc/inference-output/v1" || u8 len || model_id || input_hash || u16be dims || quantized)
 */
export function outputHash(modelId: string, inHash: Uint8Array, quantized: Uint8Array): Buffer {
  const dims = Buffer.alloc(2);
  dims.writeUInt16BE(quantized.length);
  return Buffer.from(
    blake3(Buffer.concat([Buffer.from(OUTPUT_DOMAIN, 'ascii'), shortString(modelId), Buffer.from(inHash), dims, Buffer.from(quantized)])),
  );
}

/**
 * The miner wallet's secp256k1 key, derived from the Ed25519 seed so one secret backs up both:
 * keccak256("svc-miner/wallet/v1" || seed). Importable into any Ethereum wallet to spend rewards.
 */
export function walletKeyOf(seed: Uint8Array): Hex {
  if (seed.length !== 32) throw new RangeError('an Ed25519 private key is 32 bytes');
  const k = keccak_256(Buffer.concat([Buffer.from(WALLET_DOMAIN, 'ascii'), Buffer.from(seed)]));
  const n = BigInt(hexOf(k));
  if (n === 0n || n >= SECP256K1_N) throw new RangeError('this seed derives no valid wallet key; generate another');
  return hexOf(k);
}

/** A proof's id: keccak256 of its signed message. */
export function proofId(message: Uint8Array): Buffer {
  return Buffer.from(keccak_256(message));
}
