// Compute: the inference-mining state of the compute module (docs/compute.md) — the module's totals,
// miners with their open tasks, tasks, proofs, and what each block accepted and decided. The same
// facts as the svc_*Inference* methods (src/rpc/svc/compute.ts), in the explorer's style: amounts
// and FLOPs as decimal strings, block heights as integers, addresses checksummed.
import { computeStats, minerView, proofView, taskView, type ViewStyle } from '../../compute/views.js';
import type { MinerRecord, ProofRecord } from '../../modules/compute/types.js';
import type { ExplorerServices, Handler, Schema } from '../definition.js';
import { NotFoundError } from '../envelope.js';

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

/** The explorer's way of writing the shared views' numbers: decimal strings for amounts, integers otherwise. */
const EXPLORER_STYLE: ViewStyle = { amount: (v) => v.toString(), height: (n) => n, counter: (n) => n };

export const explorerProofView = (p: ProofRecord) => proofView(p, EXPLORER_STYLE);

function explorerMinerView(services: ExplorerServices, m: MinerRecord): Record<string, unknown> {
  const open = services.node.app.compute.openTasksOf(m.wallet);
  return {
    ...minerView(services.node, m, EXPLORER_STYLE),
    openTaskCount: open.length,
    openTasks: open.map((t) => ({ taskId: t.id, modelId: t.modelId, kind: t.kind, assignedEpoch: t.assignedEpoch, deadlineEpoch: t.deadlineEpoch })),
  };
}

export const computeHandlers: Record<string, Handler> = {
  getComputeStats: (_input, services) => computeStats(services.node, EXPLORER_STYLE),

  getComputeMiner: ({ params }, services) => {
    const m = services.node.app.compute.miner(lower(params.address));
    if (!m) throw new NotFoundError(`miner ${params.address as string} not found`);
    return explorerMinerView(services, m);
  },

  getComputeTask: ({ params }, services) => {
    const t = services.node.app.compute.task(lower(params.id));
    if (!t) throw new NotFoundError(`task ${params.id as string} not found`);
    return taskView(services.node, t, EXPLORER_STYLE);
  },

  getComputeProof: ({ params }, services) => {
    const p = services.node.app.compute.proof(lower(params.id));
    if (!p) throw new NotFoundError(`proof ${params.id as string} not found`);
    return explorerProofView(p);
  },

  getComputeBlockProofs: ({ params }, services) => {
    const n = params.number as number;
    const head = services.node.chain.head().number;
    if (n > head) throw new NotFoundError(`block ${n} not found (the head is ${head})`);
    const compute = services.node.app.compute;
    const { accepted, decided } = compute.blockActivity(n);
    const views = (ids: readonly Hex[]) => ids.map((id) => compute.proof(id)).filter((p) => p !== undefined).map(explorerProofView);
    return { blockNumber: n, accepted: views(accepted), spotChecksDecided: views(decided) };
  },
};
