// Watchlist routes: the signed-in user's watched addresses, each with its latest activity from the
// explorer indexes. Only the owner sees or changes an entry.
import { explorer as params } from '../../params.js';
import { object, pageParams, pageSchema, routes, schemas, type Api } from '../schema.js';

const entryId = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'watchlist entry id',
  schema: { type: 'string', pattern: '^[0-9a-f]{32}$', description: '32 lowercase hex characters' },
} as const;

const name = { type: 'string', maxLength: params.labelMaxLength, description: 'a label for the address' } as const;
const notifyIncoming = { type: 'boolean', description: 'notify on transactions to the address' } as const;
const notifyOutgoing = { type: 'boolean', description: 'notify on transactions from the address' } as const;

const entry = {
  type: 'object',
  required: ['id', 'address', 'name', 'notifyIncoming', 'notifyOutgoing', 'createdAt', 'updatedAt', 'latestActivity'],
  properties: {
    id: { type: 'string' },
    address: { type: 'string', description: 'lowercase 0x address' },
    name: { type: 'string' },
    notifyIncoming: { type: 'boolean' },
    notifyOutgoing: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    latestActivity: {
      type: ['object', 'null'],
      description: 'the latest transaction touching the address (null: none indexed)',
      required: ['txHash', 'blockNumber', 'timestamp', 'direction'],
      properties: {
        txHash: { type: 'string' },
        blockNumber: { type: 'integer' },
        timestamp: { type: 'integer', description: 'Unix seconds of its block' },
        direction: { type: 'string', enum: ['incoming', 'outgoing', 'self'] },
      },
    },
  },
} as const;

export const watchlistRouteDefs = routes([
  {
    id: 'listWatchlist',
    method: 'GET',
    path: '/watchlist',
    category: 'Watchlist',
    summary: 'Your watched addresses, newest first, with their latest activity',
    auth: 'user',
    params: pageParams,
    response: pageSchema(entry),
  },
  {
    id: 'addWatchlistEntry',
    method: 'POST',
    path: '/watchlist',
    category: 'Watchlist',
    summary: `Watch an address (once per address, at most ${params.watchlistPerAccount} per account)`,
    auth: 'user',
    body: {
      type: 'object',
      required: ['address'],
      additionalProperties: false,
      properties: {
        address: schemas.address,
        name: { ...name, default: '' },
        notifyIncoming: { ...notifyIncoming, default: true },
        notifyOutgoing: { ...notifyOutgoing, default: true },
      },
    },
    response: entry,
    status: 201,
  },
  {
    id: 'getWatchlistEntry',
    method: 'GET',
    path: '/watchlist/{id}',
    category: 'Watchlist',
    summary: 'One of your watchlist entries with its latest activity',
    auth: 'user',
    params: [entryId],
    response: entry,
  },
  {
    id: 'updateWatchlistEntry',
    method: 'PATCH',
    path: '/watchlist/{id}',
    category: 'Watchlist',
    summary: "Change an entry's name or notification flags (at least one)",
    auth: 'user',
    params: [entryId],
    body: { type: 'object', additionalProperties: false, properties: { name, notifyIncoming, notifyOutgoing } },
    response: entry,
  },
  {
    id: 'deleteWatchlistEntry',
    method: 'DELETE',
    path: '/watchlist/{id}',
    category: 'Watchlist',
    summary: 'Stop watching an address',
    auth: 'user',
    params: [entryId],
    response: object({ id: { type: 'string' }, deleted: { const: true } }),
  },
]);

export type WatchlistApi = Api<typeof watchlistRouteDefs>;
