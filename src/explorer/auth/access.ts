// Who may call an explorer route and how often. An API key (X-Api-Key or ?apikey=) selects its
// tier's per-second and daily limits; without one the caller gets the anonymous per-IP limit;
// /auth/* adds a per-IP limit of its own (and login a per-account one: login-throttle.ts). Routes
// marked `user` then need a valid access token.
// Limits run on wall-clock time from an injectable clock; loopback clients are exempt only when
// the node says so (--rate-limit-loopback-exempt, on by default on a devnet, as for JSON-RPC).
import type { Context } from 'koa';
import type { explorer as explorerParams } from '../../params.js';
import type { AccessControl, AuthenticatedUser, ExplorerServices, RouteDef } from '../definition.js';
import { BadRequestError, TooManyRequestsError, UnauthorizedError } from '../envelope.js';
import { API_PREFIX } from '../server.js';
import type { AccessTokens } from './access-tokens.js';
import type { Accounts } from './accounts.js';
import type { LoginThrottle } from './login-throttle.js';
import type { ApiKeys } from './api-keys.js';
import { clientKey, isLoopback } from '../../net/client-ip.js';
import { SlidingWindowLimiter, type RateDecision } from './rate-limit.js';
import type { RefreshTokenFamilies } from './refresh-tokens.js';
import { utcDay, type ApiKeyRecord, type UsersStore } from './store.js';
import type { DailyUsage } from './usage.js';
import type { Watchlists } from './watchlist.js';

/** What the auth, API key and watchlist handlers work with. */
export interface AuthServices {
  store: UsersStore;
  accounts: Accounts;
  /** Failed sign-ins per account (params.explorer.authPerAccount). */
  logins: LoginThrottle;
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokenFamilies;
  apiKeys: ApiKeys;
  usage: DailyUsage;
  watchlists: Watchlists;
}

/** One limit a request is held to: its decision, and how to count the request when admitted. */
interface Limit {
  decision: RateDecision;
  refusal: string;
  take(): void;
}

const AUTH_PATH = `${API_PREFIX}/auth/`;
const DAY_MS = 86_400_000;

export class ExplorerAccess implements AccessControl {
  private readonly anonymous: SlidingWindowLimiter;
  private readonly authEndpoints: SlidingWindowLimiter;
  private readonly keys = new SlidingWindowLimiter(1000);

  constructor(
    readonly auth: AuthServices,
    private readonly limits: typeof explorerParams,
    /** Wall-clock milliseconds. */
    private readonly now: () => number = Date.now,
    /** Let loopback clients through unmetered (local tools and scripts on the node's host). */
    private readonly exemptLoopback = false,
  ) {
    this.anonymous = new SlidingWindowLimiter(limits.anonymous.windowMs);
    this.authEndpoints = new SlidingWindowLimiter(limits.authPerIp.windowMs);
  }

  async admit(ctx: Context, route: RouteDef): Promise<AuthenticatedUser | undefined> {
    const now = this.now();
    const ip = clientKey(ctx.ip);
    const key = this.presentedKey(ctx);
    const held: Limit[] = [];
    const exempt = this.exemptLoopback && isLoopback(ctx.ip);
    if (key !== undefined) {
      const record = this.auth.apiKeys.resolve(key);
      if (!record) throw new UnauthorizedError('API key is not valid or has been revoked');
      if (exempt) this.auth.usage.record(record.id);
      else held.push(...this.keyLimits(record, now));
    } else if (!exempt) {
      const { limit, windowMs } = this.limits.anonymous;
      held.push({
        decision: this.anonymous.check(ip, limit, now),
        refusal: `rate limit exceeded: ${limit} requests per ${windowMs / 1000} s per IP without an API key`,
        take: () => this.anonymous.take(ip, now),
      });
    }
    if (ctx.path.startsWith(AUTH_PATH) && !exempt) {
      const { limit, windowMs } = this.limits.authPerIp;
      held.push({
        decision: this.authEndpoints.check(ip, limit, now),
        refusal: `rate limit exceeded: /auth endpoints allow ${limit} requests per ${windowMs / 1000} s per IP`,
        take: () => this.authEndpoints.take(ip, now),
      });
    }
    if (held.length === 0) return route.auth === 'user' ? this.auth.accessTokens.authenticate(ctx.get('authorization') || undefined) : undefined;
    const refused = held.find((l) => !l.decision.allowed);
    // The headers describe the limit that binds: the one refusing, else the one with least room left.
    const shown = refused ?? held.reduce((a, b) => (b.decision.remaining < a.decision.remaining ? b : a));
    const headers = rateHeaders(shown.decision);
    if (refused) {
      const retryAfter = Math.max(1, Math.ceil((refused.decision.resetAt - now) / 1000));
      throw new TooManyRequestsError(`${refused.refusal}; retry in ${retryAfter} s`, { ...headers, 'Retry-After': String(retryAfter) });
    }
    for (const l of held) l.take();
    ctx.set(headers);
    return route.auth === 'user' ? this.auth.accessTokens.authenticate(ctx.get('authorization') || undefined) : undefined;
  }

  /** Forgets callers idle past their window. */
  sweep(): void {
    const now = this.now();
    this.anonymous.sweep(now);
    this.authEndpoints.sweep(now);
    this.keys.sweep(now);
    this.auth.logins.sweep();
  }

  private keyLimits(record: ApiKeyRecord, now: number): Limit[] {
    const tier = this.limits.tiers[record.tier];
    const limits: Limit[] = [
      {
        decision: this.keys.check(record.id, tier.perSecond, now),
        refusal: `rate limit exceeded: the ${record.tier} tier allows ${tier.perSecond} requests per second per API key`,
        take: () => {
          this.keys.take(record.id, now);
          this.auth.usage.record(record.id);
        },
      },
    ];
    if (tier.daily !== null) {
      const used = this.auth.usage.today(record.id);
      limits.push({
        decision: { allowed: used < tier.daily, limit: tier.daily, remaining: Math.max(0, tier.daily - used - 1), resetAt: (utcDay(now) + 1) * DAY_MS },
        refusal: `daily limit reached: the ${record.tier} tier allows ${tier.daily} requests per UTC day per API key, counted again from 00:00 UTC`,
        // Counted with the per-second limit above, which every key request passes.
        take: () => undefined,
      });
    }
    return limits;
  }

  /** The API key from X-Api-Key or ?apikey=, if any. */
  private presentedKey(ctx: Context): string | undefined {
    const header = ctx.get('x-api-key') || undefined;
    const query = ctx.query['apikey'];
    if (Array.isArray(query)) throw new BadRequestError('query parameter "apikey" is given more than once');
    if (header !== undefined && query !== undefined && query !== header) throw new BadRequestError('two different API keys: send it as X-Api-Key or ?apikey=, not both');
    return header ?? (query || undefined);
  }
}

/** X-RateLimit-* headers of a decision (Reset in Unix seconds). */
function rateHeaders(d: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(Math.ceil(d.resetAt / 1000)),
  };
}

/** The auth services behind `services.access`, for the auth, API key and watchlist handlers. */
export function authServices(services: ExplorerServices): AuthServices {
  if (!(services.access instanceof ExplorerAccess)) throw new Error('explorer access control is not the one from createExplorerAuth');
  return services.access.auth;
}

/** The user admitted on a `user` route (admit has already required the token). */
export function signedIn(user: AuthenticatedUser | undefined): AuthenticatedUser {
  if (!user) throw new UnauthorizedError();
  return user;
}
