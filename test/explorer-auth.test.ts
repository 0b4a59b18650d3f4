// Explorer accounts, tokens, API keys, watchlists and rate limits, against a real node (RocksDB in
// a temp dir) and a real explorer server on a real socket. Rate limits run on a clock the test
// moves, so windows pass without waiting; tokens expire on the real clock.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { mnemonicToAccount } from 'viem/accounts';
import type { NodeConfig } from '../src/config.js';
import {
  createExplorerAuth,
  jwtSecret,
  recordApiKeyUsage,
  setApiKeyTier,
  UsersStore,
  type ExplorerAuth,
} from '../src/explorer/auth/index.js';
import type { Indexer } from '../src/explorer/indexer/indexer.js';
import { startExplorerServer, type ExplorerServer } from '../src/explorer/server.js';
import type { ExplorerServices } from '../src/explorer/definition.js';
import { createLogger } from '../src/log.js';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, chain as chainParams, explorer as params } from '../src/params.js';

const DAY_MS = 86_400_000;
const log = createLogger('silent');

let dataDir: string;
let node: RunningNode;
let auth: ExplorerAuth;
let indexer: Indexer;
let server: ExplorerServer;
let base: string;
/** The limiter's clock: 01:00 UTC of today, moved by the tests. */
let clock = Math.floor(Date.now() / DAY_MS) * DAY_MS + 3_600_000;

function config(): NodeConfig {
  return devnetConfig(dataDir);
}

interface Reply {
  status: number;
  headers: Headers;
  json: any;
  cookies: string[];
}

interface Call {
  body?: unknown;
  /** Raw body text (sent as JSON). */
  raw?: string;
  token?: string;
  key?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

async function api(method: string, route: string, call: Call = {}, at = base): Promise<Reply> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.body !== undefined || call.raw !== undefined) headers['content-type'] ??= 'application/json';
  if (call.token) headers['authorization'] = `Bearer ${call.token}`;
  if (call.key) headers['x-api-key'] = call.key;
  if (call.cookie) headers['cookie'] = call.cookie;
  const res = await fetch(`${at}${route}`, { method, headers, body: call.raw ?? (call.body === undefined ? undefined : JSON.stringify(call.body)) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined, cookies: res.headers.getSetCookie() };
}

/** Asserts a failure envelope with this status and a message matching `message`. */
function assertFails(r: Reply, status: number, message: RegExp): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.ok, false);
  assert.match(r.json.error, message);
}

/** The `svc_refresh=...` pair of a response's Set-Cookie, for the Cookie header of the next request. */
function refreshCookie(r: Reply): string {
  const c = r.cookies.find((s) => s.startsWith('svc_refresh='));
  assert.ok(c, `no svc_refresh cookie in ${JSON.stringify(r.cookies)}`);
  return c.split(';')[0]!;
}

const uniqueEmail = () => `user-${randomBytes(6).toString('hex')}@example.com`;
const PASSWORD = 'correct horse battery staple';

interface Session {
  id: string;
  email: string;
  token: string;
  cookie: string;
}

async function signUp(email = uniqueEmail()): Promise<Session> {
  const r = await api('POST', '/auth/register', { body: { email, password: PASSWORD } });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return { id: r.json.data.user.id, email: r.json.data.user.email, token: r.json.data.accessToken, cookie: refreshCookie(r) };
}

async function newKey(s: Session, name = 'test key'): Promise<{ id: string; key: string }> {
  const r = await api('POST', '/api-keys', { token: s.token, body: { name } });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return { id: r.json.data.id, key: r.json.data.key };
}

const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-explorer-auth-test-'));
  node = await startNode(config(), { log });
  // Its own access control with a clock the tests move and no loopback exemption; the node's indexer.
  auth = createExplorerAuth(node.services.chain, dataDir, log, { env: {}, now: () => clock });
  indexer = node.explorer.services.indexer;
  const services: ExplorerServices = { node: node.services, indexer, indexes: indexer.indexes, access: auth.access };
  server = await startExplorerServer(services, auth.modules, { host: '127.0.0.1', port: 0, log });
  base = `http://127.0.0.1:${server.port}/api/v1`;
});

after(async () => {
  await server?.close();
  await auth?.close();
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// Every test starts in fresh per-minute and per-second windows.
beforeEach(() => {
  clock += 61_000;
});

describe('POST /auth/register creates an account', () => {
  it('returns 201 with the user, a Bearer access token of 15 minutes, and the refresh cookie', async () => {
    const r = await api('POST', '/auth/register', { body: { email: '  Alice.Register@Example.COM ', password: PASSWORD } });
    assert.equal(r.status, 201);
    assert.equal(r.json.ok, true);
    const { user, accessToken, tokenType, expiresIn } = r.json.data;
    assert.match(user.id, /^[0-9a-f]{32}$/);
    assert.equal(user.email, 'alice.register@example.com', 'emails are stored lowercase and trimmed');
    assert.ok(!Number.isNaN(Date.parse(user.createdAt)));
    assert.equal(tokenType, 'Bearer');
    assert.equal(expiresIn, params.accessTokenSeconds);
    assert.equal(expiresIn, 900);
    const claims = jwt.decode(accessToken, { complete: true })!;
    assert.equal(claims.header.alg, 'HS256');
    assert.equal((claims.payload as jwt.JwtPayload).sub, user.id);
    assert.equal(user.passwordHash, undefined, 'no password hash in the response');
  });

  it('sets svc_refresh HttpOnly, SameSite=Strict, Path=/api/v1/auth, and not Secure on loopback', async () => {
    const r = await api('POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD } });
    const cookie = r.cookies.find((c) => c.startsWith('svc_refresh='))!;
    const attrs = cookie.split(';').map((a) => a.trim().toLowerCase());
    assert.match(attrs[0]!, /^svc_refresh=[a-z0-9_-]{43}$/);
    assert.ok(attrs.includes('httponly'));
    assert.ok(attrs.includes('samesite=strict'));
    assert.ok(attrs.includes('path=/api/v1/auth'));
    assert.ok(attrs.includes(`max-age=${params.refreshTokenSeconds}`));
    assert.ok(!attrs.includes('secure'), 'plain HTTP on loopback cannot carry a Secure cookie');
  });

  it('a duplicate email is 409, whatever its case', async () => {
    const email = uniqueEmail();
    await signUp(email);
    assertFails(await api('POST', '/auth/register', { body: { email: email.toUpperCase(), password: PASSWORD } }), 409, /already exists/);
  });

  it('concurrent registrations of one email create one account', async () => {
    const email = uniqueEmail();
    const replies = await Promise.all([0, 1, 2].map(() => api('POST', '/auth/register', { body: { email, password: PASSWORD } })));
    assert.deepEqual(replies.map((r) => r.status).sort(), [201, 409, 409]);
  });

  it('rejects bad input with 400 and a message', async () => {
    const cases: [unknown, RegExp][] = [
      [{ password: PASSWORD }, /body\.email is required/],
      [{ email: uniqueEmail() }, /body\.password is required/],
      [{ email: 42, password: PASSWORD }, /body\.email must be a string, got number/],
      [{ email: uniqueEmail(), password: ['x'] }, /body\.password must be a string, got array/],
      [{ email: 'not-an-email', password: PASSWORD }, /email is not a valid address/],
      [{ email: uniqueEmail(), password: 'short' }, /password must be at least 8 characters/],
      [{ email: uniqueEmail(), password: 'x'.repeat(129) }, /password must be at most 128 characters/],
      [{ email: uniqueEmail(), password: PASSWORD, admin: true }, /body\.admin is not allowed/],
      [[1, 2], /body must be an object, got array/],
    ];
    for (const [body, message] of cases) assertFails(await api('POST', '/auth/register', { body }), 400, message);
    assertFails(await api('POST', '/auth/register', { raw: '{"email":' }), 400, /not valid JSON/);
  });
});

describe('POST /auth/login signs in', () => {
  it('returns a session for the right password, any email case', async () => {
    const s = await signUp();
    const r = await api('POST', '/auth/login', { body: { email: s.email.toUpperCase(), password: PASSWORD } });
    assert.equal(r.status, 200);
    assert.equal(r.json.data.user.id, s.id);
    assert.equal(r.json.data.tokenType, 'Bearer');
    refreshCookie(r);
    const me = await api('GET', '/auth/me', { token: r.json.data.accessToken });
    assert.equal(me.json.data.id, s.id);
  });

  it('a wrong password and an unknown email are the same 401', async () => {
    const s = await signUp();
    assertFails(await api('POST', '/auth/login', { body: { email: s.email, password: 'wrong password' } }), 401, /^email or password is incorrect$/);
    assertFails(await api('POST', '/auth/login', { body: { email: uniqueEmail(), password: PASSWORD } }), 401, /^email or password is incorrect$/);
  });

  it('rejects bad input with 400', async () => {
    assertFails(await api('POST', '/auth/login', { body: {} }), 400, /body\.email is required/);
    assertFails(await api('POST', '/auth/login', { body: { email: 'a@b.co', password: 7 } }), 400, /body\.password must be a string, got number/);
    assertFails(await api('POST', '/auth/login', { raw: '' }), 400, /body\.email is required/);
  });
});

describe('GET /auth/me shows the profile', () => {
  it('id, email, createdAt, and counts of API keys and watchlist entries', async () => {
    const s = await signUp();
    await newKey(s);
    await api('POST', '/watchlist', { token: s.token, body: { address: randomAddress() } });
    await api('POST', '/watchlist', { token: s.token, body: { address: randomAddress() } });
    const r = await api('GET', '/auth/me', { token: s.token });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json.data).sort(), ['apiKeys', 'createdAt', 'email', 'id', 'watchlist']);
    assert.equal(r.json.data.id, s.id);
    assert.equal(r.json.data.email, s.email);
    assert.equal(r.json.data.apiKeys, 1);
    assert.equal(r.json.data.watchlist, 2);
  });

  it('without a token is 401 saying it is missing', async () => {
    const r = await api('GET', '/auth/me');
    assertFails(r, 401, /access token missing/);
    assert.equal(r.headers.get('www-authenticate'), 'Bearer');
  });
});

describe('access tokens are HS256 JWTs checked strictly', () => {
  let s: Session;
  let secret: Buffer;
  const claims = () => ({ email: s.email, typ: 'access' });
  const options = (extra: jwt.SignOptions = {}): jwt.SignOptions => ({ subject: s.id, issuer: 'svc-explorer', audience: 'svc-explorer-api', ...extra });

  before(async () => {
    clock += 61_000;
    s = await signUp();
    secret = jwtSecret(dataDir, new UsersStore(node.services.chain), {});
  });

  it('the persisted secret signs tokens the server accepts', async () => {
    const token = jwt.sign(claims(), secret, options({ algorithm: 'HS256', expiresIn: 60 }));
    assert.equal((await api('GET', '/auth/me', { token })).status, 200);
  });

  it('a tampered token is 401 invalid', async () => {
    const [h, p, sig] = s.token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    payload.sub = '0'.repeat(32);
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
    assertFails(await api('GET', '/auth/me', { token: forged }), 401, /^access token invalid$/);
    const flipped = s.token.slice(0, -2) + (s.token.endsWith('A') ? 'BB' : 'AA');
    assertFails(await api('GET', '/auth/me', { token: flipped }), 401, /^access token invalid$/);
  });

  it('an alg: none token is 401', async () => {
    const none = jwt.sign(claims(), null, { ...options({ expiresIn: 60 }), algorithm: 'none' });
    assert.equal(none.split('.')[2], '');
    assertFails(await api('GET', '/auth/me', { token: none }), 401, /^access token invalid$/);
  });

  it('HS512 with the real secret is 401: the algorithm is pinned', async () => {
    const token = jwt.sign(claims(), secret, options({ algorithm: 'HS512', expiresIn: 60 }));
    assertFails(await api('GET', '/auth/me', { token }), 401, /^access token invalid$/);
  });

  it('an expired token is 401 saying it expired', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    const token = jwt.sign({ ...claims(), iat: past - 900, exp: past }, secret, options({ algorithm: 'HS256' }));
    assertFails(await api('GET', '/auth/me', { token }), 401, /access token expired/);
  });

  it('a token signed with another secret is 401', async () => {
    const token = jwt.sign(claims(), randomBytes(64), options({ algorithm: 'HS256', expiresIn: 60 }));
    assertFails(await api('GET', '/auth/me', { token }), 401, /^access token invalid$/);
  });

  it('a token of another issuer, or a refresh-shaped claim set, is 401', async () => {
    assertFails(await api('GET', '/auth/me', { token: jwt.sign(claims(), secret, options({ algorithm: 'HS256', issuer: 'someone-else', expiresIn: 60 })) }), 401, /invalid/);
    assertFails(await api('GET', '/auth/me', { token: jwt.sign({ typ: 'refresh' }, secret, options({ algorithm: 'HS256', expiresIn: 60 })) }), 401, /invalid/);
  });

  it('a header that is not "Bearer <token>" is 401', async () => {
    assertFails(await api('GET', '/auth/me', { headers: { authorization: `Basic ${s.token}` } }), 401, /must be "Bearer <access token>"/);
  });

  it('SVC_EXPLORER_JWT_SECRET is used when set, and must be at least 32 bytes', () => {
    const store = new UsersStore(node.services.chain);
    const configured = 'x'.repeat(params.minJwtSecretBytes);
    assert.deepEqual(jwtSecret(dataDir, store, { SVC_EXPLORER_JWT_SECRET: configured }), Buffer.from(configured));
    assert.throws(() => jwtSecret(dataDir, store, { SVC_EXPLORER_JWT_SECRET: 'too short' }), /at least 32 bytes/);
    assert.deepEqual(jwtSecret(dataDir, store, {}), secret, 'without the variable the stored secret stays');
  });
});

describe('POST /auth/refresh rotates the refresh token', () => {
  it('issues a new access token and a new refresh cookie', async () => {
    const s = await signUp();
    const r = await api('POST', '/auth/refresh', { cookie: s.cookie });
    assert.equal(r.status, 200);
    assert.equal(r.json.data.user.id, s.id);
    const next = refreshCookie(r);
    assert.notEqual(next, s.cookie);
    assert.equal((await api('GET', '/auth/me', { token: r.json.data.accessToken })).status, 200);
    assert.equal((await api('POST', '/auth/refresh', { cookie: next })).status, 200, 'the new token works once');
  });

  it('reusing an exchanged token is 401 and revokes the whole family', async () => {
    const s = await signUp();
    const first = await api('POST', '/auth/refresh', { cookie: s.cookie });
    const newest = refreshCookie(first);
    const reuse = await api('POST', '/auth/refresh', { cookie: s.cookie });
    assertFails(reuse, 401, /reused.*revoked/);
    assert.ok(reuse.cookies.some((c) => /^svc_refresh=;.*Max-Age=0/i.test(c)), 'the refused cookie is cleared');
    assertFails(await api('POST', '/auth/refresh', { cookie: newest }), 401, /revoked/);
  });

  it('another sign-in of the same user is not affected', async () => {
    const s = await signUp();
    const other = await api('POST', '/auth/login', { body: { email: s.email, password: PASSWORD } });
    await api('POST', '/auth/refresh', { cookie: s.cookie });
    await api('POST', '/auth/refresh', { cookie: s.cookie });
    assert.equal((await api('POST', '/auth/refresh', { cookie: refreshCookie(other) })).status, 200);
  });

  it('no cookie or an unknown token is 401', async () => {
    assertFails(await api('POST', '/auth/refresh'), 401, /refresh token missing/);
    assertFails(await api('POST', '/auth/refresh', { cookie: `svc_refresh=${randomBytes(32).toString('base64url')}` }), 401, /refresh token invalid/);
  });
});

describe('POST /auth/logout ends the sign-in', () => {
  it('revokes the family and clears the cookie', async () => {
    const s = await signUp();
    const refreshed = await api('POST', '/auth/refresh', { cookie: s.cookie });
    const current = refreshCookie(refreshed);
    const r = await api('POST', '/auth/logout', { cookie: current, body: {} });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { ok: true, data: { loggedOut: true } });
    const cleared = r.cookies.find((c) => c.startsWith('svc_refresh='))!;
    assert.match(cleared, /^svc_refresh=; Max-Age=0;/);
    assert.match(cleared, /Path=\/api\/v1\/auth/);
    assert.match(cleared, /HttpOnly/);
    assertFails(await api('POST', '/auth/refresh', { cookie: current }), 401, /revoked/);
  });

  it('without a cookie it still answers and clears', async () => {
    const r = await api('POST', '/auth/logout', { raw: '' });
    assert.equal(r.status, 200);
    assert.ok(r.cookies.some((c) => c.startsWith('svc_refresh=;')));
  });
});

describe('register, login and logout take JSON only (no cross-site form or text/plain post)', () => {
  const form = (body: Record<string, string>) => new URLSearchParams(body).toString();

  it('a form-encoded or text/plain login is 415 and signs no one in, even with the right password', async () => {
    const s = await signUp();
    for (const [type, raw] of [
      ['application/x-www-form-urlencoded', form({ email: s.email, password: PASSWORD })],
      ['text/plain', JSON.stringify({ email: s.email, password: PASSWORD })],
      ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="email"\r\n\r\n${s.email}\r\n--x--\r\n`],
    ] as const) {
      const r = await api('POST', '/auth/login', { raw, headers: { 'content-type': type } });
      assertFails(r, 415, /^Content-Type must be application\/json \(got "[^"]+"\): this route takes JSON bodies only$/);
      assert.deepEqual(r.cookies, [], `${type}: no refresh cookie`);
      assert.equal(r.json.data, undefined, `${type}: no access token`);
    }
    const none = await fetch(`${base}/auth/login`, { method: 'POST', body: form({ email: s.email, password: PASSWORD }), headers: { 'content-type': '' } });
    assert.equal(none.status, 415);
    // The JSON login still works: the refusals counted as no failure of the account.
    assert.equal((await api('POST', '/auth/login', { body: { email: s.email, password: PASSWORD } })).status, 200);
  });

  it('a form-encoded register is 415 and creates no account', async () => {
    const email = uniqueEmail();
    const r = await api('POST', '/auth/register', { raw: form({ email, password: PASSWORD }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertFails(r, 415, /Content-Type must be application\/json/);
    assertFails(await api('POST', '/auth/login', { body: { email, password: PASSWORD } }), 401, /email or password is incorrect/);
  });

  it('a text/plain or form-encoded logout is 415 and the sign-in stays valid', async () => {
    const s = await signUp();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const r = await api('POST', '/auth/logout', { cookie: s.cookie, raw: '{}', headers: { 'content-type': type } });
      assertFails(r, 415, /Content-Type must be application\/json/);
      assert.deepEqual(r.cookies, [], `${type}: the cookie is not cleared`);
    }
    const bare = await api('POST', '/auth/logout', { cookie: s.cookie });
    assertFails(bare, 415, /got none/);
    const refreshed = await api('POST', '/auth/refresh', { cookie: s.cookie });
    assert.equal(refreshed.status, 200, 'the sign-in was not revoked');
    const out = await api('POST', '/auth/logout', { cookie: refreshCookie(refreshed), body: {} });
    assert.equal(out.status, 200);
    assertFails(await api('POST', '/auth/logout', { body: { extra: 1 } }), 400, /body\.extra is not allowed/);
  });
});

describe('API keys', () => {
  it('POST /api-keys returns svc_ + 40 base62 characters once; GET lists it without the key', async () => {
    const s = await signUp();
    const r = await api('POST', '/api-keys', { token: s.token, body: { name: '  indexer bot ' } });
    assert.equal(r.status, 201);
    const created = r.json.data;
    assert.match(created.key, /^svc_[0-9A-Za-z]{40}$/);
    assert.equal(created.prefix, created.key.slice(0, 8));
    assert.equal(created.tier, 'Free');
    assert.equal(created.name, 'indexer bot');
    assert.equal(created.requestsToday, 0);
    assert.equal(created.lastUsedAt, null);
    const list = await api('GET', '/api-keys', { token: s.token });
    assert.equal(list.status, 200);
    assert.equal(list.json.data.maxKeys, params.apiKeysPerAccount);
    assert.equal(list.json.data.items.length, 1);
    const item = list.json.data.items[0];
    assert.deepEqual(Object.keys(item).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'requestsToday', 'tier']);
    assert.equal(item.id, created.id);
    assert.ok(!JSON.stringify(list.json).includes(created.key.slice(8)), 'the key is never shown again');
  });

  it('a key works as X-Api-Key and ?apikey=, and is counted for today', async () => {
    const s = await signUp();
    const k = await newKey(s);
    assert.equal((await api('GET', '/watchlist', { token: s.token, key: k.key })).status, 200);
    assert.equal((await api(`GET`, `/watchlist?apikey=${k.key}`, { token: s.token })).status, 200);
    const usage = await api('GET', `/api-keys/${k.id}/usage`, { token: s.token });
    assert.equal(usage.status, 200);
    assert.equal(usage.json.data.requestsToday, 2, 'requests made with the key; this one was made without it');
    assert.equal(usage.json.data.tier, 'Free');
    assert.equal(usage.json.data.dailyLimit, 10_000);
    assert.equal(usage.json.data.remainingToday, 9_998);
    assert.equal(usage.json.data.perSecond, 5);
    assert.equal(usage.json.data.day, new Date(clock).toISOString().slice(0, 10));
    const list = await api('GET', '/api-keys', { token: s.token });
    assert.equal(list.json.data.items[0].requestsToday, 2);
    assert.equal(list.json.data.items[0].lastUsedAt, new Date(clock).toISOString());
  });

  it('the cap holds under 10 concurrent creations: exactly 5 succeed, the rest are 409', async () => {
    const s = await signUp();
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => api('POST', '/api-keys', { token: s.token, body: { name: `key ${i}` } })));
    const created = replies.filter((r) => r.status === 201);
    const refused = replies.filter((r) => r.status !== 201);
    assert.equal(created.length, params.apiKeysPerAccount);
    assert.equal(created.length, 5);
    for (const r of refused) assertFails(r, 409, /at most 5 keys/);
    assert.equal((await api('GET', '/api-keys', { token: s.token })).json.data.items.length, 5);
  });

  it('an unknown, malformed or revoked key is 401, not anonymous', async () => {
    const s = await signUp();
    const unknown = `svc_${'A'.repeat(40)}`;
    assertFails(await api('GET', '/watchlist', { token: s.token, key: unknown }), 401, /API key is not valid or has been revoked/);
    assertFails(await api('GET', '/watchlist?apikey=nonsense', { token: s.token }), 401, /API key is not valid/);
    const k = await newKey(s);
    const revoked = await api('DELETE', `/api-keys/${k.id}`, { token: s.token });
    assert.equal(revoked.status, 200);
    assert.deepEqual(revoked.json.data, { id: k.id, revoked: true });
    assertFails(await api('GET', '/watchlist', { token: s.token, key: k.key }), 401, /revoked/);
    assert.equal((await api('GET', '/api-keys', { token: s.token })).json.data.items.length, 0);
  });

  it("another user's key is 404 for revoke and usage, and keeps working", async () => {
    const owner = await signUp();
    const other = await signUp();
    const k = await newKey(owner);
    assertFails(await api('DELETE', `/api-keys/${k.id}`, { token: other.token }), 404, /not found/);
    assertFails(await api('GET', `/api-keys/${k.id}/usage`, { token: other.token }), 404, /not found/);
    assert.equal((await api('GET', '/watchlist', { token: owner.token, key: k.key })).status, 200);
  });

  it('rejects bad input with 400, and needs a token', async () => {
    const s = await signUp();
    assertFails(await api('POST', '/api-keys', { token: s.token, body: {} }), 400, /body\.name is required/);
    assertFails(await api('POST', '/api-keys', { token: s.token, body: { name: 5 } }), 400, /body\.name must be a string, got number/);
    assertFails(await api('POST', '/api-keys', { token: s.token, body: { name: '   ' } }), 400, /must not be blank/);
    assertFails(await api('POST', '/api-keys', { token: s.token, body: { name: 'x'.repeat(65) } }), 400, /at most 64 characters/);
    assertFails(await api('POST', '/api-keys', { token: s.token, body: { name: 'a', tier: 'Pro' } }), 400, /body\.tier is not allowed/);
    assertFails(await api('DELETE', '/api-keys/not-an-id', { token: s.token }), 400, /path parameter "id" is malformed/);
    assertFails(await api('GET', '/api-keys/XYZ/usage', { token: s.token }), 400, /path parameter "id" is malformed/);
    assertFails(await api('DELETE', `/api-keys/${'0'.repeat(32)}`, { token: s.token }), 404, /not found/);
    assertFails(await api('GET', '/api-keys'), 401, /access token missing/);
    assertFails(await api('POST', '/api-keys', { body: { name: 'a' } }), 401, /access token missing/);
  });

  it('daily usage survives a restart of the explorer auth', async () => {
    const s = await signUp();
    const k = await newKey(s);
    for (let i = 0; i < 3; i++) assert.equal((await api('GET', '/watchlist', { token: s.token, key: k.key })).status, 200);
    auth.services.usage.flush();
    const restarted = createExplorerAuth(node.services.chain, dataDir, log, { env: {}, now: () => clock });
    try {
      assert.equal(restarted.services.usage.today(k.id), 3);
      assert.equal(restarted.services.usage.lastUsedAt(k.id), clock);
    } finally {
      await restarted.close();
    }
  });
});

describe('watchlist', () => {
  it('POST, GET, PATCH and DELETE one entry', async () => {
    const s = await signUp();
    const address = randomAddress().replace(/[a-f]/g, (c) => c.toUpperCase()).replace('0X', '0x');
    const created = await api('POST', '/watchlist', { token: s.token, body: { address, name: 'cold wallet', notifyIncoming: true, notifyOutgoing: false } });
    assert.equal(created.status, 201);
    const e = created.json.data;
    assert.match(e.id, /^[0-9a-f]{32}$/);
    assert.equal(e.address, address.toLowerCase());
    assert.equal(e.name, 'cold wallet');
    assert.equal(e.notifyIncoming, true);
    assert.equal(e.notifyOutgoing, false);
    assert.equal(e.latestActivity, null);

    const got = await api('GET', `/watchlist/${e.id}`, { token: s.token });
    assert.deepEqual(got.json.data, e);

    const patched = await api('PATCH', `/watchlist/${e.id}`, { token: s.token, body: { name: 'renamed', notifyOutgoing: true } });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.data.name, 'renamed');
    assert.equal(patched.json.data.notifyOutgoing, true);
    assert.equal(patched.json.data.notifyIncoming, true);
    assert.equal(patched.json.data.address, e.address);

    const list = await api('GET', '/watchlist', { token: s.token });
    assert.equal(list.json.data.items.length, 1);
    assert.equal(list.json.data.items[0].name, 'renamed');

    const deleted = await api('DELETE', `/watchlist/${e.id}`, { token: s.token });
    assert.deepEqual(deleted.json, { ok: true, data: { id: e.id, deleted: true } });
    assertFails(await api('GET', `/watchlist/${e.id}`, { token: s.token }), 404, /not found/);
    assert.equal((await api('POST', '/watchlist', { token: s.token, body: { address } })).status, 201, 'the address can be added again');
  });

  it('defaults: empty name, both notifications on', async () => {
    const s = await signUp();
    const r = await api('POST', '/watchlist', { token: s.token, body: { address: randomAddress() } });
    assert.equal(r.json.data.name, '');
    assert.equal(r.json.data.notifyIncoming, true);
    assert.equal(r.json.data.notifyOutgoing, true);
  });

  it('a duplicate address in one watchlist is 409; another user may watch it', async () => {
    const s = await signUp();
    const address = randomAddress();
    await api('POST', '/watchlist', { token: s.token, body: { address } });
    assertFails(await api('POST', '/watchlist', { token: s.token, body: { address: address.toUpperCase().replace('0X', '0x') } }), 409, /already on the watchlist/);
    const other = await signUp();
    assert.equal((await api('POST', '/watchlist', { token: other.token, body: { address } })).status, 201);
  });

  it("another user's entry is 404 and cannot be changed or deleted", async () => {
    const owner = await signUp();
    const other = await signUp();
    const e = (await api('POST', '/watchlist', { token: owner.token, body: { address: randomAddress(), name: 'mine' } })).json.data;
    assertFails(await api('GET', `/watchlist/${e.id}`, { token: other.token }), 404, /not found/);
    assertFails(await api('PATCH', `/watchlist/${e.id}`, { token: other.token, body: { name: 'stolen' } }), 404, /not found/);
    assertFails(await api('DELETE', `/watchlist/${e.id}`, { token: other.token }), 404, /not found/);
    assert.equal((await api('GET', '/watchlist', { token: other.token })).json.data.items.length, 0);
    const still = await api('GET', `/watchlist/${e.id}`, { token: owner.token });
    assert.equal(still.json.data.name, 'mine');
  });

  it('rejects bad input with 400', async () => {
    const s = await signUp();
    const e = (await api('POST', '/watchlist', { token: s.token, body: { address: randomAddress() } })).json.data;
    const post = (body: unknown) => api('POST', '/watchlist', { token: s.token, body });
    assertFails(await post({}), 400, /body\.address is required/);
    assertFails(await post({ address: '0x1234' }), 400, /body\.address is malformed/);
    assertFails(await post({ address: 12 }), 400, /body\.address must be a string, got number/);
    assertFails(await post({ address: randomAddress(), notifyIncoming: 'yes' }), 400, /body\.notifyIncoming must be a boolean, got string/);
    assertFails(await post({ address: randomAddress(), name: 'x'.repeat(65) }), 400, /body\.name must be at most 64 characters/);
    assertFails(await post({ address: randomAddress(), owner: 'x' }), 400, /body\.owner is not allowed/);
    const patch = (body: unknown) => api('PATCH', `/watchlist/${e.id}`, { token: s.token, body });
    assertFails(await patch({}), 400, /at least one of name, notifyIncoming, notifyOutgoing/);
    assertFails(await patch({ address: randomAddress() }), 400, /body\.address is not allowed/);
    assertFails(await patch({ notifyOutgoing: 1 }), 400, /body\.notifyOutgoing must be a boolean, got number/);
    assertFails(await api('GET', '/watchlist/123', { token: s.token }), 400, /path parameter "id" is malformed/);
    assertFails(await api('GET', `/watchlist/${'f'.repeat(32)}`, { token: s.token }), 404, /not found/);
    assertFails(await api('GET', '/watchlist?limit=0', { token: s.token }), 400, /query parameter "limit" must be at least 1/);
    assertFails(await api('GET', '/watchlist?cursor=bogus', { token: s.token }), 400, /cursor is not valid/);
    assertFails(await api('GET', '/watchlist'), 401, /access token missing/);
  });

  it('pages newest first with next and prev cursors', async () => {
    const s = await signUp();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', '/watchlist', { token: s.token, body: { address: randomAddress(), name: `n${i}` } })).json.data.id);
    const first = await api('GET', '/watchlist?limit=2', { token: s.token });
    assert.deepEqual(first.json.data.items.map((e: any) => e.id), [ids[2], ids[1]]);
    assert.equal(first.json.data.prev, null);
    const second = await api('GET', `/watchlist?limit=2&cursor=${first.json.data.next}`, { token: s.token });
    assert.deepEqual(second.json.data.items.map((e: any) => e.id), [ids[0]]);
    assert.equal(second.json.data.next, null);
    const back = await api('GET', `/watchlist?limit=2&cursor=${second.json.data.prev}`, { token: s.token });
    assert.deepEqual(back.json.data.items.map((e: any) => e.id), [ids[2], ids[1]]);
  });

  it(`holds at most ${params.watchlistPerAccount} addresses`, async () => {
    const s = await signUp();
    for (let i = 0; i < params.watchlistPerAccount - 1; i++) {
      auth.services.watchlists.add(s.id, { address: randomAddress(), name: '', notifyIncoming: true, notifyOutgoing: true });
    }
    assert.equal((await api('POST', '/watchlist', { token: s.token, body: { address: randomAddress() } })).status, 201);
    assertFails(await api('POST', '/watchlist', { token: s.token, body: { address: randomAddress() } }), 409, /at most 100 addresses/);
    assert.equal((await api('GET', '/auth/me', { token: s.token })).json.data.watchlist, 100);
  });

  it("shows each address's latest activity from the explorer indexes", async () => {
    const s = await signUp();
    const sender = mnemonicToAccount(chainParams.devMnemonic, { addressIndex: 3 });
    const receiver = randomAddress();
    const rpc = async (method: string, rpcParams: unknown[]) => {
      const res = await fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: rpcParams }) });
      const body = (await res.json()) as { result?: any; error?: { message: string } };
      if (body.error) throw new Error(body.error.message);
      return body.result;
    };
    const nonce = Number(BigInt(await rpc('eth_getTransactionCount', [sender.address, 'pending'])));
    const gasPrice = BigInt(await rpc('eth_gasPrice', []));
    const raw = await sender.signTransaction({ chainId: CHAIN_ID.devnet, type: 'eip1559', nonce, gas: 21_000n, maxFeePerGas: gasPrice * 2n, maxPriorityFeePerGas: 1n, to: receiver as `0x${string}`, value: 1n });
    const hash = await rpc('eth_sendRawTransaction', [raw]);
    let receipt: any = null;
    for (let i = 0; i < 100 && !receipt; i++) {
      receipt = await rpc('eth_getTransactionReceipt', [hash]);
      if (!receipt) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(receipt, 'the transaction was mined');
    await indexer.catchUp();

    const incoming = (await api('POST', '/watchlist', { token: s.token, body: { address: receiver } })).json.data;
    assert.deepEqual(incoming.latestActivity, {
      txHash: hash,
      blockNumber: Number(BigInt(receipt.blockNumber)),
      timestamp: Number(BigInt((await rpc('eth_getBlockByNumber', [receipt.blockNumber, false])).timestamp)),
      direction: 'incoming',
    });
    const outgoing = (await api('POST', '/watchlist', { token: s.token, body: { address: sender.address } })).json.data;
    assert.equal(outgoing.latestActivity.txHash, hash);
    assert.equal(outgoing.latestActivity.direction, 'outgoing');
    const list = await api('GET', '/watchlist', { token: s.token });
    assert.deepEqual(
      list.json.data.items.map((e: any) => e.latestActivity?.direction),
      ['outgoing', 'incoming'],
    );
  });
});

describe('explorer rate limits', () => {
  const headersOf = (r: Reply) => ({
    limit: r.headers.get('x-ratelimit-limit'),
    remaining: r.headers.get('x-ratelimit-remaining'),
    reset: r.headers.get('x-ratelimit-reset'),
    retryAfter: r.headers.get('retry-after'),
  });

  it('anonymous callers get 100 requests per minute per IP; the 101st is 429 with the headers', async () => {
    const s = await signUp();
    clock += 61_000;
    const start = clock;
    const replies: Reply[] = [];
    for (let i = 0; i < 100; i++) replies.push(await api('GET', '/watchlist', { token: s.token }));
    assert.ok(replies.every((r) => r.status === 200));
    const resetAt = String(Math.ceil((start + 60_000) / 1000));
    assert.deepEqual(headersOf(replies[0]!), { limit: '100', remaining: '99', reset: resetAt, retryAfter: null });
    assert.deepEqual(headersOf(replies[99]!), { limit: '100', remaining: '0', reset: resetAt, retryAfter: null });
    clock += 30_000;
    const refused = await api('GET', '/watchlist', { token: s.token });
    assertFails(refused, 429, /100 requests per 60 s per IP/);
    assert.deepEqual(headersOf(refused), { limit: '100', remaining: '0', reset: resetAt, retryAfter: '30' });
    clock += 30_000;
    const later = await api('GET', '/watchlist', { token: s.token });
    assert.equal(later.status, 200, 'the window has slid past the first requests');
  });

  it('an API key is not held to the anonymous limit', async () => {
    const s = await signUp();
    const k = await newKey(s);
    setApiKeyTier(auth, k.id, 'Pro');
    for (let i = 0; i < 97; i++) await api('GET', '/watchlist', { token: s.token });
    assert.equal((await api('GET', '/watchlist', { token: s.token })).headers.get('x-ratelimit-remaining'), '0');
    assert.equal((await api('GET', '/watchlist', { token: s.token })).status, 429);
    const withKey = await api('GET', '/watchlist', { token: s.token, key: k.key });
    assert.equal(withKey.status, 200);
    assert.equal(withKey.headers.get('x-ratelimit-limit'), '50');
  });

  /** Fires `n` concurrent requests with the key at one instant; returns them in order of status. */
  async function burst(s: Session, key: string, n: number): Promise<Reply[]> {
    clock += 1_000;
    return Promise.all(Array.from({ length: n }, () => api('GET', '/watchlist', { token: s.token, key })));
  }

  it('a Free key gets 5 requests per second', async () => {
    const s = await signUp();
    const k = await newKey(s);
    const replies = await burst(s, k.key, 6);
    assert.equal(replies.filter((r) => r.status === 200).length, 5);
    const refused = replies.find((r) => r.status === 429)!;
    assertFails(refused, 429, /Free tier allows 5 requests per second/);
    assert.deepEqual(headersOf(refused), { limit: '5', remaining: '0', reset: String(Math.ceil((clock + 1000) / 1000)), retryAfter: '1' });
    const ok = replies.find((r) => r.status === 200)!;
    assert.equal(ok.headers.get('x-ratelimit-limit'), '5');
    assert.equal((await burst(s, k.key, 5)).filter((r) => r.status === 200).length, 5, 'the next second has room again');
  });

  it('a Standard key gets 20 per second and 100,000 per day', async () => {
    const s = await signUp();
    const k = await newKey(s);
    assert.equal(setApiKeyTier(auth, k.id, 'Standard').tier, 'Standard');
    const replies = await burst(s, k.key, 21);
    assert.equal(replies.filter((r) => r.status === 200).length, 20);
    assert.equal(headersOf(replies.find((r) => r.status === 429)!).limit, '20');
    const usage = await api('GET', `/api-keys/${k.id}/usage`, { token: s.token });
    assert.equal(usage.json.data.tier, 'Standard');
    assert.equal(usage.json.data.dailyLimit, 100_000);
    assert.equal(usage.json.data.perSecond, 20);
  });

  it('a Pro key gets 50 per second and no daily limit', async () => {
    const s = await signUp();
    const k = await newKey(s);
    setApiKeyTier(auth, k.id, 'Pro');
    const replies = await burst(s, k.key, 51);
    assert.equal(replies.filter((r) => r.status === 200).length, 50);
    assert.equal(headersOf(replies.find((r) => r.status === 429)!).limit, '50');
    recordApiKeyUsage(auth, k.id, 1_000_000);
    assert.equal((await burst(s, k.key, 1))[0]!.status, 200);
    const usage = await api('GET', `/api-keys/${k.id}/usage`, { token: s.token });
    assert.equal(usage.json.data.dailyLimit, null);
    assert.equal(usage.json.data.remainingToday, null);
  });

  it('a Free key gets 10,000 requests per UTC day, counted again from midnight', async () => {
    const s = await signUp();
    const k = await newKey(s);
    const today = recordApiKeyUsage(auth, k.id, 0);
    recordApiKeyUsage(auth, k.id, 9_999 - today);
    const last = await api('GET', '/watchlist', { token: s.token, key: k.key });
    assert.equal(last.status, 200, 'the 10,000th request of the day passes');
    const midnight = (Math.floor(clock / DAY_MS) + 1) * DAY_MS;
    assert.deepEqual(headersOf(last), { limit: '10000', remaining: '0', reset: String(midnight / 1000), retryAfter: null });
    clock += 1_000;
    const refused = await api('GET', '/watchlist', { token: s.token, key: k.key });
    assertFails(refused, 429, /daily limit reached: the Free tier allows 10000 requests per UTC day/);
    assert.deepEqual(headersOf(refused), { limit: '10000', remaining: '0', reset: String(midnight / 1000), retryAfter: String(Math.ceil((midnight - clock) / 1000)) });
    const usage = await api('GET', `/api-keys/${k.id}/usage`, { token: s.token });
    assert.equal(usage.json.data.requestsToday, 10_000);
    assert.equal(usage.json.data.remainingToday, 0);
    clock = midnight + 1_000;
    assert.equal((await api('GET', '/watchlist', { token: s.token, key: k.key })).status, 200, 'a new UTC day starts a new count');
  });

  it('/auth/* allows 10 requests per minute per IP; the 11th is 429', async () => {
    const start = clock;
    // A new email each time, so that only the per-IP limit binds (not the per-account one).
    const body = () => ({ email: uniqueEmail(), password: 'not the password' });
    for (let i = 0; i < 10; i++) {
      const r = await api('POST', '/auth/login', { body: body() });
      assert.equal(r.status, 401);
      assert.equal(r.headers.get('x-ratelimit-limit'), '10');
      assert.equal(r.headers.get('x-ratelimit-remaining'), String(9 - i));
    }
    const refused = await api('POST', '/auth/login', { body: body() });
    assertFails(refused, 429, /\/auth endpoints allow 10 requests per 60 s per IP/);
    assert.deepEqual(headersOf(refused), { limit: '10', remaining: '0', reset: String(Math.ceil((start + 60_000) / 1000)), retryAfter: '60' });
    assert.equal((await api('GET', '/auth/me')).status, 429, 'every /auth/ path shares the limit');
    clock += 60_000;
    assert.equal((await api('POST', '/auth/login', { body: body() })).status, 401, 'a minute later logins are answered again');
  });
});

describe('failed sign-ins are limited per account too, from any address', () => {
  const { failures, lockoutMs, maxLockoutMs, windowMs } = params.authPerAccount;

  /** A login from `localAddress` (127.0.0.2 and up are loopback too, and each is its own client). */
  function loginFrom(localAddress: string, email: string, password: string): Promise<Reply> {
    const payload = JSON.stringify({ email, password });
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${base}/auth/login`,
        { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
            resolve({ status: res.statusCode ?? 0, headers, json: JSON.parse(text), cookies: res.headers['set-cookie'] ?? [] });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const addresses = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 2}`);

  it(`ten addresses guessing one account: ${failures} guesses are checked, then 429 for everyone, right password or not; other accounts sign in`, async () => {
    const victim = await signUp();
    const other = await signUp();
    // Two wrong guesses from each of ten addresses, all at once: within every per-IP limit.
    const guesses = await Promise.all(addresses.flatMap((a) => [loginFrom(a, victim.email, 'wrong password 1'), loginFrom(a, victim.email, 'wrong password 2')]));
    const statuses = guesses.map((g) => g.status);
    assert.equal(statuses.filter((s) => s === 401).length, failures, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 429).length, guesses.length - failures, `statuses: ${statuses.join(',')}`);
    for (const g of guesses.filter((x) => x.status === 429)) {
      assert.match(g.json.error, new RegExp(`^too many failed sign-ins for this account; retry in ${lockoutMs / 1000} s$`));
      assert.equal(g.headers.get('retry-after'), String(lockoutMs / 1000));
      assert.deepEqual(g.cookies, []);
    }
    // The owner, with the right password, from an address that made no guess: refused too.
    const owner = await loginFrom('127.0.0.12', victim.email.toUpperCase(), PASSWORD);
    assertFails(owner, 429, /too many failed sign-ins for this account/);
    assert.deepEqual(owner.cookies, [], 'no session while locked');
    // Another account is not affected, from the guessing addresses themselves.
    const elsewhere = await loginFrom(addresses[0]!, other.email, PASSWORD);
    assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.json));

    // After the lockout one guess is checked again; failing, it locks twice as long.
    clock += lockoutMs;
    assertFails(await loginFrom(addresses[1]!, victim.email, 'wrong password 3'), 401, /email or password is incorrect/);
    const doubled = await loginFrom(addresses[2]!, victim.email, PASSWORD);
    assertFails(doubled, 429, new RegExp(`retry in ${(2 * lockoutMs) / 1000} s`));
    assert.equal(doubled.headers.get('retry-after'), String((2 * lockoutMs) / 1000));
    clock += 2 * lockoutMs - 1_000;
    assert.equal((await loginFrom(addresses[3]!, victim.email, PASSWORD)).headers.get('retry-after'), '1', 'still locked a second before the end');

    // Once it ends, the right password signs in, and that forgets the failures.
    clock += 1_000;
    const back = await loginFrom(addresses[4]!, victim.email, PASSWORD);
    assert.equal(back.status, 200, JSON.stringify(back.json));
    for (let i = 0; i < failures - 1; i++) assertFails(await loginFrom(addresses[5 + i]!, victim.email, 'wrong again'), 401, /incorrect/);
    assert.equal((await loginFrom('127.0.0.12', victim.email, PASSWORD)).status, 200, `${failures - 1} failures do not lock`);
  });

  it(`the lockout doubles up to ${maxLockoutMs / 60_000} minutes; a quiet window forgets the failures`, async () => {
    const s = await signUp();
    let expected: number = lockoutMs;
    for (let i = 0; i < failures; i++) await loginFrom(addresses[i % addresses.length]!, s.email, 'wrong');
    for (let round = 0; round < 6; round++) {
      const refused = await loginFrom('127.0.0.12', s.email, PASSWORD);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), String(expected / 1000), `round ${round}`);
      clock += expected;
      // The per-IP window of the guessing address has long passed.
      assertFails(await loginFrom(addresses[round]!, s.email, 'wrong'), 401, /incorrect/);
      expected = Math.min(maxLockoutMs, expected * 2);
    }
    assert.equal(expected, maxLockoutMs);
    // A quiet window after the last lockout ends: a new failure is only the first of a new count.
    clock += maxLockoutMs + windowMs;
    assertFails(await loginFrom(addresses[0]!, s.email, 'wrong'), 401, /incorrect/);
    assert.equal((await loginFrom('127.0.0.12', s.email, PASSWORD)).status, 200);
  });
});

describe('the refresh cookie is Secure off loopback', () => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

  it('Set-Cookie carries Secure for a client on a non-loopback address', { skip: external === undefined && 'no non-loopback IPv4 interface' }, async () => {
    const services: ExplorerServices = { node: node.services, indexer, indexes: indexer.indexes, access: auth.access };
    const outside = await startExplorerServer(services, auth.modules, { host: '0.0.0.0', port: 0, log });
    try {
      const r = await api('POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD } }, `http://${external}:${outside.port}/api/v1`);
      assert.equal(r.status, 201);
      const cookie = r.cookies.find((c) => c.startsWith('svc_refresh='))!;
      assert.match(cookie, /; Secure/);
    } finally {
      await outside.close();
    }
  });
});
