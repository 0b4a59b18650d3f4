// Addresses: summary with counters, transactions, token transfers, token balances, logs, user operations.
import { object, pageParams, pageSchema, routes, schemas, type Api, type FromSchema } from '../schema.js';
import { internalTxSchema, logSchema, tokenSchema, transferSchema, txSchema } from './shapes.js';
import { locatedUserOperationSchema } from './user-operations.js';

const address = { name: 'address', in: 'path', description: '0x address', schema: schemas.address } as const;
const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

/** An address's summary (GET /addresses/{address}). */
export const addressInfoSchema = object({
  address: str,
  balance: str,
  nonce: int,
  isContract: { type: 'boolean' },
  codeSize: int,
  creator: { type: ['string', 'null'] },
  creationTransaction: { type: ['string', 'null'] },
  token: { oneOf: [tokenSchema, { type: 'null' }] },
  validator: { oneOf: [object({ moniker: str, status: str, stake: str }), { type: 'null' }] },
  transactions: int,
  tokenTransfers: int,
  rent: object({
    storageDeposit: str,
    storageSlotCount: int,
    lastActiveEpoch: int,
    isDormant: { type: 'boolean' },
    rentOwed: str,
    currentEpoch: int,
    reactivationFee: str,
    exempt: { type: 'boolean' },
    module: { type: 'string', description: 'the rent module: payRent(account) and reactivate(account) go to it' },
  }),
});
export type AddressInfo = FromSchema<typeof addressInfoSchema>;

export const addressCountersSchema = object({
  transactions: int,
  tokenTransfers: int,
  blocksProduced: int,
  firstBlock: { type: ['integer', 'null'] },
  lastBlock: { type: ['integer', 'null'] },
});
export type AddressCounters = FromSchema<typeof addressCountersSchema>;

export const addressRouteDefs = routes([
  {
    id: 'getAddress',
    method: 'GET',
    path: '/addresses/{address}',
    category: 'Addresses',
    summary: 'Balance, nonce, whether it is a contract (with its creation), token and validator facts, counters, and its storage rent (deposit, slots, activity, dormancy, rent owed).',
    auth: 'public',
    params: [address],
    response: addressInfoSchema,
  },
  {
    id: 'getAddressCounters',
    method: 'GET',
    path: '/addresses/{address}/counters',
    category: 'Addresses',
    summary: 'Transactions, token transfers, blocks produced, first and last active block.',
    auth: 'public',
    params: [address],
    response: addressCountersSchema,
  },
  {
    id: 'getAddressTransactions',
    method: 'GET',
    path: '/addresses/{address}/transactions',
    category: 'Addresses',
    summary: 'Transactions from, to or creating the address, or moving its tokens; newest first.',
    auth: 'public',
    params: [
      address,
      ...pageParams,
      { name: 'filter', in: 'query', description: 'from | to (default: both)', schema: { type: 'string', enum: ['from', 'to'] } },
    ],
    response: pageSchema(
      object({ ...txSchema.properties, roles: { type: 'array', items: { type: 'string', enum: ['from', 'to', 'created', 'token'] }, description: 'how the address took part' } }),
    ),
  },
  {
    id: 'getAddressInternalTransactions',
    method: 'GET',
    path: '/addresses/{address}/internal-transactions',
    category: 'Addresses',
    summary: 'Internal transactions from or to the address (value moved by calls inside transactions, creations, self-destructs); newest first.',
    auth: 'public',
    params: [
      address,
      ...pageParams,
      { name: 'filter', in: 'query', description: 'from | to (default: both)', schema: { type: 'string', enum: ['from', 'to'] } },
    ],
    response: pageSchema(internalTxSchema),
  },
  {
    id: 'getAddressTokenTransfers',
    method: 'GET',
    path: '/addresses/{address}/token-transfers',
    category: 'Addresses',
    summary: 'Token transfers to or from the address; newest first.',
    auth: 'public',
    params: [address, ...pageParams],
    response: pageSchema(transferSchema),
  },
  {
    id: 'getAddressTokenBalances',
    method: 'GET',
    path: '/addresses/{address}/token-balances',
    category: 'Addresses',
    summary: 'Tokens the address holds, with balances (ERC-20 amounts, NFT counts) as the index follows them.',
    auth: 'public',
    params: [address],
    response: {
      type: 'array',
      items: object({
        token: { anyOf: [tokenSchema, object({ address: str }, [], 'a token the index has no record of')] },
        balance: { type: 'string', description: 'ERC-20 amount or number of NFTs' },
      }),
    },
  },
  {
    id: 'getAddressLogs',
    method: 'GET',
    path: '/addresses/{address}/logs',
    category: 'Addresses',
    summary: 'Logs emitted by the address (a contract), newest first, paged by block ranges.',
    auth: 'public',
    params: [address, ...pageParams],
    response: pageSchema(logSchema),
  },
  {
    id: 'getAddressUserOperations',
    method: 'GET',
    path: '/addresses/{address}/user-operations',
    category: 'Addresses',
    summary:
      "ERC-4337 user operations the address (a smart account) sent through a genesis EntryPoint (v0.6, v0.7), newest first, from the EntryPoints' UserOperationEvent logs over the last rpc.userOperationLookbackBlocks blocks.",
    auth: 'public',
    params: [address, ...pageParams],
    response: pageSchema(locatedUserOperationSchema),
  },
]);

export type AddressApi = Api<typeof addressRouteDefs>;

/** A transaction of an address's list, with how the address took part. */
export type AddressTx = AddressApi['getAddressTransactions']['response']['items'][number];
