// Blocks: the list (newest first) and one block by number, hash or "latest", with its transactions.
import { object, pageParams, pageSchema, routes, type Api } from '../schema.js';
import { blockDetailSchema, blockSchema, transferSchema, txSchema } from './shapes.js';

const blockId = {
  name: 'id',
  in: 'path',
  description: 'block number, block hash or "latest"',
  schema: { type: 'string', pattern: '^(latest|[0-9]{1,15}|0x[0-9a-fA-F]{64})$', description: 'a number, a 0x hash or "latest"' },
} as const;

export const blockRouteDefs = routes([
  {
    id: 'listBlocks',
    method: 'GET',
    path: '/blocks',
    category: 'Blocks',
    summary: 'Blocks, newest first (keyset-paginated). Accepts an API key as ?apikey=.',
    auth: 'public',
    params: [...pageParams, { name: 'apikey', in: 'query', description: 'API key (raises the rate limit)', schema: { type: 'string', maxLength: 128 } }],
    response: pageSchema(blockSchema),
  },
  {
    id: 'getBlock',
    method: 'GET',
    path: '/blocks/{id}',
    category: 'Blocks',
    summary: 'One block with its first transactions (up to 100; the rest through /blocks/{id}/transactions).',
    auth: 'public',
    params: [blockId],
    response: object({ ...blockDetailSchema.properties, transactions: { type: 'array', items: txSchema } }),
  },
  {
    id: 'getBlockTransactions',
    method: 'GET',
    path: '/blocks/{id}/transactions',
    category: 'Blocks',
    summary: "A block's transactions in block order (keyset-paginated).",
    auth: 'public',
    params: [blockId, ...pageParams],
    response: pageSchema(txSchema),
  },
  {
    id: 'getBlockTokenTransfers',
    method: 'GET',
    path: '/blocks/{id}/token-transfers',
    category: 'Blocks',
    summary: 'Token transfers (ERC-20, ERC-721, ERC-1155) made in a block.',
    auth: 'public',
    params: [blockId],
    response: { type: 'array', items: transferSchema },
  },
]);

export type BlockApi = Api<typeof blockRouteDefs>;

/** A block with its first transactions (GET /blocks/{id}). */
export type BlockWithTransactions = BlockApi['getBlock']['response'];
