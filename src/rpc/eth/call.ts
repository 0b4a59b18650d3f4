// eth_call and eth_estimateGas: run a message on a block's state without making a transaction.
import type { CallResult, EstimateResult } from '../../native/index.js';
import { stateBlockNumber } from '../block-tags.js';
import { ExecutionError, ExecutionRevertedError, InvalidArgumentError } from '../errors.js';
import { readStateAsync } from '../historical-state.js';
import { toData, toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable, type RpcContext } from '../method.js';
import { revertReason } from '../revert-reason.js';
import { parseAbsentOverrides, parseBlockId, parseCallObject, type ParsedCall } from '../validate.js';

/** A chain id in the call object must be this chain's (geth's check and text). */
function checkChainId(ctx: RpcContext, call: ParsedCall): void {
  const want = BigInt(ctx.services.config.chainId);
  if (call.chainId !== undefined && call.chainId !== want) {
    throw new InvalidArgumentError(0, `chainId does not match node's (have=${call.chainId}, want=${want})`);
  }
}

/** Reverts become code 3 with the decoded reason and the raw data; halts become -32000 with geth's text. */
function failure(result: CallResult | EstimateResult): Error {
  if (result.status === 'revert') return new ExecutionRevertedError(revertReason(result.output), toData(result.output));
  return new ExecutionError(result.error ?? 'execution halted');
}

const callObject = required(parseCallObject);
const atBlock = optional(parseBlockId);
const stateOverrides = optional(parseAbsentOverrides('state'));
const blockOverrides = optional(parseAbsentOverrides('block'));

export const callMethods: MethodTable = {
  eth_call: method([callObject, atBlock, stateOverrides, blockOverrides], async (ctx, [call, block]) => {
    checkChainId(ctx, call);
    const { chain } = ctx.services;
    const n = stateBlockNumber(chain, block);
    const result = await readStateAsync(n, () => chain.call(call.request, n));
    if (result.status !== 'success') throw failure(result);
    return toData(result.output);
  }),

  // geth estimates on `pending` by default; here pending state is the head's.
  eth_estimateGas: method([callObject, atBlock, stateOverrides], async (ctx, [call, block]) => {
    checkChainId(ctx, call);
    const { chain } = ctx.services;
    const n = stateBlockNumber(chain, block);
    const result = await readStateAsync(n, () => chain.estimateGas(call.request, n));
    if (result.status !== 'success') throw failure(result);
    return toQuantity(result.gas);
  }),
};
