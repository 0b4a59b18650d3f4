// Prometheus metrics of the JSON-RPC server, registered on the node's registry.
import { Counter, Histogram, type Registry } from 'prom-client';

/** Latency buckets in seconds: sub-millisecond reads up to multi-second log scans. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Label for a method name that is not in the table, so random names cannot grow the series count. */
export const UNKNOWN_METHOD = 'unknown';

export class RpcMetrics {
  /** JSON-RPC calls by method and status ("ok" or the error code). */
  readonly calls: Counter<'method' | 'status'>;
  /** Time to answer a call, by method. */
  readonly callSeconds: Histogram<'method'>;
  /** HTTP responses by status code (429, 413 and 415 show up here). */
  readonly httpResponses: Counter<'code'>;

  constructor(registry: Registry) {
    // A registry shared by two servers (tests) keeps one set of series.
    this.calls =
      (registry.getSingleMetric('svc_rpc_requests_total') as Counter<'method' | 'status'> | undefined) ??
      new Counter({
        name: 'svc_rpc_requests_total',
        help: 'JSON-RPC calls by method and status (ok or the error code)',
        labelNames: ['method', 'status'],
        registers: [registry],
      });
    this.callSeconds =
      (registry.getSingleMetric('svc_rpc_request_duration_seconds') as Histogram<'method'> | undefined) ??
      new Histogram({
        name: 'svc_rpc_request_duration_seconds',
        help: 'Time to answer a JSON-RPC call, by method',
        labelNames: ['method'],
        buckets: LATENCY_BUCKETS,
        registers: [registry],
      });
    this.httpResponses =
      (registry.getSingleMetric('svc_rpc_http_responses_total') as Counter<'code'> | undefined) ??
      new Counter({
        name: 'svc_rpc_http_responses_total',
        help: 'HTTP responses of the JSON-RPC server by status code',
        labelNames: ['code'],
        registers: [registry],
      });
  }

  /** Records one call. */
  observeCall(method: string, status: string, seconds: number): void {
    this.calls.inc({ method, status });
    this.callSeconds.observe({ method }, seconds);
  }
}
