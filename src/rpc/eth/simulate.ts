// eth_simulateV1 as geth serves it (docs/rpc.md, eth: execution): blocks after the given one, each
// with block and state overrides, their calls run in order on one state; the answer is the
// simulated blocks with their calls' status, return data, gas used, logs and errors; with
// traceTransfers, every ether move is also a Transfer log of the ERC-7528 ether address
// (crates/svc-evm/src/transfer_logs.rs). Run natively on the exec lane (crates/svc-evm/src/call.rs).
import { NativeError, type CallRequest, type SimulateBlockJs } from '../../native/index.js';
import { stateBlockNumber } from '../block-tags.js';
import { clip, InvalidParamsError, RpcError } from '../errors.js';
import { readStateAsync } from '../historical-state.js';
import { method, optional, RawJson, required, type MethodTable } from '../method.js';
import { InvalidValueError, parseBlockId, parseBlockOverrides, parseCallObject, parseStateOverrides } from '../validate.js';
import { callOverrides } from './call.js';

/** geth's limit on the blocks of one simulation. */
const MAX_BLOCKS = 256;

interface SimulateOptions {
  blocks: SimulateBlockJs[];
  validation: boolean;
  traceTransfers: boolean;
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidValueError(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function parseSimulateOptions(value: unknown): SimulateOptions {
  const o = objectOf(value, 'the simulation');
  for (const key of Object.keys(o)) {
    if (!['blockStateCalls', 'validation', 'traceTransfers', 'returnFullTransactions'].includes(key)) throw new InvalidValueError(`unknown member "${clip(key)}"`);
  }
  if (o.traceTransfers !== undefined && o.traceTransfers !== null && typeof o.traceTransfers !== 'boolean') throw new InvalidValueError('traceTransfers must be a boolean');
  if (o.returnFullTransactions === true) throw new InvalidValueError('returnFullTransactions is not served: blocks list their calls as transaction hashes');
  if (o.validation !== undefined && o.validation !== null && typeof o.validation !== 'boolean') throw new InvalidValueError('validation must be a boolean');
  if (!Array.isArray(o.blockStateCalls)) throw new InvalidValueError('blockStateCalls must be an array');
  if (o.blockStateCalls.length === 0) throw new InvalidValueError('blockStateCalls is empty');
  if (o.blockStateCalls.length > MAX_BLOCKS) throw new RpcError(-38026, `too many blocks: ${o.blockStateCalls.length} (at most ${MAX_BLOCKS})`);
  const blocks = o.blockStateCalls.map((b, i): SimulateBlockJs => {
    const at = `blockStateCalls[${i}]`;
    const block = objectOf(b, at);
    for (const key of Object.keys(block)) {
      if (!['blockOverrides', 'stateOverrides', 'calls'].includes(key)) throw new InvalidValueError(`${at}: unknown member "${clip(key)}"`);
    }
    const member = <T>(name: string, parse: () => T): T => {
      try {
        return parse();
      } catch (err) {
        throw new InvalidValueError(`${at}.${name}: ${(err as Error).message}`);
      }
    };
    const state = block.stateOverrides === undefined || block.stateOverrides === null ? undefined : member('stateOverrides', () => parseStateOverrides(block.stateOverrides));
    const overrides = block.blockOverrides === undefined || block.blockOverrides === null ? undefined : member('blockOverrides', () => parseBlockOverrides(block.blockOverrides));
    const rawCalls = block.calls ?? [];
    if (!Array.isArray(rawCalls)) throw new InvalidValueError(`${at}.calls must be an array`);
    const calls: CallRequest[] = rawCalls.map((c, j) => member(`calls[${j}]`, () => parseCallObject(c).request));
    const combined = callOverrides(state, overrides);
    return { calls, ...(combined ? { overrides: combined } : {}) };
  });
  return { blocks, validation: o.validation === true, traceTransfers: o.traceTransfers === true };
}

export const simulateMethods: MethodTable = {
  eth_simulateV1: method([required(parseSimulateOptions), optional(parseBlockId)], async (ctx, [options, block]) => {
    const { chain } = ctx.services;
    const n = stateBlockNumber(chain, block);
    try {
      return new RawJson(await readStateAsync(n, () => chain.simulate(options.blocks, n, options.validation, options.traceTransfers)));
    } catch (err) {
      if (err instanceof NativeError && err.code === 'SIMULATE') {
        const m = /^(-?\d+) ([\s\S]*)$/.exec(err.message);
        if (m) throw Number(m[1]) === -32602 ? new InvalidParamsError(m[2]!) : new RpcError(Number(m[1]), m[2]!);
      }
      throw err;
    }
  }),
};
