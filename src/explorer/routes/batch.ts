// Batch: up to 20 GET requests of this API in one call, each answered with its own status and envelope.
import { object, routes, type Api } from '../schema.js';

/** Most requests one batch runs. */
export const MAX_BATCH = 20;

export const batchRouteDefs = routes([
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
    response: {
      type: 'array',
      items: object({
        path: { type: 'string' },
        status: { type: 'integer', description: 'the HTTP status the request would have had on its own' },
        body: object(
          { ok: { type: 'boolean' }, data: { description: "the route's answer (as the route's own response schema)" }, error: { type: 'string' } },
          ['data', 'error'],
          'the envelope the request would have had on its own: {ok: true, data} or {ok: false, error}',
        ),
      }),
    },
  },
]);

export type BatchApi = Api<typeof batchRouteDefs>;
