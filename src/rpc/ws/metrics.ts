// Prometheus metrics of the WebSocket endpoint, registered on the node's registry (once per registry,
// so that a second server on the same registry, as in tests, shares the series).
import { Counter, Gauge, type Registry } from 'prom-client';

function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Gauge<L> {
  return (registry.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames, registers: [registry] });
}

export class WsMetrics {
  /** Open connections. */
  readonly connections: Gauge;
  /** Live subscriptions by kind. */
  readonly subscriptions: Gauge<'kind'>;
  /** Notifications sent by kind. */
  readonly notifications: Counter<'kind'>;
  /** Connections the server ended, by reason (slow, dead, oversized). */
  readonly disconnects: Counter<'reason'>;
  /** Messages refused by the per-IP rate limit. */
  readonly rateLimited: Counter;

  constructor(registry: Registry) {
    this.connections = gauge(registry, 'svc_ws_connections', 'Open WebSocket JSON-RPC connections', []);
    this.subscriptions = gauge(registry, 'svc_ws_subscriptions', 'Live eth_subscribe subscriptions by kind', ['kind']);
    this.notifications = counter(registry, 'svc_ws_notifications_total', 'eth_subscription notifications sent, by kind', ['kind']);
    this.disconnects = counter(registry, 'svc_ws_disconnects_total', 'WebSocket connections ended by the server, by reason', ['reason']);
    this.rateLimited = counter(registry, 'svc_ws_rate_limited_total', 'WebSocket messages refused by the per-IP rate limit', []);
  }
}
