// Prometheus metrics of the JSON-RPC server, registered on the node's registry.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { HttpServerStats } from '../native/index.js';

/** Latency buckets in seconds: sub-millisecond reads up to multi-second log scans. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Label for a method name that is not in the table, so random names cannot grow the series count. */
export const UNKNOWN_METHOD = 'unknown';

/** A native server's own counts, and what of them the counters already hold. */
interface NativeSource {
  read: () => HttpServerStats;
  seenCalls: Map<string, number>;
  seenResponses: Map<number, number>;
}

/** Native servers per registry: their answers are added to the shared counters at each scrape. */
const nativeSources = new WeakMap<Registry, Set<NativeSource>>();

/** Adds the calls the native servers of `registry` answered since the last scrape. */
function collectNativeCalls(registry: Registry, calls: Counter<'method' | 'status'>): void {
  for (const source of nativeSources.get(registry) ?? []) {
    for (const { method, count } of source.read().calls) {
      const delta = count - (source.seenCalls.get(method) ?? 0);
      if (delta > 0) calls.inc({ method, status: 'ok' }, delta);
      source.seenCalls.set(method, count);
    }
  }
}

/** Adds the HTTP responses the native servers of `registry` gave since the last scrape. */
function collectNativeResponses(registry: Registry, responses: Counter<'code'>): void {
  for (const source of nativeSources.get(registry) ?? []) {
    for (const { status, count } of source.read().responses) {
      const delta = count - (source.seenResponses.get(status) ?? 0);
      if (delta > 0) responses.inc({ code: String(status) }, delta);
      source.seenResponses.set(status, count);
    }
  }
}

export class RpcMetrics {
  /** JSON-RPC calls by method and status ("ok" or the error code). */
  readonly calls: Counter<'method' | 'status'>;
  /** Time to answer a call, by method. */
  readonly callSeconds: Histogram<'method'>;
  /** HTTP responses by status code (429, 413 and 415 show up here). */
  readonly httpResponses: Counter<'code'>;

  constructor(private readonly registry: Registry) {
    // A registry shared by two servers (tests) keeps one set of series.
    this.calls =
      (registry.getSingleMetric('svc_rpc_requests_total') as Counter<'method' | 'status'> | undefined) ??
      new Counter({
        name: 'svc_rpc_requests_total',
        help: 'JSON-RPC calls by method and status (ok or the error code)',
        labelNames: ['method', 'status'],
        registers: [registry],
        collect() {
          collectNativeCalls(registry, this);
        },
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
        collect() {
          collectNativeResponses(registry, this);
        },
      });
  }

  /**
   * Counts the calls and HTTP responses a native server answers by itself (they never reach
   * observeCall) in the same series, at each scrape. Returns the function that detaches it.
   */
  addNativeSource(read: () => HttpServerStats): () => void {
    let sources = nativeSources.get(this.registry);
    if (sources === undefined) {
      sources = new Set();
      nativeSources.set(this.registry, sources);
    }
    const source: NativeSource = { read, seenCalls: new Map(), seenResponses: new Map() };
    sources.add(source);
    return () => {
      collectNativeCalls(this.registry, this.calls);
      collectNativeResponses(this.registry, this.httpResponses);
      sources.delete(source);
    };
  }

  /** Records one call. */
  observeCall(method: string, status: string, seconds: number): void {
    this.calls.inc({ method, status });
    this.callSeconds.observe({ method }, seconds);
  }
}
