// The other modules the bridge reads (Cosmos SDK's expected_keepers.go): declared here, given to
// the module's constructor by the app.
import type { Address } from './types.js';

/** The bonded validators as the bridge weighs attestations: the staking module's active set. */
export interface BridgeStake {
  bonded(): { address: Address; tokens: bigint }[];
}

/** Every module the bridge reads. */
export interface BridgeKeepers {
  /** The staking module: bonded stake, which weighs attestations and makes the bridged set. */
  stake: BridgeStake;
}
