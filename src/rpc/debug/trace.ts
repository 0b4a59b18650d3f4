// geth's debug tracing (docs/rpc.md, debug): debug_traceTransaction, debug_traceBlockByNumber,
// debug_traceBlockByHash and debug_traceCall with the struct logger (default), callTracer,
// prestateTracer (diffMode too), 4byteTracer and noopTracer. The block is re-executed natively on
// its parent's state, on the exec lane (crates/svc-evm/src/debug_trace.rs); the result is geth's JSON,
// written there as bytes within the reply limit and sent as it is.
import { NativeError } from '../../native/index.js';
import { blockNumberOf } from '../block-tags.js';
import { ExecutionError, HeaderNotFoundError, InvalidParamsError } from '../errors.js';
import { method, optional, RawJson, required, type MethodTable, type RpcContext } from '../method.js';
import { InvalidValueError, parseBlockId, parseBlockNumberOrTag, parseCallObject, parseHash } from '../validate.js';

/** Tracing options: an object (geth's TraceConfig / TraceCallConfig), passed on as JSON; the native side checks its fields. */
function parseTraceOptions(value: unknown): string {
  if (value === undefined || value === null) return '{}';
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidValueError('expected a tracing options object such as {"tracer": "callTracer"}');
  const { stateOverrides, blockOverrides, ...rest } = value as Record<string, unknown>;
  if (stateOverrides !== undefined || blockOverrides !== undefined) throw new InvalidValueError('stateOverrides and blockOverrides are not served by debug_traceCall');
  return JSON.stringify(rest);
}

/**
 * A native trace as the answer's JSON bytes; native tracing errors as JSON-RPC errors: bad options
 * -32602 naming the options' argument (geth counts from 0), the rest -32000 with the reason.
 */
async function traced(run: () => Promise<Buffer>, optionsArgument = 1): Promise<RawJson> {
  try {
    return new RawJson(await run());
  } catch (err) {
    if (err instanceof NativeError) {
      if (err.code === 'TRACE_OPTIONS') throw new InvalidParamsError(`invalid argument ${optionsArgument}: ${err.message}`);
      throw new ExecutionError(err.message);
    }
    throw err;
  }
}

function traceBlock(ctx: RpcContext, number: number, options: string) {
  return traced(() => ctx.services.chain.debugTraceBlock(number, null, options));
}

export const debugMethods: MethodTable = {
  debug_traceTransaction: method([required(parseHash), optional(parseTraceOptions)], async (ctx, [hash, options]) => {
    const receipt = ctx.services.chain.getTransactionReceipt(hash) as { blockNumber: string; transactionIndex: string } | null;
    if (receipt === null) throw new ExecutionError('transaction not found');
    const number = Number(BigInt(receipt.blockNumber));
    const index = Number(BigInt(receipt.transactionIndex));
    return traced(() => ctx.services.chain.debugTraceBlock(number, index, options ?? '{}'));
  }),

  debug_traceBlockByNumber: method([required(parseBlockNumberOrTag), optional(parseTraceOptions)], async (ctx, [id, options]) => {
    const number = blockNumberOf(ctx.services.chain, id);
    if (number === null) throw new ExecutionError(`block #${'number' in id ? id.number : id.tag} not found`);
    return traceBlock(ctx, number, options ?? '{}');
  }),

  debug_traceBlockByHash: method([required(parseHash), optional(parseTraceOptions)], async (ctx, [hash, options]) => {
    const number = ctx.services.chain.blockNumberByHash(hash);
    if (number === null) throw new ExecutionError(`block 0x${hash.toString('hex')} not found`);
    return traceBlock(ctx, number, options ?? '{}');
  }),

  debug_traceCall: method([required(parseCallObject), optional(parseBlockId), optional(parseTraceOptions)], async (ctx, [call, block, options]) => {
    const { chain } = ctx.services;
    const id = block ?? { tag: 'latest' as const };
    const number = 'hash' in id ? chain.blockNumberByHash(id.hash) : blockNumberOf(chain, id);
    if (number === null) throw new HeaderNotFoundError();
    return traced(() => chain.debugTraceCall(call.request, number, options ?? '{}'), 2);
  }),
};
