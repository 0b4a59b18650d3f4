// The explorer's accounts, API keys, watchlists and access control, built in one call:
// `createExplorerAuth(chain, dataDir, log)` gives the AccessControl for ExplorerServices, the route modules
// (Authentication, API Keys, Watchlist) for startExplorerServer, and close() to flush usage counts.
import type { Logger } from 'pino';
import type { Chain } from '../../native/index.js';
import { explorer as params } from '../../params.js';
import type { AccessControl, RouteModule } from '../definition.js';
import { apiKeyRoutes } from '../handlers/api-keys.js';
import { authenticationRoutes } from '../handlers/authentication.js';
import { watchlistRoutes } from '../handlers/watchlist.js';
import { ExplorerAccess, type AuthServices } from './access.js';
import { AccessTokens, jwtSecret } from './access-tokens.js';
import { Accounts } from './accounts.js';
import { ApiKeys } from './api-keys.js';
import { LoginThrottle } from './login-throttle.js';
import { RefreshTokenFamilies } from './refresh-tokens.js';
import { UsersStore, type ApiKeyRecord, type ApiKeyTier } from './store.js';
import { DailyUsage } from './usage.js';
import { Watchlists } from './watchlist.js';

export { ExplorerAccess, type AuthServices } from './access.js';
export { JWT_SECRET_ENV, JWT_SECRET_FILE, jwtSecret } from './access-tokens.js';
export { REFRESH_COOKIE, REFRESH_COOKIE_PATH } from './refresh-tokens.js';
export { API_KEY_TIERS, UsersStore, type ApiKeyTier } from './store.js';

export interface ExplorerAuth {
  access: AccessControl;
  modules: RouteModule[];
  /** The stores and services behind the routes, for operator actions (setApiKeyTier). */
  services: AuthServices;
  /** Stops the flush timer and writes pending usage counts; call before the chain closes. */
  close(): Promise<void>;
}

export interface ExplorerAuthOptions {
  /** Where SVC_EXPLORER_JWT_SECRET is read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Wall-clock milliseconds for rate limits and daily usage (default Date.now; tests move it). */
  now?: () => number;
  /** Loopback clients are not rate-limited (the node's --rate-limit-loopback-exempt; default false). */
  exemptLoopback?: boolean;
}

/** Accounts, API keys, watchlists and access control over the chain's "users" column family. */
export function createExplorerAuth(chain: Chain, dataDir: string, log: Logger, options: ExplorerAuthOptions = {}): ExplorerAuth {
  const now = options.now ?? Date.now;
  const store = new UsersStore(chain);
  const usage = new DailyUsage(store, now);
  const services: AuthServices = {
    store,
    accounts: new Accounts(store),
    logins: new LoginThrottle(params.authPerAccount, now),
    accessTokens: new AccessTokens(jwtSecret(dataDir, store, options.env), store),
    refreshTokens: new RefreshTokenFamilies(store),
    apiKeys: new ApiKeys(store, usage),
    usage,
    watchlists: new Watchlists(store),
  };
  const access = new ExplorerAccess(services, params, now, options.exemptLoopback ?? false);
  const housekeeping = () => {
    try {
      usage.flush();
      access.sweep();
    } catch (err) {
      log.error({ err }, 'explorer usage flush failed');
    }
  };
  const timer = setInterval(housekeeping, params.usageFlushIntervalMs);
  timer.unref();
  let closed = false;
  return {
    access,
    modules: [authenticationRoutes, apiKeyRoutes, watchlistRoutes],
    services,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      usage.flush();
    },
  };
}

/** Operator action: moves an API key to another tier (no public route; operators use `svc-node explorer set-tier`). */
export function setApiKeyTier(auth: ExplorerAuth, keyId: string, tier: ApiKeyTier): ApiKeyRecord {
  return auth.services.apiKeys.setTier(keyId, tier);
}

/** Counts `requests` requests of an API key today, as if they had been served; returns today's total. */
export function recordApiKeyUsage(auth: ExplorerAuth, keyId: string, requests: number): number {
  return auth.services.usage.record(keyId, requests);
}
