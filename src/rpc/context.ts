// The state JSON-RPC methods share across transports: installed filters, the gas price oracle and
// the faucet's cooldowns belong to the node, so a filter made over HTTP can be polled over
// WebSocket and a faucet cooldown holds on both, as one geth node serves them.
import type { NodeServices } from '../services.js';
import { GasPriceOracle } from '../chain/gas-price.js';
import { InstalledFilters } from './installed-filters.js';
import type { RpcContext } from './method.js';
import { Faucet } from './faucet.js';

export interface SharedRpcContext {
  context: RpcContext;
  /** Stops the filters' expiry and event listeners. */
  close(): void;
}

export function createRpcContext(services: NodeServices): SharedRpcContext {
  const filters = new InstalledFilters(services);
  return {
    context: { services, filters, gasPrice: new GasPriceOracle(services.chain), faucet: new Faucet(services) },
    close: () => filters.close(),
  };
}
