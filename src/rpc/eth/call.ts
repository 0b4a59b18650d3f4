// eth_call and eth_estimateGas: run a message on a block's state without making a transaction.
import { core, type CallOverridesJs, type CallResult, type EstimateResult } from '../../native/index.js';
import { revertData, toAddress, type ModuleOutcome } from '../../modules/kernel/module.js';
import { rpc } from '../../params.js';
import { stateBlockNumber } from '../block-tags.js';
import { ExecutionError, ExecutionRevertedError, HistoricalStateUnavailableError, InvalidArgumentError } from '../errors.js';
import { readStateAsync } from '../historical-state.js';
import { toData, toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable, type RpcContext } from '../method.js';
import { revertReason } from '../../chain/revert-reason.js';
import {
  parseBlockId,
  parseBlockOverrides,
  parseCallObject,
  parseStateOverrides,
  type AccountOverride,
  type BlockOverride,
  type ParsedCall,
} from '../validate.js';

/** A chain id in the call object must be this chain's (geth's check and text). */
function checkChainId(ctx: RpcContext, call: ParsedCall): void {
  const want = BigInt(ctx.services.config.chainId);
  if (call.chainId !== undefined && call.chainId !== want) {
    throw new InvalidArgumentError(0, `chainId does not match node's (have=${call.chainId}, want=${want})`);
  }
}

/** Reverts become code 3 with the decoded reason and the raw data; halts become -32000 with geth's text. */
export function failure(result: CallResult | EstimateResult): Error {
  if (result.status === 'revert') return new ExecutionRevertedError(revertReason(result.output), toData(result.output));
  return new ExecutionError(result.error ?? 'execution halted');
}


/** A call's gas within the RPC gas cap (geth's): the gas it names, at most the cap; the cap (or the block's gas limit without one) when it names none. */
function cappedGas(ctx: RpcContext, gas: bigint | undefined): bigint {
  const cap = BigInt(ctx.services.config.rpcGasCap ?? rpc.gasCap);
  if (gas === undefined) return cap > 0n ? cap : BigInt(ctx.services.chain.head().gasLimit);
  return cap > 0n && gas > cap ? cap : gas;
}

/**
 * A call to the staking module runs the module on a copy of its state at the head (the module
 * keeps no history of its own, so older blocks are -32002).
 */
function simulateModule(ctx: RpcContext, call: ParsedCall, blockNumber: number): ModuleOutcome {
  const { chain, app } = ctx.services;
  const head = chain.head();
  if (blockNumber !== head.number) {
    throw new HistoricalStateUnavailableError(blockNumber, `system module state is served at the head (${head.number}) only`);
  }
  const from = call.request.from ?? Buffer.alloc(20);
  const value = call.request.value ?? 0n;
  if (value > 0n && chain.getAccount(from, head.number).balance < value) throw new ExecutionError('insufficient funds for transfer');
  const data = call.request.data ?? Buffer.alloc(0);
  const outcome = app.simulateModule(
    call.request.to!,
    { from: toAddress(from), value, data, gasLimit: cappedGas(ctx, call.request.gas), intrinsicGas: core.intrinsicGas(data) },
    // The next block's earliest time: block time, not the wall clock, decides what the call sees.
    { height: head.number + 1, timeMs: head.timestampMs + 1 },
  );
  if (!outcome) throw new Error(`no system module at ${toAddress(call.request.to!)}`);
  return outcome;
}

/** A call at the head from or to a dormant account reverts as a transaction would be refused (docs/rent.md). */
async function checkDormant(ctx: RpcContext, call: ParsedCall, blockNumber: number): Promise<void> {
  const { app, chain, queries } = ctx.services;
  if (!queries.rent.anyDormant || blockNumber !== chain.head().number) return;
  await app.settled();
  const refusal = app.modules.refusal(call.request.from ?? Buffer.alloc(20), call.request.to ?? null);
  if (refusal !== null) throw new ExecutionRevertedError(refusal, toData(revertData(refusal)));
}

function isModuleCall(ctx: RpcContext, call: ParsedCall, overrides?: CallOverridesJs): boolean {
  if (!ctx.services.app.modules.isModule(call.request.to)) return false;
  // A module's state is not EVM state: accounts and blocks cannot be overridden for it.
  if (overrides !== undefined) {
    throw new InvalidArgumentError(2, 'state and block overrides do not apply to a call to a system module');
  }
  // A module decides its calls without the EVM: it cannot apply EIP-7702 delegations.
  if (call.request.authorizationList) {
    throw new InvalidArgumentError(0, 'authorizationList: a system module call cannot carry EIP-7702 authorizations');
  }
  return true;
}

function moduleFailure(outcome: ModuleOutcome): Error {
  return new ExecutionRevertedError(outcome.reason, toData(outcome.returnData));
}

/** The overrides the native call takes, or undefined when none were given. */
export function callOverrides(state?: AccountOverride[], block?: BlockOverride): CallOverridesJs | undefined {
  const blockGiven = block !== undefined && Object.values(block).some((v) => v !== undefined);
  if ((state === undefined || state.length === 0) && !blockGiven) return undefined;
  return { state: state ?? [], block: blockGiven ? block : undefined };
}

const callObject = required(parseCallObject);
const atBlock = optional(parseBlockId);
const stateOverrides = optional(parseStateOverrides);
const blockOverrides = optional(parseBlockOverrides);

export const callMethods: MethodTable = {
  eth_call: method([callObject, atBlock, stateOverrides, blockOverrides], async (ctx, [call, block, state, blockOverride]) => {
    checkChainId(ctx, call);
    const { chain } = ctx.services;
    const overrides = callOverrides(state, blockOverride);
    if (isModuleCall(ctx, call, overrides)) {
      await ctx.services.app.settled(); // the module as committed (ChainApp.settled)
      const outcome = simulateModule(ctx, call, stateBlockNumber(chain, block));
      if (!outcome.success) throw moduleFailure(outcome);
      return toData(outcome.returnData);
    }
    const n = stateBlockNumber(chain, block);
    await checkDormant(ctx, call, n);
    const result = await readStateAsync(n, () => chain.call(call.request, n, overrides));
    if (result.status !== 'success') throw failure(result);
    return toData(result.output);
  }),

  // geth estimates on `pending` by default; here pending state is the head's. geth takes block overrides as a 4th param too.
  eth_estimateGas: method([callObject, atBlock, stateOverrides, blockOverrides], async (ctx, [call, block, state, blockOverride]) => {
    checkChainId(ctx, call);
    const { chain } = ctx.services;
    const overrides = callOverrides(state, blockOverride);
    if (isModuleCall(ctx, call, overrides)) {
      await ctx.services.app.settled();
      const request = { ...call.request, gas: cappedGas(ctx, call.request.gas) };
      const outcome = simulateModule(ctx, { ...call, request }, stateBlockNumber(chain, block));
      if (!outcome.success) throw moduleFailure(outcome);
      return toQuantity(outcome.gasUsed);
    }
    const n = stateBlockNumber(chain, block);
    await checkDormant(ctx, call, n);
    const result = await readStateAsync(n, () => chain.estimateGas(call.request, n, overrides));
    if (result.status !== 'success') throw failure(result);
    return toQuantity(result.gas);
  }),

  // geth's answer: the list that the call, run with it, touches exactly; the gas it then used; the call's error if it failed.
  eth_createAccessList: method([callObject, atBlock, stateOverrides, blockOverrides], async (ctx, [call, block, state, blockOverride]) => {
    checkChainId(ctx, call);
    const { chain } = ctx.services;
    const overrides = callOverrides(state, blockOverride);
    if (ctx.services.app.modules.isModule(call.request.to)) {
      throw new InvalidArgumentError(0, 'a system module runs no EVM code: its calls need no access list');
    }
    const n = stateBlockNumber(chain, block);
    await checkDormant(ctx, call, n);
    const result = await readStateAsync(n, () => chain.createAccessList(call.request, n, overrides));
    if (result.invalid != null) throw new ExecutionError(`failed to apply transaction: ${result.invalid}`);
    const answer: { accessList: unknown; gasUsed: string; error?: string } = {
      accessList: result.accessList.map((e) => ({ address: toData(e.address), storageKeys: e.storageKeys.map(toData) })),
      gasUsed: toQuantity(result.gasUsed),
    };
    if (result.status !== 'success') answer.error = result.error ?? 'execution reverted';
    return answer;
  }),
};
