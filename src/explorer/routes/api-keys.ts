// API key routes: list, create (the key is shown once), revoke, and today's usage. Keys are sent
// as X-Api-Key or ?apikey= and raise the caller's rate limits to the key's tier.
import { explorer as params } from '../../params.js';
import { object, routes, type Api } from '../schema.js';

/** The API key tiers (explorer.tiers). */
const tiers = Object.keys(params.tiers) as (keyof typeof params.tiers)[];

const keyId = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'API key id (from GET /api-keys)',
  schema: { type: 'string', pattern: '^[0-9a-f]{32}$', description: '32 lowercase hex characters' },
} as const;

const apiKey = object({
  id: { type: 'string' },
  name: { type: 'string' },
  prefix: { type: 'string', description: `the key's first ${params.apiKeyShownChars} characters` },
  tier: { type: 'string', enum: tiers },
  createdAt: { type: 'string', format: 'date-time' },
  lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
  requestsToday: { type: 'integer', description: 'requests since 00:00 UTC' },
});

export const apiKeyRouteDefs = routes([
  {
    id: 'listApiKeys',
    method: 'GET',
    path: '/api-keys',
    category: 'API Keys',
    summary: "The signed-in user's API keys (never the keys themselves)",
    auth: 'user',
    response: object({ items: { type: 'array', items: apiKey }, maxKeys: { type: 'integer', description: 'keys an account may hold' } }),
  },
  {
    id: 'createApiKey',
    method: 'POST',
    path: '/api-keys',
    category: 'API Keys',
    summary: `Create an API key of the ${params.defaultTier} tier; the key is in this response only (at most ${params.apiKeysPerAccount} per account)`,
    auth: 'user',
    body: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: { name: { type: 'string', minLength: 1, maxLength: params.labelMaxLength, description: 'a label to tell keys apart' } },
    },
    response: object({ ...apiKey.properties, key: { type: 'string', description: 'the API key: store it now, it is not shown again' } }),
    status: 201,
  },
  {
    id: 'revokeApiKey',
    method: 'DELETE',
    path: '/api-keys/{id}',
    category: 'API Keys',
    summary: 'Revoke one of your API keys; requests with it fail with 401 from now on',
    auth: 'user',
    params: [keyId],
    response: object({ id: { type: 'string' }, revoked: { const: true } }),
  },
  {
    id: 'getApiKeyUsage',
    method: 'GET',
    path: '/api-keys/{id}/usage',
    category: 'API Keys',
    summary: "Today's request count of one of your API keys, its tier and its limits",
    auth: 'user',
    params: [keyId],
    response: object({
      id: { type: 'string' },
      tier: { type: 'string', enum: tiers },
      day: { type: 'string', description: 'the UTC day counted, YYYY-MM-DD' },
      requestsToday: { type: 'integer' },
      dailyLimit: { type: ['integer', 'null'], description: 'null: unlimited' },
      remainingToday: { type: ['integer', 'null'], description: 'null: unlimited' },
      perSecond: { type: 'integer', description: 'requests per second allowed' },
      resetsAt: { type: 'string', format: 'date-time', description: 'when the daily count starts again (00:00 UTC)' },
    }),
  },
]);

export type ApiKeyApi = Api<typeof apiKeyRouteDefs>;
