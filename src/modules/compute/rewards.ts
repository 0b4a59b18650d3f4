// Integer arithmetic of compute rewards: the miners' pool split in proportion to FLOPs, and the
// split of a public task's fee. Every split sums exactly to what it divides.

const BPS = 10_000n;

export interface FlopsEntry {
  /** Who is paid (a miner wallet). */
  to: string;
  flops: bigint;
  /** Breaks ties for the rounding remainder (a proof id): lowest wins. */
  tiebreak: string;
}

/**
 * Splits `pool` among entries in proportion to their FLOPs: each entry gets floor(pool * flops / total);
 * the rounding remainder (less than the number of entries) goes to the entry with the most FLOPs
 * (ties: lowest tiebreak). Returns one amount per entry, in entry order; the amounts sum to `pool`.
 */
export function splitByFlops(pool: bigint, entries: readonly FlopsEntry[]): bigint[] {
  if (pool < 0n) throw new RangeError(`pool must not be negative: ${pool}`);
  const total = entries.reduce((s, e) => {
    if (e.flops <= 0n) throw new RangeError(`FLOPs must be positive: ${e.flops}`);
    return s + e.flops;
  }, 0n);
  if (entries.length === 0) return [];
  const out = entries.map((e) => (pool * e.flops) / total);
  const given = out.reduce((s, a) => s + a, 0n);
  let best = 0;
  for (let i = 1; i < entries.length; i++) {
    const a = entries[i]!;
    const b = entries[best]!;
    if (a.flops > b.flops || (a.flops === b.flops && a.tiebreak < b.tiebreak)) best = i;
  }
  out[best] = out[best]! + (pool - given);
  return out;
}

export interface FeeSplit {
  miner: bigint;
  validator: bigint;
  treasury: bigint;
}

/** A public task fee: the miner's part and the validator's part floored, the treasury gets the rest. */
export function splitTaskFee(fee: bigint, params: { taskFeeMinerBps: number; taskFeeValidatorBps: number }): FeeSplit {
  if (fee < 0n) throw new RangeError(`fee must not be negative: ${fee}`);
  const miner = (fee * BigInt(params.taskFeeMinerBps)) / BPS;
  const validator = (fee * BigInt(params.taskFeeValidatorBps)) / BPS;
  return { miner, validator, treasury: fee - miner - validator };
}
