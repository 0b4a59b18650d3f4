// How the explorer shows chain objects: blocks, transactions, logs and token transfers, with large
// integers as decimal strings and hashes and addresses as 0x hex (checksummed addresses).
import { checksumAddress } from '../chain/address.js';
import { decodeUserOperationEvent, entryPointAddress, entryPointVersion } from '../chain/user-operation-events.js';
import type { Chain } from '../native/index.js';
import { BadRequestError, NotFoundError } from './envelope.js';
import type { Hex, InternalTxRecord, TokenRecord, TransferRecord, TxSummary } from './indexer/records.js';
import type { BlockDetail, BlockItem, InternalTx, Log, PendingTx, Token, TokenTransfer, TxItem, UserOperation } from './routes/shapes.js';

type Rpc = Record<string, unknown>;

export const big = (hex: unknown): string => BigInt((hex as string | undefined) ?? '0x0').toString();
export const num = (hex: unknown): number => Number(BigInt((hex as string | undefined) ?? '0x0'));
/** Checksummed forms already computed (keccak per address is most of a page's cost); bounded. */
const checksums = new Map<string, string>();
const MAX_CHECKSUMS = 100_000;

export function addr(a: string): string;
export function addr(a: string | null | undefined): string | null;
export function addr(a: string | null | undefined): string | null {
  if (!a) return null;
  const key = a.toLowerCase();
  let out = checksums.get(key);
  if (out === undefined) {
    if (checksums.size >= MAX_CHECKSUMS) checksums.clear();
    out = checksumAddress(Buffer.from(key.slice(2), 'hex'));
    checksums.set(key, out);
  }
  return out;
}

/** A block as lists show it. */
export function blockView(b: Rpc): BlockItem {
  const gasUsed = BigInt(b.gasUsed as string);
  const baseFee = BigInt(b.baseFeePerGas as string);
  return {
    number: num(b.number),
    hash: b.hash as string,
    timestamp: num(b.timestamp),
    timestampMs: num(b.timestampMs),
    miner: addr(b.miner as string),
    transactionCount: Array.isArray(b.transactions) ? b.transactions.length : num(b.transactionCount),
    gasUsed: gasUsed.toString(),
    gasLimit: big(b.gasLimit),
    baseFeePerGas: baseFee.toString(),
    burntFees: (gasUsed * baseFee).toString(),
    size: num(b.size),
  };
}

/** A block in full: the list fields and the header's roots. */
export function blockDetailView(b: Rpc): BlockDetail {
  return {
    ...blockView(b),
    parentHash: b.parentHash as string,
    stateRoot: b.stateRoot as string,
    transactionsRoot: b.transactionsRoot as string,
    receiptsRoot: b.receiptsRoot as string,
    extraData: b.extraData as string,
    mixHash: b.mixHash as string,
  };
}

/** A mined transaction from the index. */
export function txSummaryView(t: TxSummary): TxItem {
  return {
    hash: t.hash,
    blockNumber: t.blockNumber,
    index: t.index,
    timestamp: t.timestamp,
    status: t.status === 1 ? 'success' : 'failed',
    from: addr(t.from),
    to: addr(t.to),
    createdContract: addr(t.created),
    value: t.value.toString(),
    gasUsed: t.gasUsed.toString(),
    gasPrice: t.gasPrice.toString(),
    fee: (t.gasUsed * t.gasPrice).toString(),
    method: t.method,
  };
}

/** A pool transaction, as lists and GET /transactions/{hash} show it before it is mined. */
export function pendingView(tx: Rpc): PendingTx {
  return {
    hash: tx.hash as string,
    blockNumber: null,
    status: 'pending',
    from: addr(tx.from as string),
    to: addr(tx.to as string | null),
    value: big(tx.value),
    nonce: num(tx.nonce),
    gas: big(tx.gas),
    maxFeePerGas: big(tx.maxFeePerGas ?? tx.gasPrice),
    fee: null,
    method: (tx.input as string).length >= 10 ? (tx.input as string).slice(0, 10) : (tx.input as string),
  };
}

export function internalTxView(t: InternalTxRecord): InternalTx {
  return {
    transactionHash: t.txHash,
    blockNumber: t.blockNumber,
    transactionIndex: t.txIndex,
    index: t.index,
    traceAddress: t.traceAddress,
    type: t.type,
    from: addr(t.from),
    to: addr(t.to),
    value: t.value.toString(),
    gas: t.gas.toString(),
    gasUsed: t.gasUsed.toString(),
    success: t.error === null,
    error: t.error,
    timestamp: t.timestamp,
  };
}

export function transferView(t: TransferRecord, token?: TokenRecord): TokenTransfer {
  return {
    token: addr(t.token),
    tokenName: token?.name ?? null,
    tokenSymbol: token?.symbol ?? null,
    decimals: token?.decimals ?? null,
    type: t.type,
    from: addr(t.from),
    to: addr(t.to),
    value: t.value.toString(),
    tokenId: t.tokenId === null ? null : t.tokenId.toString(),
    transactionHash: t.txHash,
    blockNumber: t.blockNumber,
    logIndex: t.logIndex,
    timestamp: t.timestamp,
  };
}

export function tokenView(t: TokenRecord): Token {
  return { address: addr(t.address), type: t.type, name: t.name, symbol: t.symbol, decimals: t.decimals, holders: t.holders, transfers: t.transfers, firstBlock: t.firstBlock };
}

export function logView(l: Rpc): Log {
  return {
    address: addr(l.address as string),
    topics: l.topics as string[],
    data: l.data as string,
    blockNumber: num(l.blockNumber),
    transactionHash: l.transactionHash as string,
    transactionIndex: num(l.transactionIndex),
    logIndex: num(l.logIndex),
  };
}

/** A UserOperationEvent log of a genesis EntryPoint (as eth_getLogs shows a log) as the explorer shows the operation. */
export function userOperationView(log: { address: string; topics: readonly string[]; data: string }): UserOperation {
  const e = decodeUserOperationEvent(log);
  return {
    userOpHash: e.userOpHash,
    entryPoint: entryPointAddress(entryPointVersion(log.address)!),
    sender: addr(e.sender),
    paymaster: /^0x0{40}$/.test(e.paymaster) ? null : addr(e.paymaster),
    nonce: e.nonce.toString(),
    success: e.success,
    actualGasCost: e.actualGasCost.toString(),
    actualGasUsed: e.actualGasUsed.toString(),
  };
}

/** A block (without its transactions) by number, hash or "latest"; 404 when the chain does not have it. */
export function findBlock(chain: Chain, id: string): Rpc {
  let block: Rpc | null = null;
  if (id === 'latest') block = chain.getBlockSummary({ number: chain.head().number });
  else if (/^0x[0-9a-fA-F]{64}$/.test(id)) block = chain.getBlockSummary({ hash: Buffer.from(id.slice(2), 'hex') });
  else if (/^\d{1,15}$/.test(id)) {
    refuseBeforeHistory(chain, Number(id));
    block = chain.getBlockSummary({ number: Number(id) });
  } else throw new BadRequestError(`block id "${id}" is not a number, a 0x hash or "latest"`);
  if (!block) throw new NotFoundError(`block ${id} not found`);
  refuseBeforeHistory(chain, num(block.number));
  return block;
}

/**
 * The first block the explorer serves: 0, or on a node that joined by state sync the block after
 * its snapshot's (it holds the state from the snapshot on and indexes the blocks after it; the few
 * ancestors the snapshot carries have no index records).
 */
export function firstServedBlock(chain: Chain): number {
  const from = chain.stateFrom();
  return from > 0 ? from + 1 : 0;
}

/**
 * 404 for the token balances the index sums from transfers (holders, an address's token balances),
 * on a node that joined by state sync: its index counts the transfers after the snapshot only.
 */
export function refuseIndexedBalances(chain: Chain): void {
  const from = chain.stateFrom();
  if (from > 0) {
    throw new NotFoundError(`token balances are not indexed on this node: it joined the network by state sync at block ${from} and its index counts token transfers from block ${from + 1} on (read balanceOf with eth_call)`);
  }
}

/** 404 with the reason for a block below the node's history (a node that joined by state sync). */
function refuseBeforeHistory(chain: Chain, number: number): void {
  const first = firstServedBlock(chain);
  if (number < first) {
    throw new NotFoundError(`block ${number} is before this node's history: it joined the network by state sync at block ${first - 1} and serves blocks from ${first} on`);
  }
}

export const lowerHex = (a: string): Hex => a.toLowerCase() as Hex;
