// The JSON-RPC HTTP server: POST / for JSON-RPC 2.0, GET /health, GET /metrics; CORS open to any
// origin (browser dapps and wallets call it); per-IP rate limit; body and content-type checks as geth.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeServices } from '../chain/services.js';
import { rpc } from '../params.js';
import {
  BodyTooLargeError,
  InternalError,
  InvalidRequestError,
  RateLimitExceededError,
  RpcError,
  UnsupportedContentTypeError,
} from './errors.js';
import { GasPriceOracle } from './gas-price-oracle.js';
import { toData, toQuantity } from './hex.js';
import { InstalledFilters } from './installed-filters.js';
import type { MethodTable, RpcContext } from './method.js';
import { rpcMethods } from './methods.js';
import { RpcMetrics } from './metrics.js';
import { parsePayload, RpcDispatcher } from './protocol.js';
import { RateLimiter } from './rate-limit.js';

/** A running JSON-RPC server. */
export interface RpcServer {
  /** The port it listens on (the one assigned when the config asked for 0). */
  port: number;
  /** Stops accepting connections, ends idle keep-alive ones, and waits for requests in flight. */
  close(): Promise<void>;
}

/** Media types geth accepts for a JSON-RPC POST. */
const JSON_MEDIA_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, GET, OPTIONS',
};

/** A JSON-RPC error body for HTTP-level refusals (id null: the request was not read). */
function errorBody(error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toObject() });
}

/** The client's address as the socket reports it. */
function clientIp(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? '';
}

/**
 * Reads and throws away the rest of a refused body, then calls `done` once: at its end, past `cap`
 * bytes or after `timeoutMs`. Answering only then lets the client read the answer; closing a socket
 * with unread input resets it and the client would see a broken pipe instead.
 */
function discardBody(req: IncomingMessage, cap: number, timeoutMs: number, done: () => void): void {
  let drained = 0;
  let called = false;
  const finish = (): void => {
    if (called) return;
    called = true;
    clearTimeout(timer);
    done();
  };
  const timer = setTimeout(finish, timeoutMs);
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > cap) finish();
  });
  req.on('end', finish);
  req.on('error', finish);
  req.resume();
}

/** Reads the body up to `limit` bytes; resolves null as soon as it grows past it (the rest is not buffered). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.off('end', onEnd);
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks, size));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** Starts the JSON-RPC server on config.rpcHost:config.rpcPort. `extraMethods` add namespaces such as svc_*. */
export async function startRpcServer(services: NodeServices, ...extraMethods: MethodTable[]): Promise<RpcServer> {
  const { config } = services;
  const log = services.log.child({ module: 'rpc' });
  const metrics = new RpcMetrics(services.metrics);
  const filters = new InstalledFilters(services);
  const ctx: RpcContext = { services, filters, gasPrice: new GasPriceOracle(services.chain) };
  const dispatcher = new RpcDispatcher(rpcMethods(...extraMethods), ctx, metrics, log);
  const limiter = config.rpcRateLimit > 0 ? new RateLimiter(config.rpcRateLimit, config.rateLimitExemptLoopback) : null;
  let closing = false;

  const send = (res: ServerResponse, status: number, body: string | null, headers: Record<string, string | number> = {}): void => {
    metrics.httpResponses.inc({ code: String(status) });
    const all: Record<string, string | number> = { ...CORS_HEADERS, ...headers };
    if (closing) all.Connection = 'close';
    if (body === null) {
      res.writeHead(status, all);
      res.end();
      return;
    }
    all['Content-Type'] ??= 'application/json';
    all['Content-Length'] = Buffer.byteLength(body);
    res.writeHead(status, all);
    res.end(body);
  };

  const health = (): string => {
    const head = services.chain.head();
    return JSON.stringify({
      status: 'ok',
      chainId: config.chainId,
      blockNumber: toQuantity(head.number),
      blockHash: toData(head.hash),
      blockTimestamp: toQuantity(head.timestamp),
      syncing: false,
    });
  };

  const serveRpc = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const ip = clientIp(req);
    if (limiter !== null) {
      const admission = limiter.admit(ip);
      if (!admission.admitted) {
        const error = new RateLimitExceededError(admission.retryAfterSeconds);
        send(res, 429, errorBody(error), { 'Retry-After': admission.retryAfterSeconds });
        return;
      }
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!JSON_MEDIA_TYPES.has(contentType)) {
      send(res, 415, errorBody(new UnsupportedContentTypeError(contentType)));
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    // Refused without buffering: the rest of the body is read and thrown away, then the connection closes.
    const body = declared > rpc.maxBodyBytes ? null : await readBody(req, rpc.maxBodyBytes);
    if (body === null) {
      await new Promise<void>((resolve) => discardBody(req, rpc.maxDiscardBytes, rpc.discardTimeoutMs, resolve));
      send(res, 413, errorBody(new BodyTooLargeError(rpc.maxBodyBytes)), { Connection: 'close' });
      return;
    }
    const payload = parsePayload(body.toString('utf8'));
    if (limiter !== null && payload.kind === 'batch') limiter.charge(ip, payload.messages.length - 1);
    const answer = await dispatcher.respond(payload);
    // Only notifications: nothing to answer, and 204 says so without a body to parse.
    if (answer === null) send(res, 204, null);
    else send(res, 200, answer);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    switch (req.method) {
      case 'OPTIONS':
        send(res, 204, null, {
          'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? 'Content-Type',
          'Access-Control-Max-Age': rpc.corsMaxAgeSeconds,
        });
        return;
      case 'GET':
      case 'HEAD':
        if (path === '/health') send(res, 200, health());
        else if (path === '/metrics') {
          send(res, 200, await services.metrics.metrics(), { 'Content-Type': services.metrics.contentType });
        }
        // geth answers a bare GET / with 200 so load balancers can probe it.
        else if (path === '/') send(res, 200, null);
        else send(res, 404, errorBody(new InvalidRequestError(`not found: ${path} (JSON-RPC is served by POST /)`)));
        return;
      case 'POST':
        if (path !== '/') {
          send(res, 404, errorBody(new InvalidRequestError(`not found: ${path} (JSON-RPC is served by POST /)`)));
          return;
        }
        await serveRpc(req, res);
        return;
      default:
        send(res, 405, errorBody(new InvalidRequestError(`method ${req.method ?? ''} not allowed`)), {
          Allow: 'POST, GET, OPTIONS',
        });
    }
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, 'JSON-RPC HTTP request failed');
      if (!res.headersSent) send(res, 500, errorBody(new InternalError('internal server error')));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = rpc.httpKeepAliveMs;
  server.on('clientError', (err, socket) => {
    log.debug({ err }, 'malformed HTTP request');
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.rpcPort, config.rpcHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ host: config.rpcHost, port }, 'JSON-RPC listening');

  return {
    port,
    close: async () => {
      closing = true;
      filters.close();
      limiter?.close();
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      });
    },
  };
}
