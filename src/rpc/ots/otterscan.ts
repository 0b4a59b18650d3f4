// The Otterscan namespace (ots_*, API level 8) as Erigon and reth serve it (docs/rpc.md, ots).
// Traces re-execute the transaction's block natively on the exec lane under the debug tracers'
// limits (the call tracer, the explorer's internal transactions, the Parity traces); address
// searches read the explorer's address index (crates/svc-index); nothing scans the chain.
import { rpc } from '../../params.js';
import { blockNumberOf, stateBlockNumber } from '../block-tags.js';
import { readState } from '../historical-state.js';
import { toQuantity } from '../hex.js';
import { transactionBySenderAndNonce } from '../eth/transactions.js';
import { method, optional, required, type MethodTable, type RpcContext } from '../method.js';
import { minedAt, traced } from '../trace/parity.js';
import { InvalidValueError, parseAddress, parseBlockId, parseBlockNumberOrTag, parseHash, parseUint64, type BlockNumberOrTag } from '../validate.js';

/** Otterscan's API level this node serves (Erigon's and reth's). */
export const OTS_API_LEVEL = 8;
/** The most entries of one block a search page completes itself with (a page ends at a block's end). */
const MAX_BLOCK_COMPLETION = 10_000;

type Json = Record<string, unknown>;

/** A count as Otterscan sends it: a JSON number or a hex quantity. */
function parseNumber(value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new InvalidValueError('expected a non-negative integer');
    return value;
  }
  const n = parseUint64(value);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new InvalidValueError('number too large');
  return Number(n);
}

/** A block as Otterscan names it: a JSON number, a hex number or a tag. */
function parseBlock(value: unknown): BlockNumberOrTag {
  return typeof value === 'number' ? { number: BigInt(parseNumber(value)) } : parseBlockNumberOrTag(value);
}

function parsePageSize(value: unknown): number {
  const n = parseNumber(value);
  if (n === 0 || n > rpc.maxOtsPageSize) throw new InvalidValueError(`page size must be 1 to ${rpc.maxOtsPageSize}`);
  return n;
}

/** The call tracer's frame (geth's shape). */
interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  input: string;
  output?: string;
  error?: string;
  calls?: CallFrame[];
}

async function callTrace(ctx: RpcContext, at: { number: number; index: number }, onlyTopCall: boolean): Promise<CallFrame> {
  const options = JSON.stringify({ tracer: 'callTracer', tracerConfig: { onlyTopCall } });
  const bytes = await traced(() => ctx.services.chain.debugTraceBlock(at.number, at.index, options));
  return JSON.parse(bytes.toString('utf8')) as CallFrame;
}

/** Otterscan's internal operation types by the explorer's internal transaction kinds. */
const OPERATION_TYPES: Record<string, number> = { call: 0, selfdestruct: 1, create: 2, create2: 3 };

/** A block's header fields with `transactionCount` (its transactions left out), or null. */
function blockSummary(ctx: RpcContext, number: number): Json | null {
  return ctx.services.chain.getBlockSummary({ number }) as Json | null;
}

/** Erigon's block details: the block without transactions, no bloom, the issuance (none: the chain mints no block reward) and the fees its transactions paid. */
function blockDetails(ctx: RpcContext, number: number | null) {
  if (number === null) return null;
  const block = blockSummary(ctx, number);
  const receipts = ctx.services.chain.getBlockReceipts({ number }) as { gasUsed: string; effectiveGasPrice: string }[] | null;
  if (block === null || receipts === null) return null;
  const totalFees = receipts.reduce((sum, r) => sum + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n);
  return {
    // Erigon and reth count the transactions with a plain number.
    block: { ...block, logsBloom: null, transactionCount: Number(BigInt(block.transactionCount as string)) },
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: toQuantity(totalFees),
  };
}

/** A receipt as Otterscan's lists carry it: with its block's timestamp. */
function withTimestamp(receipt: Json, timestamp: unknown): Json {
  return { ...receipt, timestamp };
}

/** The first block at which `predicate` holds, in `[low, high]`, given it holds at `high` and, once true, stays true. */
function firstBlock(low: number, high: number, predicate: (n: number) => boolean): number {
  while (low < high) {
    const mid = low + Math.floor((high - low) / 2);
    if (predicate(mid)) high = mid;
    else low = mid + 1;
  }
  return high;
}

/** The places of `address`'s transactions for one search page: whole blocks, from `from` on (or down), until `pageSize` is reached. */
function searchPage(ctx: RpcContext, address: Buffer, from: number, pageSize: number, descending: boolean) {
  const { chain } = ctx.services;
  const places = chain.addressHistory(address, from, pageSize, descending);
  if (places.length === pageSize) {
    // A page ends at a block's end (as Erigon's does).
    const last = places[places.length - 1]!.blockNumber;
    const rest = chain.addressHistory(address, last, MAX_BLOCK_COMPLETION, descending).filter((p) => p.blockNumber === last);
    const seen = new Set(places.filter((p) => p.blockNumber === last).map((p) => p.index));
    places.push(...rest.filter((p) => !seen.has(p.index)));
  }
  const last = places.length > 0 ? places[places.length - 1]!.blockNumber : undefined;
  const next = last === undefined ? undefined : descending ? last - 1 : last + 1;
  const more = next !== undefined && next >= 0 && next <= chain.head().number && chain.addressHistory(address, next, 1, descending).length > 0;
  return { places, more };
}

/** The transactions and receipts at `places` (with the block timestamp on each receipt). */
function transactionsWithReceipts(ctx: RpcContext, places: { blockNumber: number; index: number }[]) {
  const { chain } = ctx.services;
  const timestamps = new Map<number, unknown>();
  const txs: Json[] = [];
  const receipts: Json[] = [];
  for (const p of places) {
    const tx = chain.getTransactionByBlockAndIndex({ number: p.blockNumber }, p.index) as Json | null;
    if (tx === null) continue;
    const receipt = chain.getTransactionReceipt(Buffer.from(String(tx.hash).slice(2), 'hex')) as Json | null;
    if (receipt === null) continue;
    if (!timestamps.has(p.blockNumber)) timestamps.set(p.blockNumber, blockSummary(ctx, p.blockNumber)?.timestamp ?? null);
    txs.push(tx);
    receipts.push(withTimestamp(receipt, timestamps.get(p.blockNumber)));
  }
  return { txs, receipts };
}

export const otsMethods: MethodTable = {
  ots_getApiLevel: method([], () => OTS_API_LEVEL),

  ots_hasCode: method([required(parseAddress), optional(parseBlockId)], (ctx, [address, block]) => {
    const { chain } = ctx.services;
    const n = stateBlockNumber(chain, block);
    return readState(n, () => chain.getCode(address, n)).length > 0;
  }),

  /** Value moves, creations and self-destructs below the transaction's top call (Erigon's), in call order. */
  ots_getInternalOperations: method([required(parseHash)], async (ctx, [hash]) => {
    const at = minedAt(ctx, hash);
    if (at === null) return [];
    const ops = await traced(() => ctx.services.chain.internalOperations(at.number, at.index));
    return ops.map((op) => ({
      type: OPERATION_TYPES[op.kind],
      from: `0x${op.from.toString('hex')}`,
      to: `0x${op.to.toString('hex')}`,
      value: toQuantity(op.value),
    }));
  }),

  /** The revert data of a reverted transaction, "0x" for any other (Erigon's); null for an unknown one. */
  ots_getTransactionError: method([required(parseHash)], async (ctx, [hash]) => {
    const at = minedAt(ctx, hash);
    if (at === null) return null;
    const top = await callTrace(ctx, at, true);
    return top.error === undefined ? '0x' : (top.output ?? '0x');
  }),

  /** Every frame of the transaction's call tree, depth first, with its depth (0 for the top call). */
  ots_traceTransaction: method([required(parseHash)], async (ctx, [hash]) => {
    const at = minedAt(ctx, hash);
    if (at === null) return null;
    const entries: Json[] = [];
    const walk = (frame: CallFrame, depth: number) => {
      entries.push({ type: frame.type, depth, from: frame.from, to: frame.to ?? null, value: frame.value ?? null, input: frame.input, output: frame.output ?? '0x' });
      for (const child of frame.calls ?? []) walk(child, depth + 1);
    };
    walk(await callTrace(ctx, at, false), 0);
    return entries;
  }),

  ots_getBlockDetails: method([required(parseBlock)], (ctx, [id]) => blockDetails(ctx, blockNumberOf(ctx.services.chain, id))),

  ots_getBlockDetailsByHash: method([required(parseHash)], (ctx, [hash]) => blockDetails(ctx, ctx.services.chain.blockNumberByHash(hash))),

  /** A page of a block's transactions, counted from its end (page 0 holds the last `pageSize`), inputs cut to their selector; receipts without logs and bloom. */
  ots_getBlockTransactions: method([required(parseBlock), required(parseNumber), required(parsePageSize)], (ctx, [id, page, pageSize]) => {
    const { chain } = ctx.services;
    const number = blockNumberOf(chain, id);
    if (number === null) return null;
    const block = chain.getBlock({ number }, true) as (Json & { transactions: Json[] }) | null;
    const receipts = chain.getBlockReceipts({ number }) as Json[] | null;
    if (block === null || receipts === null) return null;
    const count = block.transactions.length;
    const end = Math.max(0, count - page * pageSize);
    const start = Math.max(0, end - pageSize);
    const transactions = block.transactions.slice(start, end).map((tx) => ({ ...tx, input: typeof tx.input === 'string' ? tx.input.slice(0, 10) : tx.input }));
    return {
      fullblock: { ...block, transactions, transactionCount: count },
      receipts: receipts.slice(start, end).map((r) => withTimestamp({ ...r, logs: null, logsBloom: null }, block.timestamp)),
    };
  }),

  /** The hash of the mined transaction `sender` sent with `nonce`, or null (eth_getTransactionBySenderAndNonce's search; a pooled one is not mined: null, as reth answers). */
  ots_getTransactionBySenderAndNonce: method([required(parseAddress), required(parseNumber)], (ctx, [sender, nonce]) => {
    const tx = transactionBySenderAndNonce(ctx, sender, BigInt(nonce)) as { hash: string; blockHash: string | null } | null;
    return tx === null || tx.blockHash === null ? null : tx.hash;
  }),

  /** The transaction that created a contract and its creator (reth's way: the first block with its code, then that block's Parity traces); null for an account without code or one genesis made. */
  ots_getContractCreator: method([required(parseAddress)], async (ctx, [address]) => {
    const { chain } = ctx.services;
    const head = chain.head().number;
    const hasCode = (n: number) => readState(n, () => chain.getCode(address, n)).length > 0;
    if (!hasCode(head) || hasCode(0)) return null;
    const number = firstBlock(1, head, hasCode);
    const bytes = await traced(() => chain.parityTraceBlock(number, null));
    const traces = JSON.parse(bytes.toString('utf8')) as { type: string; action: { from: string }; result: { address?: string } | null; error?: string; transactionHash: string }[];
    const target = `0x${address.toString('hex')}`;
    const found = traces.find((t) => t.type === 'create' && t.error === undefined && t.result?.address?.toLowerCase() === target);
    return found === undefined ? null : { hash: found.transactionHash, creator: found.action.from };
  }),

  /** `address`'s transactions in blocks before `blockNumber` (0: from the head), newest first, whole blocks until `pageSize`. */
  ots_searchTransactionsBefore: method([required(parseAddress), required(parseNumber), required(parsePageSize)], (ctx, [address, blockNumber, pageSize]) => {
    const head = ctx.services.chain.head().number;
    const from = blockNumber === 0 ? head : Math.min(blockNumber - 1, head);
    const { places, more } = searchPage(ctx, address, from, pageSize, true);
    return { ...transactionsWithReceipts(ctx, places), firstPage: blockNumber === 0, lastPage: !more };
  }),

  /** `address`'s transactions in blocks after `blockNumber`, oldest first collected, answered newest first (as Erigon does). */
  ots_searchTransactionsAfter: method([required(parseAddress), required(parseNumber), required(parsePageSize)], (ctx, [address, blockNumber, pageSize]) => {
    const head = ctx.services.chain.head().number;
    const { places, more } = blockNumber >= head ? { places: [], more: false } : searchPage(ctx, address, blockNumber + 1, pageSize, false);
    places.reverse();
    return { ...transactionsWithReceipts(ctx, places), firstPage: !more, lastPage: blockNumber === 0 };
  }),
};

