// Answer shapes several categories share: blocks, transactions, logs, token transfers, internal
// transactions, tokens and user operations, as views.ts shows them (large integers as decimal
// strings, addresses checksummed).
import { object, type FromSchema } from '../schema.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const intOrNull = { type: ['integer', 'null'] } as const;

export const blockSchema = object({
  number: int,
  hash: str,
  timestamp: { type: 'integer', description: 'Unix seconds' },
  timestampMs: { type: 'integer', description: 'The block time in Unix milliseconds' },
  miner: str,
  transactionCount: int,
  gasUsed: str,
  gasLimit: str,
  baseFeePerGas: str,
  burntFees: str,
  size: int,
});
export type BlockItem = FromSchema<typeof blockSchema>;

/** A block in full: the list fields and the header's roots. */
export const blockDetailSchema = object({
  ...blockSchema.properties,
  parentHash: str,
  stateRoot: str,
  transactionsRoot: str,
  receiptsRoot: str,
  extraData: str,
  mixHash: str,
});
export type BlockDetail = FromSchema<typeof blockDetailSchema>;

/** A mined transaction as lists show it. */
export const txSchema = object({
  hash: str,
  blockNumber: int,
  index: int,
  timestamp: int,
  status: { type: 'string', enum: ['success', 'failed'] },
  from: str,
  to: strOrNull,
  createdContract: strOrNull,
  value: str,
  gasUsed: str,
  gasPrice: str,
  fee: str,
  method: { type: 'string', description: 'the first four bytes of the input ("0x" for a plain transfer)' },
});
export type TxItem = FromSchema<typeof txSchema>;

/** A pool transaction as lists show it before it is mined. */
export const pendingTxSchema = object({
  hash: str,
  blockNumber: { type: 'null' },
  status: { const: 'pending' },
  from: str,
  to: strOrNull,
  value: str,
  nonce: int,
  gas: str,
  maxFeePerGas: str,
  fee: { type: 'null' },
  method: str,
});
export type PendingTx = FromSchema<typeof pendingTxSchema>;

export const transferSchema = object({
  token: str,
  tokenName: strOrNull,
  tokenSymbol: strOrNull,
  decimals: intOrNull,
  type: { type: 'string', enum: ['ERC-20', 'ERC-721', 'ERC-1155'] },
  from: str,
  to: str,
  value: str,
  tokenId: strOrNull,
  transactionHash: str,
  blockNumber: int,
  logIndex: int,
  timestamp: int,
});
export type TokenTransfer = FromSchema<typeof transferSchema>;

/** An internal transaction (Blockscout's fields): value moved by a call inside a transaction, a creation or a self-destruct. */
export const internalTxSchema = object({
  transactionHash: str,
  blockNumber: int,
  transactionIndex: int,
  index: int,
  traceAddress: { type: 'array', items: int },
  type: { type: 'string', enum: ['call', 'create', 'create2', 'selfdestruct'] },
  from: str,
  to: str,
  value: str,
  gas: str,
  gasUsed: str,
  success: { type: 'boolean' },
  error: strOrNull,
  timestamp: int,
});
export type InternalTx = FromSchema<typeof internalTxSchema>;

export const tokenSchema = object({
  address: str,
  type: { type: 'string', enum: ['ERC-20', 'ERC-721', 'ERC-1155'] },
  name: strOrNull,
  symbol: strOrNull,
  decimals: intOrNull,
  holders: int,
  transfers: int,
  firstBlock: int,
});
export type Token = FromSchema<typeof tokenSchema>;

export const logSchema = object({
  address: str,
  topics: { type: 'array', items: str },
  data: str,
  blockNumber: int,
  transactionHash: str,
  transactionIndex: int,
  logIndex: int,
});
export type Log = FromSchema<typeof logSchema>;

export const userOperationSchema = object(
  {
    userOpHash: str,
    entryPoint: { type: 'string', description: 'the genesis EntryPoint (v0.6 or v0.7) that ran it' },
    sender: { type: 'string', description: 'the smart account' },
    paymaster: { type: ['string', 'null'], description: 'null when the account paid itself' },
    nonce: str,
    success: { type: 'boolean', description: "whether the account's call succeeded" },
    actualGasCost: { type: 'string', description: 'wei charged to the account or paymaster' },
    actualGasUsed: str,
  },
  [],
  "An ERC-4337 user operation, from its EntryPoint's UserOperationEvent",
);
export type UserOperation = FromSchema<typeof userOperationSchema>;
