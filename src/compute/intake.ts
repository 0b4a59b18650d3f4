// Where miners' registrations and proofs enter the node: every check that can be made before a
// block (shape, approval, assignment, hashes, both signatures, FLOPs from the node's own model),
// each refusal with its own reason code, and then the module's queue for the next block. Ed25519
// signatures that arrive together are verified in one native batch. A share of proofs is re-executed
// first (the pre-check), since a failed spot-check slashes the validator that relayed the proof.
import { randomInt } from 'node:crypto';
import { recoverMessageAddress } from 'viem';
import type { Logger } from 'pino';
import { core } from '../native/index.js';
import type { ComputeModule } from '../modules/compute/module.js';
import type { Address } from '../modules/compute/types.js';
import {
  TIERS,
  bytesOf,
  hexOf,
  outputHash,
  proofId,
  proofMessage,
  registrationMessage,
  type GpuTierName,
  type Hex,
} from '../modules/compute/wire.js';
import { canRun } from '../modules/compute/assign.js';
import { proofRecordProblem } from '../modules/compute/proof-rules.js';
import { proofPrecheck } from '../params.js';
import type { NodeModels } from './models.js';
import { reexecute } from './spot-checker.js';
import { SvcError } from '../errors.js';

/** Why a proof or registration was refused; the code goes in the error's data. */
export type RejectionCode =
  | 'WRONG_VALIDATOR'
  | 'MODEL_NOT_APPROVED'
  | 'MODEL_NOT_SERVED'
  | 'MINER_NOT_REGISTERED'
  | 'KEY_MISMATCH'
  | 'MINER_JAILED'
  | 'UNKNOWN_TASK'
  | 'NOT_ASSIGNED'
  | 'MODEL_MISMATCH'
  | 'INPUT_HASH_MISMATCH'
  | 'TASK_EXPIRED'
  | 'REPLAYED'
  | 'BAD_OUTPUT_SHAPE'
  | 'OUTPUT_HASH_MISMATCH'
  | 'BAD_SIGNATURE'
  | 'BAD_WALLET_SIGNATURE'
  | 'SEQUENCE_NOT_NEWER'
  | 'TIER_TOO_LOW'
  | 'QUEUE_FULL'
  | 'PRECHECK_FAILED';

/** The proof or registration was refused and changed nothing; JSON-RPC answers -32003 with `{ reason }` as data. */
export class ComputeRejectedError extends SvcError {
  override name = 'ComputeRejectedError';
  override readonly code = 'COMPUTE_REJECTED';
  constructor(
    readonly reason: RejectionCode,
    message: string,
  ) {
    super(message);
  }
}

/** A field of the proof or registration is missing or malformed; JSON-RPC answers -32602 with the message. */
export class ComputeInputError extends SvcError {
  override name = 'ComputeInputError';
  override readonly code = 'COMPUTE_INPUT';
}

const reject = (reason: RejectionCode, message: string): never => {
  throw new ComputeRejectedError(reason, message);
};

function field<T>(o: Record<string, unknown>, name: string, check: (v: unknown) => v is T, what: string): T {
  const v = o[name];
  if (!check(v)) throw new ComputeInputError(`invalid ${name}: expected ${what}`);
  return v;
}

const hexBytes = (n: number) => (v: unknown): v is string => typeof v === 'string' && new RegExp(`^0x[0-9a-fA-F]{${2 * n}}$`).test(v);
const anyHex = (v: unknown): v is string => typeof v === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(v);
const safeUint = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const modelIdOk = (v: unknown): v is string => typeof v === 'string' && /^[a-z0-9][a-z0-9-]{0,63}@v\d{1,4}\.\d{1,4}$/.test(v);
const lower = (h: string) => h.toLowerCase() as Hex;

function objectParam(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ComputeInputError(`invalid argument 0: expected a ${what} object`);
  return v as Record<string, unknown>;
}

/** Most proofs and registrations waiting for a block before new ones are refused. */
const MAX_QUEUED_PROOFS = 5_000;
const MAX_QUEUED_REGISTRATIONS = 5_000;
const MAX_MODELS_PER_MINER = 16;

interface PendingSignature {
  publicKey: Buffer;
  message: Buffer;
  signature: Buffer;
  resolve: (ok: boolean) => void;
  reject: (err: unknown) => void;
}

/** Collects the Ed25519 checks of one turn of the event loop and runs them as one native batch. */
export class SignatureBatcher {
  private pending: PendingSignature[] = [];
  private scheduled = false;
  batches = 0;
  verified = 0;

  verify(publicKey: Buffer, message: Buffer, signature: Buffer): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ publicKey, message, signature, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    try {
      const verdicts = await core.ed25519VerifyBatch(batch.map(({ publicKey, message, signature }) => ({ publicKey, message, signature })));
      this.batches += 1;
      this.verified += batch.length;
      batch.forEach((p, i) => p.resolve(verdicts[i] === true));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}

/**
 * The node's pre-check policy (node-local, not consensus): which proofs it re-executes before it
 * accepts them. A miner that failed this node's pre-check, or has a failed spot-check on chain, is
 * re-executed every time; other proofs are drawn at `rateBps` with the node's own randomness, so a
 * miner cannot tell in advance which proof is checked. Rate 0 turns the pre-check off.
 */
export class ProofPrecheck {
  checked = 0;
  failed = 0;
  /** Wallets that failed the pre-check, oldest first (a Map keeps insertion order). */
  private readonly suspects = new Map<Address, true>();

  constructor(
    readonly rateBps: number = proofPrecheck.rateBps,
    private readonly roll: () => number = () => randomInt(10_000),
    private readonly maxSuspects: number = proofPrecheck.maxSuspects,
  ) {
    if (!Number.isSafeInteger(rateBps) || rateBps < 0 || rateBps > 10_000) throw new RangeError(`pre-check rate must be 0..10000 bps: ${rateBps}`);
  }

  /** Whether a proof of `miner` (with `failedSpotChecks` on chain) is re-executed before acceptance. */
  selects(miner: Address, failedSpotChecks: number): boolean {
    if (this.rateBps === 0) return false;
    if (this.suspects.has(miner) || failedSpotChecks > 0) return true;
    return this.roll() < this.rateBps;
  }

  isSuspect(miner: Address): boolean {
    return this.suspects.has(miner);
  }

  /** Remembers a miner whose proof failed the pre-check; the oldest is forgotten past maxSuspects. */
  suspect(miner: Address): void {
    this.suspects.delete(miner);
    this.suspects.set(miner, true);
    if (this.suspects.size > this.maxSuspects) this.suspects.delete(this.suspects.keys().next().value!);
  }
}

export interface IntakeCounters {
  proofsReceived: number;
  proofsQueued: number;
  proofsRejected: number;
  registrationsReceived: number;
  registrationsRejected: number;
  rejectedByReason: Partial<Record<RejectionCode, number>>;
}

export class ComputeIntake {
  readonly signatures = new SignatureBatcher();
  readonly counters: IntakeCounters = {
    proofsReceived: 0,
    proofsQueued: 0,
    proofsRejected: 0,
    registrationsReceived: 0,
    registrationsRejected: 0,
    rejectedByReason: {},
  };

  constructor(
    private readonly compute: ComputeModule,
    private readonly chainId: number,
    /** This node's validator: proofs must name it. */
    readonly validator: Address,
    /** The node's models (inference mode); null in pow mode. */
    readonly models: NodeModels | null,
    private readonly head: () => { number: number; timestamp: number; epoch: number },
    private readonly log: Logger,
    /** Which proofs are re-executed before acceptance (node-local policy). */
    readonly precheck: ProofPrecheck = new ProofPrecheck(),
  ) {}

  private count(kind: 'proof' | 'registration', err: unknown): void {
    if (kind === 'proof') this.counters.proofsRejected += 1;
    else this.counters.registrationsRejected += 1;
    const reason = err instanceof ComputeRejectedError ? err.reason : undefined;
    if (reason) this.counters.rejectedByReason[reason] = (this.counters.rejectedByReason[reason] ?? 0) + 1;
  }

  /** svc_registerMiner: both signatures checked, then queued for the next block. */
  async register(param: unknown): Promise<{ wallet: Address; public_key: Hex; status: 'pending'; appliesAtBlock: number }> {
    this.counters.registrationsReceived += 1;
    try {
      return await this.registerChecked(param);
    } catch (err) {
      this.count('registration', err);
      throw err;
    }
  }

  private async registerChecked(param: unknown) {
    const o = objectParam(param, 'registration');
    const wallet = lower(field(o, 'wallet', hexBytes(20), 'a 20-byte 0x address')) as Address;
    const publicKey = lower(field(o, 'public_key', hexBytes(32), 'a 32-byte 0x Ed25519 public key'));
    const tier = field(o, 'tier', (v): v is GpuTierName => TIERS.includes(v as GpuTierName), `one of ${TIERS.join(', ')}`);
    const models = field(
      o,
      'models',
      (v): v is string[] => Array.isArray(v) && v.length >= 1 && v.length <= MAX_MODELS_PER_MINER && v.every(modelIdOk),
      `1 to ${MAX_MODELS_PER_MINER} model ids of the form <name>@v<major.minor>`,
    );
    const sequence = field(o, 'sequence', (v): v is number => safeUint(v) && v > 0, 'a positive integer');
    const signature = field(o, 'signature', hexBytes(64), 'a 64-byte 0x Ed25519 signature');
    const walletSignature = field(o, 'wallet_signature', hexBytes(65), 'a 65-byte 0x secp256k1 signature');
    if (new Set(models).size !== models.length) throw new ComputeInputError('invalid models: listed twice');

    for (const id of models) {
      if (!this.compute.isApproved(id)) reject('MODEL_NOT_APPROVED', `model ${id} is not approved (approved: ${this.compute.approvedModels.join(', ')})`);
      const need = this.compute.modelTier(id) ?? 'Hot';
      if (!canRun({ tier, models }, id, new Map([[id, need]]))) reject('TIER_TOO_LOW', `model ${id} needs GPU tier ${need}; the miner declared ${tier}`);
    }
    const old = this.compute.miner(wallet);
    if (old && old.sequence >= sequence) reject('SEQUENCE_NOT_NEWER', `registration sequence ${sequence} is not above the one in force (${old.sequence})`);

    const message = registrationMessage({ chainId: this.chainId, wallet: bytesOf(wallet), publicKey: bytesOf(publicKey), tier, models, sequence });
    if (!(await this.signatures.verify(bytesOf(publicKey), message, bytesOf(signature)))) {
      reject('BAD_SIGNATURE', 'the Ed25519 signature does not verify over the registration with this public key');
    }
    let signer: string;
    try {
      signer = await recoverMessageAddress({ message: { raw: message }, signature: walletSignature as Hex });
    } catch {
      signer = '';
    }
    if (signer.toLowerCase() !== wallet) reject('BAD_WALLET_SIGNATURE', `wallet_signature is not the wallet's (${wallet}) signature over the registration`);
    if (this.compute.queueSizes().registrations >= MAX_QUEUED_REGISTRATIONS && !this.compute.isRegistrationQueued(wallet)) {
      reject('QUEUE_FULL', 'too many registrations wait for a block; retry shortly');
    }
    this.compute.queueRegistration({ wallet, publicKey, tier, models, sequence, signature: signature as Hex, walletSignature: walletSignature as Hex });
    this.log.debug({ wallet, tier, models }, 'miner registration queued');
    return { wallet, public_key: publicKey, status: 'pending' as const, appliesAtBlock: this.head().number + 1 };
  }

  /** svc_submitInferenceProof: every check, then queued for the next block. */
  async submitProof(param: unknown): Promise<{ proof_id: Hex; status: 'pending'; flops: string }> {
    this.counters.proofsReceived += 1;
    try {
      const r = await this.proofChecked(param);
      this.counters.proofsQueued += 1;
      return r;
    } catch (err) {
      this.count('proof', err);
      throw err;
    }
  }

  private async proofChecked(param: unknown) {
    const o = objectParam(param, 'proof');
    const validator = lower(field(o, 'validator', hexBytes(20), 'a 20-byte 0x address')) as Address;
    const miner = lower(field(o, 'miner', hexBytes(20), 'a 20-byte 0x address')) as Address;
    const publicKey = lower(field(o, 'public_key', hexBytes(32), 'a 32-byte 0x Ed25519 public key'));
    const taskId = lower(field(o, 'task_id', hexBytes(32), 'a 32-byte 0x task id'));
    const modelId = field(o, 'model_id', modelIdOk, 'a model id such as svc-embed-small@v1.0');
    const inHash = lower(field(o, 'input_hash', hexBytes(32), 'a 32-byte 0x BLAKE3 hash'));
    const outHash = lower(field(o, 'output_hash', hexBytes(32), 'a 32-byte 0x BLAKE3 hash'));
    const quantized = lower(field(o, 'quantized', anyHex, '0x hex of the int8 output'));
    const executionTimeMs = field(o, 'execution_time_ms', safeUint, 'a non-negative integer');
    const claimedFlops = field(o, 'flops', safeUint, 'a non-negative integer');
    const signature = lower(field(o, 'signature', hexBytes(64), 'a 64-byte 0x Ed25519 signature'));

    const head = this.head();
    if (validator !== this.validator) reject('WRONG_VALIDATOR', `the proof names validator ${validator}; this node submits for ${this.validator}`);
    // The records' rules, as the next block (where the proof would go) applies them (proof-rules.ts).
    const m = this.compute.miner(miner);
    const task = this.compute.task(taskId);
    const refused = proofRecordProblem(
      { taskId, miner, publicKey, modelId, inputHash: inHash },
      { task, miner: m, modelApproved: this.compute.isApproved(modelId), modelRefusedFrom: this.compute.modelRegistry().find((r) => r.id === modelId)?.refusedFromHeight },
      { height: head.number + 1, epoch: head.epoch, now: head.timestamp },
    );
    if (refused !== null) reject(refused.reason, refused.message);
    if (this.compute.isProofQueued(taskId)) reject('REPLAYED', `task ${taskId} already has a proof`);
    const t = task!;
    const dims = this.compute.modelDims(modelId)!;
    const q = bytesOf(quantized);
    if (q.length !== dims) reject('BAD_OUTPUT_SHAPE', `quantized has ${q.length} values; ${modelId} gives ${dims}`);
    if (q.includes(0x80)) reject('BAD_OUTPUT_SHAPE', 'quantized values must lie in [-127, 127]');
    if (!outputHash(modelId, bytesOf(inHash), q).equals(bytesOf(outHash))) {
      reject('OUTPUT_HASH_MISMATCH', 'output_hash does not commit to the quantized output (BLAKE3 over model id, input hash and the vector)');
    }
    if (!this.models?.loaded.has(modelId)) reject('MODEL_NOT_SERVED', `this validator does not run ${modelId}, so it cannot check the proof`);

    const message = proofMessage({
      chainId: this.chainId,
      taskId: bytesOf(taskId),
      validator: bytesOf(validator),
      miner: bytesOf(miner),
      modelId,
      inputHash: bytesOf(inHash),
      outputHash: bytesOf(outHash),
      executionTimeMs,
      flops: claimedFlops,
    });
    if (!(await this.signatures.verify(bytesOf(publicKey), message, bytesOf(signature)))) {
      reject('BAD_SIGNATURE', 'the Ed25519 signature does not verify over the proof with the registered key');
    }
    if (this.precheck.selects(miner, m!.spotChecksFailed)) {
      // This validator is slashed if a proof it relays fails a spot-check: it re-executes before relaying.
      const verdict = await reexecute(this.models!.loaded.get(modelId)!, { modelId, inputHash: inHash, quantized, outputHash: outHash }, t.input);
      this.precheck.checked += 1;
      if (!verdict.passed) {
        this.precheck.failed += 1;
        this.precheck.suspect(miner);
        this.log.info({ miner, task: taskId, cosine: verdict.cosine, maxAbsDiff: verdict.maxAbsDiff }, 'proof refused by the pre-check');
        reject(
          'PRECHECK_FAILED',
          `this validator re-executed the task and the output is outside the tolerance (cosine ${verdict.cosine.toFixed(6)}, max |dq| ${verdict.maxAbsDiff}); ` +
            `it does not relay the proof, and re-executes every later proof of ${miner}`,
        );
      }
    }
    // Another submission of the same task may have been queued while the signature was checked.
    if (this.compute.isProofQueued(taskId)) reject('REPLAYED', `task ${taskId} already has a proof`);
    if (this.compute.queueSizes().proofs >= MAX_QUEUED_PROOFS) reject('QUEUE_FULL', 'too many proofs wait for a block; retry shortly');
    const flops = this.models!.flops(modelId, t.input);
    const id = hexOf(proofId(message));
    // The same signed message again (a task handed back to the same miner after a failed check).
    if (this.compute.proof(id)) reject('REPLAYED', `proof ${id} was submitted before`);
    this.compute.queueProof({
      id,
      taskId,
      validator,
      miner,
      publicKey,
      modelId,
      inputHash: inHash,
      outputHash: outHash,
      quantized,
      executionTimeMs,
      flops,
      claimedFlops: BigInt(claimedFlops),
      signature,
    });
    return { proof_id: id, status: 'pending' as const, flops: flops.toString() };
  }
}
