// The governance module's public surface: the module, its parameter holder, the tally rules and its types.
export { GovernanceModule, GOVERNANCE_ABI, type ModelsKeeper } from './module.js';
export { LiveParams, type GenesisParams } from './live-params.js';
export { decide, tallyVotes, type BondedValidator, type Tally, type TallyStake } from './tally.js';
export { GovernanceQueries, type GovernanceStyle } from './queries.js';
export * from './types.js';
