// The compute module's read views: every read that JSON-RPC (svc_*Inference*), the explorer
// (/compute/*, the leaderboard), the validator views and the consensus engine's mode announcer make
// of it, and the views of its records both edges answer with: the same fields, each edge with its
// own way of writing numbers (JSON-RPC: 0x quantities for amounts and heights, decimal strings for
// counters; explorer: decimal strings for amounts, JSON integers for heights and counters).
// Addresses are EIP-55 checksummed in both. Serving code reads compute only through these.
import { getAddress } from 'viem';
import type { Chain } from '../../native/index.js';
import type { ComputeParams } from '../../params.js';
import type { ComputeModule } from './module.js';
import type { Address, ApprovedModelRecord, ComputeGlobal, MinerRecord, ProofRecord, TaskRecord, ValidatorComputeRecord, ValidatorComputeView } from './types.js';
import type { GpuTierName, Hex } from './wire.js';

/** What clients need to address compute: its ABI (submitTask calls) and the id a public task gets from its transaction. */
export { COMPUTE_ABI, publicTaskId } from './module.js';

/**
 * `inactive`: registered and free, but without a registration or accepted proof in the last
 * minerActiveEpochs epochs, so the coordinator gives it no task until it registers again.
 */
export type MinerStatus = 'active' | 'jailed' | 'inactive';

/** How an edge writes the numbers of a view. */
export interface ViewStyle {
  /** Wei amounts. */
  amount(v: bigint): string;
  /** Block heights. */
  height(n: number): string | number;
  /** Miner counters (tasks completed, proofs accepted). */
  counter(n: number): string | number;
}

/** What the views read besides compute's records: the epoch of a height (staking's epochs). */
export interface ComputeQueriesKeeper {
  epochOf(height: number): number;
}

/** A model of the chain's registry as svc_getApprovedModels and /compute/models show it (docs/compute.md). */
export interface ApprovedModelView {
  id: string;
  tier: string;
  dims: number;
  /** approved: proofs accepted; retiring: accepted until refusedFromBlock; retired: refused. */
  status: 'approved' | 'retiring' | 'retired';
  refusedFromBlock: number | null;
  approvedAtBlock: number;
  /** The governance proposal that approved (or last re-pinned) it; null for genesis models. */
  approvedBy: number | null;
  /** The pinned files (SHA-256 as lower-case hex, size in bytes); null where the inference registry pins them. */
  files: { name: 'model.safetensors' | 'tokenizer.json'; sha256: string; size: number }[] | null;
  pinnedBy: 'governance' | 'registry';
}

const checksum = (a: string | null): string | null => (a === null ? null : getAddress(a.toLowerCase()));

export class ComputeQueries {
  constructor(
    private readonly module: ComputeModule,
    private readonly chain: Chain,
    private readonly keeper: ComputeQueriesKeeper,
  ) {}

  get params(): ComputeParams {
    return this.module.params;
  }

  /** The head and the epoch of the next block (the one the coordinator and intake count with). */
  headEpoch(): { head: { number: number; timestamp: number }; epoch: number } {
    const head = this.chain.head();
    return { head, epoch: this.keeper.epochOf(head.number + 1) };
  }

  /** A miner's status at `now` (block time) in `epoch`. */
  minerStatus(m: MinerRecord, now: number, epoch: number): MinerStatus {
    if (m.jailedUntil > now) return 'jailed';
    return m.lastActiveEpoch > epoch - this.module.params.minerActiveEpochs ? 'active' : 'inactive';
  }

  miner(wallet: Address): MinerRecord | undefined {
    return this.module.miner(wallet);
  }

  minerList(): MinerRecord[] {
    return this.module.minerList();
  }

  /** Miners that registered or had a proof accepted within minerActiveEpochs and are not jailed at `now`. */
  activeMiners(epoch: number, now: number): MinerRecord[] {
    return this.module.activeMiners(epoch, now);
  }

  /** Miners with an accepted proof in the score window, not jailed at `now`. */
  minersWithRecentProofs(epoch: number, now: number): number {
    return this.module.minersWithRecentProofs(epoch, now);
  }

  /** A miner's inference score: its flops over the score window ending at `epoch`. */
  inferenceScoreOf(window: MinerRecord['window'], epoch: number): bigint {
    return this.module.inferenceScoreOf(window, epoch);
  }

  /** The open tasks (pending or assigned). */
  openTasks(): TaskRecord[] {
    return this.module.openTasks();
  }

  openTasksOf(wallet: Address): TaskRecord[] {
    return this.module.openTasksOf(wallet);
  }

  /** Whether a proof of the task waits in this node's queues for the next block. */
  isProofQueued(taskId: Hex): boolean {
    return this.module.isProofQueued(taskId);
  }

  task(id: Hex): TaskRecord | undefined {
    return this.module.task(id);
  }

  proof(id: Hex): ProofRecord | undefined {
    return this.module.proof(id);
  }

  /** The proofs a block accepted and the spot-checks it decided (empty lists for a block without any). */
  blockActivity(height: number): { accepted: Hex[]; decided: Hex[] } {
    return this.module.blockActivity(height);
  }

  /** The chain's model registry: approved, retiring and retired models. */
  modelRegistry(): ApprovedModelRecord[] {
    return this.module.modelRegistry();
  }

  get approvedModels(): readonly string[] {
    return this.module.approvedModels;
  }

  isApproved(modelId: string): boolean {
    return this.module.isApproved(modelId);
  }

  modelTier(modelId: string): GpuTierName | undefined {
    return this.module.modelTier(modelId);
  }

  modelDims(modelId: string): number | undefined {
    return this.module.modelDims(modelId);
  }

  /** Tasks assigned and completed of each model. */
  modelCounts(): Readonly<Record<string, { assigned: number; completed: number }>> {
    return this.module.modelCounts();
  }

  get counters(): ComputeGlobal['counters'] {
    return this.module.counters;
  }

  get minerPool(): bigint {
    return this.module.minerPool;
  }

  get spotChecksPending(): readonly Hex[] {
    return this.module.spotChecksPending;
  }

  /** The hashrate window's span in block time, seconds. */
  hashrateWindowSeconds(): number {
    return this.module.hashrateWindowSeconds();
  }

  /** A validator's compute record (its mode as the chain recorded it). */
  validatorCompute(address: Address): ValidatorComputeRecord | undefined {
    return this.module.validatorCompute(address);
  }

  /** Compute views of validators in `epoch`: mode, hashrate, inference score, and their score parts. */
  computeViews(addresses: readonly Address[], epoch: number): Map<Address, ValidatorComputeView> {
    return this.module.computeViews(addresses, epoch);
  }

  /** The proofs a block accepted and those whose spot-check it decided, in the block's order. */
  blockProofs(height: number): { accepted: ProofRecord[]; decided: ProofRecord[] } {
    const { accepted, decided } = this.module.blockActivity(height);
    const proofs = (ids: readonly Hex[]) => ids.map((id) => this.module.proof(id)).filter((p): p is ProofRecord => p !== undefined);
    return { accepted: proofs(accepted), decided: proofs(decided) };
  }

  // ---- views ----

  /** The model registry, each model approved, retiring or retired (svc_getApprovedModels, /compute/models). */
  approvedModelViews(): ApprovedModelView[] {
    return this.module.modelRegistry().map((r) => approvedModelView(r, this.module.isApproved(r.id)));
  }

  taskView(t: TaskRecord, s: ViewStyle) {
    const proof = t.proofId ? this.module.proof(t.proofId) : undefined;
    return {
      taskId: t.id,
      kind: t.kind,
      modelId: t.modelId,
      input: t.input,
      inputHash: t.inputHash,
      fee: s.amount(t.fee),
      submitter: checksum(t.submitter),
      status: t.status,
      createdAt: s.height(t.createdAt),
      createdEpoch: t.createdEpoch,
      assignedTo: checksum(t.assignedTo),
      assignedEpoch: t.assignedEpoch,
      deadlineEpoch: t.deadlineEpoch,
      completedAt: t.completedAt === null ? null : s.height(t.completedAt),
      reassignments: t.reassignments,
      refunded: s.amount(t.refunded),
      result: proof
        ? { proofId: proof.id, miner: checksum(proof.miner), validator: checksum(proof.validator), outputHash: proof.outputHash, quantized: proof.quantized, spotCheck: proof.spotCheck }
        : null,
    };
  }

  minerView(m: MinerRecord, s: ViewStyle) {
    const { head, epoch } = this.headEpoch();
    return {
      wallet: checksum(m.wallet),
      status: this.minerStatus(m, head.timestamp, epoch),
      publicKey: m.publicKey,
      tier: m.tier,
      models: m.models,
      registeredAt: s.height(m.registeredAt),
      jailedUntil: m.jailedUntil,
      inferenceScore: this.module.inferenceScoreOf(m.window, epoch).toString(),
      tasksCompleted: s.counter(m.tasksCompleted),
      proofsAccepted: s.counter(m.proofsAccepted),
      spotChecksPassed: m.spotChecksPassed,
      spotChecksFailed: m.spotChecksFailed,
      flops: m.flops.toString(),
      blockRewards: s.amount(m.blockRewards),
      feeRewards: s.amount(m.feeRewards),
      rewards: s.amount(m.blockRewards + m.feeRewards),
    };
  }
}

export function proofView(p: ProofRecord, s: ViewStyle) {
  return {
    proofId: p.id,
    taskId: p.taskId,
    taskKind: p.taskKind,
    validator: checksum(p.validator),
    miner: checksum(p.miner),
    publicKey: p.publicKey,
    modelId: p.modelId,
    inputHash: p.inputHash,
    outputHash: p.outputHash,
    quantized: p.quantized,
    executionTimeMs: p.executionTimeMs,
    flops: p.flops.toString(),
    claimedFlops: p.claimedFlops.toString(),
    signature: p.signature,
    includedAt: s.height(p.includedAt),
    blockReward: s.amount(p.blockReward),
    fee: { miner: s.amount(p.feeMiner), validator: s.amount(p.feeValidator), treasury: s.amount(p.feeTreasury), paid: p.feePaid },
    spotCheck: p.spotCheck,
    spotCheckResult: p.spotCheckResult
      ? {
          cosine: p.spotCheckResult.cosinePpm / 1e6,
          maxAbsDiff: p.spotCheckResult.maxAbsDiff,
          hashMatches: p.spotCheckResult.hashMatches,
          checkedAt: s.height(p.spotCheckResult.checkedAt),
        }
      : null,
  };
}

export function approvedModelView(r: ApprovedModelRecord, approved: boolean): ApprovedModelView {
  return {
    id: r.id,
    tier: r.tier,
    dims: r.dims,
    status: !approved ? 'retired' : r.refusedFromHeight !== undefined ? 'retiring' : 'approved',
    refusedFromBlock: r.refusedFromHeight ?? null,
    approvedAtBlock: r.approvedAtHeight,
    approvedBy: r.approvedBy ?? null,
    files: r.files
      ? [
          { name: 'model.safetensors', sha256: r.files.weights.sha256, size: r.files.weights.size },
          { name: 'tokenizer.json', sha256: r.files.tokenizer.sha256, size: r.files.tokenizer.size },
        ]
      : null,
    pinnedBy: r.files ? 'governance' : 'registry',
  };
}
