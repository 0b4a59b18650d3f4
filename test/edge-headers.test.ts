// Every answer of every port carries X-Content-Type-Options: nosniff and Referrer-Policy:
// no-referrer (docs/rpc.md, "Response headers"): on the JSON-RPC port the native server's own
// answers (a plain read answered natively, 413, 429) and the dispatcher's; on the WebSocket port its
// plain HTTP answers, its refusals and the upgrade itself; on the explorer the API, its errors, the
// web page, an asset and socket.io's answers. The 408s and connection refusals of every port are
// checked in test/slow-clients.test.ts. A real node on real sockets.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { createLogger } from '../src/log.js';
import { startNode, type RunningNode } from '../src/node.js';
import { rpc as rpcParams } from '../src/params.js';
import { assertEdgeHeaders } from './support/edge-headers.js';
import { devnetConfig } from './support/node-config.js';

/** Requests per second per client on the JSON-RPC port (loopback is metered here). */
const RPC_RATE = 5;

let dataDir: string;
let node: RunningNode;
let explorerPort: number;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a fresh connection (no pooling), from `localAddress` when given. */
function request(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
  write?: (req: http.ClientRequest) => void,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, agent: false, method: options.method ?? 'GET', path: options.path ?? '/', headers: options.headers, localAddress: options.localAddress },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    // A 413 closes the connection while an upload may still be going: that is expected.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    if (write) write(req);
    else req.end(options.body);
  });
}

const postJson = (port: number, body: string, localAddress?: string): Promise<Answer> =>
  request(port, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, localAddress });

/** The response headers of a WebSocket upgrade that succeeds. */
function upgradeHeaders(url: string): Promise<http.IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('upgrade', (res) => {
      resolve(res.headers);
      socket.terminate();
    });
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    socket.on('error', () => undefined);
  });
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-edge-headers-'));
  node = await startNode(devnetConfig(dataDir, { rpcRateLimit: RPC_RATE, rateLimitExemptLoopback: false }), { log: createLogger('silent') });
  explorerPort = node.explorer.server.port;
});

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the JSON-RPC HTTP port', () => {
  it("the native server's answers: a plain read it answers itself, and 413", async () => {
    const chainId = await postJson(node.rpcPort, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', '127.0.0.2');
    assert.equal(chainId.status, 200);
    assert.deepEqual(JSON.parse(chainId.body), { jsonrpc: '2.0', id: 1, result: `0x${node.services.config.chainId.toString(16)}` });
    assertEdgeHeaders(chainId.headers, 'eth_chainId answered natively');

    const tooLarge = await request(
      node.rpcPort,
      { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(rpcParams.maxBodyBytes + 1) }, localAddress: '127.0.0.2' },
      (req) => req.end(),
    );
    assert.equal(tooLarge.status, 413);
    assertEdgeHeaders(tooLarge.headers, '413');
  });

  it("the dispatcher's answers: an error, a 415, a 404, a preflight, /health", async () => {
    const from = '127.0.0.3';
    const unknown = await postJson(node.rpcPort, '{"jsonrpc":"2.0","id":1,"method":"no_such_method"}', from);
    assert.equal(unknown.status, 200);
    assert.equal(JSON.parse(unknown.body).error.code, -32601);
    assertEdgeHeaders(unknown.headers, 'a method error');
    const plain = await request(node.rpcPort, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}', localAddress: from });
    assert.equal(plain.status, 415);
    assertEdgeHeaders(plain.headers, '415');
    const missing = await request(node.rpcPort, { path: '/nowhere', localAddress: from });
    assert.equal(missing.status, 404);
    assertEdgeHeaders(missing.headers, '404');
    const preflight = await request(node.rpcPort, { method: 'OPTIONS', headers: { 'Access-Control-Request-Headers': 'content-type' }, localAddress: from });
    assert.equal(preflight.status, 204);
    assertEdgeHeaders(preflight.headers, 'CORS preflight');
    const health = await request(node.rpcPort, { path: '/health', localAddress: from });
    assert.equal(health.status, 200);
    assertEdgeHeaders(health.headers, '/health');
  });

  it('429 of the per-client rate limit', async () => {
    const answers = await Promise.all(Array.from({ length: 3 * RPC_RATE }, () => postJson(node.rpcPort, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}', '127.0.0.4')));
    const refused = answers.find((a) => a.status === 429);
    assert.ok(refused, `no 429 among ${answers.map((a) => a.status).join(',')}`);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assertEdgeHeaders(refused.headers, '429 rate limited');
    for (const a of answers) assertEdgeHeaders(a.headers, `answer ${a.status}`);
  });
});

describe('the WebSocket port', () => {
  it('426 to a plain HTTP request', async () => {
    const r = await request(node.wsPort);
    assert.equal(r.status, 426);
    assertEdgeHeaders(r.headers, '426');
  });

  it('the 101 of an upgrade', async () => {
    assertEdgeHeaders(await upgradeHeaders(`ws://127.0.0.1:${node.wsPort}`), '101');
  });

  it('400 to a malformed upgrade, as a JSON-RPC error', async () => {
    const r = await request(node.wsPort, { headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13' } });
    assert.equal(r.status, 400);
    assertEdgeHeaders(r.headers, 'malformed upgrade');
    const body = JSON.parse(r.body) as { id: null; error: { code: number; message: string } };
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /^WebSocket upgrade refused: Missing or invalid Sec-WebSocket-Key header$/);
  });
});

describe('the explorer', () => {
  it('API answers and API errors', async () => {
    const live = await request(explorerPort, { path: '/api/v1/health/live' });
    assert.equal(live.status, 200);
    assertEdgeHeaders(live.headers, 'API JSON');
    const bad = await request(explorerPort, { path: '/api/v1/blocks/not-a-block' });
    assert.equal(bad.status, 400);
    assertEdgeHeaders(bad.headers, 'API 400');
    const missing = await request(explorerPort, { path: '/api/v1/no/such/route' });
    assert.equal(missing.status, 404);
    assertEdgeHeaders(missing.headers, 'API 404');
    const wrongMethod = await request(explorerPort, { method: 'DELETE', path: '/api/v1/health/live' });
    assert.equal(wrongMethod.status, 405);
    assertEdgeHeaders(wrongMethod.headers, 'API 405');
  });

  it('the web page and an asset', async () => {
    const page = await request(explorerPort, { path: '/', headers: { Accept: 'text/html' } });
    assert.equal(page.status, 200, 'the web page is built (dist/web)');
    assertEdgeHeaders(page.headers, 'the web page');
    const asset = /\/assets\/[\w.-]+\.(?:js|css)/.exec(page.body)?.[0];
    assert.ok(asset, 'the page names an asset');
    const file = await request(explorerPort, { path: asset });
    assert.equal(file.status, 200);
    assertEdgeHeaders(file.headers, asset);
  });

  it("socket.io's answers: the polling handshake, a refusal and the WebSocket upgrade", async () => {
    const handshake = await request(explorerPort, { path: '/socket.io/?EIO=4&transport=polling' });
    assert.equal(handshake.status, 200);
    assertEdgeHeaders(handshake.headers, 'socket.io polling handshake');
    const refused = await request(explorerPort, { path: '/socket.io/?EIO=4&transport=carrier-pigeon' });
    assert.equal(refused.status, 400);
    assertEdgeHeaders(refused.headers, 'socket.io refusal');
    assertEdgeHeaders(await upgradeHeaders(`ws://127.0.0.1:${explorerPort}/socket.io/?EIO=4&transport=websocket`), 'socket.io upgrade');
  });
});
