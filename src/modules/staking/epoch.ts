// Epochs: fixed runs of epochLengthBlocks blocks (epoch e covers heights e*L .. e*L+L-1); the
// active set is chosen when an epoch starts and holds for the whole epoch.
import type { StakingParams } from '../../params.js';
import type { Address, EpochMember, ValidatorRecord } from './types.js';

// A governance change of the epoch length applies at the first block of an epoch, which becomes
// the anchor (`epochAnchor`: that height and its epoch); epochs then run at the new length from it.
// Heights before the latest anchor are answered with the current length (only the head's epochs
// are asked for by the rules).

type EpochRules = Pick<StakingParams, 'epochLengthBlocks' | 'epochAnchor'>;

/** The epoch a block height belongs to. */
export function epochOfHeight(height: number, params: EpochRules): number {
  const a = params.epochAnchor;
  if (a && height >= a.height) return a.epoch + Math.floor((height - a.height) / params.epochLengthBlocks);
  return Math.floor(height / params.epochLengthBlocks);
}

/** First height of an epoch. */
export function epochStartHeight(epoch: number, params: EpochRules): number {
  const a = params.epochAnchor;
  if (a && epoch >= a.epoch) return a.height + (epoch - a.epoch) * params.epochLengthBlocks;
  return epoch * params.epochLengthBlocks;
}

/** Whether `height` is the last block of its epoch (the block whose end hook calls endEpoch). */
export function isEpochLastBlock(height: number, params: EpochRules): boolean {
  const a = params.epochAnchor;
  if (a && height >= a.height) return (height + 1 - a.height) % params.epochLengthBlocks === 0;
  return (height + 1) % params.epochLengthBlocks === 0;
}

/** How candidates are ranked for the active set; by default their tokens. */
export type RankOf = (v: ValidatorRecord) => bigint;

/**
 * The active set: among validators that are not jailed, hold at least minSelfStake of their own
 * and have voting power, the maxValidators ranked highest by `rankOf` (the module ranks by stake
 * times contribution score); ties go to the lower address. `selfStakeOf` gives a validator's self
 * stake; the result is ordered by address. Voting power stays proportional to stake.
 */
export function chooseActiveSet(
  validators: Iterable<ValidatorRecord>,
  selfStakeOf: (v: ValidatorRecord) => bigint,
  params: Pick<StakingParams, 'maxValidators' | 'minSelfStake' | 'powerReduction'>,
  rankOf: RankOf = (v) => v.tokens,
): EpochMember[] {
  const candidates: { member: EpochMember; rank: bigint }[] = [];
  for (const v of validators) {
    const votingPower = v.tokens / params.powerReduction;
    if (v.status === 'jailed' || votingPower === 0n || selfStakeOf(v) < params.minSelfStake) continue;
    candidates.push({ member: { address: v.operator, tokens: v.tokens, votingPower }, rank: rankOf(v) });
  }
  candidates.sort((a, b) => (a.rank !== b.rank ? (a.rank > b.rank ? -1 : 1) : compareAddress(a.member.address, b.member.address)));
  return candidates
    .slice(0, params.maxValidators)
    .map((c) => c.member)
    .sort((a, b) => compareAddress(a.address, b.address));
}

/** Order of addresses by hex (the same as by bytes for lowercase addresses). */
export function compareAddress(a: Address, b: Address): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
