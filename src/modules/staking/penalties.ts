// The protocol's slash orders: what each infraction costs, as arguments for StakingLedger.slash
// (the one mechanism every slash goes through).
import type { StakingParams } from '../../params.js';

/** The fraction, infraction height, jail end and reason of one slash. */
export interface SlashOrder {
  fractionBps: number;
  infractionHeight: number;
  jailUntil: number;
  reason: string;
}

/** Downtime noticed at `height` (block time `now`): Cosmos' small slash and short jail. */
export function downtimePenalty(params: StakingParams, height: number, now: number): SlashOrder {
  return { fractionBps: params.downtimeSlashBps, infractionHeight: height, jailUntil: now + params.downtimeJailSeconds, reason: 'downtime' };
}

/** jailedUntil of a validator banned for good (Cosmos' tombstone): it can never unjail. */
export const BANNED = Number.MAX_SAFE_INTEGER;

/** Duplicate-vote evidence of a block at `infractionHeight`: Cosmos' 5% slash and a permanent ban of the validator (its consensus key). */
export function doubleSignPenalty(params: StakingParams, infractionHeight: number): SlashOrder {
  return { fractionBps: params.doubleSignSlashBps, infractionHeight, jailUntil: BANNED, reason: 'double sign' };
}

/** A failed inference spot-check of a proof from `infractionHeight` (spec: 5% slash, 6-hour jail). */
export function spotCheckPenalty(params: StakingParams, infractionHeight: number, now: number): SlashOrder {
  return {
    fractionBps: params.spotCheckSlashBps,
    infractionHeight,
    jailUntil: now + params.spotCheckJailSeconds,
    reason: 'spot-check failure',
  };
}
