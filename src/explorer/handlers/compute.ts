// Compute: the inference-mining state of the compute module (docs/compute.md) — the module's totals,
// miners with their open tasks, tasks, proofs, and what each block accepted and decided. The same
// facts as the svc_*Inference* methods (src/rpc/svc/compute.ts), in the explorer's style: amounts
// and FLOPs as decimal strings, block heights as integers, addresses checksummed.
import type { MinerRecord, ProofRecord, TaskRecord } from '../../modules/compute/types.js';
import { epochOfHeight } from '../../modules/staking/epoch.js';
import type { Handler, Schema } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import type { ExplorerServices } from '../services.js';
import { addr } from '../views.js';

type Hex = `0x${string}`;
const lower = (v: unknown): Hex => (v as string).toLowerCase() as Hex;

export const minerSchema: Schema = {
  type: 'object',
  properties: {
    wallet: { type: 'string' },
    status: { type: 'string', enum: ['active', 'jailed', 'inactive'] },
    publicKey: { type: 'string' },
    tier: { type: 'string' },
    models: { type: 'array', items: { type: 'string' } },
    registeredAt: { type: 'integer' },
    jailedUntil: { type: 'integer' },
    inferenceScore: { type: 'string' },
    tasksCompleted: { type: 'integer' },
    proofsAccepted: { type: 'integer' },
    spotChecksPassed: { type: 'integer' },
    spotChecksFailed: { type: 'integer' },
    flops: { type: 'string' },
    blockRewards: { type: 'string' },
    feeRewards: { type: 'string' },
    rewards: { type: 'string' },
    openTaskCount: { type: 'integer' },
    openTasks: { type: 'array', items: { type: 'object' } },
  },
};

export const taskSchema: Schema = {
  type: 'object',
  properties: {
    taskId: { type: 'string' },
    kind: { type: 'string', enum: ['public', 'challenge'] },
    modelId: { type: 'string' },
    input: { type: 'string' },
    inputHash: { type: 'string' },
    fee: { type: 'string' },
    submitter: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['pending', 'assigned', 'completed', 'expired'] },
    createdAt: { type: 'integer' },
    createdEpoch: { type: 'integer' },
    assignedTo: { type: ['string', 'null'] },
    assignedEpoch: { type: ['integer', 'null'] },
    deadlineEpoch: { type: ['integer', 'null'] },
    completedAt: { type: ['integer', 'null'] },
    reassignments: { type: 'integer' },
    refunded: { type: 'string' },
    result: { type: ['object', 'null'] },
  },
};

export const proofSchema: Schema = {
  type: 'object',
  properties: {
    proofId: { type: 'string' },
    taskId: { type: 'string' },
    taskKind: { type: 'string' },
    validator: { type: 'string' },
    miner: { type: 'string' },
    modelId: { type: 'string' },
    flops: { type: 'string' },
    includedAt: { type: 'integer' },
    blockReward: { type: 'string' },
    fee: { type: 'object' },
    spotCheck: { type: 'string', enum: ['undrawn', 'not-selected', 'pending', 'passed', 'failed', 'expired'] },
    spotCheckResult: { type: ['object', 'null'] },
  },
};

/** The epoch of the next block, as the coordinator and the svc_* views count it. */
function nextEpoch(services: ExplorerServices): { head: { number: number; timestamp: number }; epoch: number } {
  const head = services.node.chain.head();
  return { head, epoch: epochOfHeight(head.number + 1, services.node.app.staking.params) };
}

function minerStatus(services: ExplorerServices, m: MinerRecord, now: number, epoch: number): 'active' | 'jailed' | 'inactive' {
  if (m.jailedUntil > now) return 'jailed';
  return m.lastActiveEpoch > epoch - services.node.app.compute.params.minerActiveEpochs ? 'active' : 'inactive';
}

export function proofView(p: ProofRecord): Record<string, unknown> {
  return {
    proofId: p.id,
    taskId: p.taskId,
    taskKind: p.taskKind,
    validator: addr(p.validator),
    miner: addr(p.miner),
    publicKey: p.publicKey,
    modelId: p.modelId,
    inputHash: p.inputHash,
    outputHash: p.outputHash,
    quantized: p.quantized,
    executionTimeMs: p.executionTimeMs,
    flops: p.flops.toString(),
    claimedFlops: p.claimedFlops.toString(),
    signature: p.signature,
    includedAt: p.includedAt,
    blockReward: p.blockReward.toString(),
    fee: { miner: p.feeMiner.toString(), validator: p.feeValidator.toString(), treasury: p.feeTreasury.toString(), paid: p.feePaid },
    spotCheck: p.spotCheck,
    spotCheckResult: p.spotCheckResult
      ? { cosine: p.spotCheckResult.cosinePpm / 1e6, maxAbsDiff: p.spotCheckResult.maxAbsDiff, hashMatches: p.spotCheckResult.hashMatches, checkedAt: p.spotCheckResult.checkedAt }
      : null,
  };
}

function taskView(services: ExplorerServices, t: TaskRecord): Record<string, unknown> {
  const proof = t.proofId ? services.node.app.compute.proof(t.proofId) : undefined;
  return {
    taskId: t.id,
    kind: t.kind,
    modelId: t.modelId,
    input: t.input,
    inputHash: t.inputHash,
    fee: t.fee.toString(),
    submitter: addr(t.submitter),
    status: t.status,
    createdAt: t.createdAt,
    createdEpoch: t.createdEpoch,
    assignedTo: addr(t.assignedTo),
    assignedEpoch: t.assignedEpoch,
    deadlineEpoch: t.deadlineEpoch,
    completedAt: t.completedAt,
    reassignments: t.reassignments,
    refunded: t.refunded.toString(),
    result: proof
      ? { proofId: proof.id, miner: addr(proof.miner), validator: addr(proof.validator), outputHash: proof.outputHash, quantized: proof.quantized, spotCheck: proof.spotCheck }
      : null,
  };
}

function minerView(services: ExplorerServices, m: MinerRecord): Record<string, unknown> {
  const { head, epoch } = nextEpoch(services);
  const compute = services.node.app.compute;
  const open = compute.openTasksOf(m.wallet);
  return {
    wallet: addr(m.wallet),
    status: minerStatus(services, m, head.timestamp, epoch),
    publicKey: m.publicKey,
    tier: m.tier,
    models: m.models,
    registeredAt: m.registeredAt,
    jailedUntil: m.jailedUntil,
    inferenceScore: compute.inferenceScoreOf(m.window, epoch).toString(),
    tasksCompleted: m.tasksCompleted,
    proofsAccepted: m.proofsAccepted,
    spotChecksPassed: m.spotChecksPassed,
    spotChecksFailed: m.spotChecksFailed,
    flops: m.flops.toString(),
    blockRewards: m.blockRewards.toString(),
    feeRewards: m.feeRewards.toString(),
    rewards: (m.blockRewards + m.feeRewards).toString(),
    openTaskCount: open.length,
    openTasks: open.map((t) => ({ taskId: t.id, modelId: t.modelId, kind: t.kind, assignedEpoch: t.assignedEpoch, deadlineEpoch: t.deadlineEpoch })),
  };
}

export const computeHandlers: Record<string, Handler> = {
  getComputeStats: (_input, services) => {
    const { app, compute: node } = services.node;
    const compute = app.compute;
    const { head, epoch } = nextEpoch(services);
    const c = compute.counters;
    const served = node.models?.loaded;
    const counts = compute.modelCounts();
    const open = compute.openTasks();
    const miners = compute.minerList();
    const intake = node.intake.counters;
    const pow = node.powStats();
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
      spotChecks: {
        selected: c.spotChecksSelected,
        passed: c.spotChecksPassed,
        failed: c.spotChecksFailed,
        pending: compute.spotChecksPending.length,
        expired: c.spotChecksExpired ?? 0,
      },
      totalFlops: c.flops.toString(),
      rewardsPaid: {
        blockRewards: c.blockRewardsPaid.toString(),
        taskFeesToMiners: c.feesPaidMiners.toString(),
        taskFeesToValidators: c.feesPaidValidators.toString(),
        taskFeesToTreasury: c.feesPaidTreasury.toString(),
        refunded: c.feesRefunded.toString(),
        minerPool: compute.minerPool.toString(),
      },
      miners: {
        registered: miners.length,
        active: compute.activeMiners(epoch, head.timestamp).length,
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
  },

  getComputeMiner: ({ params }, services) => {
    const m = services.node.app.compute.miner(lower(params.address));
    if (!m) throw new NotFoundError(`miner ${params.address as string} not found`);
    return minerView(services, m);
  },

  getComputeTask: ({ params }, services) => {
    const t = services.node.app.compute.task(lower(params.id));
    if (!t) throw new NotFoundError(`task ${params.id as string} not found`);
    return taskView(services, t);
  },

  getComputeProof: ({ params }, services) => {
    const p = services.node.app.compute.proof(lower(params.id));
    if (!p) throw new NotFoundError(`proof ${params.id as string} not found`);
    return proofView(p);
  },

  getComputeBlockProofs: ({ params }, services) => {
    const n = params.number as number;
    const head = services.node.chain.head().number;
    if (n > head) throw new NotFoundError(`block ${n} not found (the head is ${head})`);
    const compute = services.node.app.compute;
    const { accepted, decided } = compute.blockActivity(n);
    const views = (ids: readonly Hex[]) => ids.map((id) => compute.proof(id)).filter((p) => p !== undefined).map(proofView);
    return { blockNumber: n, accepted: views(accepted), spotChecksDecided: views(decided) };
  },
};
