// The other modules staking reads (Cosmos SDK's expected_keepers.go): declared here, given to the
// module's constructor by the app, and read through nothing else.
import type { Address } from './types.js';

/**
 * What staking reads of the compute module (its expected keeper, in Cosmos SDK's words): the
 * compute module itself satisfies it.
 */
export interface ComputeKeeper {
  /** Compute views of the given validators: the compute and accuracy parts (0..10000) of their scores. */
  computeViews(validators: readonly Address[], epoch: number): ReadonlyMap<Address, { computeBps: number; accuracyBps: number }>;
  /** Failed spot-checks of the previous block: the validator each failed proof came through is slashed and jailed. */
  takePenaltiesDue(): { validator: Address; reason: string; infractionHeight: number }[];
  /** Miners with an accepted proof lately (before this block's proofs): the miners' share of the reward grows with them. */
  minersWithRecentProofs(epoch: number, now: number): number;
}

/**
 * The other modules staking reads, given to its constructor. The compute module is built after
 * staking (it reads staking too): a lazy accessor, called when a block runs or a score is read.
 */
export interface StakingKeepers {
  compute: () => ComputeKeeper;
}
