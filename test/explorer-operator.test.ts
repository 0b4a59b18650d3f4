// Operator commands on a node's explorer, end to end: the node runs as users start it (the CLI,
// a temp data dir), a user creates an API key through the API, the operator runs
// `svc-node explorer set-tier` on the node's data dir, and the key's limits follow its new tier.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_FILE, ADMIN_TIER_PATH } from '../src/explorer/admin-credential.js';
import { explorer as params } from '../src/params.js';
import { SVC_NODE, spawnCli } from './support/cli-process.js';
import { NodeProcess } from './support/node-process.js';

let node: NodeProcess;
let api: string;

async function call(method: string, route: string, options: { body?: unknown; token?: string; key?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  if (options.key) headers['x-api-key'] = options.key;
  const res = await fetch(`${api}${route}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

/** Runs `svc-node explorer set-tier …`; its exit code and output. */
async function setTier(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = spawnCli(SVC_NODE, ['explorer', 'set-tier', ...args]);
  const code = await cli.exit;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

before(async () => {
  // Loopback metered like any client, so the key's limits show in the headers.
  node = await NodeProcess.start({ extraArgs: ['--no-rate-limit-loopback-exempt'] });
  api = `${node.explorerUrl}/api/v1`;
});

after(async () => {
  await node?.dispose();
});

describe('svc-node explorer set-tier', () => {
  let token: string;
  let keyId: string;
  let key: string;

  before(async () => {
    const reg = await call('POST', '/auth/register', { body: { email: `op-${randomBytes(6).toString('hex')}@example.com`, password: 'correct horse battery staple' } });
    assert.equal(reg.status, 201, JSON.stringify(reg.json));
    token = reg.json.data.accessToken;
    const created = await call('POST', '/api-keys', { token, body: { name: 'partner' } });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    keyId = created.json.data.id;
    key = created.json.data.key;
  });

  it('the running node keeps its admin credential in the data dir, readable by its user only', () => {
    const file = path.join(node.dataDir, ADMIN_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(node.dataDir).mode & 0o777, 0o700);
    const credential = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(credential.url, node.explorerUrl);
    assert.match(credential.token, /^[A-Za-z0-9_-]{43}$/);
  });

  it('a new key is Free; after set-tier Pro its limits are Pro\'s at once', async () => {
    const before = await call('GET', '/blocks?limit=1', { key });
    assert.equal(before.status, 200);
    assert.equal(before.headers.get('x-ratelimit-limit'), String(params.tiers.Free.perSecond));

    const r = await setTier([keyId, 'Pro', '--data-dir', node.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`API key ${keyId} is now Pro: ${params.tiers.Pro.perSecond} requests per second, no daily limit`));

    await new Promise((res) => setTimeout(res, 1_100));
    const after = await call('GET', '/blocks?limit=1', { key });
    assert.equal(after.status, 200);
    assert.equal(after.headers.get('x-ratelimit-limit'), String(params.tiers.Pro.perSecond));
    const usage = await call('GET', `/api-keys/${keyId}/usage`, { token });
    assert.equal(usage.json.data.tier, 'Pro');
    assert.equal(usage.json.data.perSecond, params.tiers.Pro.perSecond);
    assert.equal(usage.json.data.dailyLimit, null);
    const listed = await call('GET', '/api-keys', { token });
    assert.equal(listed.json.data.items[0].tier, 'Pro');
  });

  it('Standard: 20 per second, 100,000 per day; the 21st request in a second is 429', async () => {
    const r = await setTier([keyId, 'Standard', '--data-dir', node.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /is now Standard: 20 requests per second, 100000 per UTC day/);
    await new Promise((res) => setTimeout(res, 1_100));
    const answers = await Promise.all(Array.from({ length: params.tiers.Standard.perSecond + 5 }, () => call('GET', '/health/live', { key })));
    const statuses = answers.map((a) => a.status);
    assert.ok(statuses.filter((s) => s === 200).length <= params.tiers.Standard.perSecond, statuses.join(','));
    assert.ok(statuses.filter((s) => s === 200).length >= params.tiers.Free.perSecond + 1, `more than Free allows: ${statuses.join(',')}`);
    assert.ok(statuses.includes(429));
    const usage = await call('GET', `/api-keys/${keyId}/usage`, { token });
    assert.equal(usage.json.data.dailyLimit, params.tiers.Standard.daily);
  });

  it('an unknown key, a bad id or a bad tier change nothing', async () => {
    const unknown = await setTier(['0'.repeat(32), 'Pro', '--data-dir', node.dataDir]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /API key 0{32} not found/);
    const badId = await setTier(['nope', 'Pro', '--data-dir', node.dataDir]);
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /not 32 lowercase hex characters/);
    const badTier = await setTier([keyId, 'Platinum', '--data-dir', node.dataDir]);
    assert.equal(badTier.code, 2);
    assert.match(badTier.stderr, /Allowed choices are Free, Standard, Pro/);
    assert.equal((await call('GET', `/api-keys/${keyId}/usage`, { token })).json.data.tier, 'Standard');
  });

  it('the admin route wants the token from the data dir; the public API has no such route', async () => {
    const url = `${node.explorerUrl}${ADMIN_TIER_PATH.replace(':id', keyId)}`;
    const put = (headers: Record<string, string>) =>
      fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ tier: 'Pro' }) });
    const none = await put({});
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as any).ok, false);
    assert.equal((await put({ authorization: `Bearer ${'A'.repeat(43)}` })).status, 401);
    // A user's access token is no admin credential.
    assert.equal((await put({ authorization: `Bearer ${token}` })).status, 401);
    assert.equal((await call('GET', `/api-keys/${keyId}/usage`, { token })).json.data.tier, 'Standard');
    assert.equal((await call('PUT', `/api-keys/${keyId}/tier`, { token, body: { tier: 'Pro' } })).status, 404);
  });

  it('with the node stopped it says to start the node, and exits 1', async () => {
    await node.stop();
    assert.ok(!existsSync(path.join(node.dataDir, ADMIN_FILE)), 'the credential goes with the node');
    const r = await setTier([keyId, 'Pro', '--data-dir', node.dataDir]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no node is running on .*start it/);
    await node.restart();
    api = `${node.explorerUrl}/api/v1`;
    const again = await setTier([keyId, 'Pro', '--data-dir', node.dataDir]);
    assert.equal(again.code, 0, again.stderr);
  });
});

describe('svc-node start --trust-proxy', () => {
  it('a list entry that is not an address or CIDR range exits 2 naming it, before anything starts', async () => {
    const cli = spawnCli(SVC_NODE, ['start', '--trust-proxy', '127.0.0.1,proxy.local', '--data-dir', path.join(node.dataDir, 'never-made')]);
    assert.equal(await cli.exit, 2);
    assert.match(cli.stderr(), /--trust-proxy: "proxy\.local" is not an IP address or CIDR range/);
    assert.ok(!existsSync(path.join(node.dataDir, 'never-made')));
    const env = spawnCli(SVC_NODE, ['start', '--data-dir', path.join(node.dataDir, 'never-made')], { SVC_TRUST_PROXY: '10.0.0.0/33' });
    assert.equal(await env.exit, 2);
    assert.match(env.stderr(), /"10\.0\.0\.0\/33" is not an IP address or CIDR range/);
  });
});
