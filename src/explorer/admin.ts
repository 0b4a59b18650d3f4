// Operator actions on a running explorer (`svc-node explorer set-tier`), the way bitcoind's cookie
// works: at start the node writes a random token and its explorer's URL to
// `<dataDir>/explorer-admin.json` (mode 0600, in the 0700 data dir), so only the node's user on
// the node's host can read it; the admin routes answer only connections from that host (the
// direct peer, never a forwarded address) presenting that token. They are not part of /api/v1.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { writePrivateFile } from '../chain/data-dir.js';
import { isLoopback } from '../net/client-ip.js';
import { explorer as params } from '../params.js';
import type { ApiKeys } from './auth/api-keys.js';
import { API_KEY_TIERS, type ApiKeyTier } from './auth/store.js';
import { ADMIN_FILE, ADMIN_TIER_PATH, readAdminCredential, type AdminCredential, type TierView } from './admin-credential.js';
import { BadRequestError, ForbiddenError, success, UnauthorizedError } from './envelope.js';
import { readJson } from './server.js';

/** The URL at which this host reaches a server listening on `host`:`port` (a wildcard listens on loopback too). */
export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Whether the connection comes from this host: loopback, or the very address it was accepted on. */
function fromThisHost(ctx: Context): boolean {
  const { remoteAddress, localAddress } = ctx.req.socket;
  return remoteAddress !== undefined && (isLoopback(remoteAddress) || remoteAddress === localAddress);
}

/** The admin routes of one node start, and the file that lets the operator's CLI use them. */
export class ExplorerAdmin {
  private readonly token = randomBytes(32).toString('base64url');
  private file: string | undefined;

  constructor(private readonly apiKeys: ApiKeys) {}

  /** Adds the admin routes to the root router. */
  routes(root: Router): void {
    root.put(ADMIN_TIER_PATH, async (ctx) => {
      this.authorise(ctx);
      const body = await readJson(ctx);
      const tier = (body as { tier?: unknown } | undefined)?.tier;
      if (typeof tier !== 'string' || !(API_KEY_TIERS as string[]).includes(tier)) {
        throw new BadRequestError(`body.tier must be one of ${API_KEY_TIERS.join(', ')}`);
      }
      const id = ctx.params['id'] ?? '';
      if (!/^[0-9a-f]{32}$/.test(id)) throw new BadRequestError('the key id is 32 lowercase hex characters (the id of GET /api/v1/api-keys)');
      const record = this.apiKeys.setTier(id, tier as ApiKeyTier);
      const limits = params.tiers[record.tier];
      const view: TierView = { id: record.id, tier: record.tier, perSecond: limits.perSecond, dailyLimit: limits.daily };
      ctx.type = 'application/json';
      ctx.body = success(view);
    });
  }

  /** Writes the credential file once the explorer listens at `url`. */
  publish(dataDir: string, url: string): void {
    const file = path.join(dataDir, ADMIN_FILE);
    writePrivateFile(file, `${JSON.stringify({ url, token: this.token } satisfies AdminCredential)}\n`);
    this.file = file;
  }

  /** Removes the credential file, unless a later start has replaced it. */
  withdraw(): void {
    if (this.file === undefined) return;
    try {
      if (readAdminCredential(path.dirname(this.file))?.token === this.token) rmSync(this.file, { force: true });
    } catch {
      // A file that is gone or not ours any more is left as it is.
    }
    this.file = undefined;
  }

  private authorise(ctx: Context): void {
    if (!fromThisHost(ctx)) throw new ForbiddenError('admin routes answer only connections from the node\'s own host');
    const m = /^Bearer (\S+)$/.exec(ctx.get('authorization'));
    const given = Buffer.from(m?.[1] ?? '', 'utf8');
    const expected = Buffer.from(this.token, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new UnauthorizedError(`admin token missing or wrong: it is in ${ADMIN_FILE} of the node's data dir`);
    }
  }
}
