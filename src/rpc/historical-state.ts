// Reads of an old block's state: the chain raises NativeError STATE_UNAVAILABLE once it is pruned.
import { NativeError } from '../native/index.js';
import { HistoricalStateUnavailableError } from './errors.js';

/** Turns the chain's pruned-state error into -32002 (geth's text); other errors pass through. */
export function prunedStateError(err: unknown, blockNumber: number): unknown {
  if (err instanceof NativeError && err.code === 'STATE_UNAVAILABLE') {
    return new HistoricalStateUnavailableError(blockNumber, `historical state not available for block ${blockNumber}`, { cause: err });
  }
  return err;
}

/** Runs a synchronous state read at `blockNumber`. */
export function readState<T>(blockNumber: number, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw prunedStateError(err, blockNumber);
  }
}

/** Runs an asynchronous state read (call, estimateGas) at `blockNumber`. */
export async function readStateAsync<T>(blockNumber: number, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw prunedStateError(err, blockNumber);
  }
}
