// Addresses: summary with counters, transactions, token transfers, token balances, logs, user operations.
import type { ParamDef, RouteDef, RouteModule } from '../definition.js';
import { addressHandlers } from '../handlers/addresses.js';
import { pageParams, pageSchema, schemas } from '../validate.js';
import { internalTxSchema, transferSchema, txSchema, userOperationSchema } from '../views.js';

const address: ParamDef = { name: 'address', in: 'path', description: '0x address', schema: schemas.address };

const definitions: RouteDef[] = [
  {
    id: 'getAddress',
    method: 'GET',
    path: '/addresses/{address}',
    category: 'Addresses',
    summary: 'Balance, nonce, whether it is a contract (with its creation), token and validator facts, counters, and its storage rent (deposit, slots, activity, dormancy, rent owed).',
    auth: 'public',
    params: [address],
    response: {
      type: 'object',
      properties: {
        address: { type: 'string' },
        balance: { type: 'string' },
        isContract: { type: 'boolean' },
        rent: {
          type: 'object',
          properties: {
            storageDeposit: { type: 'string' },
            storageSlotCount: { type: 'integer' },
            lastActiveEpoch: { type: 'integer' },
            isDormant: { type: 'boolean' },
            rentOwed: { type: 'string' },
            currentEpoch: { type: 'integer' },
            reactivationFee: { type: 'string' },
            exempt: { type: 'boolean' },
            module: { type: 'string', description: 'the rent module: payRent(account) and reactivate(account) go to it' },
          },
        },
      },
    },
  },
  {
    id: 'getAddressCounters',
    method: 'GET',
    path: '/addresses/{address}/counters',
    category: 'Addresses',
    summary: 'Transactions, token transfers, blocks produced, first and last active block.',
    auth: 'public',
    params: [address],
    response: { type: 'object', properties: { transactions: { type: 'integer' }, tokenTransfers: { type: 'integer' } } },
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
    response: pageSchema(txSchema),
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
    response: { type: 'array', items: { type: 'object' } },
  },
  {
    id: 'getAddressLogs',
    method: 'GET',
    path: '/addresses/{address}/logs',
    category: 'Addresses',
    summary: 'Logs emitted by the address (a contract), newest first, paged by block ranges.',
    auth: 'public',
    params: [address, ...pageParams],
    response: pageSchema({ type: 'object' }),
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
    response: pageSchema({
      ...userOperationSchema,
      properties: {
        ...(userOperationSchema.properties as object),
        transactionHash: { type: 'string' },
        blockNumber: { type: 'integer' },
        logIndex: { type: 'integer' },
      },
    }),
  },
];

export const addressRoutes: RouteModule = { definitions, handlers: addressHandlers };
