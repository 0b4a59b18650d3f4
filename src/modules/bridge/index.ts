// The bridge module's public surface: the module, its digests and threshold, and its types.
export { BridgeModule, BRIDGE_ABI, bridgedSet, depositContentHash, passesThreshold, signedPower, valsetDigest, valsetMoved, withdrawalDigest, type BridgeGenesis, type BridgeStake } from './module.js';
export { BridgeQueries } from './queries.js';
export * from './types.js';
