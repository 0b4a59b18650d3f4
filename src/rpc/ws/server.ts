// JSON-RPC 2.0 over WebSocket on config.rpcHost:config.wsPort: every method of the HTTP endpoint
// (batches included, the same dispatcher and method table) plus eth_subscribe/eth_unsubscribe.
// Limits (params.ws, docs/realtime.md): subscriptions per connection, message size, a bounded send
// buffer per client, ping/pong liveness, and the per-IP rate limit of the HTTP endpoint.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { NodeServices } from '../../services.js';
import { clientOrigin, TrustedProxies } from '../../net/client-ip.js';
import { closingResponse, guardConnections, listenerLimits, serverOptions, type ErrorBody, type ListenerLimits } from '../../net/connection-guard.js';
import { addEdgeHeaderLines } from '../../net/edge-headers.js';
import { ws as wsParams } from '../../params.js';
import { InvalidRequestError, RequestTimeoutError, TooManyConnectionsError } from '../errors.js';
import { createRpcContext } from '../context.js';
import type { RpcContext } from '../method.js';
import { rpcMethods } from '../methods.js';
import { RpcMetrics } from '../metrics.js';
import { RpcDispatcher } from '../protocol.js';
import { svcMethods } from '../svc/index.js';
import { CLOSE_GOING_AWAY, RequestScope, WsConnection, type ConnectionLimits } from './connection.js';
import { WsMetrics } from './metrics.js';
import { enforceMessageDeadline } from './message-deadline.js';
import { IpRateLimiter } from './rate-limit.js';
import { subscriptionMethods } from './subscribe-methods.js';
import { SubscriptionHub } from './subscriptions.js';

/** The limits a server runs with; params.ws unless a test narrows them. */
export interface WsLimits extends ConnectionLimits {
  maxMessageBytes: number;
  pingIntervalMs: number;
  maxConnections: number;
}

export interface WsServerOptions {
  /** Overrides of params.ws (tests shrink the send buffer or the ping interval). */
  limits?: Partial<WsLimits>;
  /** The node's shared method state (src/rpc/context.ts); without it the server makes its own. */
  context?: RpcContext;
}

/** A running WebSocket JSON-RPC server. */
export interface WsServer {
  /** The port it listens on (the one assigned when the config asked for 0). */
  port: number;
  /** Open connections and live subscriptions. */
  stats(): { connections: number; subscriptions: number };
  /** Stops accepting, closes every connection with 1001, and waits for them to end. */
  close(): Promise<void>;
}

/** How long connections get to finish the closing handshake at shutdown before they are cut. */
const SHUTDOWN_GRACE_MS = 1_000;

const UPGRADE_REQUIRED = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: new InvalidRequestError('this endpoint serves JSON-RPC over WebSocket only; connect with ws:// or POST to the HTTP endpoint').toObject(),
});

/** The body of an HTTP answer the connection guard gives on this port (429, 408, 400): the JSON-RPC HTTP port's error. */
function guardErrorBody(limits: ListenerLimits): ErrorBody {
  return (status, message) => {
    const error =
      status === 429 ? new TooManyConnectionsError(limits.maxPerIp)
      : status === 408 ? new RequestTimeoutError(limits.readTimeoutMs)
      : new InvalidRequestError(message);
    return JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toObject() });
  };
}

/** Refuses an upgrade with a bare HTTP status (the socket is not a WebSocket yet). */
function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  const lines = [`HTTP/1.1 ${status} ${text}`, 'Connection: close', 'Content-Length: 0'];
  addEdgeHeaderLines(lines);
  socket.end(`${lines.join('\r\n')}\r\n\r\n`);
}

/** ws's refusal of a malformed upgrade (method, Upgrade, key or version wrong), as a JSON-RPC error with the edge headers. */
function refuseMalformedUpgrade(err: Error, socket: Duplex, req: http.IncomingMessage): void {
  const status = req.method === 'GET' ? 400 : 405;
  const version = req.headers['sec-websocket-version'];
  const headers: Record<string, string> = version === '8' || version === '13' ? {} : { 'Sec-WebSocket-Version': '13, 8' };
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: new InvalidRequestError(`WebSocket upgrade refused: ${err.message}`).toObject() });
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(closingResponse(status, body, headers), () => socket.destroy());
}

/** Starts the WebSocket JSON-RPC server on config.rpcHost:config.wsPort. */
export async function startWsServer(services: NodeServices, log?: Logger, options: WsServerOptions = {}): Promise<WsServer> {
  const { config } = services;
  const wsLog = (log ?? services.log).child({ module: 'ws' });
  const limits: WsLimits = {
    maxSubscriptionsPerConnection: wsParams.maxSubscriptionsPerConnection,
    maxSendBufferBytes: wsParams.maxSendBufferBytes,
    slowCloseGraceMs: wsParams.slowCloseGraceMs,
    maxInFlightRequests: wsParams.maxInFlightRequests,
    maxMessageBytes: wsParams.maxMessageBytes,
    pingIntervalMs: wsParams.pingIntervalMs,
    maxConnections: wsParams.maxConnections,
    ...options.limits,
  };

  const metrics = new WsMetrics(services.metrics);
  const hub = new SubscriptionHub(services, metrics, wsLog);
  const requests = new WeakMap<object, RequestScope>();
  // The node's context, shared with the HTTP server, with the client set per message.
  const own = options.context === undefined ? createRpcContext(services) : undefined;
  const ctx: RpcContext = options.context ?? own!.context;
  const table = {
    ...rpcMethods(svcMethods),
    // Replace the HTTP table's -32004 answers: here there is a connection to subscribe on.
    ...subscriptionMethods((c) => (c.client === undefined ? undefined : requests.get(c.client))),
  };
  const dispatcher = new RpcDispatcher(table, ctx, new RpcMetrics(services.metrics), wsLog);
  const limiter = new IpRateLimiter(config.rpcRateLimit, config.rateLimitExemptLoopback);
  const trustProxy = new TrustedProxies(config.trustProxy ?? []);
  const deps = { hub, dispatcher, limiter, metrics, log: wsLog, limits, requests };

  const connections = new Set<WsConnection>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false, clientTracking: false });
  // The 101 and ws's refusals get the edge headers every answer of the node carries (src/net/edge-headers.ts).
  wss.on('headers', (headers) => addEdgeHeaderLines(headers));
  wss.on('wsClientError', refuseMalformedUpgrade);
  // Read, write and idle timeouts and the per-address connection cap of every port (params.http): the upgrade
  // request must arrive within the read timeout, and so must each message after it.
  const listener = listenerLimits(config);
  const server = http.createServer(serverOptions(listener), (_req, res) => {
    res.writeHead(426, { 'Content-Type': 'application/json', Upgrade: 'websocket', Connection: 'Upgrade' });
    res.end(UPGRADE_REQUIRED);
  });
  guardConnections(server, listener, guardErrorBody(listener), wsLog);

  const accept = (socket: WebSocket, ip: string): WsConnection => {
    const connection = new WsConnection(socket, ip, deps);
    connections.add(connection);
    metrics.connections.inc();
    socket.once('close', () => {
      connections.delete(connection);
      metrics.connections.dec();
    });
    return connection;
  };

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (connections.size >= limits.maxConnections) {
      metrics.disconnects.inc({ reason: 'full' });
      refuseUpgrade(socket, 503, 'Service Unavailable');
      return;
    }
    // The client-address rule of the explorer too: forwarded headers count only from a trusted proxy.
    const { ip } = clientOrigin(req.socket.remoteAddress ?? '', req.headers, trustProxy);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = accept(ws, ip);
      enforceMessageDeadline(socket, listener.readTimeoutMs, () => connection.closeStalled(listener.readTimeoutMs));
    });
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.wsPort, config.rpcHost, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // Port taken or host unknown: leave nothing listening to the node's events.
    hub.close();
    own?.close();
    throw err;
  }
  server.on('error', (err) => wsLog.error({ err }, 'ws server error'));
  const port = (server.address() as AddressInfo).port;
  wsLog.info({ host: config.rpcHost, port }, 'ws listening');

  const heartbeat = setInterval(() => {
    for (const c of connections) c.heartbeat();
  }, limits.pingIntervalMs);
  heartbeat.unref();

  let closing: Promise<void> | undefined;
  return {
    port,
    stats: () => {
      let subscriptions = 0;
      for (const c of connections) subscriptions += c.subscriptionCount;
      return { connections: connections.size, subscriptions };
    },
    close() {
      closing ??= (async () => {
        clearInterval(heartbeat);
        hub.close();
        own?.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const c of connections) c.shutdown(CLOSE_GOING_AWAY, 'node shutting down');
        const deadline = Date.now() + SHUTDOWN_GRACE_MS;
        while (connections.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        for (const c of connections) c.terminate();
        server.closeAllConnections();
        await closed;
        wss.close();
      })();
      return closing;
    },
  };
}
