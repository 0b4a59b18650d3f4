// net namespace: network id, listening state and peer count of a solo node.
import { toQuantity } from './hex.js';
import { method, type MethodTable } from './method.js';

export const netMethods: MethodTable = {
  // geth answers the network id as a decimal string; here it equals the chain id.
  net_version: method([], (ctx) => String(ctx.services.config.chainId)),

  net_listening: method([], () => true),

  // The solo driver runs without a p2p layer.
  net_peerCount: method([], () => toQuantity(0)),
};
