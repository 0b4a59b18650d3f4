// Reads of an old block's state: the chain throws "historical state not available" once it is pruned.
import { HistoricalStateUnavailableError } from './errors.js';

const PRUNED = 'historical state not available';

/** Turns the chain's pruned-state error into -32002; other errors pass through. */
export function prunedStateError(err: unknown, blockNumber: number): unknown {
  if (err instanceof Error && err.message.includes(PRUNED)) {
    return new HistoricalStateUnavailableError(blockNumber, `${PRUNED} for block ${blockNumber}`);
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
