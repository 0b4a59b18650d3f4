// Batch: up to 20 GET requests of this API in one call, each answered with its own status and envelope.
import type { RouteDef, RouteModule } from '../definition.js';
import { batchHandlers, MAX_BATCH } from '../handlers/batch.js';

const definitions: RouteDef[] = [
  {
    id: 'batch',
    method: 'POST',
    path: '/batch',
    category: 'Batch',
    summary: `Runs up to ${MAX_BATCH} GET requests (paths under /api/v1, with their query strings); each counts against the rate limit.`,
    auth: 'public',
    body: {
      type: 'object',
      required: ['requests'],
      additionalProperties: false,
      properties: {
        requests: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_BATCH,
          items: { type: 'object', required: ['path'], additionalProperties: false, properties: { path: { type: 'string', pattern: '^/', maxLength: 512 } } },
        },
      },
    },
    response: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, status: { type: 'integer' }, body: { type: 'object' } } } },
  },
];

export const batchRoutes: RouteModule = { definitions, handlers: batchHandlers };
