// What a running node offers to the serving layers (JSON-RPC, WebSocket, explorer): the chain, the
// pool, the state machine, the compute service and block production, put together by node.ts.
// Data flows one way: rpc/explorer -> services -> compute/consensus -> chain -> native.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Chain } from './native/index.js';
import type { NodeConfig } from './config.js';
import type { NodeCompute } from './compute/index.js';
import type { ChainApp } from './chain/app.js';
import type { ModuleQueries } from './chain/queries.js';
import type { NodeEvents } from './chain/events.js';
import type { Mempool } from './chain/pool.js';
import type { JournalHealthSource } from './chain/pool-journal.js';
import type { BlockProduction } from './consensus/production.js';
import type { NetworkView } from './consensus/network.js';
import type { DevChain } from './consensus/dev-chain.js';
import type { Bundler } from './aa/bundler.js';
import type { BridgeAgent } from './bridge/agent.js';

/** Everything a serving layer needs from a running node. */
export interface NodeServices {
  config: NodeConfig;
  chain: Chain;
  mempool: Mempool;
  /** The state machine: block execution, supply, the module registry. */
  app: ChainApp;
  /** Each module's read views (staking, compute, governance, bridge, rent): serving code reads the modules only through these. */
  queries: ModuleQueries;
  /** The node's compute mode and what runs for it (pow search, or models, proof intake and spot-checks). */
  compute: NodeCompute;
  events: NodeEvents;
  log: Logger;
  metrics: Registry;
  /** The address this node's solo driver proposes blocks as (its validator). */
  coinbase: Buffer;
  /** Block number the node had when it started (for eth_syncing / node info). */
  startingBlock: number;
  /** Block production's health: state, reason and head age (health checks, node info, metrics). */
  production: BlockProduction;
  /** Whether submitted transactions can be journaled now (health checks, node info, metrics). */
  transactionJournal: JournalHealthSource;
  /** The ERC-4337 bundler: user-operation pool, validation and the node's handleOps bundles. */
  bundler: Bundler;
  /** The bridge: this validator's watcher of the external chain, attestations, signatures and relays. */
  bridge: BridgeAgent;
  /** Peers and sync state: none and in step for a solo node, CometBFT's for a network validator. */
  network: NetworkView;
  /** The development methods' controls: a solo node of a devnet chain only (docs/rpc.md, "Development methods"). */
  dev?: DevChain;
}
