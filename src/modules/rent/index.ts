// The rent module's public surface: the module, its rules as functions, its parameters and its types.
export { RentModule, RENT_ABI, dueEpoch, dormantReason, owedAt, rentSchedule, type RentChain } from './module.js';
export { rentGovernable } from './params.js';
export { RentQueries, rentEventView, type RentStyle } from './queries.js';
export { DORMANT_PREFIX } from './store.js';
export * from './types.js';
