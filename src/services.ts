// What the chain side offers to the serving layers (JSON-RPC now; WebSocket and explorer later).
// Data flows one way: rpc -> chain -> native.
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Chain, DecodedTx, ProducedBlock } from '../native/index.js';
import type { NodeConfig } from '../config.js';
import type { NodeCompute } from '../compute/index.js';
import type { ChainApp } from './app.js';
import type { BlockProduction } from '../consensus/production.js';

/** A transaction waiting in the pool. */
export interface PooledTx {
  raw: Buffer;
  tx: DecodedTx;
  /** Milliseconds since the epoch at admission (pool bookkeeping only, never consensus). */
  receivedAt: number;
}

/** Error raised when the pool refuses a transaction; `message` is geth's text. */
export class TxPoolError extends Error {
  override readonly name = 'TxPoolError';
}

export interface Mempool {
  /**
   * Decode, validate and admit a raw signed transaction; resolves with its hash once the pool
   * journal holds it durably, so an answered hash survives a crash. Throws TxPoolError when
   * refused, PoolJournalError when admitted but not journaled.
   */
  submit(raw: Buffer): Promise<Buffer>;
  /** Next nonce for the address counting pool transactions (the `pending` tag). */
  pendingNonce(address: Buffer): bigint;
  /** A pool transaction by hash. */
  get(hash: Buffer): PooledTx | undefined;
  /** Hashes of every transaction in the pool (pending and queued), in admission order. */
  hashes(): Buffer[];
  /** Counts for txpool_status-like reporting. */
  stats(): { pending: number; queued: number };
}

export interface NodeEvents extends EventEmitter {
  on(event: 'block', listener: (block: ProducedBlock) => void): this;
  on(event: 'pendingTransaction', listener: (hash: Buffer) => void): this;
  emit(event: 'block', block: ProducedBlock): boolean;
  emit(event: 'pendingTransaction', hash: Buffer): boolean;
}

/** Everything a serving layer needs from a running node. */
export interface NodeServices {
  config: NodeConfig;
  chain: Chain;
  mempool: Mempool;
  /** The state machine: system modules (staking, compute) and supply. */
  app: ChainApp;
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
}
