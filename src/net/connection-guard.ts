// The limits every node:http listener of the node puts on its connections (the WebSocket port and
// the explorer; the native JSON-RPC port applies the same params.http natively): a request's headers
// and body must arrive within the read timeout, a client must take the data waiting for it within
// the write timeout, idle kept-alive connections close after the idle timeout, and one client
// address holds at most maxPerIp connections at once. Rules and answers: docs/rpc.md, "Connections
// and timeouts". The per-address count is taken when the TCP connection opens, before any header is
// read, so it counts the direct peer, never a forwarded address.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { NodeConfig } from '../config.js';
import { http as httpParams } from '../params.js';
import { clientKey, isLoopback, TrustedProxies } from './client-ip.js';
import { EDGE_HEADERS, EdgeServerResponse } from './edge-headers.js';

export interface ListenerLimits {
  readTimeoutMs: number;
  writeTimeoutMs: number;
  idleTimeoutMs: number;
  /** Connections one client address may hold open; 0 = no cap. */
  maxPerIp: number;
  /** Loopback peers are not counted (the loopback exemption of the rate limits, --rate-limit-loopback-exempt). */
  exemptLoopback: boolean;
  /** Reverse proxies (--trust-proxy) are not counted: every client behind one shares its address. */
  trustedProxies: TrustedProxies;
}

/** The limits a node's listeners run with: its configuration, params.http where it says nothing. */
export function listenerLimits(config: NodeConfig): ListenerLimits {
  return {
    readTimeoutMs: config.httpReadTimeoutMs ?? httpParams.readTimeoutMs,
    writeTimeoutMs: config.httpWriteTimeoutMs ?? httpParams.writeTimeoutMs,
    idleTimeoutMs: config.httpIdleTimeoutMs ?? httpParams.idleTimeoutMs,
    maxPerIp: config.maxConnectionsPerIp ?? httpParams.maxConnectionsPerIp,
    exemptLoopback: config.rateLimitExemptLoopback,
    trustedProxies: config.trustProxy === undefined ? TrustedProxies.none : new TrustedProxies(config.trustProxy),
  };
}

/** How often timeouts are checked: a quarter of the shortest, at most a second, so none is enforced much late. */
function checkIntervalMs(limits: ListenerLimits): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(limits.readTimeoutMs, limits.writeTimeoutMs) / 4)));
}

/** Options for http.createServer that enforce the read timeout (headers and body alike) and give every answer the edge headers. */
export function serverOptions(limits: ListenerLimits): http.ServerOptions {
  return {
    headersTimeout: limits.readTimeoutMs,
    requestTimeout: limits.readTimeoutMs,
    connectionsCheckingInterval: checkIntervalMs(limits),
    ServerResponse: EdgeServerResponse,
  };
}

/** The text of a refused connection over the per-IP cap (JSON-RPC's TooManyConnectionsError carries it too). */
export function tooManyConnectionsMessage(maxPerIp: number): string {
  return `too many connections from this address: at most ${maxPerIp} at once; close one and retry`;
}

/** The text of a 408: the request did not arrive in time (JSON-RPC's RequestTimeoutError carries it too). */
export function requestTimeoutMessage(readTimeoutMs: number): string {
  return `request not received within ${readTimeoutMs} ms`;
}

/** The JSON body of an answer the guard gives itself (408, 429, ...), in the port's own format. */
export type ErrorBody = (status: number, message: string) => string;

/** How long a refused client has to read its 429 before its socket is cut. */
const REFUSED_LINGER_MS = 1_000;

/** A complete HTTP/1.1 response that closes the connection, written on a socket by hand (with the edge headers). */
export function closingResponse(status: number, body: string, headers: Record<string, string> = {}): string {
  const lines = [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries({ ...EDGE_HEADERS, ...headers }).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** What a connection has written so far, to tell a client that takes nothing from one that reads slowly. */
interface WriteProgress {
  taken: number;
  since: number;
}

/**
 * Applies the limits to `server` (made with serverOptions): the idle timeout, the per-address cap,
 * the write timeout, and answers in the port's format for requests cut by the read timeout.
 * Call before the server listens and before anything else (socket.io, ws) attaches to it.
 */
export function guardConnections(server: http.Server, limits: ListenerLimits, errorBody: ErrorBody, log?: Logger): void {
  server.keepAliveTimeout = limits.idleTimeoutMs;

  // node:http attaches its parser in its own 'connection' listener: a refused socket must never reach it,
  // or the request it sends would still be served.
  const parsers = server.listeners('connection') as ((socket: Socket) => void)[];
  if (parsers.length !== 1) throw new Error(`guardConnections: expected node:http's one connection listener, found ${parsers.length}`);
  const parse = parsers[0]!;
  server.removeListener('connection', parse);

  const open = new Map<string, number>();
  const tracked = new Map<Socket, WriteProgress>();
  const exempt = (ip: string): boolean =>
    limits.maxPerIp === 0 || (limits.exemptLoopback && isLoopback(ip)) || limits.trustedProxies.has(ip);

  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress;
    if (ip === undefined) {
      socket.destroy();
      return;
    }
    if (!exempt(ip)) {
      const key = clientKey(ip);
      const count = open.get(key) ?? 0;
      if (count >= limits.maxPerIp) {
        refuse(socket, ip);
        return;
      }
      open.set(key, count + 1);
      socket.once('close', () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left === 0) open.delete(key);
        else open.set(key, left);
      });
    }
    tracked.set(socket, { taken: 0, since: performance.now() });
    socket.once('close', () => tracked.delete(socket));
    parse.call(server, socket);
  });

  const refuse = (socket: Socket, ip: string): void => {
    log?.debug({ ip, max: limits.maxPerIp }, 'connection refused: too many from this address');
    const message = tooManyConnectionsMessage(limits.maxPerIp);
    socket.on('error', () => socket.destroy());
    // Read and drop what the client sends, so that closing sends a FIN rather than a reset that could lose the 429.
    socket.on('data', () => undefined);
    socket.once('end', () => socket.destroy());
    socket.end(closingResponse(429, errorBody(429, message), { 'Retry-After': '1' }));
    const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  };

  // The response (if any) a connection is writing, so a late client error does not write into it.
  const responding = new WeakMap<Socket, http.ServerResponse>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => responding.set(req.socket as Socket, res));
  // node:http's own answers to these are bare; these are in the port's format.
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (!socket.writable || responding.get(socket)?.headersSent === true || err.code === 'ECONNRESET' || err.code === 'EPIPE') {
      socket.destroy();
      return;
    }
    const [status, message] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, requestTimeoutMessage(limits.readTimeoutMs)]
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'request headers too large']
          : [400, 'malformed HTTP request'];
    log?.debug({ ip: socket.remoteAddress, code: err.code }, 'client error');
    socket.end(closingResponse(status, errorBody(status, message)), () => socket.destroy());
  });

  // The write timeout: a connection whose client took none of the bytes waiting for it for writeTimeoutMs is cut.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, progress] of tracked) {
      const taken = socket.bytesWritten - socket.writableLength;
      if (socket.writableLength === 0 || taken !== progress.taken) {
        progress.taken = taken;
        progress.since = now;
      } else if (now - progress.since >= limits.writeTimeoutMs) {
        log?.debug({ ip: socket.remoteAddress, waiting: socket.writableLength }, 'connection closed: client takes no data');
        socket.destroy();
      }
    }
  }, checkIntervalMs(limits));
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
