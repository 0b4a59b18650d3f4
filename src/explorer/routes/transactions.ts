// Transactions: validated (newest first) and pending lists, one transaction with its logs, decoded
// revert reason and token transfers.
import { object, pageParams, pageSchema, routes, schemas, type Api, type FromSchema } from '../schema.js';
import { internalTxSchema, logSchema, pendingTxSchema, transferSchema, txSchema, userOperationSchema } from './shapes.js';

const txHash = { name: 'hash', in: 'path', description: 'transaction hash', schema: schemas.hash } as const;
const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const intOrNull = { type: ['integer', 'null'] } as const;

/** One transaction's details: mined (the list fields, receipt fields and more) or pending (what pool lists show; the mined-only fields absent). */
const txDetailSchema = object(
  {
    hash: str,
    blockNumber: intOrNull,
    blockHash: str,
    index: { type: 'integer' },
    timestamp: { type: 'integer' },
    confirmations: { type: 'integer' },
    status: { type: 'string', enum: ['success', 'failed', 'pending'] },
    from: str,
    to: strOrNull,
    createdContract: strOrNull,
    value: str,
    nonce: { type: 'integer' },
    type: { type: 'integer', description: '0 legacy, 1 EIP-2930, 2 EIP-1559, 4 EIP-7702 set-code' },
    gas: { type: 'string', description: 'the gas limit of a pending transaction' },
    gasLimit: str,
    gasUsed: str,
    gasPrice: str,
    maxFeePerGas: strOrNull,
    maxPriorityFeePerGas: strOrNull,
    fee: { type: ['string', 'null'], description: 'null while pending' },
    input: str,
    method: str,
    revertReason: strOrNull,
    revertData: strOrNull,
    authorizationList: {
      type: ['array', 'null'],
      description: "A type-4 transaction's EIP-7702 authorizations as signed (the authority is not recovered); null for other types",
      items: object({
        chainId: { type: 'integer' },
        address: { type: 'string', description: 'the delegate' },
        nonce: { type: 'integer' },
        yParity: { type: 'integer' },
        r: str,
        s: str,
      }),
    },
    logs: { type: 'array', items: logSchema },
    tokenTransfers: { type: 'array', items: transferSchema },
    userOperations: {
      type: 'array',
      description: 'The ERC-4337 user operations a handleOps call to a genesis EntryPoint ran, in log order (empty otherwise)',
      items: userOperationSchema,
    },
  },
  [
    'blockHash',
    'index',
    'timestamp',
    'confirmations',
    'createdContract',
    'type',
    'gas',
    'gasLimit',
    'gasUsed',
    'gasPrice',
    'maxPriorityFeePerGas',
    'input',
    'revertReason',
    'revertData',
    'authorizationList',
    'logs',
    'tokenTransfers',
    'userOperations',
  ],
);
export type TxDetail = FromSchema<typeof txDetailSchema>;

export const transactionRouteDefs = routes([
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
    response: { type: 'array', items: pendingTxSchema },
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
    response: { type: 'array', items: logSchema },
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
]);

export type TransactionApi = Api<typeof transactionRouteDefs>;
