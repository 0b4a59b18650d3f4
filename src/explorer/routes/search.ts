// Search: a block number or hash, a transaction hash, an address, a token name or symbol, or a
// validator moniker.
import { object, routes, type Api, type FromSchema } from '../schema.js';
import { tokenSchema } from './shapes.js';

/** One match: its kind and the fields that kind has. */
export const searchHitSchema = object(
  {
    type: { type: 'string', enum: ['block', 'transaction', 'address', 'contract', 'token', 'validator'] },
    number: { type: 'integer', description: 'block' },
    hash: { type: 'string', description: 'block, transaction' },
    blockNumber: { type: ['integer', 'null'], description: 'transaction (null while pending)' },
    pending: { type: 'boolean', description: 'a transaction in the pool' },
    address: { type: 'string', description: 'address, contract, token, validator' },
    token: tokenSchema,
    moniker: { type: 'string', description: 'validator' },
  },
  ['number', 'hash', 'blockNumber', 'pending', 'address', 'token', 'moniker'],
);
export type SearchHit = FromSchema<typeof searchHitSchema>;

export const searchRouteDefs = routes([
  {
    id: 'search',
    method: 'GET',
    path: '/search',
    category: 'Search',
    summary: 'Finds blocks, transactions, addresses, tokens (name or symbol prefix) and validators (moniker) matching q.',
    auth: 'public',
    params: [{ name: 'q', in: 'query', required: true, description: 'what to look for (1..100 characters)', schema: { type: 'string', minLength: 1, maxLength: 100 } }],
    response: { type: 'array', items: searchHitSchema },
  },
]);

export type SearchApi = Api<typeof searchRouteDefs>;
