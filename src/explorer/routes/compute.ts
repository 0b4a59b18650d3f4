// Compute: inference mining — the compute module's totals, miners, tasks, proofs, and each block's
// accepted proofs and decided spot-checks (docs/compute.md).
import { object, pageParams, pageSchema, routes, schemas, type Api, type FromSchema } from '../schema.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const wei = { type: 'string', description: 'wei, decimal' } as const;
const intOrNull = { type: ['integer', 'null'] } as const;
const spotCheck = { type: 'string', enum: ['undrawn', 'not-selected', 'pending', 'passed', 'failed', 'expired'] } as const;

export const minerSchema = object({
  wallet: str,
  status: { type: 'string', enum: ['active', 'jailed', 'inactive'] },
  publicKey: str,
  tier: str,
  models: { type: 'array', items: str },
  registeredAt: int,
  jailedUntil: int,
  inferenceScore: str,
  tasksCompleted: int,
  proofsAccepted: int,
  spotChecksPassed: int,
  spotChecksFailed: int,
  flops: str,
  blockRewards: wei,
  feeRewards: wei,
  rewards: wei,
  openTaskCount: int,
  openTasks: {
    type: 'array',
    items: object({ taskId: str, modelId: str, kind: { type: 'string', enum: ['public', 'challenge'] }, assignedEpoch: intOrNull, deadlineEpoch: intOrNull }),
  },
});
export type ComputeMiner = FromSchema<typeof minerSchema>;

export const taskSchema = object({
  taskId: str,
  kind: { type: 'string', enum: ['public', 'challenge'] },
  modelId: str,
  input: str,
  inputHash: str,
  fee: wei,
  submitter: { type: ['string', 'null'] },
  status: { type: 'string', enum: ['pending', 'assigned', 'completed', 'expired'] },
  createdAt: int,
  createdEpoch: int,
  assignedTo: { type: ['string', 'null'] },
  assignedEpoch: intOrNull,
  deadlineEpoch: intOrNull,
  completedAt: intOrNull,
  reassignments: int,
  refunded: wei,
  result: {
    description: 'the accepted proof of a completed task',
    oneOf: [object({ proofId: str, miner: str, validator: str, outputHash: str, quantized: { type: 'boolean' }, spotCheck }), { type: 'null' }],
  },
});
export type ComputeTask = FromSchema<typeof taskSchema>;

export const proofSchema = object({
  proofId: str,
  taskId: str,
  taskKind: { type: 'string', enum: ['public', 'challenge'] },
  validator: str,
  miner: str,
  publicKey: str,
  modelId: str,
  inputHash: str,
  outputHash: str,
  quantized: { type: 'boolean' },
  executionTimeMs: int,
  flops: str,
  claimedFlops: str,
  signature: str,
  includedAt: int,
  blockReward: wei,
  fee: object({ miner: wei, validator: wei, treasury: wei, paid: { type: 'boolean' } }, [], 'the task fee split, and whether it was paid'),
  spotCheck,
  spotCheckResult: {
    oneOf: [object({ cosine: { type: 'number' }, maxAbsDiff: { type: 'number' }, hashMatches: { type: 'boolean' }, checkedAt: int }), { type: 'null' }],
  },
});
export type ComputeProof = FromSchema<typeof proofSchema>;

export const computeStatsSchema = object({
  computeMode: { type: 'string', description: "this node's compute mode" },
  blockNumber: int,
  epoch: int,
  models: {
    type: 'array',
    items: object({
      id: str,
      tier: { type: ['string', 'null'] },
      dims: intOrNull,
      approved: { type: 'boolean' },
      servedByThisNode: { type: 'boolean' },
      tasksAssigned: int,
      tasksCompleted: int,
    }),
  },
  tasks: object({ created: int, public: int, challenge: int, assigned: int, completed: int, expired: int, open: int, waiting: int }),
  proofs: object({
    submitted: int,
    accepted: int,
    rejected: int,
    rejectedAtSubmission: int,
    failedSpotCheck: int,
    dropped: int,
    rejectedByReason: { type: 'object', description: 'proofs refused at submission, by reason', additionalProperties: int },
  }),
  precheck: object({ rateBps: int, checked: int, failed: int }, [], "this node's pre-check (node-local policy): proofs it re-executed before accepting them, and those it refused"),
  spotChecks: object({ selected: int, passed: int, failed: int, pending: int, expired: int }),
  totalFlops: str,
  rewardsPaid: object({ blockRewards: wei, taskFeesToMiners: wei, taskFeesToValidators: wei, taskFeesToTreasury: wei, refunded: wei, minerPool: wei }),
  miners: object({ registered: int, active: int, withRecentProofs: int, poolShareBps: int, jailed: int, forgotten: int }),
  pow: object({
    sharesAccepted: int,
    shareDifficulty: str,
    hashrateWindowSeconds: { type: 'number' },
    thisNode: {
      oneOf: [object({ threads: int, hashes: str, seconds: { type: 'number' }, hashrate: { type: 'string', description: 'hashes per second' }, sharesFound: int }), { type: 'null' }],
    },
  }),
});
export type ComputeStats = FromSchema<typeof computeStatsSchema>;

export const computeRouteDefs = routes([
  {
    id: 'getComputeStats',
    method: 'GET',
    path: '/compute/stats',
    category: 'Compute',
    summary: 'Compute totals: approved models (tier, dims, served here, tasks), tasks, proofs, spot-checks, FLOPs, rewards paid, miners, proof-of-work.',
    auth: 'public',
    response: computeStatsSchema,
  },
  {
    id: 'getComputeModels',
    method: 'GET',
    path: '/compute/models',
    category: 'Compute',
    summary: "The chain's model registry as svc_getApprovedModels answers it: each model's tier, dims, status (approved, retiring, retired), approval block and proposal, pinned files.",
    auth: 'public',
    response: {
      type: 'array',
      items: object({
        id: str,
        tier: str,
        dims: int,
        status: { type: 'string', enum: ['approved', 'retiring', 'retired'] },
        refusedFromBlock: intOrNull,
        approvedAtBlock: int,
        approvedBy: { type: ['integer', 'null'], description: 'the governance proposal; null for genesis models' },
        files: { type: ['array', 'null'], items: object({ name: str, sha256: str, size: int }) },
        pinnedBy: { type: 'string', enum: ['governance', 'registry'] },
      }),
    },
  },
  {
    id: 'listComputeTasks',
    method: 'GET',
    path: '/compute/tasks',
    category: 'Compute',
    summary: 'Open inference tasks (pending or assigned, public and challenge), newest first; a completed task is reached through its proof.',
    auth: 'public',
    params: [...pageParams],
    response: pageSchema(taskSchema),
  },
  {
    id: 'listComputeProofs',
    method: 'GET',
    path: '/compute/proofs',
    category: 'Compute',
    summary: "Accepted inference proofs, newest block first, with their spot-check state, all or one miner's; each page looks through at most 5,000 blocks (follow `next`).",
    auth: 'public',
    params: [...pageParams, { name: 'miner', in: 'query', description: "only this miner's proofs", schema: schemas.address }],
    response: pageSchema(proofSchema),
  },
  {
    id: 'getComputeMiner',
    method: 'GET',
    path: '/compute/miners/{address}',
    category: 'Compute',
    summary: 'One inference miner: status, key, tier, models, score, counters, rewards, and its open tasks (id, model, kind, deadline epoch).',
    auth: 'public',
    params: [{ name: 'address', in: 'path', description: "the miner's wallet", schema: schemas.address }],
    response: minerSchema,
  },
  {
    id: 'getComputeTask',
    method: 'GET',
    path: '/compute/tasks/{id}',
    category: 'Compute',
    summary: 'One inference task (public or challenge): input, fee, assignment, status, and the result of its accepted proof.',
    auth: 'public',
    params: [{ name: 'id', in: 'path', description: 'task id', schema: schemas.hash }],
    response: taskSchema,
  },
  {
    id: 'getComputeProof',
    method: 'GET',
    path: '/compute/proofs/{id}',
    category: 'Compute',
    summary: 'One accepted inference proof: output, FLOPs, block reward, fee parts, spot-check state and result.',
    auth: 'public',
    params: [{ name: 'id', in: 'path', description: 'proof id', schema: schemas.hash }],
    response: proofSchema,
  },
  {
    id: 'getComputeBlockProofs',
    method: 'GET',
    path: '/compute/blocks/{number}/proofs',
    category: 'Compute',
    summary: 'The inference proofs a block accepted and the spot-checks it decided (empty lists for a block without any).',
    auth: 'public',
    params: [{ name: 'number', in: 'path', description: 'block number', schema: { type: 'integer', minimum: 0, description: 'a non-negative block number' } }],
    response: object({ blockNumber: int, accepted: { type: 'array', items: proofSchema }, spotChecksDecided: { type: 'array', items: proofSchema } }),
  },
]);

export type ComputeApi = Api<typeof computeRouteDefs>;
