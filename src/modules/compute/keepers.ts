// The other modules compute reads (Cosmos SDK's expected_keepers.go): declared here, given to the
// module's constructor by the app, and read through nothing else.
import type { Address } from './types.js';

/** What compute reads of the staking module (its expected keeper, in Cosmos SDK's words): the staking module itself satisfies it. */
export interface StakingKeeper {
  /** The inference miners' share of block `height`'s reward, decided by staking's endBlock. */
  minersShare(height: number): bigint;
  /** The consensus key (0x + 64 hex) of a validator's staking record; undefined for none or no such validator. */
  consensusKeyOf(address: Address): string | undefined;
}

/** The other modules compute reads, given to its constructor. */
export interface ComputeKeepers {
  staking: StakingKeeper;
}
