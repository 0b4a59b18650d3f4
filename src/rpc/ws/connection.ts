// One WebSocket client: its requests (rate-limited per IP, answered by the shared dispatcher), its
// subscriptions (at most params.ws.maxSubscriptionsPerConnection), and one bounded way out. Every
// byte for the client goes through `send`, which refuses to queue past maxSendBufferBytes: a client
// that does not read is closed with 1008 instead of growing the node's memory.
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import { RateLimitExceededError, type RpcErrorObject } from '../errors.js';
import { parsePayload, type Payload, type RpcDispatcher } from '../protocol.js';
import { TooManySubscriptionsError } from './errors.js';
import type { WsMetrics } from './metrics.js';
import type { IpRateLimiter } from './rate-limit.js';
import type { SubscriberSession } from './subscribe-methods.js';
import { Subscription, type SubscriptionFilter, type SubscriptionHub, type SubscriptionOwner } from './subscriptions.js';

/** Close codes (RFC 6455): 1008 policy violation (too slow, a stalled message), 1001 going away (shutdown). */
export const CLOSE_POLICY_VIOLATION = 1008;
export const CLOSE_TOO_SLOW = CLOSE_POLICY_VIOLATION;
export const CLOSE_GOING_AWAY = 1001;
/** The reason sent with 1008 (a close reason is at most 123 bytes). */
export const TOO_SLOW_REASON = 'send buffer full: client too slow to read notifications';
/** The reason sent with 1008 for a message not received within the read timeout (the timeout follows it). */
export const STALLED_REASON = 'message not received within the read timeout';

export interface ConnectionLimits {
  maxSubscriptionsPerConnection: number;
  maxSendBufferBytes: number;
  slowCloseGraceMs: number;
  maxInFlightRequests: number;
}

/** What every connection of a server shares. */
export interface ConnectionDeps {
  hub: SubscriptionHub;
  dispatcher: RpcDispatcher;
  limiter: IpRateLimiter;
  metrics: WsMetrics;
  log: Logger;
  limits: ConnectionLimits;
  /** The request each `client` object passed to the dispatcher belongs to (eth_subscribe finds its connection here). */
  requests: WeakMap<object, RequestScope>;
}

/** One message being answered: the subscriptions it opened are held until its answer is sent. */
export class RequestScope implements SubscriberSession {
  readonly opened: Subscription[] = [];

  constructor(private readonly connection: WsConnection) {}

  subscribe(filter: SubscriptionFilter): string {
    const sub = this.connection.open(filter);
    this.opened.push(sub);
    return sub.id;
  }

  unsubscribe(id: string): boolean {
    return this.connection.cancel(id);
  }
}

/** The answer to a message refused by the rate limit: -32005 for each request in it that has an id. */
function rateLimitedAnswer(payload: Payload, error: RpcErrorObject): string | null {
  if (payload.kind === 'rejected') return payload.body;
  const idOf = (m: unknown): unknown[] =>
    typeof m === 'object' && m !== null && !Array.isArray(m) && 'id' in m ? [(m as { id: unknown }).id] : [];
  const ids = payload.kind === 'single' ? idOf(payload.message) : payload.messages.flatMap(idOf);
  const valid = ids.filter((id) => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)));
  if (valid.length === 0) return null;
  const answers = valid.map((id) => ({ jsonrpc: '2.0', id, error }));
  return JSON.stringify(payload.kind === 'single' ? answers[0] : answers);
}

export class WsConnection implements SubscriptionOwner {
  private readonly subscriptions = new Map<string, Subscription>();
  /** Notifications of subscriptions whose eth_subscribe answer is not sent yet (geth sends the id first). */
  private readonly held = new Map<Subscription, Buffer[]>();
  private heldBytes = 0;
  private inFlight = 0;
  /** Answered the last ping (or sent something since). */
  private alive = true;
  /** Closing or closed: nothing more is sent. */
  private ended = false;

  constructor(
    private readonly socket: WebSocket,
    readonly ip: string,
    private readonly deps: ConnectionDeps,
  ) {
    socket.on('message', (data) => this.onMessage(data));
    socket.on('pong', () => {
      this.alive = true;
    });
    socket.on('error', (err: Error & { code?: string }) => {
      // ws closes the connection itself (1009 for an oversized message, 1002 for a protocol error).
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') deps.metrics.disconnects.inc({ reason: 'oversized' });
      deps.log.debug({ err, ip }, 'ws connection error');
    });
    socket.on('close', () => this.end());
  }

  /** Subscriptions this connection holds. */
  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** Liveness check, once per ping interval: a peer that did not answer the previous ping is cut. */
  heartbeat(): void {
    if (this.ended) return;
    if (!this.alive) {
      this.deps.metrics.disconnects.inc({ reason: 'dead' });
      this.deps.log.debug({ ip: this.ip }, 'ws peer did not answer a ping: terminated');
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  /** Closes the connection (server shutdown). */
  shutdown(code: number, reason: string): void {
    this.end();
    this.socket.close(code, reason);
  }

  /** Ends the TCP connection at once. */
  terminate(): void {
    this.end();
    this.socket.terminate();
  }

  /** Opens a subscription for eth_subscribe; its notifications wait until the answer is sent. */
  open(filter: SubscriptionFilter): Subscription {
    const max = this.deps.limits.maxSubscriptionsPerConnection;
    if (this.subscriptions.size >= max) throw new TooManySubscriptionsError(max);
    const sub = new Subscription(this, filter);
    this.subscriptions.set(sub.id, sub);
    this.held.set(sub, []);
    this.deps.hub.add(sub);
    return sub;
  }

  /** Ends a subscription for eth_unsubscribe; false when this connection has none by that id. */
  cancel(id: string): boolean {
    const sub = this.subscriptions.get(id);
    if (sub === undefined) return false;
    this.subscriptions.delete(id);
    this.drop(sub);
    return true;
  }

  notify(sub: Subscription, frame: string): void {
    if (this.ended) return;
    const data = Buffer.from(frame, 'utf8');
    const held = this.held.get(sub);
    if (held === undefined) {
      this.send(data);
      return;
    }
    if (!this.fits(data.length)) return;
    held.push(data);
    this.heldBytes += data.length;
  }

  private onMessage(data: RawData): void {
    this.alive = true;
    if (this.ended) return;
    const { limiter, dispatcher, requests, metrics, log, limits } = this.deps;
    const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer)).toString('utf8');
    const admission = limiter.admit(this.ip);
    const payload = parsePayload(text);
    if (!admission.admitted) {
      metrics.rateLimited.inc();
      const answer = rateLimitedAnswer(payload, new RateLimitExceededError(admission.retryAfterSeconds).toObject());
      if (answer !== null) this.send(Buffer.from(answer, 'utf8'));
      return;
    }
    if (payload.kind === 'batch') limiter.charge(this.ip, payload.messages.length - 1);

    // Each message gets its own client object, so eth_subscribe knows which answer its subscription waits for.
    const scope = new RequestScope(this);
    const client = { ip: this.ip };
    requests.set(client, scope);
    this.inFlight++;
    // Backpressure: past the cap the socket is not read until an answer is out.
    if (this.inFlight >= limits.maxInFlightRequests) this.socket.pause();
    dispatcher
      .respond(payload, client)
      .then(
        (answer) => {
          if (answer !== null) this.send(typeof answer === 'string' ? Buffer.from(answer, 'utf8') : answer);
        },
        (err: unknown) => log.error({ err, ip: this.ip }, 'ws request failed'),
      )
      .finally(() => {
        for (const sub of scope.opened) this.release(sub);
        this.inFlight--;
        if (!this.ended && this.socket.isPaused && this.inFlight < limits.maxInFlightRequests) this.socket.resume();
      });
  }

  /** The eth_subscribe answer is out: send what the subscription collected meanwhile, then stream. */
  private release(sub: Subscription): void {
    const held = this.held.get(sub);
    if (held === undefined) return;
    this.held.delete(sub);
    for (const data of held) {
      this.heldBytes -= data.length;
      this.send(data);
    }
  }

  /** Whether `bytes` more fit under the send bound; when not, the client is closed as too slow. */
  private fits(bytes: number): boolean {
    const queued = this.socket.bufferedAmount + this.heldBytes;
    if (queued + bytes <= this.deps.limits.maxSendBufferBytes) return true;
    this.closeTooSlow(queued);
    return false;
  }

  private send(data: Buffer): void {
    if (this.ended || !this.fits(data.length)) return;
    this.socket.send(data, { binary: false });
  }

  /** Closes a connection whose message did not arrive within the read timeout (src/rpc/ws/message-deadline.ts). */
  closeStalled(readTimeoutMs: number): void {
    if (this.ended) return;
    this.end();
    this.deps.metrics.disconnects.inc({ reason: 'stalled' });
    this.deps.log.debug({ ip: this.ip, readTimeoutMs }, 'ws message incomplete past the read timeout: closing with 1008');
    this.closeThenCut(CLOSE_POLICY_VIOLATION, `${STALLED_REASON} (${readTimeoutMs} ms)`);
  }

  private closeTooSlow(queued: number): void {
    if (this.ended) return;
    this.end();
    this.deps.metrics.disconnects.inc({ reason: 'slow' });
    this.deps.log.warn({ ip: this.ip, queuedBytes: queued }, 'ws client too slow: closing with 1008');
    this.closeThenCut(CLOSE_TOO_SLOW, TOO_SLOW_REASON);
  }

  /** Sends a close frame; a client that does not complete the closing handshake within the grace is cut. */
  private closeThenCut(code: number, reason: string): void {
    this.socket.close(code, reason);
    // The close frame waits behind what is queued; a client that never reads it is cut after the grace.
    const timer = setTimeout(() => this.socket.terminate(), this.deps.limits.slowCloseGraceMs);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  /** Stops all sending and ends every subscription; idempotent. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const sub of this.subscriptions.values()) this.drop(sub);
    this.subscriptions.clear();
  }

  private drop(sub: Subscription): void {
    const held = this.held.get(sub);
    if (held !== undefined) {
      for (const data of held) this.heldBytes -= data.length;
      this.held.delete(sub);
    }
    this.deps.hub.remove(sub);
  }
}
