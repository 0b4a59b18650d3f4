// Transactions: validated (newest first) and pending lists, one transaction with its logs, decoded
// revert reason and token transfers.
import type { RouteDef, RouteModule } from '../definition.js';
import { transactionHandlers } from '../handlers/transactions.js';
import { pageParams, pageSchema, schemas } from '../validate.js';
import { internalTxSchema, transferSchema, txSchema, userOperationSchema } from '../views.js';

const txHash = { name: 'hash', in: 'path' as const, description: 'transaction hash', schema: schemas.hash };

/** One transaction's details: the list fields and more. */
const txDetailSchema = {
  ...txSchema,
  properties: {
    ...(txSchema.properties as object),
    type: { type: 'integer', description: '0 legacy, 1 EIP-2930, 2 EIP-1559, 4 EIP-7702 set-code' },
    authorizationList: {
      type: ['array', 'null'],
      description: "A type-4 transaction's EIP-7702 authorizations as signed (the authority is not recovered); null for other types",
      items: {
        type: 'object',
        properties: {
          chainId: { type: 'integer' },
          address: { type: 'string', description: 'the delegate' },
          nonce: { type: 'integer' },
          yParity: { type: 'integer' },
          r: { type: 'string' },
          s: { type: 'string' },
        },
      },
    },
    userOperations: {
      type: 'array',
      description: 'The ERC-4337 user operations a handleOps call to a genesis EntryPoint ran, in log order (empty otherwise)',
      items: userOperationSchema,
    },
  },
};

const definitions: RouteDef[] = [
  {
    id: 'listTransactions',
    method: 'GET',
    path: '/transactions',
    category: 'Transactions',
    summary: 'Validated (mined) transactions, newest first (keyset-paginated).',
    auth: 'public',
    params: pageParams,
    response: pageSchema(txSchema),
  },
  {
    id: 'listPendingTransactions',
    method: 'GET',
    path: '/transactions/pending',
    category: 'Transactions',
    summary: 'Transactions waiting in the pool, in admission order (at most 100).',
    auth: 'public',
    params: [{ name: 'limit', in: 'query', description: 'how many (1..100, default 25)', schema: schemas.limit }],
    response: { type: 'array', items: txSchema },
  },
  {
    id: 'getTransaction',
    method: 'GET',
    path: '/transactions/{hash}',
    category: 'Transactions',
    summary:
      'One transaction: mined (with receipt fields, logs, token transfers, the decoded revert reason of a failure, ERC-4337 user operations and EIP-7702 authorizations) or pending.',
    auth: 'public',
    params: [txHash],
    response: txDetailSchema,
  },
  {
    id: 'getTransactionLogs',
    method: 'GET',
    path: '/transactions/{hash}/logs',
    category: 'Transactions',
    summary: "A mined transaction's logs.",
    auth: 'public',
    params: [txHash],
    response: { type: 'array', items: { type: 'object' } },
  },
  {
    id: 'getTransactionTokenTransfers',
    method: 'GET',
    path: '/transactions/{hash}/token-transfers',
    category: 'Transactions',
    summary: "A mined transaction's token transfers (ERC-20, ERC-721, ERC-1155).",
    auth: 'public',
    params: [txHash],
    response: { type: 'array', items: transferSchema },
  },
  {
    id: 'getTransactionInternalTransactions',
    method: 'GET',
    path: '/transactions/{hash}/internal-transactions',
    category: 'Transactions',
    summary: "A mined transaction's internal transactions: value moved by calls inside it, contracts it created, self-destructs (from its call trace), in call order.",
    auth: 'public',
    params: [txHash],
    response: { type: 'array', items: internalTxSchema },
  },
];

export const transactionRoutes: RouteModule = { definitions, handlers: transactionHandlers };
