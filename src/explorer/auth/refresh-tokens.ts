// Refresh tokens: random values kept only as SHA-256 hashes, grouped in families (one per sign-in),
// rotated on every use. Presenting a token that was already exchanged means someone else holds a
// copy, so the whole family is revoked. The token travels in the HTTP-only cookie `svc_refresh`.
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { explorer as params } from '../../params.js';
import { UnauthorizedError } from '../envelope.js';
import { API_PREFIX, clientUsesHttps } from '../server.js';
import { commit, type Write } from '../store.js';
import { isLoopback } from '../../net/client-ip.js';
import { idKey, newId, type RefreshTokenFamily, type RefreshTokenRecord, type UsersStore } from './store.js';

export const REFRESH_COOKIE = 'svc_refresh';
/** The cookie goes only to the auth endpoints, never to the rest of the API. */
export const REFRESH_COOKIE_PATH = `${API_PREFIX}/auth`;

const tokenHash = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** A refresh token just issued: its value (for the cookie) and its lifetime. */
export interface IssuedRefreshToken {
  userId: string;
  token: string;
  /** Seconds until it expires. */
  maxAgeSeconds: number;
}

export class RefreshTokenFamilies {
  constructor(private readonly store: UsersStore) {}

  /** Starts a family for a new sign-in and issues its first token. */
  start(userId: string): IssuedRefreshToken {
    const now = Date.now();
    const family: RefreshTokenFamily = { id: newId(), userId, expiresAt: now + params.refreshFamilySeconds * 1000, revoked: false };
    const writes = [this.store.refreshFamilies.putWrite(idKey(family.id), family)];
    const issued = this.issue(family, now, writes);
    commit(this.store.chain, 'users', writes);
    return issued;
  }

  /** Exchanges a token for the next one of its family; a token used twice revokes the family. */
  rotate(token: string | undefined): IssuedRefreshToken {
    if (token === undefined || token === '') throw new UnauthorizedError(`refresh token missing: the ${REFRESH_COOKIE} cookie comes from /auth/login`);
    const key = tokenHash(token);
    const record = this.store.refreshTokens.get(key);
    if (!record) throw new UnauthorizedError('refresh token invalid');
    const family = this.store.refreshFamilies.get(idKey(record.family));
    if (!family || family.revoked) throw new UnauthorizedError('refresh token revoked: sign in again');
    if (record.used) {
      this.store.refreshFamilies.put(idKey(family.id), { ...family, revoked: true });
      throw new UnauthorizedError('refresh token reused: every session of this sign-in is revoked, sign in again');
    }
    const now = Date.now();
    if (record.expiresAt <= now || family.expiresAt <= now) throw new UnauthorizedError('refresh token expired: sign in again');
    // Marking the old token used and storing the new one is one batch, with no await between check and write.
    const writes = [this.store.refreshTokens.putWrite(key, { ...record, used: true })];
    const issued = this.issue(family, now, writes);
    commit(this.store.chain, 'users', writes);
    return issued;
  }

  /** Revokes the family of `token` (logout); unknown tokens are ignored. */
  revoke(token: string | undefined): void {
    if (token === undefined || token === '') return;
    const record = this.store.refreshTokens.get(tokenHash(token));
    const family = record && this.store.refreshFamilies.get(idKey(record.family));
    if (family && !family.revoked) this.store.refreshFamilies.put(idKey(family.id), { ...family, revoked: true });
  }

  private issue(family: RefreshTokenFamily, now: number, writes: Write[]): IssuedRefreshToken {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = Math.min(now + params.refreshTokenSeconds * 1000, family.expiresAt);
    const record: RefreshTokenRecord = { family: family.id, userId: family.userId, expiresAt, used: false };
    writes.push(this.store.refreshTokens.putWrite(tokenHash(token), record));
    return { userId: family.userId, token, maxAgeSeconds: Math.max(0, Math.floor((expiresAt - now) / 1000)) };
  }
}

/** The attributes every refresh cookie carries; Secure except to a client on loopback over plain HTTP (development). */
function cookieAttributes(ctx: Context): string {
  // ctx.ip is the client as src/net/client-ip.ts names it (a trusted proxy's X-Forwarded-For included).
  const plainLocal = isLoopback(ctx.ip) && !clientUsesHttps(ctx);
  return `Path=${REFRESH_COOKIE_PATH}; HttpOnly; SameSite=Strict${plainLocal ? '' : '; Secure'}`;
}

export function setRefreshCookie(ctx: Context, issued: IssuedRefreshToken): void {
  ctx.append('Set-Cookie', `${REFRESH_COOKIE}=${issued.token}; Max-Age=${issued.maxAgeSeconds}; ${cookieAttributes(ctx)}`);
}

export function clearRefreshCookie(ctx: Context): void {
  ctx.append('Set-Cookie', `${REFRESH_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${cookieAttributes(ctx)}`);
}

export function readRefreshCookie(ctx: Context): string | undefined {
  return ctx.cookies.get(REFRESH_COOKIE, { signed: false }) || undefined;
}
