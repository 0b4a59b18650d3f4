// The devnet as a viem chain, pointed at a given RPC url.
import { defineChain, type Chain } from 'viem';
import { DEV_CHAIN_ID, MULTICALL3_ADDRESS } from './dev-accounts.js';

/** viem's description of a svc devnet served at `url`. */
export function svcDevnet(url: string): Chain {
  return defineChain({
    id: DEV_CHAIN_ID,
    name: 'svc devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
}
