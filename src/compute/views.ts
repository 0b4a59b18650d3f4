// The views of the compute module's records, shared by JSON-RPC (svc_*Inference*) and the explorer
// (/compute/*): the same fields, each edge with its own way of writing numbers (JSON-RPC: 0x
// quantities for amounts and heights, decimal strings for counters; explorer: decimal strings for
// amounts, JSON integers for heights and counters). Addresses are EIP-55 checksummed in both.
import type { ChainApp } from '../chain/app.js';
import type { Chain } from '../native/index.js';
import type { NodeCompute } from './index.js';
import { checksumAddress } from '../chain/address.js';
import { epochOfHeight } from '../modules/staking/epoch.js';
import { inferenceMinersShareBps } from '../modules/staking/rewards.js';
import type { ApprovedModelRecord, MinerRecord, ProofRecord, TaskRecord } from '../modules/compute/types.js';

/** How an edge writes the numbers of a view. */
export interface ViewStyle {
  /** Wei amounts. */
  amount(v: bigint): string;
  /** Block heights. */
  height(n: number): string | number;
  /** Miner counters (tasks completed, proofs accepted). */
  counter(n: number): string | number;
}

export type MinerStatus = 'active' | 'jailed' | 'inactive';

const checksum = (a: string | null): string | null => (a === null ? null : checksumAddress(Buffer.from(a.slice(2), 'hex')));

/** The head and the epoch of the next block (the one the coordinator and intake count with). */
export function headEpoch(services: { chain: Chain; app: ChainApp }): { head: { number: number; timestamp: number }; epoch: number } {
  const head = services.chain.head();
  return { head, epoch: epochOfHeight(head.number + 1, services.app.staking.params) };
}

/**
 * `inactive`: registered and free, but without a registration or accepted proof in the last
 * minerActiveEpochs epochs, so the coordinator gives it no task until it registers again.
 */
export function minerStatus(services: { app: ChainApp }, m: MinerRecord, now: number, epoch: number): MinerStatus {
  if (m.jailedUntil > now) return 'jailed';
  return m.lastActiveEpoch > epoch - services.app.compute.params.minerActiveEpochs ? 'active' : 'inactive';
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

export function taskView(services: { app: ChainApp }, t: TaskRecord, s: ViewStyle) {
  const proof = t.proofId ? services.app.compute.proof(t.proofId) : undefined;
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

export function minerView(services: { chain: Chain; app: ChainApp }, m: MinerRecord, s: ViewStyle) {
  const { head, epoch } = headEpoch(services);
  const compute = services.app.compute;
  return {
    wallet: checksum(m.wallet),
    status: minerStatus(services, m, head.timestamp, epoch),
    publicKey: m.publicKey,
    tier: m.tier,
    models: m.models,
    registeredAt: s.height(m.registeredAt),
    jailedUntil: m.jailedUntil,
    inferenceScore: compute.inferenceScoreOf(m.window, epoch).toString(),
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

/** svc_getInferenceStats and /compute/stats: chain-wide totals, this node's intake and search. */
export function computeStats(services: { chain: Chain; app: ChainApp; compute: NodeCompute }, s: ViewStyle) {
  const { app, compute: node } = services;
  const compute = app.compute;
  const { head, epoch } = headEpoch(services);
  const c = compute.counters;
  const served = node.models?.loaded;
  const counts = compute.modelCounts();
  const open = compute.openTasks();
  const miners = compute.minerList();
  const intake = node.intake.counters;
  const pow = node.powStats();
  const recent = compute.minersWithRecentProofs(epoch, head.timestamp);
  return {
    computeMode: node.mode,
    blockNumber: head.number,
    epoch,
    models: compute.approvedModels.map((id) => ({
      id,
      tier: compute.modelTier(id) ?? null,
      dims: compute.modelDims(id) ?? null,
      approved: true,
      servedByThisNode: served?.has(id) ?? false,
      tasksAssigned: counts[id]?.assigned ?? 0,
      tasksCompleted: counts[id]?.completed ?? 0,
    })),
    tasks: {
      created: c.tasksCreated,
      public: c.publicTasks,
      challenge: c.challengeTasks,
      assigned: c.tasksAssigned,
      completed: c.tasksCompleted,
      expired: c.tasksExpired,
      open: open.filter((t) => t.status === 'assigned').length,
      waiting: open.filter((t) => t.status === 'pending').length,
    },
    proofs: {
      submitted: intake.proofsReceived,
      accepted: c.proofsAccepted,
      rejected: intake.proofsRejected + c.spotChecksFailed,
      rejectedAtSubmission: intake.proofsRejected,
      failedSpotCheck: c.spotChecksFailed,
      dropped: c.proofsDropped,
      rejectedByReason: intake.rejectedByReason,
    },
    // This node's pre-check (node-local policy): proofs it re-executed before accepting them, and those it refused.
    precheck: { rateBps: node.intake.precheck.rateBps, checked: node.intake.precheck.checked, failed: node.intake.precheck.failed },
    spotChecks: {
      selected: c.spotChecksSelected,
      passed: c.spotChecksPassed,
      failed: c.spotChecksFailed,
      pending: compute.spotChecksPending.length,
      expired: c.spotChecksExpired ?? 0,
    },
    totalFlops: c.flops.toString(),
    rewardsPaid: {
      blockRewards: s.amount(c.blockRewardsPaid),
      taskFeesToMiners: s.amount(c.feesPaidMiners),
      taskFeesToValidators: s.amount(c.feesPaidValidators),
      taskFeesToTreasury: s.amount(c.feesPaidTreasury),
      refunded: s.amount(c.feesRefunded),
      minerPool: s.amount(compute.minerPool),
    },
    miners: {
      registered: miners.length,
      active: compute.activeMiners(epoch, head.timestamp).length,
      withRecentProofs: recent,
      poolShareBps: inferenceMinersShareBps(recent, app.staking.params),
      jailed: miners.filter((m) => m.jailedUntil > head.timestamp).length,
      forgotten: c.minersForgotten ?? 0,
    },
    pow: {
      sharesAccepted: c.sharesAccepted,
      shareDifficulty: compute.params.shareDifficulty.toString(),
      hashrateWindowSeconds: compute.hashrateWindowSeconds(),
      thisNode: pow
        ? { threads: pow.threads, hashes: pow.hashes.toString(), seconds: pow.seconds, hashrate: Math.round(pow.hashrate).toString(), sharesFound: pow.sharesFound }
        : null,
    },
  };
}

/** A model of the chain's registry as svc_getApprovedModels shows it (docs/compute.md). */
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
