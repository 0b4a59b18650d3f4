// The explorer under input that used to break it, and the details of its auth: every failure is
// the envelope with the right status (never a 500 or a stack trace for the client's mistake),
// body schemas see own properties only, tokens must expire, secrets are the node user's alone,
// and forwarded client addresses count only from a trusted reverse proxy (explorer and WebSocket
// ports alike). Real nodes on real sockets with RocksDB in temp dirs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { WebSocket } from 'ws';
import { createLogger } from '../src/log.js';
import { PUBLIC_ROUTES } from '../src/explorer/index.js';
import { startExplorerServer } from '../src/explorer/server.js';
import { JWT_SECRET_FILE, UsersStore } from '../src/explorer/auth/index.js';
import { clientOrigin, TrustedProxies, TrustedProxyError } from '../src/net/client-ip.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devnetConfig } from './support/node-config.js';

const PASSWORD = 'correct horse battery staple';
const uniqueEmail = () => `user-${randomBytes(6).toString('hex')}@example.com`;
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'svc-explorer-hardening-'));
const mode = (p: string) => statSync(p).mode & 0o777;

interface Reply {
  status: number;
  type: string;
  headers: Headers;
  json: any;
}

async function call(base: string, method: string, route: string, options: { raw?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${route}`, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = { notJson: text };
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', headers: res.headers, json };
}

/** A failure envelope with this status, as JSON. */
function assertEnvelope(r: Reply, status: number, message?: RegExp): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.match(r.type, /^application\/json/);
  assert.equal(r.json.ok, false);
  assert.equal(typeof r.json.error, 'string');
  if (message) assert.match(r.json.error, message);
}

let dataDir: string;
let node: RunningNode;
let api: string;

before(async () => {
  dataDir = tempDir();
  node = await startNode(devnetConfig(dataDir), { log: createLogger('silent') });
  api = `${node.explorerUrl}/api/v1`;
});

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a batch item fails on its own', () => {
  it('a malformed %-escape is that item\'s 400; the other items are answered', async () => {
    const r = await call(api, 'POST', '/batch', { body: { requests: [{ path: '/blocks/%E0%A4%A' }, { path: '/blocks/0' }, { path: '//[' }] } });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const [bad, good, notPath] = r.json.data;
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body).sort(), ['error', 'ok']);
    assert.equal(bad.body.ok, false);
    assert.match(bad.body.error, /%-escape/);
    assert.equal(good.status, 200);
    assert.equal(good.body.data.number, 0);
    assert.equal(notPath.status, 400);
  });
});

describe('analytics dates', () => {
  it('a day before 1970-01-01 is 400; the epoch\'s first days are answered', async () => {
    assertEnvelope(await call(api, 'GET', '/analytics/daily-transactions?from=1969-12-31&to=1970-01-05'), 400, /before 1970-01-01/);
    assertEnvelope(await call(api, 'GET', '/analytics/gas-used?from=0001-01-01&to=0001-02-01'), 400, /before 1970-01-01/);
    const r = await call(api, 'GET', '/analytics/daily-transactions?from=1970-01-01&to=1970-01-03');
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.data.points, [
      { date: '1970-01-01', value: '0' },
      { date: '1970-01-02', value: '0' },
      { date: '1970-01-03', value: '0' },
    ]);
  });
});

describe('every status is the envelope', () => {
  it('a method a route does not have is 405 in JSON, with Allow', async () => {
    const r = await call(api, 'PUT', '/blocks');
    assertEnvelope(r, 405, /PUT is not allowed on \/api\/v1\/blocks/);
    assert.match(r.headers.get('allow') ?? '', /GET/);
    assertEnvelope(await call(api, 'DELETE', '/openapi.json'), 405);
  });

  it('an unknown path is 404 in JSON, under /api/v1 and outside it', async () => {
    assertEnvelope(await call(api, 'GET', '/no-such-route'), 404, /not found: GET \/api\/v1\/no-such-route/);
    assertEnvelope(await call(node.explorerUrl, 'GET', '/nothing-here'), 404);
    assertEnvelope(await call(node.explorerUrl, 'POST', '/nothing-here', { body: {} }), 404);
  });
});

describe('a client that aborts mid-body', () => {
  it('gets nothing and costs one debug line at most: no error, no stack', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
        done();
      },
    });
    const log = createLogger('trace', sink);
    const services = { ...node.explorer.services };
    const server = await startExplorerServer(services, PUBLIC_ROUTES, { host: '127.0.0.1', port: 0, log });
    try {
      lines.length = 0;
      for (const route of ['/api/v1/batch', '/api']) {
        const socket = net.connect(server.port, '127.0.0.1');
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        socket.write(`POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"requests": [`);
        await new Promise((r) => setTimeout(r, 100));
        socket.destroy();
        await new Promise((r) => setTimeout(r, 200));
      }
      // The server still serves afterwards.
      assert.equal((await call(`http://127.0.0.1:${server.port}/api/v1`, 'GET', '/health/live')).status, 200);
    } finally {
      await server.close();
    }
    const entries = lines.map((l) => JSON.parse(l) as { level: number; msg: string; path?: string });
    for (const e of entries) {
      assert.ok(e.level < 40, `nothing at warn or above: ${JSON.stringify(e)}`);
      assert.ok(!JSON.stringify(e).includes('"stack"'), `no stack: ${JSON.stringify(e)}`);
    }
    // The API route notes it once at debug; the Etherscan route answers its NOTOK to no one, silently.
    const noted = entries.filter((e) => /mid-body/.test(e.msg));
    assert.deepEqual(noted.map((e) => [e.level, e.path]), [[20, '/api/v1/batch']]);
  });
});

describe('body schemas accept own properties only', () => {
  for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    it(`"${key}" in a body with additionalProperties: false is 400`, async () => {
      const raw = `{"email": "${uniqueEmail()}", "password": "${PASSWORD}", "${key}": 1}`;
      assertEnvelope(await call(api, 'POST', '/auth/login', { raw }), 400, new RegExp(`body\\.${key} is not allowed`));
      assertEnvelope(await call(api, 'POST', '/auth/register', { raw }), 400, new RegExp(`body\\.${key} is not allowed`));
    });
  }

});

describe('access tokens must expire', () => {
  it('a token without exp, signed with the real secret, is 401; the same with exp is accepted', async () => {
    const reg = await call(api, 'POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD } });
    assert.equal(reg.status, 201, JSON.stringify(reg.json));
    const secret = Buffer.from(readFileSync(path.join(dataDir, JWT_SECRET_FILE), 'utf8').trim(), 'base64');
    const options: jwt.SignOptions = { algorithm: 'HS256', subject: reg.json.data.user.id, issuer: 'svc-explorer', audience: 'svc-explorer-api' };
    const claims = { email: reg.json.data.user.email, typ: 'access' };
    const forever = jwt.sign(claims, secret, options);
    assert.equal(jwt.decode(forever, { json: true })?.exp, undefined);
    assertEnvelope(await call(api, 'GET', '/auth/me', { headers: { authorization: `Bearer ${forever}` } }), 401, /^access token invalid$/);
    const expiring = jwt.sign(claims, secret, { ...options, expiresIn: 60 });
    assert.equal((await call(api, 'GET', '/auth/me', { headers: { authorization: `Bearer ${expiring}` } })).status, 200);
  });
});

describe('the data dir and the JWT secret belong to the node\'s user', () => {
  it('a new data dir is 0700 and the generated secret file 0600', () => {
    assert.equal(mode(dataDir), 0o700);
    assert.equal(mode(path.join(dataDir, JWT_SECRET_FILE)), 0o600);
    assert.equal(Buffer.from(readFileSync(path.join(dataDir, JWT_SECRET_FILE), 'utf8').trim(), 'base64').length, 64);
  });

  it('a restart narrows an older dir (0755) and secret (0644), and keeps the secret: tokens stay valid', async () => {
    const dir = tempDir();
    try {
      let n = await startNode(devnetConfig(dir), { log: createLogger('silent') });
      const reg = await call(`${n.explorerUrl}/api/v1`, 'POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD } });
      assert.equal(reg.status, 201);
      await n.stop();
      chmodSync(dir, 0o755);
      chmodSync(path.join(dir, JWT_SECRET_FILE), 0o644);
      n = await startNode(devnetConfig(dir), { log: createLogger('silent') });
      try {
        assert.equal(mode(dir), 0o700);
        assert.equal(mode(path.join(dir, JWT_SECRET_FILE)), 0o600);
        const me = await call(`${n.explorerUrl}/api/v1`, 'GET', '/auth/me', { headers: { authorization: `Bearer ${reg.json.data.accessToken}` } });
        assert.equal(me.status, 200, JSON.stringify(me.json));
      } finally {
        await n.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a secret an older node kept in the database moves to the file, so its tokens stay valid', async () => {
    const dir = tempDir();
    try {
      let n = await startNode(devnetConfig(dir), { log: createLogger('silent') });
      const legacy = randomBytes(64);
      const store = new UsersStore(n.services.chain);
      store.meta.put(Buffer.from('jwt-secret'), legacy.toString('base64'));
      await n.stop();
      rmSync(path.join(dir, JWT_SECRET_FILE));
      n = await startNode(devnetConfig(dir), { log: createLogger('silent') });
      try {
        const file = path.join(dir, JWT_SECRET_FILE);
        assert.ok(existsSync(file));
        assert.equal(mode(file), 0o600);
        assert.deepEqual(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'), legacy);
        assert.equal(new UsersStore(n.services.chain).meta.get(Buffer.from('jwt-secret')), undefined, 'the copy in the database is gone');
      } finally {
        await n.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('trusted proxies (--trust-proxy)', () => {
  it('parses addresses and CIDR ranges of both families, and names a bad entry', () => {
    const t = new TrustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1']);
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '10.1.2.3', '::ffff:10.200.0.1', 'fd12:3456::1', '::1']) assert.ok(t.has(ip), ip);
    for (const ip of ['127.0.0.2', '11.0.0.1', 'fe80::1', '::2', 'not-an-ip', '']) assert.ok(!t.has(ip), ip);
    for (const bad of ['localhost', '10.0.0.0/33', '::/129', '1.2.3.4/8/1', '300.1.1.1', '10.0.0.0/']) {
      assert.throws(() => new TrustedProxies([bad]), TrustedProxyError, bad);
    }
  });

  it('takes the rightmost hop that is not a trusted proxy, and only from a trusted peer', () => {
    const t = new TrustedProxies(['127.0.0.1', '10.0.0.0/8']);
    const xff = (v: string, proto?: string) => ({ 'x-forwarded-for': v, ...(proto ? { 'x-forwarded-proto': proto } : {}) });
    assert.deepEqual(clientOrigin('127.0.0.1', xff('198.51.100.1, 203.0.113.7, 10.0.0.5'), t), { ip: '203.0.113.7', https: false });
    assert.deepEqual(clientOrigin('127.0.0.1', xff('203.0.113.7:4431', 'https'), t), { ip: '203.0.113.7', https: true });
    assert.deepEqual(clientOrigin('127.0.0.1', { 'x-forwarded-for': ['1.1.1.1', '2001:db8::7'] }, t).ip, '2001:db8::7');
    assert.deepEqual(clientOrigin('127.0.0.1', xff('10.0.0.9, 10.0.0.5'), t).ip, '10.0.0.9', 'all trusted: the leftmost');
    assert.deepEqual(clientOrigin('127.0.0.1', {}, t), { ip: '127.0.0.1', https: false });
    assert.deepEqual(clientOrigin('203.0.113.9', xff('127.0.0.1', 'https'), t), { ip: '203.0.113.9', https: false }, 'an untrusted peer\'s headers are ignored');
    assert.deepEqual(clientOrigin('127.0.0.1', xff('203.0.113.7'), TrustedProxies.none), { ip: '127.0.0.1', https: false });
  });

  describe('on a node behind a proxy on the same host', () => {
    let proxied: RunningNode;
    let dir: string;
    let proxiedApi: string;

    before(async () => {
      dir = tempDir();
      // Devnet defaults: loopback exempt from limits; the WebSocket limit low enough to see.
      proxied = await startNode(devnetConfig(dir, { trustProxy: ['127.0.0.1', '::1'], rpcRateLimit: 2 }), { log: createLogger('silent') });
      proxiedApi = `${proxied.explorerUrl}/api/v1`;
    });

    after(async () => {
      await proxied?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a forwarded client is metered, per its own address; the proxy itself stays exempt', async () => {
      const direct = await call(proxiedApi, 'GET', '/health/live');
      assert.equal(direct.headers.get('x-ratelimit-limit'), null, 'loopback without forwarding is exempt');
      const a1 = await call(proxiedApi, 'GET', '/health/live', { headers: { 'x-forwarded-for': '9.9.9.9, 203.0.113.7' } });
      assert.equal(a1.headers.get('x-ratelimit-limit'), '100');
      assert.equal(a1.headers.get('x-ratelimit-remaining'), '99');
      // A spoofed leftmost hop does not make another client.
      const a2 = await call(proxiedApi, 'GET', '/health/live', { headers: { 'x-forwarded-for': '8.8.8.8, 203.0.113.7' } });
      assert.equal(a2.headers.get('x-ratelimit-remaining'), '98');
      const b = await call(proxiedApi, 'GET', '/health/live', { headers: { 'x-forwarded-for': '203.0.113.8' } });
      assert.equal(b.headers.get('x-ratelimit-remaining'), '99');
    });

    it('the refresh cookie is Secure for a forwarded remote client and for X-Forwarded-Proto: https', async () => {
      const secure = (r: Reply) => /;\s*Secure/i.test(r.headers.getSetCookie().find((c) => c.startsWith('svc_refresh=')) ?? '');
      const remote = await call(proxiedApi, 'POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD }, headers: { 'x-forwarded-for': '203.0.113.20' } });
      assert.equal(remote.status, 201, JSON.stringify(remote.json));
      assert.ok(secure(remote));
      const https = await call(proxiedApi, 'POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD }, headers: { 'x-forwarded-proto': 'https' } });
      assert.ok(secure(https));
      const local = await call(proxiedApi, 'POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD } });
      assert.ok(!secure(local), 'plain HTTP from this host: not Secure (development)');
    });

    it('a node without --trust-proxy ignores forwarded headers', async () => {
      const r = await call(api, 'GET', '/health/live', { headers: { 'x-forwarded-for': '203.0.113.7' } });
      assert.equal(r.headers.get('x-ratelimit-limit'), null, 'still the loopback peer, exempt');
      const reg = await call(api, 'POST', '/auth/register', { body: { email: uniqueEmail(), password: PASSWORD }, headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' } });
      assert.doesNotMatch(reg.headers.getSetCookie().join('\n'), /Secure/);
    });

    /** Sends `count` eth_chainId requests at once on a WebSocket opened with `headers`; the number refused by the rate limit. */
    async function wsRefusals(url: string, headers: Record<string, string>, count: number): Promise<number> {
      const ws = new WebSocket(url, { headers });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const answers: { error?: { code: number } }[] = [];
      const done = new Promise<void>((resolve) =>
        ws.on('message', (data) => {
          answers.push(JSON.parse(String(data)));
          if (answers.length === count) resolve();
        }),
      );
      for (let i = 0; i < count; i++) ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] }));
      await done;
      ws.close();
      return answers.filter((a) => a.error !== undefined).length;
    }

    it('the WebSocket port applies the same rule: a forwarded client is rate-limited, the proxy is not', async () => {
      assert.equal(await wsRefusals(proxied.wsUrl, {}, 10), 0);
      assert.ok((await wsRefusals(proxied.wsUrl, { 'x-forwarded-for': '203.0.113.30' }, 10)) >= 5);
    });
  });
});
