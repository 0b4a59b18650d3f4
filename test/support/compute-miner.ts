// A scripted inference miner for tests: what svc-miner does, one step at a time and under the
// test's control, so a test can also do what an honest miner never would (sign with the wrong key,
// name another model, replay, run another model, perturb an output). Keys follow docs/compute.md:
// an Ed25519 seed signs registrations and proofs, and derives the wallet's secp256k1 key
// (walletKeyOf). Everything is built from the wire formats of src/modules/compute/wire.ts, not from
// svc-miner's code, so the tests check the contract itself.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ed25519 } from '@noble/curves/ed25519.js';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  bytesOf,
  hexOf,
  inputHash,
  outputHash,
  proofMessage,
  registrationMessage,
  walletKeyOf,
  type GpuTierName,
  type Hex,
  type InferenceProofJson,
  type MinerRegistrationJson,
  type TaskJson,
} from '../../src/modules/compute/wire.js';
import type { LoadedModel } from '../../src/native/inference.js';
import { JsonRpcError, rpc } from './json-rpc.js';

/** svc_getInferenceTasks's answer. */
export interface TasksAnswer {
  validator: Hex;
  chainId: number;
  blockNumber: number;
  epoch: number;
  nextEpochBlock: number;
  miner: { status: 'unregistered' | 'active' | 'jailed'; jailedUntil: number; tier: GpuTierName | null; models: string[] };
  tasks: TaskJson[];
}

/** svc_getInferenceMiner's answer (the fields the tests read). */
export interface MinerAnswer {
  wallet: Hex;
  registered: boolean;
  status: 'unregistered' | 'active' | 'jailed';
  jailedUntil: number;
  tasksCompleted: string;
  proofsAccepted: string;
  spotChecksPassed: number;
  spotChecksFailed: number;
  openTasks: number;
}

/** What a proof claims about one run: the canonical int8 vector and its commitment. */
export interface ClaimedOutput {
  modelId: string;
  inputHash: Uint8Array;
  quantized: Int8Array;
  outputHash: Uint8Array;
  executionTimeMs: number;
  flops: number;
}

/** A deterministic 32-byte seed from a label (reproducible wallets and keys). */
export function seedOf(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`svc-test/compute-miner/${label}`).digest());
}

/** The int8 vector as the bytes a proof carries (two's complement). */
export function int8Bytes(q: Int8Array): Uint8Array {
  return new Uint8Array(q.buffer, q.byteOffset, q.byteLength);
}

/** The code and reason of a refused call (-32003 carries data.reason). */
export async function refusalOf(call: Promise<unknown>): Promise<{ code: number; reason: string | undefined; message: string }> {
  try {
    await call;
  } catch (e) {
    if (!(e instanceof JsonRpcError)) throw e;
    const data = e.data as { reason?: string } | undefined;
    return { code: e.code, reason: data?.reason, message: e.message };
  }
  throw new Error('the call was accepted; a refusal was expected');
}

export class ScriptedMiner {
  readonly publicKey: Hex;
  readonly walletKey: Hex;
  /** The wallet (EIP-55 address) and its secp256k1 key, derived from the seed. */
  readonly account: PrivateKeyAccount;
  private sequence = 0;

  constructor(
    readonly name: string,
    readonly url: string,
    readonly chainId: number,
    readonly seed: Uint8Array = seedOf(name),
  ) {
    this.walletKey = walletKeyOf(seed);
    this.account = privateKeyToAccount(this.walletKey);
    this.publicKey = hexOf(ed25519.getPublicKey(seed));
  }

  /** The wallet address, EIP-55 checksummed. */
  get address(): Hex {
    return this.account.address;
  }

  /** A registration signed by the Ed25519 key and by the wallet (personal_sign over the same bytes). */
  async registration(models: readonly string[], tier: GpuTierName = 'Cold', sequence = this.sequence + 1): Promise<MinerRegistrationJson> {
    const message = registrationMessage({
      chainId: this.chainId,
      wallet: bytesOf(this.address),
      publicKey: bytesOf(this.publicKey),
      tier,
      models,
      sequence,
    });
    return {
      wallet: this.address,
      public_key: this.publicKey,
      tier,
      models: [...models],
      sequence,
      signature: hexOf(ed25519.sign(message, this.seed)),
      wallet_signature: await this.account.signMessage({ message: { raw: message } }),
    };
  }

  /** svc_registerMiner with the next sequence. */
  async register(models: readonly string[], tier: GpuTierName = 'Cold'): Promise<{ status: string; appliesAtBlock: number }> {
    const reg = await this.registration(models, tier, this.sequence + 1);
    const res = await rpc<{ status: string; appliesAtBlock: number }>(this.url, 'svc_registerMiner', [reg]);
    this.sequence = reg.sequence;
    return res;
  }

  tasks(): Promise<TasksAnswer> {
    return rpc<TasksAnswer>(this.url, 'svc_getInferenceTasks', [{ miner: this.address }]);
  }

  info(): Promise<MinerAnswer> {
    return rpc<MinerAnswer>(this.url, 'svc_getInferenceMiner', [this.address]);
  }

  /** Runs `model` on the tasks' inputs (one batch), in task order. */
  async run(model: LoadedModel, tasks: readonly TaskJson[]): Promise<ClaimedOutput[]> {
    if (tasks.length === 0) return [];
    const started = performance.now();
    const outs = await model.infer(tasks.map((t) => t.input));
    const ms = Math.max(1, Math.round(performance.now() - started));
    return outs.map((o, i) => {
      const t = tasks[i]!;
      if (!Buffer.from(o.inputHash).equals(inputHash(t.input))) throw new Error(`output ${i} is not for task ${t.task_id}'s input`);
      return {
        modelId: o.modelId,
        inputHash: o.inputHash,
        quantized: o.quantized,
        outputHash: o.outputHash,
        executionTimeMs: Math.max(1, Math.round(ms / outs.length)),
        flops: o.flops,
      };
    });
  }

  /**
   * The proof of `out` for `task`, signed over proofMessage. `modelId` overrides the claimed model
   * (the output hash is then recomputed for it, so only the model is wrong); `signWith` signs with
   * another Ed25519 seed while naming this miner's registered public key.
   */
  proof(task: TaskJson, validator: Hex, out: ClaimedOutput, o: { modelId?: string; signWith?: Uint8Array } = {}): InferenceProofJson {
    const modelId = o.modelId ?? out.modelId;
    const inHash = inputHash(task.input);
    const outHash = modelId === out.modelId ? Buffer.from(out.outputHash) : outputHash(modelId, inHash, int8Bytes(out.quantized));
    const message = proofMessage({
      chainId: this.chainId,
      taskId: bytesOf(task.task_id),
      validator: bytesOf(validator),
      miner: bytesOf(this.address),
      modelId,
      inputHash: inHash,
      outputHash: outHash,
      executionTimeMs: out.executionTimeMs,
      flops: out.flops,
    });
    return {
      validator,
      miner: this.address,
      public_key: this.publicKey,
      task_id: task.task_id,
      model_id: modelId,
      input_hash: hexOf(inHash),
      output_hash: hexOf(outHash),
      quantized: hexOf(int8Bytes(out.quantized)),
      execution_time_ms: out.executionTimeMs,
      flops: out.flops,
      signature: hexOf(ed25519.sign(message, o.signWith ?? this.seed)),
    };
  }

  /** The proof re-signed after its fields were changed (a miner that knows its key can always do this). */
  resign(proof: InferenceProofJson): InferenceProofJson {
    const message = proofMessage({
      chainId: this.chainId,
      taskId: bytesOf(proof.task_id),
      validator: bytesOf(proof.validator),
      miner: bytesOf(proof.miner),
      modelId: proof.model_id,
      inputHash: bytesOf(proof.input_hash),
      outputHash: bytesOf(proof.output_hash),
      executionTimeMs: proof.execution_time_ms,
      flops: proof.flops,
    });
    return { ...proof, signature: hexOf(ed25519.sign(message, this.seed)) };
  }

  submit(proof: unknown): Promise<{ proof_id: Hex; status: string; flops: string }> {
    return rpc<{ proof_id: Hex; status: string; flops: string }>(this.url, 'svc_submitInferenceProof', [proof]);
  }
}
