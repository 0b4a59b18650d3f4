// The staking module's public surface: the ledger, its types and the pure reward and penalty rules.
export { StakingLedger } from './ledger.js';
export { StakingRecordError } from './store.js';
export { blockRewardFor, inferenceMinersShareBps, rewardMultiplierBps, splitBlockReward, REWARD_SCALE, type BlockRewardSplit } from './rewards.js';
export { downtimePenalty, spotCheckPenalty, type SlashOrder } from './penalties.js';
export { epochOfHeight, epochStartHeight, isEpochLastBlock } from './epoch.js';
export { StakingQueries, type ScoredValidator, type SigningWindowView } from './queries.js';
export * from './types.js';
export { genesisLedger, type GenesisStakingParams, type GenesisValidator } from './genesis.js';
export { stakingGovernable } from './params.js';
export type { ComputeKeeper, StakingKeepers } from './keepers.js';
