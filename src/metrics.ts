// Prometheus metrics of the node: Node.js process defaults plus chain and pool series.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Mempool } from './chain/pool.js';
import { core, type LaneStats } from './native/index.js';

/** Buckets of the block production histogram, in seconds (sub-millisecond empty blocks to multi-second full ones). */
const BLOCK_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The series the chain side updates; all live in `registry`. */
export interface NodeMetrics {
  registry: Registry;
  blocksProduced: Counter;
  txsIncluded: Counter;
  txsRejected: Counter;
  blockProductionSeconds: Histogram;
  headBlock: Gauge;
}

/** A fresh registry with default Node.js metrics, chain series, and pool gauges read from `mempool` on scrape. */
export function createMetrics(mempool: Mempool): NodeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new Gauge({
    name: 'svc_mempool_transactions',
    help: 'Transactions in the pool by state',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const { pending, queued } = mempool.stats();
      this.set({ state: 'pending' }, pending);
      this.set({ state: 'queued' }, queued);
    },
  });
  const lanes = (set: (lane: string, value: number) => void, pick: (l: LaneStats) => number): void => {
    for (const l of core.laneStats()) set(l.name, pick(l));
  };
  new Gauge({
    name: 'svc_native_lane_jobs',
    help: 'Jobs on the native worker lanes (block, exec, logs, backfill) by state',
    labelNames: ['lane', 'state'] as const,
    registers,
    collect() {
      lanes((lane, v) => this.set({ lane, state: 'waiting' }, v), (l) => l.waiting);
      lanes((lane, v) => this.set({ lane, state: 'running' }, v), (l) => l.running);
    },
  });
  new Gauge({
    name: 'svc_native_lane_refused',
    help: 'Jobs refused because their lane queue was full (answered -32005 or 503), since start',
    labelNames: ['lane'] as const,
    registers,
    collect() {
      lanes((lane, v) => this.set({ lane }, v), (l) => l.refused);
    },
  });
  return {
    registry,
    blocksProduced: new Counter({ name: 'svc_blocks_produced_total', help: 'Blocks produced by this node', registers }),
    txsIncluded: new Counter({ name: 'svc_txs_included_total', help: 'Transactions included in produced blocks', registers }),
    txsRejected: new Counter({
      name: 'svc_txs_rejected_total',
      help: 'Pool transactions rejected at block execution',
      registers,
    }),
    blockProductionSeconds: new Histogram({
      name: 'svc_block_production_seconds',
      help: 'Time to select, execute, seal and commit one block',
      buckets: BLOCK_SECONDS_BUCKETS,
      registers,
    }),
    headBlock: new Gauge({ name: 'svc_head_block_number', help: 'Number of the head block', registers }),
  };
}
