// The bridge module's public surface: the module, its digests and threshold, and its types.
export { BridgeModule, BRIDGE_ABI, bridgedSet, depositContentHash, passesThreshold, signedPower, valsetDigest, valsetMoved, withdrawalDigest } from './module.js';
export type { BridgeKeepers, BridgeStake } from './keepers.js';
export { bridgeGenesis, parseBridgeGenesis, type BridgeGenesis } from './genesis.js';
export { bridgeGovernable } from './params.js';
export { BridgeQueries } from './queries.js';
export * from './types.js';
