// Methods geth serves that this node deliberately does not: they answer -32004 with the reason,
// so a tool learns what to do instead of guessing from "method not found".
import { MethodNotSupportedError } from '../errors.js';
import type { MethodTable, RpcMethod } from '../method.js';

/** Why the node signs nothing (eth_sendTransaction from an account impersonated on a devnet aside, src/rpc/dev.ts). */
export const NO_KEYS = 'the node holds no keys: sign in the wallet and send with eth_sendRawTransaction';
const NO_MINING = 'proof-of-stake chain: there is no proof-of-work mining';

/** A method whose every call fails with -32004 and `why`. */
function notSupported(name: string, why: string): RpcMethod {
  // Params are not checked: whatever a tool sends, the answer is the reason.
  return {
    args: null,
    run: () => {
      throw new MethodNotSupportedError(name, why);
    },
  };
}

const reasons: Record<string, string> = {
  eth_sign: NO_KEYS,
  eth_signTransaction: NO_KEYS,
  eth_signTypedData: NO_KEYS,
  eth_signTypedData_v3: NO_KEYS,
  eth_signTypedData_v4: NO_KEYS,
  eth_coinbase: 'blocks are sealed by validators; see svc_getValidators',
  eth_mining: NO_MINING,
  eth_hashrate: NO_MINING,
  eth_getWork: NO_MINING,
  eth_submitWork: NO_MINING,
  eth_submitHashrate: NO_MINING,
  debug_getRawBlock:
    'a block also carries system-module messages, which the Ethereum block encoding has no place for; use debug_getRawHeader, eth_getRawTransactionByBlockNumberAndIndex and debug_getRawReceipts',
  eth_subscribe: 'subscriptions need a WebSocket connection; use the WebSocket endpoint',
  eth_unsubscribe: 'subscriptions need a WebSocket connection; use the WebSocket endpoint',
};

export const unsupportedMethods: MethodTable = Object.fromEntries(
  Object.entries(reasons).map(([name, why]) => [name, notSupported(name, why)]),
);
