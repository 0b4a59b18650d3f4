// Health: liveness (the process answers) and readiness (blocks are being committed and indexed,
// and submitted transactions can be journaled).
import { packageVersion } from '../../version.js';
import { routeModule, type Handlers } from '../definition.js';
import { ExplorerError } from '../envelope.js';
import { healthRouteDefs } from '../routes/health.js';

/** Blocks the index may trail the head and still be ready (one block is being indexed while the next is made). */
export const READY_MAX_LAG = 2;
const started = Date.now();

export const healthHandlers: Handlers<typeof healthRouteDefs> = {
  getLiveness: () => ({ status: 'ok', version: packageVersion(), uptimeSeconds: Math.floor((Date.now() - started) / 1000) }),

  getReadiness: (_input, { node, indexer }) => {
    const head = node.chain.head().number;
    const stalled = node.production.unhealthyReason();
    if (stalled !== null) throw new ExplorerError(503, `not ready: the head (block ${head}) is stale: ${stalled}`);
    // Every submitted transaction is refused while none can be journaled (a full disk).
    const journal = node.transactionJournal.problem();
    if (journal !== null) throw new ExplorerError(503, `not ready: ${journal}`);
    const indexed = indexer.indexedHeight();
    const lag = head - indexed;
    if (lag > READY_MAX_LAG) throw new ExplorerError(503, `not ready: the index is ${lag} blocks behind the head (block ${head})`);
    const production = node.production.status();
    return {
      ready: true,
      head,
      indexed,
      lag,
      // Internal transactions come from re-executing indexed blocks: their height trails `indexed`.
      internalIndexed: indexer.internalHeight(),
      internalLag: head - indexer.internalHeight(),
      headAgeMs: production.headAgeMs,
      staleAfterMs: production.staleAfterMs,
      blockProduction: production.status,
      transactionJournal: node.transactionJournal.health().status,
      lastBlockIndexMs: Math.round(indexer.lastBlockMs * 100) / 100,
      maxBlockIndexMs: Math.round(indexer.maxBlockMs * 100) / 100,
    };
  },
};

export const healthRoutes = routeModule(healthRouteDefs, healthHandlers);
