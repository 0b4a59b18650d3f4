// Block reward arithmetic: the stake-ratio multiplier, the split of a minted reward, and the
// per-share reward bookkeeping (x/distribution's idea in its O(1) "reward per share" form).
import { staking, type StakingParams } from '../../params.js';

/** Fixed-point scale of rewardPerShare: 10^36 keeps sub-wei precision for any realistic share count. */
export const REWARD_SCALE = 10n ** 36n;

const BPS = 10_000n;

type MultiplierCurve = Pick<StakingParams, 'rewardMultiplierMinBps' | 'rewardMultiplierMaxBps' | 'targetStakeRatioBps'>;

/**
 * Block-reward multiplier in basis points, rising with the stake ratio r = staked / supply
 * (spec: 0.5x to 1.5x):
 *
 *   multiplier(r) = min + (max - min) * r / target   for r < target
 *                 = max                              for r >= target
 *
 * with min 5000, max 15000 and target 6667 (two thirds) by default. Computed as
 * min + floor((max - min) * staked * 10000 / (supply * target)), so no ratio is rounded first.
 * A supply of zero (or less) or no stake gives min.
 */
export function rewardMultiplierBps(stakedWei: bigint, supplyWei: bigint, curve: MultiplierCurve = staking): bigint {
  const min = BigInt(curve.rewardMultiplierMinBps);
  const max = BigInt(curve.rewardMultiplierMaxBps);
  const target = BigInt(curve.targetStakeRatioBps);
  if (supplyWei <= 0n || stakedWei <= 0n) return min;
  if (target === 0n || stakedWei * BPS >= supplyWei * target) return max;
  return min + ((max - min) * stakedWei * BPS) / (supplyWei * target);
}

/** The block reward to mint: the base reward times the stake-ratio multiplier (floored). */
export function blockRewardFor(stakedWei: bigint, supplyWei: bigint, params: StakingParams): bigint {
  return (params.blockReward * rewardMultiplierBps(stakedWei, supplyWei, params)) / BPS;
}

/** Where a minted block reward goes; the three parts sum exactly to the minted amount. */
export interface BlockRewardSplit {
  treasury: bigint;
  inferenceMiners: bigint;
  validators: bigint;
}

type MinersShareRule = Pick<
  StakingParams,
  'inferenceMinersShareBps' | 'inferenceMinersShareBaseMiners' | 'inferenceMinersShareStepBps' | 'inferenceMinersShareMaxBps'
>;

/**
 * The inference miners' share of a block reward, in basis points, for `activeMiners` miners with an
 * accepted proof in the score window (spec: "a larger number of active miners enlarges the inference
 * miner pool share"):
 *
 *   share(n) = min(max, base + step * max(0, n - baseMiners))
 *
 * with base 1500 (15%), baseMiners 10, step 50 (0.5 points) and max 2500 (25%) by default.
 */
export function inferenceMinersShareBps(activeMiners: number, rule: MinersShareRule = staking): number {
  if (!Number.isSafeInteger(activeMiners) || activeMiners < 0) throw new RangeError(`active miners must be a non-negative integer: ${activeMiners}`);
  const above = BigInt(Math.max(0, activeMiners - rule.inferenceMinersShareBaseMiners));
  const grown = BigInt(rule.inferenceMinersShareBps) + above * BigInt(rule.inferenceMinersShareStepBps);
  const max = BigInt(rule.inferenceMinersShareMaxBps);
  return Number(grown < max ? grown : max);
}

/**
 * Split a minted reward: floored treasury and miner shares, the remainder (with any rounding) to validators.
 * `minersShareBps` is inferenceMinersShareBps(active miners); the base share when not given.
 */
export function splitBlockReward(
  minted: bigint,
  params: Pick<StakingParams, 'treasuryShareBps' | 'inferenceMinersShareBps'>,
  minersShareBps: number = params.inferenceMinersShareBps,
): BlockRewardSplit {
  if (minted < 0n) throw new RangeError(`minted reward must not be negative: ${minted}`);
  if (!Number.isSafeInteger(minersShareBps) || minersShareBps < 0 || params.treasuryShareBps + minersShareBps > 10_000) {
    throw new RangeError(`miners' share must be 0..${10_000 - params.treasuryShareBps} bps: ${minersShareBps}`);
  }
  const treasury = (minted * BigInt(params.treasuryShareBps)) / BPS;
  const inferenceMiners = (minted * BigInt(minersShareBps)) / BPS;
  return { treasury, inferenceMiners, validators: minted - treasury - inferenceMiners };
}

/** The operator's commission on a validator reward (floored; the delegators get the rest). */
export function commissionOf(reward: bigint, commissionBps: number): bigint {
  return (reward * BigInt(commissionBps)) / BPS;
}

/** Increase of rewardPerShare for `amount` spread over `totalShares` (floored; totalShares > 0). */
export function rewardPerShareIncrease(amount: bigint, totalShares: bigint): bigint {
  return (amount * REWARD_SCALE) / totalShares;
}

/** Rewards earned by `shares` since `checkpoint` (floored). */
export function rewardSince(shares: bigint, rewardPerShare: bigint, checkpoint: bigint): bigint {
  return (shares * (rewardPerShare - checkpoint)) / REWARD_SCALE;
}
