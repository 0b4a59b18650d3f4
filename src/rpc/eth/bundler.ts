// The bundler's JSON-RPC (ERC-7769): eth_sendUserOperation, eth_estimateUserOperationGas and
// eth_supportedEntryPoints for EntryPoint v0.6 and v0.7, and the spec's svc_sendUserOperation
// (the v0.6 shape, every member required; EntryPoint v0.6 unless a second parameter names v0.7) and
// svc_supportedEntryPoints. The reads (eth_getUserOperationByHash, eth_getUserOperationReceipt) are
// in user-operations.ts. Refusals carry ERC-7769's codes (src/params.ts rpcErrorCode).
import { ENTRY_POINT_V06 } from '../../chain/account-abstraction.js';
import { parseOperation } from '../../aa/user-operation.js';
import type { GasEstimate } from '../../aa/bundler.js';
import { BundlerError } from '../../aa/errors.js';
import { RpcError } from '../errors.js';
import { method, optional, required, type MethodTable, type RpcContext } from '../method.js';

const raw = (value: unknown) => value;

/** Runs a bundler call, answering its refusals with their ERC-7769 codes. */
async function answer<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof BundlerError) throw new RpcError(err.code, err.message, err.data, { cause: err });
    throw err;
  }
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

function estimateJson(estimate: GasEstimate): Record<string, string> {
  const out: Record<string, string> = {
    preVerificationGas: hex(estimate.preVerificationGas),
    verificationGasLimit: hex(estimate.verificationGasLimit),
    callGasLimit: hex(estimate.callGasLimit),
  };
  if (estimate.paymasterVerificationGasLimit !== undefined) out.paymasterVerificationGasLimit = hex(estimate.paymasterVerificationGasLimit);
  if (estimate.paymasterPostOpGasLimit !== undefined) out.paymasterPostOpGasLimit = hex(estimate.paymasterPostOpGasLimit);
  return out;
}

export const bundlerMethods: MethodTable = {
  eth_sendUserOperation: method([required(raw), required(raw)] as const, (ctx, [op, entryPoint]) =>
    answer(() => ctx.services.bundler.send(parseOperation(op, entryPoint, 'send'))),
  ),
  // The optional third parameter (a state override set) is not supported: the estimate runs on the head state.
  eth_estimateUserOperationGas: method([required(raw), required(raw)] as const, (ctx, [op, entryPoint]) =>
    answer(async () => estimateJson(await ctx.services.bundler.estimate(parseOperation(op, entryPoint, 'estimate')))),
  ),
  eth_supportedEntryPoints: method([], (ctx) => ctx.services.bundler.supportedEntryPoints()),
  svc_sendUserOperation: method([required(raw), optional(raw)] as const, (ctx: RpcContext, [op, entryPoint]) =>
    answer(() => ctx.services.bundler.send(parseOperation(op, entryPoint ?? ENTRY_POINT_V06, 'send'))),
  ),
  svc_supportedEntryPoints: method([], (ctx) => ctx.services.bundler.supportedEntryPoints()),
};
