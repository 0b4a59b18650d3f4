// Tokens: ERC-20, ERC-721 and ERC-1155 contracts detected from their transfer logs, with holders,
// transfers and instances (NFT ids).
import { object, pageParams, pageSchema, routes, schemas, type Api } from '../schema.js';
import { tokenSchema, transferSchema } from './shapes.js';

const token = { name: 'address', in: 'path', description: 'token contract address', schema: schemas.address } as const;

export const tokenRouteDefs = routes([
  {
    id: 'listTokens',
    method: 'GET',
    path: '/tokens',
    category: 'Tokens',
    summary: 'Tokens seen on the chain, by address (keyset-paginated); filter by type.',
    auth: 'public',
    params: [...pageParams, { name: 'type', in: 'query', description: 'ERC-20, ERC-721 or ERC-1155', schema: { type: 'string', enum: ['ERC-20', 'ERC-721', 'ERC-1155'] } }],
    response: pageSchema(tokenSchema),
  },
  {
    id: 'getToken',
    method: 'GET',
    path: '/tokens/{address}',
    category: 'Tokens',
    summary: 'One token: type, name, symbol, decimals, holder and transfer counts.',
    auth: 'public',
    params: [token],
    response: tokenSchema,
  },
  {
    id: 'getTokenHolders',
    method: 'GET',
    path: '/tokens/{address}/holders',
    category: 'Tokens',
    summary: 'Holders by balance, largest first (keyset-paginated).',
    auth: 'public',
    params: [token, ...pageParams],
    response: pageSchema(object({ address: { type: 'string' }, balance: { type: 'string' } })),
  },
  {
    id: 'getTokenTransfers',
    method: 'GET',
    path: '/tokens/{address}/transfers',
    category: 'Tokens',
    summary: "The token's transfers, newest first (keyset-paginated).",
    auth: 'public',
    params: [token, ...pageParams],
    response: pageSchema(transferSchema),
  },
  {
    id: 'getTokenInstances',
    method: 'GET',
    path: '/tokens/{address}/instances',
    category: 'Tokens',
    summary: 'NFT instances (ERC-721 and ERC-1155 ids) with owner or supply, by id (keyset-paginated).',
    auth: 'public',
    params: [token, ...pageParams],
    response: pageSchema(object({ tokenId: { type: 'string' }, owner: { type: ['string', 'null'] }, supply: { type: 'string' } })),
  },
]);

export type TokenApi = Api<typeof tokenRouteDefs>;
