// The Parity trace namespace as reth serves it (docs/rpc.md, trace): trace_transaction, trace_get,
// trace_block and trace_filter. Blocks are re-executed natively on the exec lane under the debug
// tracers' limits (crates/svc-evm/src/debug_trace.rs: revm-inspectors' Parity builder); the answer
// is reth's LocalizedTransactionTrace list, written there as JSON bytes within the reply limit.
import { NativeError } from '../../native/index.js';
import { rpc } from '../../params.js';
import { blockNumberOf } from '../block-tags.js';
import { ExecutionError, InvalidParamsError } from '../errors.js';
import { method, RawJson, required, type MethodTable, type RpcContext } from '../method.js';
import { InvalidValueError, parseAddress, parseBlockNumberOrTag, parseHash, parseIndex, type BlockNumberOrTag } from '../validate.js';

/** Native tracing errors as JSON-RPC errors: -32000 with the reason (as the debug tracers answer them); a pruned state stays -32002. */
export async function traced<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof NativeError && err.code !== 'STATE_UNAVAILABLE') throw new ExecutionError(err.message);
    throw err;
  }
}

/** Where a mined transaction lies: its block and index, or null when the node has not mined it. */
export function minedAt(ctx: RpcContext, hash: Buffer): { number: number; index: number } | null {
  const receipt = ctx.services.chain.getTransactionReceipt(hash) as { blockNumber: string; transactionIndex: string } | null;
  if (receipt === null) return null;
  return { number: Number(BigInt(receipt.blockNumber)), index: Number(BigInt(receipt.transactionIndex)) };
}

/** A mined transaction's Parity traces as JSON bytes, or null when it is unknown. */
async function transactionTraces(ctx: RpcContext, hash: Buffer): Promise<Buffer | null> {
  const at = minedAt(ctx, hash);
  if (at === null) return null;
  return traced(() => ctx.services.chain.parityTraceBlock(at.number, at.index));
}

/** One trace as reth answers it. */
interface LocalizedTrace {
  traceAddress: number[];
}

/** A list of addresses, or one address, as trace_filter's fromAddress/toAddress take them. */
function parseAddresses(value: unknown, field: string): Buffer[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((a, i) => {
    try {
      return parseAddress(a);
    } catch (err) {
      throw new InvalidValueError(`${field}[${i}]: ${(err as Error).message}`);
    }
  });
}

/** `after` or `count`: a JSON number or a hex quantity. */
function parseCount(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new InvalidValueError(`${field}: expected a non-negative integer`);
    return value;
  }
  try {
    return parseIndex(value);
  } catch (err) {
    throw new InvalidValueError(`${field}: ${(err as Error).message}`);
  }
}

/** trace_filter's filter object (reth's TraceFilter). */
function parseTraceFilter(value: unknown) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidValueError('expected a filter object such as {"fromBlock": "0x1", "toBlock": "0x2"}');
  const f = value as Record<string, unknown>;
  const block = (v: unknown, field: string) => {
    if (v === undefined || v === null) return undefined;
    try {
      return parseBlockNumberOrTag(v);
    } catch (err) {
      throw new InvalidValueError(`${field}: ${(err as Error).message}`);
    }
  };
  if (f.mode !== undefined && f.mode !== null && f.mode !== 'intersection') throw new InvalidValueError('mode: only "intersection" is served (a trace matches when its sender and its receiver match)');
  return {
    fromBlock: block(f.fromBlock, 'fromBlock'),
    toBlock: block(f.toBlock, 'toBlock'),
    fromAddress: parseAddresses(f.fromAddress, 'fromAddress'),
    toAddress: parseAddresses(f.toAddress, 'toAddress'),
    after: parseCount(f.after, 'after') ?? 0,
    count: parseCount(f.count, 'count'),
  };
}

export const traceMethods: MethodTable = {
  trace_transaction: method([required(parseHash)], async (ctx, [hash]) => {
    const bytes = await transactionTraces(ctx, hash);
    return bytes === null ? null : new RawJson(bytes);
  }),

  /** The trace at `indices` (its traceAddress) of a transaction, or null. */
  trace_get: method([required(parseHash), required((v) => {
    if (!Array.isArray(v)) throw new InvalidValueError('expected an array of trace address indexes such as ["0x0"]');
    return v.map((i) => (typeof i === 'number' ? parseCount(i, 'index') ?? 0 : parseIndex(i)));
  })], async (ctx, [hash, indices]) => {
    const bytes = await transactionTraces(ctx, hash);
    if (bytes === null) return null;
    const traces = JSON.parse(bytes.toString('utf8')) as LocalizedTrace[];
    return traces.find((t) => t.traceAddress.length === indices.length && t.traceAddress.every((a, i) => a === indices[i])) ?? null;
  }),

  trace_block: method([required(parseBlockNumberOrTag)], async (ctx, [id]) => {
    const number = blockNumberOf(ctx.services.chain, id);
    if (number === null) return null;
    if (number === 0) return [];
    return new RawJson(await traced(() => ctx.services.chain.parityTraceBlock(number, null)));
  }),

  trace_filter: method([required(parseTraceFilter)], async (ctx, [filter]) => {
    const { chain } = ctx.services;
    const head = chain.head().number;
    // A number is taken as given (the range is checked before the head is); a tag names its block.
    const numberOf = (id: BlockNumberOrTag) => ('number' in id ? Number(id.number) : (blockNumberOf(chain, id) ?? head));
    const from = filter.fromBlock === undefined ? 0 : numberOf(filter.fromBlock);
    const to = filter.toBlock === undefined ? head : numberOf(filter.toBlock);
    if (from > to) throw new InvalidParamsError('invalid argument 0: fromBlock cannot be greater than toBlock');
    if (to - from + 1 > rpc.maxTraceFilterBlocks) {
      throw new InvalidParamsError(`invalid argument 0: the block range has ${to - from + 1} blocks, more than the ${rpc.maxTraceFilterBlocks} one trace_filter may cover`);
    }
    if (to > head) throw new InvalidParamsError(`invalid argument 0: toBlock #${to} is beyond the head #${head}`);
    // The most a request answers is also `count`'s default.
    const count = filter.count ?? rpc.maxTraceFilterCount;
    if (count > rpc.maxTraceFilterCount) throw new InvalidParamsError(`invalid argument 0: count ${count} is above the most one trace_filter answers (${rpc.maxTraceFilterCount})`);
    if (count === 0) return [];
    const bytes = await traced(() =>
      chain.parityTraceFilter({ fromBlock: from, toBlock: to, fromAddresses: filter.fromAddress, toAddresses: filter.toAddress, after: Math.min(filter.after, 2 ** 32 - 1), count }),
    );
    return new RawJson(bytes);
  }),
};
