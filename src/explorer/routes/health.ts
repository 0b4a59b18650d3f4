// Health: liveness, and readiness with the indexer's lag behind the chain head and the transaction journal's state.
import { object, routes, type Api } from '../schema.js';

export const healthRouteDefs = routes([
  {
    id: 'getLiveness',
    method: 'GET',
    path: '/health/live',
    category: 'Health',
    summary: 'The process serves requests: version and uptime.',
    auth: 'public',
    response: object({ status: { const: 'ok' }, version: { type: 'string' }, uptimeSeconds: { type: 'integer' } }),
  },
  {
    id: 'getReadiness',
    method: 'GET',
    path: '/health/ready',
    category: 'Health',
    summary:
      'Ready when a block was committed within the last 3 block times (at least 2 s), submitted transactions can be journaled and the index is at most 2 blocks behind the head (HTTP 503 otherwise, with the reason in the error).',
    auth: 'public',
    response: object({
      ready: { type: 'boolean' },
      head: { type: 'integer' },
      indexed: { type: 'integer' },
      lag: { type: 'integer' },
      internalIndexed: { type: 'integer', description: 'the height internal transactions are indexed to (re-executed blocks trail `indexed`)' },
      internalLag: { type: 'integer' },
      headAgeMs: { type: 'integer' },
      staleAfterMs: { type: 'integer' },
      blockProduction: { enum: ['ok', 'stalled'] },
      transactionJournal: { enum: ['ok', 'failing'] },
      lastBlockIndexMs: { type: 'number' },
      maxBlockIndexMs: { type: 'number' },
    }),
  },
]);

export type HealthApi = Api<typeof healthRouteDefs>;
