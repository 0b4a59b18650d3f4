// net namespace: network id, listening state and peer count (CometBFT's peers; a solo node has none).
import { toQuantity } from './hex.js';
import { method, type MethodTable } from './method.js';

export const netMethods: MethodTable = {
  // geth answers the network id as a decimal string; here it equals the chain id.
  net_version: method([], (ctx) => String(ctx.services.config.chainId)),

  net_listening: method([], () => true),

  net_peerCount: method([], (ctx) => toQuantity(ctx.services.network.peerCount())),
};
