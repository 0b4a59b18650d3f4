// Spot-checks: the proofs the block hash drew (params.compute.spotCheckBps of them) are run again on
// the node's own model and compared with the tolerance of docs/inference.md; the verdict enters the
// next block, where a failure jails the miner and orders the 5% slash and jail of the validator the
// proof came through. The same re-execution serves the intake's pre-check (intake.ts).
import type { Logger } from 'pino';
import { inferenceAddon, type LoadedModel } from '../native/inference.js';
import type { ComputeModule } from '../modules/compute/module.js';
import { bytesOf, type Hex } from '../modules/compute/wire.js';
import type { NodeModels } from './models.js';

/** The same bytes read as int8 (a view with the Buffer's own offset: a small Buffer lies in a shared pool). */
const int8 = (b: Buffer): Int8Array => new Int8Array(b.buffer, b.byteOffset, b.length);

/** What a proof claims, as the re-execution compares it. */
export interface ClaimedProofOutput {
  modelId: string;
  inputHash: Hex;
  quantized: Hex;
  outputHash: Hex;
}

export interface ReexecutionVerdict {
  passed: boolean;
  cosine: number;
  maxAbsDiff: number;
  hashMatches: boolean;
}

/** Runs `input` on the node's own model and judges the claimed output with the tolerance of docs/inference.md. */
export async function reexecute(model: LoadedModel, claimed: ClaimedProofOutput, input: string): Promise<ReexecutionVerdict> {
  const [out] = await model.infer([input], 1);
  const verdict = inferenceAddon().verifyOutput(
    { modelId: claimed.modelId, inputHash: bytesOf(claimed.inputHash), quantized: int8(bytesOf(claimed.quantized)), outputHash: bytesOf(claimed.outputHash) },
    { modelId: out!.modelId, inputHash: out!.inputHash, quantized: out!.quantized, outputHash: out!.outputHash },
  );
  return { passed: verdict.accepted, cosine: verdict.cosine, maxAbsDiff: verdict.maxAbsDiff, hashMatches: verdict.hashMatches };
}

export class SpotChecker {
  private readonly inFlight = new Set<Hex>();
  private readonly unservable = new Set<Hex>();
  checked = 0;

  constructor(
    private readonly compute: ComputeModule,
    private readonly models: NodeModels,
    private readonly log: Logger,
  ) {}

  /** Starts the checks drawn and not yet decided or running (called after every block). */
  poll(): void {
    for (const id of this.compute.spotChecksPending) {
      if (this.inFlight.has(id) || this.unservable.has(id) || this.compute.hasVerdictQueued(id)) continue;
      this.inFlight.add(id);
      void this.check(id).finally(() => this.inFlight.delete(id));
    }
  }

  /** The node's models changed (governance approved one, or retired one): checks it could not run are tried again. */
  modelsChanged(): void {
    this.unservable.clear();
    this.poll();
  }

  /** Waits for the checks in flight (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await new Promise((r) => setTimeout(r, 10));
  }

  private async check(id: Hex): Promise<void> {
    try {
      const p = this.compute.proof(id);
      const t = p ? this.compute.task(p.taskId) : undefined;
      if (!p || !t) return;
      const model = this.models.loaded.get(p.modelId);
      if (!model) {
        this.unservable.add(id);
        this.log.warn({ proof: id, model: p.modelId }, 'spot-check drawn for a model this node does not run; another validator must decide it');
        return;
      }
      const verdict = await reexecute(model, p, t.input);
      this.checked += 1;
      this.compute.queueVerdict({
        proofId: id,
        passed: verdict.passed,
        result: { cosinePpm: Math.round(verdict.cosine * 1e6), maxAbsDiff: verdict.maxAbsDiff, hashMatches: verdict.hashMatches },
      });
      this.log.info({ proof: id, miner: p.miner, validator: p.validator, passed: verdict.passed, cosine: verdict.cosine, maxAbsDiff: verdict.maxAbsDiff }, 'spot-check done');
    } catch (err) {
      this.log.error({ err, proof: id }, 'spot-check failed to run; it is retried after the next block');
    }
  }
}
