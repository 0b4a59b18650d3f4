// The other modules governance reads (Cosmos SDK's expected_keepers.go): declared here, given to
// the module's constructor by the app, and read through nothing else.
import type { TallyStake } from './tally.js';
import type { ModelApproval } from './types.js';

export type { TallyStake };

/** What governance reads of and does to the compute module's model registry. */
export interface ModelsKeeper {
  approveModel(m: ModelApproval, height: number, proposalId: number): void;
  retirementProblem(modelId: string): string | null;
  retireModel(modelId: string, refusedFromHeight: number, proposalId: number): void;
}

/** Every module governance reads. */
export interface GovernanceKeepers {
  /** The staking module: bonded stake and delegations, for tallies. */
  stake: TallyStake;
  /** The compute module's model registry: an accessor, as compute is built after governance (which sets the live parameters first). */
  models: () => ModelsKeeper;
}
