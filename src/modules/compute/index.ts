// The compute module's public surface: the module, its records and views, the node's queues, the
// rules other code checks against (spot-check draw, share target, task ids) and the wire formats.
export { ComputeModule, COMPUTE_ABI, publicTaskId, type ComputeBlockEvents } from './module.js';
export { drawnForSpotCheck, shareTarget, type ComputeBlockContext, type ComputeBlockEnd } from './hooks.js';
export type { QueuedMode, QueuedProof, QueuedRegistration, QueuedShare, QueuedVerdict, TakenQueues } from './queues.js';
export type { BlockActivity } from './store.js';
export { canRun, runnableModels, type ModelTiers } from './assign.js';
export { splitByFlops, splitTaskFee } from './rewards.js';
export { ComputeQueries, type ApprovedModelView, type MinerStatus, type ViewStyle } from './queries.js';
export * from './types.js';
export * from './wire.js';
export { announceComputeMode, announcedComputeMode } from './announce.js';
export { computeGovernable } from './params.js';
export type { ComputeKeepers, StakingKeeper } from './keepers.js';
