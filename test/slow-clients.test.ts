// Slow and greedy clients on the JSON-RPC HTTP, WebSocket and explorer ports (docs/rpc.md, "Connections and
// timeouts"): a request whose headers or body trickle in is cut by the read timeout, a client that
// takes no data is cut by the write timeout, idle kept-alive connections close after the idle
// timeout, a WebSocket message that stops half-way is closed with 1008, and one address holds at
// most --max-connections-per-ip connections per port. A real node on real sockets, with short timeouts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import WebSocket from 'ws';
import { startNode, type RunningNode } from '../src/node.js';
import { STALLED_REASON } from '../src/rpc/ws/connection.js';
import { startWsServer } from '../src/rpc/ws/server.js';
import { assertEdgeHeaders } from './support/edge-headers.js';
import { devnetConfig } from './support/node-config.js';

const READ_TIMEOUT_MS = 3_000;
const WRITE_TIMEOUT_MS = 2_000;
const IDLE_TIMEOUT_MS = 2_000;
const MAX_PER_IP = 4;
/** Timeouts are checked every quarter of the shortest (at most 1 s): a cut may come this much late, plus scheduling. */
const SLACK_MS = 1_500;
const silent = pino({ level: 'silent' });

let dataDir: string;
let node: RunningNode;
let explorerPort: number;
let wsPort: number;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-slow-clients-'));
  // Loopback is not exempt here, so the per-address cap applies to the test's own connections.
  const config = devnetConfig(dataDir, {
    httpReadTimeoutMs: READ_TIMEOUT_MS,
    httpWriteTimeoutMs: WRITE_TIMEOUT_MS,
    httpIdleTimeoutMs: IDLE_TIMEOUT_MS,
    maxConnectionsPerIp: MAX_PER_IP,
    rateLimitExemptLoopback: false,
  });
  node = await startNode(config, { log: silent });
  explorerPort = node.explorer.server.port;
  wsPort = node.wsPort;
});

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A GET request with nothing else. */
const get = (route: string) => `GET ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A TCP connection that speaks HTTP/1.1 by hand: what it sends and when is the test's choice. */
class RawConnection {
  readonly socket: net.Socket;
  private received = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  /** Resolves with the milliseconds from connect to close. */
  readonly closed: Promise<number>;
  readonly connected: Promise<void>;

  constructor(port: number) {
    const start = performance.now();
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('error', () => undefined);
    this.socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve(performance.now() - start)));
    this.connected = new Promise((resolve) => this.socket.once('connect', () => resolve()));
    this.socket.once('close', () => {
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** The last response taken by response(). */
  last: RawResponse = { status: 0, headers: {}, body: '' };

  /** A connection that has been served `route` once and is now idle, kept alive. */
  static async served(port: number, route: string): Promise<RawConnection> {
    const c = new RawConnection(port);
    c.socket.write(get(route));
    const r = await c.response();
    assert.ok(r.status < 400, `${route}: ${r.status} ${r.body}`);
    return c;
  }

  /** What was received and not yet taken by response(). */
  get data(): Buffer {
    return this.received;
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  /** The next complete response (Content-Length bodies), taken off what was received. */
  async response(timeoutMs = 5_000): Promise<RawResponse> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed !== undefined) return parsed;
      if (this.isClosed) throw new Error(`connection closed before a complete response (${this.received.length} bytes)`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error('no response in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, left).unref();
      });
    }
  }

  private parse(): RawResponse | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.received.length < end + 4 + length) return undefined;
    const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
    this.received = this.received.subarray(end + 4 + length);
    this.last = { status: Number(statusLine!.split(' ')[1]), headers, body };
    return this.last;
  }
}

/** Sends one byte every `everyMs` until the connection closes. */
function trickle(c: RawConnection, everyMs: number): void {
  const timer = setInterval(() => {
    if (c.isClosed) clearInterval(timer);
    else c.socket.write('x');
  }, everyMs);
  c.socket.once('close', () => clearInterval(timer));
}

/** Asserts the connection is closed about `timeoutMs` after it opened: not before, and not much after. */
async function closesAfter(c: RawConnection, timeoutMs: number): Promise<number> {
  const elapsed = await Promise.race([c.closed, sleep(timeoutMs + SLACK_MS + 1_000).then(() => Infinity)]);
  c.socket.destroy();
  assert.ok(elapsed >= timeoutMs - 100, `closed after ${Math.round(elapsed)} ms, before the ${timeoutMs} ms timeout`);
  assert.ok(elapsed <= timeoutMs + SLACK_MS, `still open ${Math.round(timeoutMs + SLACK_MS)} ms after connecting (timeout ${timeoutMs} ms)`);
  return elapsed;
}

describe('the explorer: read, write and idle timeouts', () => {
  it('cuts a request whose body trickles in one byte every 2 s with 408 in the envelope', { timeout: 20_000 }, async () => {
    const c = new RawConnection(explorerPort);
    c.socket.write('POST /api/v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    trickle(c, 2_000);
    const r = await c.response(READ_TIMEOUT_MS + SLACK_MS + 1_000);
    assert.equal(r.status, 408);
    assert.equal(r.headers['content-type'], 'application/json');
    assertEdgeHeaders(r.headers, 'explorer 408');
    assert.deepEqual(JSON.parse(r.body), { ok: false, error: `request not received within ${READ_TIMEOUT_MS} ms` });
    await closesAfter(c, READ_TIMEOUT_MS);
  });

  it('cuts a request whose headers trickle in', { timeout: 20_000 }, async () => {
    const c = new RawConnection(explorerPort);
    c.socket.write('GET /api/v1/health/live HTTP/1.1\r\n');
    trickle(c, 500);
    assert.equal((await c.response(READ_TIMEOUT_MS + SLACK_MS + 1_000)).status, 408);
    await closesAfter(c, READ_TIMEOUT_MS);
  });

  it('answers half a request line followed by silence with 408 within the read timeout (node:http headersTimeout)', { timeout: 20_000 }, async () => {
    const c = new RawConnection(explorerPort);
    c.socket.write('GET /api/v1/hea');
    const r = await c.response(READ_TIMEOUT_MS + SLACK_MS + 1_000);
    assert.equal(r.status, 408);
    assertEdgeHeaders(r.headers, 'explorer 408 on late headers');
    assert.deepEqual(JSON.parse(r.body), { ok: false, error: `request not received within ${READ_TIMEOUT_MS} ms` });
    await closesAfter(c, READ_TIMEOUT_MS);
  });

  it('closes an idle kept-alive connection after the idle timeout, and serves one that keeps asking', { timeout: 20_000 }, async () => {
    const idle = await RawConnection.served(explorerPort, '/api/v1/health/live');
    const servedAt = performance.now();
    const idleFor = idle.closed.then(() => performance.now() - servedAt);
    const busy = await RawConnection.served(explorerPort, '/api/v1/health/live');
    // The busy one asks again every half idle timeout: each request restarts its idle clock.
    for (let i = 0; i < 4; i++) {
      await sleep(IDLE_TIMEOUT_MS / 2);
      busy.socket.write(get('/api/v1/health/live'));
      assert.equal((await busy.response()).status, 200);
    }
    assert.equal(busy.isClosed, false);
    const closedAfter = await idleFor;
    assert.ok(closedAfter >= IDLE_TIMEOUT_MS - 100 && closedAfter <= IDLE_TIMEOUT_MS + SLACK_MS, `idle connection closed after ${Math.round(closedAfter)} ms`);
    busy.socket.destroy();
  });

  it('cuts a client that takes none of its responses within the write timeout', { timeout: 30_000 }, async () => {
    const c = new RawConnection(explorerPort);
    await c.connected;
    // The client reads nothing; pipelined requests pile their answers up in the node until the write timeout.
    c.socket.pause();
    const requests = 400;
    c.socket.write(get('/api/v1/openapi.json').repeat(requests));
    await sleep(WRITE_TIMEOUT_MS + SLACK_MS + 500);
    // Now read what the node did send: the connection ends before every answer came.
    c.socket.resume();
    const end = await Promise.race([c.closed.then(() => 'closed'), sleep(5_000).then(() => 'open')]);
    assert.equal(end, 'closed', `the connection stayed open (${c.data.length} bytes received)`);
    const probe = await RawConnection.served(explorerPort, '/api/v1/openapi.json');
    const one = Buffer.byteLength(probe.last.body);
    probe.socket.destroy();
    assert.ok(c.data.length < one * requests, `every answer was sent (${c.data.length} bytes)`);
  });
});

describe('the JSON-RPC HTTP port (native): read and write timeouts, connections per client address', () => {
  const rpcPort = () => node.rpcPort;
  const rpcError = (body: string) => (JSON.parse(body) as { id: null; error: { code: number; message: string } });

  it('cuts a request whose body trickles in one byte every 2 s with 408 and a JSON-RPC error', { timeout: 20_000 }, async () => {
    const c = new RawConnection(rpcPort());
    c.socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    trickle(c, 2_000);
    const r = await c.response(2 * READ_TIMEOUT_MS + SLACK_MS);
    assert.equal(r.status, 408);
    assert.equal(r.headers.connection, 'close');
    assertEdgeHeaders(r.headers, 'JSON-RPC 408 (native)');
    const body = rpcError(r.body);
    assert.equal(body.id, null);
    assert.deepEqual(body.error, { code: -32005, message: `request not received within ${READ_TIMEOUT_MS} ms` });
    const elapsed = await c.closed;
    assert.ok(elapsed <= READ_TIMEOUT_MS + SLACK_MS, `closed after ${Math.round(elapsed)} ms`);
  });

  it('closes a connection whose headers never complete', { timeout: 20_000 }, async () => {
    const c = new RawConnection(rpcPort());
    c.socket.write('POST / HTTP/1.1\r\n');
    trickle(c, 500);
    const elapsed = await Promise.race([c.closed, sleep(2 * READ_TIMEOUT_MS + SLACK_MS).then(() => Infinity)]);
    c.socket.destroy();
    assert.ok(elapsed <= READ_TIMEOUT_MS + SLACK_MS, `still open after ${Math.round(elapsed)} ms`);
  });

  // docs/rpc.md, "Connections and timeouts": late headers on this port are closed without an answer (as geth),
  // after the shorter of the idle and read timeouts, counted from the connection's opening.
  it('closes half a request line followed by silence, without an answer, after the shorter of the idle and read timeouts', { timeout: 20_000 }, async () => {
    const headerTimeoutMs = Math.min(IDLE_TIMEOUT_MS, READ_TIMEOUT_MS);
    const c = new RawConnection(rpcPort());
    c.socket.write('POST / HT');
    await closesAfter(c, headerTimeoutMs);
    assert.equal(c.data.length, 0, `the node answered: ${c.data.toString('latin1')}`);
  });

  it('cuts a client that takes none of its responses within the write timeout', { timeout: 30_000 }, async () => {
    const c = new RawConnection(rpcPort());
    await c.connected;
    c.socket.pause();
    // A batch of 1,000 block reads answers about 1 MB; 40 of them pipelined fill any socket buffer.
    const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: ['0x0', false] })));
    const request = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(batch)}\r\n\r\n${batch}`;
    const requests = 40;
    for (let i = 0; i < requests; i++) c.socket.write(request);
    await sleep(WRITE_TIMEOUT_MS + SLACK_MS + 500);
    c.socket.resume();
    const end = await Promise.race([c.closed.then(() => 'closed'), sleep(5_000).then(() => 'open')]);
    assert.equal(end, 'closed', `the connection stayed open (${c.data.length} bytes received)`);
  });

  it(`refuses connection ${MAX_PER_IP + 1} from one address with 429 before reading it, and takes one again once one closes`, { timeout: 20_000 }, async () => {
    await sleep(200);
    const health = () => get('/health');
    const open: RawConnection[] = [];
    for (let i = 0; i < MAX_PER_IP; i++) {
      const c = new RawConnection(rpcPort());
      c.socket.write(health());
      assert.equal((await c.response()).status, 200);
      open.push(c);
    }
    try {
      const refused = new RawConnection(rpcPort());
      const r = await refused.response();
      assert.equal(r.status, 429);
      assertEdgeHeaders(r.headers, 'JSON-RPC 429 connection refusal (native)');
      assert.deepEqual(rpcError(r.body).error, {
        code: -32005,
        message: `too many connections from this address: at most ${MAX_PER_IP} at once; close one and retry`,
      });
      await refused.closed;

      open.shift()!.socket.destroy();
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
        const again = new RawConnection(rpcPort());
        again.socket.write(health());
        status = (await again.response()).status;
        if (status === 200) open.push(again);
        else await sleep(50);
      }
      assert.equal(status, 200, 'a connection is accepted again once one closed');
    } finally {
      for (const c of open) c.socket.destroy();
    }
  });
});

describe('the explorer: connections per client address', () => {
  it(`refuses connection ${MAX_PER_IP + 1} from one address with 429 in the envelope, and takes one again once one closes`, async () => {
    // Connections of the tests before are closed by now; give the node a moment to see the last of them go.
    await sleep(200);
    const open = await Promise.all(Array.from({ length: MAX_PER_IP }, () => RawConnection.served(explorerPort, '/api/v1/health/live')));
    try {
      const refused = new RawConnection(explorerPort);
      refused.socket.write(get('/api/v1/health/live'));
      const r = await refused.response();
      assert.equal(r.status, 429);
      assert.equal(r.headers['retry-after'], '1');
      assertEdgeHeaders(r.headers, 'explorer 429 connection refusal');
      assert.deepEqual(JSON.parse(r.body), {
        ok: false,
        error: `too many connections from this address: at most ${MAX_PER_IP} at once; close one and retry`,
      });
      await refused.closed;

      open.shift()!.socket.destroy();
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
        const again = new RawConnection(explorerPort);
        again.socket.write(get('/api/v1/health/live'));
        status = (await again.response()).status;
        if (status === 200) open.push(again);
        else await sleep(50);
      }
      assert.equal(status, 200);
    } finally {
      for (const c of open) c.socket.destroy();
    }
  });
});

/** A raw WebSocket client: the upgrade done by hand, so frames can be cut anywhere. */
async function rawWebSocket(port: number): Promise<RawConnection> {
  const c = new RawConnection(port);
  c.socket.write(
    'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  const r = await c.response();
  assert.equal(r.status, 101);
  return c;
}

/** A masked client frame (RFC 6455 5.2) with a zero mask key, so the payload goes as it is. */
function clientFrame(payload: string, { fin = true, opcode = 1 } = {}): Buffer {
  const data = Buffer.from(payload, 'utf8');
  assert.ok(data.length < 126);
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | data.length, 0, 0, 0, 0]), data]);
}

/** The close frame in what the server sent (its frames are not masked), if it came complete. */
function findCloseFrame(data: Buffer): { code: number; reason: string } | undefined {
  for (let i = 0; i + 1 < data.length; ) {
    const length = data[i + 1]! & 0x7f;
    const at = i + 2 + (length === 126 ? 2 : length === 127 ? 8 : 0);
    const size = length === 126 ? data.readUInt16BE(i + 2) : length;
    if (at + size > data.length) return undefined;
    if ((data[i]! & 0x0f) === 8) return { code: data.readUInt16BE(at), reason: data.subarray(at + 2, at + size).toString('utf8') };
    i = at + size;
  }
  return undefined;
}

/** Waits for the server's close frame: its code and reason, and when it came. */
async function closeFrame(c: RawConnection, timeoutMs: number): Promise<{ code: number; reason: string; at: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const frame = findCloseFrame(c.data);
    if (frame !== undefined) return { ...frame, at: performance.now() };
    if (performance.now() > deadline || c.isClosed) throw new Error(`no close frame within ${timeoutMs} ms (${c.data.length} bytes received)`);
    await sleep(20);
  }
}

describe('the WebSocket port: read timeout', () => {
  it('answers an upgrade request whose headers trickle in with 408 and closes it', { timeout: 20_000 }, async () => {
    const c = new RawConnection(wsPort);
    c.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n');
    trickle(c, 500);
    const r = await c.response(READ_TIMEOUT_MS + SLACK_MS + 1_000);
    assert.equal(r.status, 408);
    assertEdgeHeaders(r.headers, 'WebSocket port 408');
    assert.deepEqual(JSON.parse(r.body), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: `request not received within ${READ_TIMEOUT_MS} ms` },
    });
    await closesAfter(c, READ_TIMEOUT_MS);
  });

  it('closes a connection whose frame stops half-way with 1008', { timeout: 20_000 }, async () => {
    const c = await rawWebSocket(wsPort);
    const sentAt = performance.now();
    const frame = clientFrame('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    c.socket.write(frame.subarray(0, 20));
    const { code, reason, at } = await closeFrame(c, READ_TIMEOUT_MS + SLACK_MS);
    assert.deepEqual({ code, reason }, { code: 1008, reason: `${STALLED_REASON} (${READ_TIMEOUT_MS} ms)` });
    assert.ok(at - sentAt >= READ_TIMEOUT_MS - 100, `closed after ${Math.round(at - sentAt)} ms`);
    c.socket.destroy();
  });

  it('closes a connection whose fragmented message never gets its last frame, pongs or not', { timeout: 20_000 }, async () => {
    const c = await rawWebSocket(wsPort);
    c.socket.write(clientFrame('{"jsonrpc":"2.0",', { fin: false }));
    // Control frames may come between fragments; they do not keep an unfinished message alive.
    const pong = setInterval(() => c.socket.write(clientFrame('', { opcode: 0xa })), 500);
    try {
      const { code, reason } = await closeFrame(c, READ_TIMEOUT_MS + SLACK_MS);
      assert.deepEqual({ code, reason }, { code: 1008, reason: `${STALLED_REASON} (${READ_TIMEOUT_MS} ms)` });
    } finally {
      clearInterval(pong);
      c.socket.destroy();
    }
  });

  it('keeps a connection that is quiet between messages, and serves a message sent in slow pieces within the timeout', { timeout: 20_000 }, async () => {
    const c = await rawWebSocket(wsPort);
    try {
      await sleep(READ_TIMEOUT_MS + SLACK_MS);
      assert.equal(c.isClosed, false);
      const frame = clientFrame('{"jsonrpc":"2.0","id":7,"method":"eth_chainId"}');
      for (let i = 0; i < frame.length; i += 10) {
        c.socket.write(frame.subarray(i, i + 10));
        await sleep(READ_TIMEOUT_MS / 10);
      }
      const deadline = performance.now() + 3_000;
      const data = () => c.data.toString('utf8');
      while (!data().includes('"id":7') && performance.now() < deadline) await sleep(20);
      assert.match(data(), /\{"jsonrpc":"2.0","id":7,"result":"0x2328"\}/);
    } finally {
      c.socket.destroy();
    }
  });
});

/** Opens a WebSocket; resolves with it once open, or with the HTTP status and body of a refused upgrade. */
function connectWs(port: number): Promise<{ socket: WebSocket } | { status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    socket.on('error', (err) => reject(err));
  });
}

describe('the WebSocket port: connections per client address', () => {
  it(`refuses upgrade ${MAX_PER_IP + 1} from one address with 429 and a JSON-RPC error, and takes one again once one closes`, async () => {
    const open: WebSocket[] = [];
    await sleep(200);
    try {
      for (let i = 0; i < MAX_PER_IP; i++) {
        const r = await connectWs(wsPort);
        assert.ok('socket' in r, `connection ${i + 1} refused`);
        open.push(r.socket);
      }
      const refused = await connectWs(wsPort);
      assert.ok('status' in refused, 'connection over the cap was accepted');
      assert.equal(refused.status, 429);
      assertEdgeHeaders(refused.headers, 'WebSocket port 429 connection refusal');
      assert.deepEqual(JSON.parse(refused.body), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32005, message: `too many connections from this address: at most ${MAX_PER_IP} at once; close one and retry` },
      });

      const first = open.shift()!;
      await new Promise((resolve) => {
        first.once('close', resolve);
        first.close();
      });
      let again: Awaited<ReturnType<typeof connectWs>> | undefined;
      for (let attempt = 0; attempt < 20 && !(again && 'socket' in again); attempt++) {
        if (attempt > 0) await sleep(50);
        again = await connectWs(wsPort);
      }
      assert.ok(again && 'socket' in again, 'no connection accepted after one closed');
      open.push(again.socket);
    } finally {
      for (const s of open) s.terminate();
    }
  });

  it('does not count loopback clients when the loopback exemption is on', async () => {
    const services = { ...node.services, config: { ...node.services.config, rateLimitExemptLoopback: true } };
    const exempt = await startWsServer(services, silent);
    const open: WebSocket[] = [];
    try {
      for (let i = 0; i < MAX_PER_IP * 2; i++) {
        const r = await connectWs(exempt.port);
        assert.ok('socket' in r, `connection ${i + 1} refused`);
        open.push(r.socket);
      }
    } finally {
      for (const s of open) s.terminate();
      await exempt.close();
    }
  });
});
