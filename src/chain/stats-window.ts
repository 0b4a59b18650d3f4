// Which blocks chain statistics (block time, throughput) look at.

/**
 * The first block of a window of `size` blocks ending at `head`. Genesis is left out once a block
 * follows it: its timestamp is fixed by the network's definition, not by when the chain started,
 * so the gap to block 1 says nothing about block times.
 */
export function statsWindowStart(head: number, size: number): number {
  return head <= 1 ? 0 : Math.max(1, head - size);
}
