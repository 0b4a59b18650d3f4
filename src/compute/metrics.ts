// Prometheus series of compute, read from the module and the node's compute service at each scrape.
import { Gauge, type Registry } from 'prom-client';
import type { ChainApp } from '../chain/app.js';
import type { NodeCompute } from './index.js';

export function registerComputeMetrics(registry: Registry, app: ChainApp, compute: NodeCompute): void {
  const registers = [registry];
  new Gauge({
    name: 'svc_compute_proofs',
    help: 'Inference proofs: accepted on chain, refused at this node, failed spot-checks, dropped when applied',
    labelNames: ['outcome'] as const,
    registers,
    async collect() {
      await app.settled(); // the counters of committed blocks
      const c = app.compute.counters;
      this.set({ outcome: 'accepted' }, c.proofsAccepted);
      this.set({ outcome: 'rejected_at_submission' }, compute.intake.counters.proofsRejected);
      this.set({ outcome: 'failed_spot_check' }, c.spotChecksFailed);
      this.set({ outcome: 'dropped' }, c.proofsDropped);
    },
  });
  new Gauge({
    name: 'svc_compute_spot_checks',
    help: 'Spot-checks by state',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      await app.settled();
      const c = app.compute.counters;
      this.set({ state: 'passed' }, c.spotChecksPassed);
      this.set({ state: 'failed' }, c.spotChecksFailed);
      this.set({ state: 'pending' }, app.compute.spotChecksPending.length);
    },
  });
  new Gauge({
    name: 'svc_compute_queue',
    help: 'Items this node holds for the next block',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const q = app.compute.queueSizes();
      for (const [kind, n] of Object.entries(q)) this.set({ kind }, n);
    },
  });
  new Gauge({
    name: 'svc_compute_pow_hashrate',
    help: 'Hashes per second of this node\'s proof-of-work search since it started (0 when not in pow mode)',
    registers,
    collect() {
      this.set(compute.powStats()?.hashrate ?? 0);
    },
  });
  new Gauge({
    name: 'svc_compute_pow_shares_found',
    help: 'Shares this node\'s search found',
    registers,
    collect() {
      this.set(compute.powStats()?.sharesFound ?? 0);
    },
  });
}
