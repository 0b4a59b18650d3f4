// The governance module's public surface: the module, its keepers, its proposal kinds, its parameter holder and parameters, the tally rules and its types.
export { GovernanceModule, GOVERNANCE_ABI, spendRecipientProblem } from './module.js';
export type { GovernanceKeepers, ModelsKeeper } from './keepers.js';
export { ProposalRouter, governanceProposals, type ProposalEnv, type ProposalExecution, type ProposalHandler } from './proposals.js';
export { LiveParams, type GenesisParams } from './live-params.js';
export { governanceGovernable } from './params.js';
export { decide, tallyVotes, type BondedValidator, type Tally, type TallyStake } from './tally.js';
export { GovernanceQueries, type GovernanceStyle } from './queries.js';
export * from './types.js';
