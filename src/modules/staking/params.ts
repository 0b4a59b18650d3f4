// Staking's parameters: its rules (genesis values: params.ts `staking`; a genesis may set the
// liveness window and threshold, genesis.ts) and the range a governance proposal may set each of
// them to. The gas table is not governable.
import { staking as stakingDefaults, type GovernableParam, type StakingParams } from '../../params.js';

export { stakingDefaults, type StakingParams };

const TOKEN = 10n ** 18n;
const DAY = 86_400n;
const BPS_MAX = 10_000n;
const bound = (key: keyof StakingParams, min: bigint, max: bigint, unit: GovernableParam['unit']): GovernableParam => ({ module: 'staking', key, min, max, unit });

/** Staking's rules a proposal may change, with their ranges. */
export const stakingGovernable: readonly GovernableParam[] = [
  // Block rewards and the stake-ratio multiplier curve.
  bound('blockReward', 0n, 1_000n * TOKEN, 'wei'),
  bound('rewardMultiplierMinBps', 0n, 100_000n, 'bps'),
  bound('rewardMultiplierMaxBps', 0n, 100_000n, 'bps'),
  bound('targetStakeRatioBps', 1n, BPS_MAX, 'bps'),
  bound('treasuryShareBps', 0n, BPS_MAX, 'bps'),
  // Commission limits and unbonding.
  bound('maxCommissionBps', 0n, BPS_MAX, 'bps'),
  bound('commissionChangeIntervalSeconds', 0n, 365n * DAY, 'seconds'),
  bound('unbondingPeriodSeconds', 0n, 365n * DAY, 'seconds'),
  bound('maxValidators', 1n, 1_000n, 'count'),
  bound('minSelfStake', 1n, 1_000_000n * TOKEN, 'wei'),
  // Epochs.
  bound('epochLengthBlocks', 2n, 1_000_000n, 'blocks'),
  // Penalties: spot-checks, downtime.
  bound('spotCheckSlashBps', 0n, BPS_MAX, 'bps'),
  bound('spotCheckJailSeconds', 0n, 365n * DAY, 'seconds'),
  bound('downtimeSlashBps', 0n, BPS_MAX, 'bps'),
  bound('downtimeJailSeconds', 0n, 365n * DAY, 'seconds'),
  // The downtime window and the share of it a validator must sign (a window's bitmap is stored with
  // each validator and rewritten each block: at most Cosmos' default of 10,000 blocks).
  bound('signedBlocksWindow', 10n, 10_000n, 'blocks'),
  bound('minSignedPerWindowBps', 0n, BPS_MAX, 'bps'),
  // The inference miners' share of block rewards.
  bound('inferenceMinersShareBps', 0n, BPS_MAX, 'bps'),
  bound('inferenceMinersShareBaseMiners', 0n, 1_000_000n, 'count'),
  bound('inferenceMinersShareStepBps', 0n, BPS_MAX, 'bps'),
  bound('inferenceMinersShareMaxBps', 0n, BPS_MAX, 'bps'),
];

/** Staking's governable parameter `key` (its range). */
export function stakingBound(key: string): GovernableParam | undefined {
  return stakingGovernable.find((g) => g.key === key);
}

/** Throws a RangeError for staking parameters the ledger cannot run with (also how governance checks a change: modules/governable.ts). */
export function assertStakingParams(p: StakingParams): void {
  const positive: [string, number | bigint][] = [
    ['epochLengthBlocks', p.epochLengthBlocks],
    ['signedBlocksWindow', p.signedBlocksWindow],
    ['maxValidators', p.maxValidators],
    ['maxUnbondingEntries', p.maxUnbondingEntries],
    ['powerReduction', p.powerReduction],
  ];
  for (const [name, value] of positive) if (value <= 0) throw new RangeError(`staking param ${name} must be positive`);
  if (p.minDelegation < 1n) throw new RangeError('staking param minDelegation must be at least 1');
  if (p.minSelfStake < 1n) throw new RangeError('staking param minSelfStake must be at least 1');
  if (p.maxCommissionBps > 10_000 || p.treasuryShareBps + p.inferenceMinersShareBps > 10_000 || p.treasuryShareBps + p.inferenceMinersShareMaxBps > 10_000) {
    throw new RangeError('staking params: basis-point shares above 10000');
  }
  if (!Number.isSafeInteger(p.minSignedPerWindowBps) || p.minSignedPerWindowBps < 0 || p.minSignedPerWindowBps > 10_000) throw new RangeError('staking param minSignedPerWindowBps must be 0..10000');
  if (p.rewardMultiplierMinBps > p.rewardMultiplierMaxBps) throw new RangeError('staking params: rewardMultiplierMinBps above rewardMultiplierMaxBps');
  if (p.inferenceMinersShareMaxBps < p.inferenceMinersShareBps || p.inferenceMinersShareStepBps < 0 || p.inferenceMinersShareBaseMiners < 0) {
    throw new RangeError('staking params: the miners\' share must grow from its base up to inferenceMinersShareMaxBps (step and base miners not negative)');
  }
}
