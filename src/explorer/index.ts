// The explorer inside the node: the indexer following committed blocks, accounts and access
// control, the 18 categories of routes, and the Etherscan-compatible /api, on --explorer-port.
import type { Logger } from 'pino';
import type { NodeServices } from '../services.js';
import { TrustedProxies } from '../net/client-ip.js';
import { ExplorerAdmin, localUrl } from './admin.js';
import { createExplorerAuth, type ExplorerAuth } from './auth/index.js';
import type { ExplorerServices, RouteModule } from './definition.js';
import { closeVerifier } from './contracts/verifier.js';
import { etherscanRoutes } from './etherscan.js';
import { Indexer } from './indexer/indexer.js';
import { addressRoutes } from './handlers/addresses.js';
import { analyticsRoutes } from './handlers/analytics.js';
import { batchRoutes } from './handlers/batch.js';
import { blockRoutes } from './handlers/blocks.js';
import { computeRoutes } from './handlers/compute.js';
import { contractsRoutes } from './handlers/contracts.js';
import { gasOracleRoutes } from './handlers/gas-oracle.js';
import { governanceRoutes } from './handlers/governance.js';
import { bridgeRoutes } from './handlers/bridge.js';
import { healthRoutes } from './handlers/health.js';
import { leaderboardRoutes } from './handlers/leaderboard.js';
import { networkRoutes } from './handlers/network.js';
import { systemModuleRoutes } from './handlers/modules.js';
import { searchRoutes } from './handlers/search.js';
import { statsRoutes } from './handlers/stats.js';
import { tokenRoutes } from './handlers/tokens.js';
import { transactionRoutes } from './handlers/transactions.js';
import { userOperationRoutes } from './handlers/user-operations.js';
import { startExplorerServer, type ExplorerServer } from './server.js';
import { WebPage, WEB_DIR } from './web.js';

/** Every public category's routes (Authentication, API Keys and Watchlist come with the auth). */
export const PUBLIC_ROUTES: RouteModule[] = [
  blockRoutes,
  transactionRoutes,
  userOperationRoutes,
  addressRoutes,
  contractsRoutes,
  tokenRoutes,
  analyticsRoutes,
  networkRoutes,
  systemModuleRoutes,
  statsRoutes,
  gasOracleRoutes,
  leaderboardRoutes,
  computeRoutes,
  governanceRoutes,
  bridgeRoutes,
  batchRoutes,
  healthRoutes,
  searchRoutes,
];

export interface RunningExplorer {
  server: ExplorerServer;
  services: ExplorerServices;
  auth: ExplorerAuth;
  close(): Promise<void>;
}

/** Starts indexing (catching up from where the index stopped) and serving the explorer. */
export async function startExplorer(node: NodeServices, options: { host: string; port: number; log: Logger }): Promise<RunningExplorer> {
  const log = options.log.child({ module: 'explorer' });
  const indexer = new Indexer(node.chain, log.child({ module: 'indexer' }));
  const auth = createExplorerAuth(node.chain, node.config.dataDir, log, { exemptLoopback: node.config.rateLimitExemptLoopback });
  const admin = new ExplorerAdmin(auth.services.apiKeys);
  const services: ExplorerServices = { node, indexer, indexes: indexer.indexes, access: auth.access };
  const onBlock = () => void indexer.catchUp();
  node.events.on('block', onBlock);
  // evm_revert rewinds the database between two of the indexer's steps, never during one.
  node.dev?.snapshots.waitForIdle(() => indexer.idle());
  void indexer.catchUp();
  const etherscan = etherscanRoutes(services);
  const page = WebPage.load();
  if (!page) log.warn({ dir: WEB_DIR }, 'the web page is not built (node scripts/build-web.mjs): the explorer serves its API only');
  const server = await startExplorerServer(services, [...PUBLIC_ROUTES, ...auth.modules], {
    host: options.host,
    port: options.port,
    log,
    rootRoutes: (root) => {
      etherscan(root);
      admin.routes(root);
    },
    trustProxy: new TrustedProxies(node.config.trustProxy ?? []),
    ...(page ? { page: page.middleware() } : {}),
  });
  admin.publish(node.config.dataDir, localUrl(options.host, server.port));
  return {
    server,
    services,
    auth,
    async close() {
      node.events.off('block', onBlock);
      admin.withdraw();
      await server.close();
      await closeVerifier(services);
      await indexer.stop();
      await auth.close();
    },
  };
}
