// The JSON-RPC HTTP server: POST / for JSON-RPC 2.0, GET /health, GET /metrics; CORS open to any
// origin (browser dapps and wallets call it); per-IP rate limit; body and content-type checks as geth.
// The transport is native (crates/svc-rpc-http, hyper): it meters clients, refuses oversized bodies
// and answers plain state reads itself; every other request comes here, to `respond`.
import type { NodeServices } from '../services.js';
import { core, type HttpReply, type HttpRequestInfo } from '../native/index.js';
import { listenerLimits } from '../net/connection-guard.js';
import { rpc } from '../params.js';
import {
  BodyTooLargeError,
  InternalError,
  InvalidRequestError,
  RateLimitExceededError,
  RequestTimeoutError,
  TooManyConnectionsError,
  RpcError,
  UnsupportedContentTypeError,
} from './errors.js';
import { toData, toQuantity } from './hex.js';
import { createRpcContext } from './context.js';
import type { MethodTable, RpcContext } from './method.js';
import { rpcMethods } from './methods.js';
import { RpcMetrics } from './metrics.js';
import { parsePayload, RpcDispatcher } from './protocol.js';
import { svcMethods } from './svc/index.js';

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

export interface RpcServerOptions {
  /** The node's shared method state; without it the server makes its own (and closes it). */
  context?: RpcContext;
  /** More method namespaces. */
  methods?: MethodTable[];
}

/** Starts the JSON-RPC server on config.rpcHost:config.rpcPort. */
export async function startRpcServer(services: NodeServices, options: RpcServerOptions = {}): Promise<RpcServer> {
  const { config } = services;
  const log = services.log.child({ module: 'rpc' });
  const metrics = new RpcMetrics(services.metrics);
  const own = options.context === undefined ? createRpcContext(services) : undefined;
  const ctx: RpcContext = options.context ?? own!.context;
  const dispatcher = new RpcDispatcher(rpcMethods(svcMethods, ...(options.methods ?? [])), ctx, metrics, log);

  const reply = (status: number, body: string | Buffer | null, headers: Record<string, string | number> = {}): HttpReply => {
    metrics.httpResponses.inc({ code: String(status) });
    const all: Record<string, string> = { ...CORS_HEADERS };
    for (const [name, value] of Object.entries(headers)) all[name] = String(value);
    if (body === null) return { status, headers: all };
    all['Content-Type'] ??= 'application/json';
    return { status, headers: all, body };
  };
  const notFound = (path: string): HttpReply =>
    reply(404, errorBody(new InvalidRequestError(`not found: ${path} (JSON-RPC is served by POST /)`)));

  // 503 once the head is older than a few block times (a load balancer must not send clients to a
  // stopped chain), or while submitted transactions cannot be journaled (every one is refused).
  const health = (): HttpReply => {
    const head = services.chain.head();
    const production = services.production.status();
    const stalled = services.production.unhealthyReason();
    const journal = services.transactionJournal.problem();
    const problem = [stalled, journal].filter((p) => p !== null).join('; ') || null;
    const body = JSON.stringify({
      status: stalled !== null ? 'stalled' : journal !== null ? 'degraded' : 'ok',
      ...(problem === null ? {} : { reason: problem }),
      chainId: config.chainId,
      blockNumber: toQuantity(head.number),
      blockHash: toData(head.hash),
      blockTimestamp: toQuantity(head.timestamp),
      headAgeMs: production.headAgeMs,
      staleAfterMs: production.staleAfterMs,
      blockProduction: production.status,
      transactionJournal: services.transactionJournal.health().status,
      syncing: services.network.sync().syncing,
    });
    return reply(problem === null ? 200 : 503, body, problem === null ? {} : { 'Retry-After': 1 });
  };

  // The native server has admitted the client and read the body within the size cap.
  const serveRpc = async (req: HttpRequestInfo): Promise<HttpReply> => {
    const contentType = (req.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!JSON_MEDIA_TYPES.has(contentType)) return reply(415, errorBody(new UnsupportedContentTypeError(contentType)));
    // A large body costs milliseconds to parse and check: it waits for the I/O already pending, so a
    // burst of large requests does not hold up the small ones (health probes, reads) behind it.
    if (req.body.length > rpc.deferParseBytes) await new Promise((resolve) => setImmediate(resolve));
    const answer = await dispatcher.respond(parsePayload(req.body), { ip: req.remoteAddress });
    // Only notifications: nothing to answer, and 204 says so without a body to parse.
    return answer === null ? reply(204, null) : reply(200, answer);
  };

  const respond = async (req: HttpRequestInfo): Promise<HttpReply> => {
    const path = new URL(req.path, 'http://localhost').pathname;
    switch (req.method) {
      case 'OPTIONS':
        return reply(204, null, {
          'Access-Control-Allow-Headers': req.accessControlRequestHeaders ?? 'Content-Type',
          'Access-Control-Max-Age': rpc.corsMaxAgeSeconds,
        });
      case 'GET':
      case 'HEAD':
        if (path === '/health') return health();
        if (path === '/metrics') return reply(200, await services.metrics.metrics(), { 'Content-Type': services.metrics.contentType });
        // geth answers a bare GET / with 200 so load balancers can probe it.
        if (path === '/') return reply(200, null);
        return notFound(path);
      case 'POST':
        return path === '/' ? serveRpc(req) : notFound(path);
      default:
        return reply(405, errorBody(new InvalidRequestError(`method ${req.method} not allowed`)), { Allow: 'POST, GET, OPTIONS' });
    }
  };

  const internalError = errorBody(new InternalError('internal server error'));
  const limits = listenerLimits(config);
  const server = core.RpcHttpServer.start(
    services.chain,
    {
      host: config.rpcHost,
      port: config.rpcPort,
      maxBodyBytes: rpc.maxBodyBytes,
      maxDiscardBytes: rpc.maxDiscardBytes,
      discardTimeoutMs: rpc.discardTimeoutMs,
      // hyper's header timer covers idle keep-alive time and header arrival alike: the shorter of the two applies.
      idleTimeoutMs: Math.min(limits.idleTimeoutMs, limits.readTimeoutMs),
      readTimeoutMs: limits.readTimeoutMs,
      writeTimeoutMs: limits.writeTimeoutMs,
      maxConnectionsPerIp: limits.maxPerIp,
      rateLimitPerSecond: config.rpcRateLimit,
      exemptLoopback: config.rateLimitExemptLoopback,
      maxBatchItems: rpc.maxBatchItems,
      maxBatchResponseBytes: rpc.maxBatchResponseBytes,
      bodyTooLarge: errorBody(new BodyTooLargeError(rpc.maxBodyBytes)),
      rateLimited: errorBody(new RateLimitExceededError(1)),
      internalError,
      requestTimeout: errorBody(new RequestTimeoutError(limits.readTimeoutMs)),
      tooManyConnections: errorBody(new TooManyConnectionsError(limits.maxPerIp)),
    },
    (req) =>
      respond(req).catch((err: unknown) => {
        log.error({ err }, 'JSON-RPC HTTP request failed');
        return reply(500, internalError);
      }),
  );
  const detachMetrics = metrics.addNativeSource(() => server.stats());
  log.info({ host: config.rpcHost, port: server.port }, 'JSON-RPC listening');

  return {
    port: server.port,
    close: async () => {
      own?.close();
      await server.close();
      detachMetrics();
    },
  };
}
