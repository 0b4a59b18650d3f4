// Block time and throughput over a window of blocks: the one place that svc_getNetworkStats and the
// explorer's stats read them from. Times are the blocks' millisecond times (the header's seconds
// and the milliseconds its mixHash carries), so blocks shorter than a second are timed as they ran.
import type { Chain } from '../native/index.js';

/**
 * The first block of a window of `size` blocks ending at `head`. Genesis is left out once a block
 * follows it: its timestamp is fixed by the network's definition, not by when the chain started,
 * so the gap to block 1 says nothing about block times.
 */
export function statsWindowStart(head: number, size: number): number {
  return head <= 1 ? 0 : Math.max(1, head - size);
}

/** Stored block `number`'s time in milliseconds; undefined beyond the head. */
export function blockTimeMs(chain: Chain, number: number): number | undefined {
  const summary = chain.getBlockSummary({ number });
  return summary ? Number(BigInt(summary['timestampMs'] as string)) : undefined;
}

/** The blocks after `oldest` up to the head: how many, the time they took and their transactions. */
export interface BlockWindow {
  blocks: number;
  /** The head's time minus the time of block `oldest`, milliseconds. */
  ms: number;
  transactions: number;
}

export function blockWindow(chain: Chain, oldest: number): BlockWindow {
  const head = chain.head();
  if (head.number <= oldest) return { blocks: 0, ms: 0, transactions: 0 };
  let transactions = 0;
  for (let n = oldest + 1; n <= head.number; n++) transactions += chain.getBlockTransactionCount({ number: n }) ?? 0;
  return { blocks: head.number - oldest, ms: head.timestampMs - (blockTimeMs(chain, oldest) ?? head.timestampMs), transactions };
}

/** The average time between the window's blocks, whole milliseconds (0 for no blocks). */
export function averageBlockTimeMs(w: BlockWindow): number {
  return w.blocks === 0 ? 0 : Math.round(w.ms / w.blocks);
}

/** Transactions per second over the window, six significant digits (0 for no time). */
export function transactionsPerSecond(w: BlockWindow): number {
  return w.ms <= 0 ? 0 : Number(((w.transactions * 1000) / w.ms).toPrecision(6));
}

/** The first block whose time is at or after `timeMs` (binary search; the head + 1 when none is). */
export function firstBlockAtOrAfter(chain: Chain, timeMs: number): number {
  let lo = 0;
  let hi = chain.head().number + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((blockTimeMs(chain, mid) ?? Number.MAX_SAFE_INTEGER) < timeMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Blocks behind the head whose times give a network's expected block time. */
export const EXPECTED_BLOCK_TIME_WINDOW = 100;

/**
 * The time a block is expected to take, whole milliseconds. A solo node seals at its configured
 * block time; on a network (`measured`) CometBFT's rounds set the pace (its commit timeout plus
 * proposal, votes and execution), so the chain's own average over the last
 * EXPECTED_BLOCK_TIME_WINDOW blocks stands, and the configured time only until two blocks are.
 */
export function expectedBlockTimeMs(chain: Chain, configuredMs: number, measured: boolean): number {
  const head = chain.head().number;
  // Genesis's time is the network's definition, not a block's: blocks 1 and 2 are the first pair timed.
  if (!measured || head < 2) return configuredMs;
  const average = averageBlockTimeMs(blockWindowTimes(chain, Math.max(1, head - EXPECTED_BLOCK_TIME_WINDOW)));
  return average > 0 ? average : configuredMs;
}

/** An epoch of `lengthBlocks` blocks at the expected block time, milliseconds (svc_getEpoch, the explorer's epoch). */
export function epochDurationMs(chain: Chain, lengthBlocks: number, configuredMs: number, measured: boolean): number {
  return lengthBlocks * expectedBlockTimeMs(chain, configuredMs, measured);
}

/** blockWindow without the transaction count: the blocks after `oldest` and the time they took. */
function blockWindowTimes(chain: Chain, oldest: number): BlockWindow {
  const head = chain.head();
  if (head.number <= oldest) return { blocks: 0, ms: 0, transactions: 0 };
  return { blocks: head.number - oldest, ms: head.timestampMs - (blockTimeMs(chain, oldest) ?? head.timestampMs), transactions: 0 };
}
