// Compute: inference mining — the compute module's totals, miners, tasks, proofs, and each block's
// accepted proofs and decided spot-checks (docs/compute.md).
import type { RouteDef, RouteModule } from '../definition.js';
import { computeHandlers, minerSchema, proofSchema, taskSchema } from '../handlers/compute.js';
import { pageParams, pageSchema, schemas } from '../validate.js';

const definitions: RouteDef[] = [
  {
    id: 'getComputeStats',
    method: 'GET',
    path: '/compute/stats',
    category: 'Compute',
    summary: 'Compute totals: approved models (tier, dims, served here, tasks), tasks, proofs, spot-checks, FLOPs, rewards paid, miners, proof-of-work.',
    auth: 'public',
    response: { type: 'object' },
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
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          tier: { type: 'string' },
          dims: { type: 'integer' },
          status: { type: 'string', enum: ['approved', 'retiring', 'retired'] },
          refusedFromBlock: { type: ['integer', 'null'] },
          approvedAtBlock: { type: 'integer' },
          approvedBy: { type: ['integer', 'null'], description: 'the governance proposal; null for genesis models' },
          files: {
            type: ['array', 'null'],
            items: { type: 'object', properties: { name: { type: 'string' }, sha256: { type: 'string' }, size: { type: 'integer' } } },
          },
          pinnedBy: { type: 'string', enum: ['governance', 'registry'] },
        },
      },
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
    response: {
      type: 'object',
      properties: { blockNumber: { type: 'integer' }, accepted: { type: 'array', items: proofSchema }, spotChecksDecided: { type: 'array', items: proofSchema } },
    },
  },
];

export const computeRoutes: RouteModule = { definitions, handlers: computeHandlers };
