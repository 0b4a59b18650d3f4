// The rent module's public surface: the module, its rules as functions, and its types.
export { RentModule, RENT_ABI, dueEpoch, dormantReason, owedAt, rentEventView, rentSchedule, type RentChain, type RentStyle } from './module.js';
export { DORMANT_PREFIX } from './store.js';
export * from './types.js';
