// Prometheus series of the bundler: operations accepted and refused (by ERC-7769 code), held in the
// pool, bundles sent and operations they carried, bundles in flight.
import { Gauge, type Registry } from 'prom-client';
import type { Bundler } from './bundler.js';

export function registerBundlerMetrics(registry: Registry, bundler: Bundler): void {
  const registers = [registry];
  const c = bundler.counters;
  new Gauge({
    name: 'svc_bundler_user_operations',
    help: 'User operations by outcome at this node: accepted into the pool, refused (by ERC-7769 code), included by a block, dropped from the pool',
    labelNames: ['outcome', 'code'] as const,
    registers,
    collect() {
      this.reset();
      this.set({ outcome: 'accepted', code: '' }, c.accepted);
      for (const [code, n] of c.refused) this.set({ outcome: 'refused', code: String(code) }, n);
      this.set({ outcome: 'included', code: '' }, c.included);
      this.set({ outcome: 'dropped', code: '' }, c.dropped);
    },
  });
  new Gauge({ name: 'svc_bundler_pool_size', help: 'User operations waiting for a bundle', registers, collect() { this.set(bundler.pool.size); } });
  new Gauge({ name: 'svc_bundler_bundles_in_flight', help: 'Bundle transactions sent and not yet in a block', registers, collect() { this.set(bundler.inFlightBundles().length); } });
  new Gauge({ name: 'svc_bundler_bundles_sent', help: 'handleOps bundles this node signed and sent', registers, collect() { this.set(c.bundles); } });
  new Gauge({ name: 'svc_bundler_bundled_operations', help: 'User operations carried by the bundles sent', registers, collect() { this.set(c.bundledOperations); } });
}
