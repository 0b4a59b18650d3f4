// The per-IP request rate limit of the WebSocket endpoint, with the rules of the native HTTP server's
// limiter (crates/svc-rpc-http/src/limiter.rs), which JavaScript cannot reach: a token bucket per
// client refilled at config.rpcRateLimit per second up to one second's worth; a message needs one
// token to be admitted and a batch then pays for its other items, possibly going into debt.
import { clientKey, isLoopback } from '../../net/client-ip.js';

/** How often buckets that have refilled are forgotten. */
const SWEEP_INTERVAL_MS = 10_000;

interface Bucket {
  tokens: number;
  /** Last refill, milliseconds (monotonic clock). */
  at: number;
}

/** The answer to "may this client send a request now?". */
export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/** Token buckets by client. A rate of 0 admits everything. */
export class IpRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly exemptLoopback: boolean,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.sweptAt = now();
  }

  /** Takes one token for a message from `ip`, or says how long to wait. */
  admit(ip: string): Admission {
    if (this.exempt(ip)) return { admitted: true };
    const bucket = this.refill(clientKey(ip));
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { admitted: true };
    }
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)) };
  }

  /** Charges `extra` more tokens to an admitted message (the other items of a batch). */
  charge(ip: string, extra: number): void {
    if (extra <= 0 || this.exempt(ip)) return;
    this.refill(clientKey(ip)).tokens -= extra;
  }

  /** Clients currently tracked (full buckets are forgotten). */
  get tracked(): number {
    return this.buckets.size;
  }

  private exempt(ip: string): boolean {
    return this.perSecond <= 0 || (this.exemptLoopback && isLoopback(ip));
  }

  private refill(key: string): Bucket {
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_INTERVAL_MS) {
      // Full buckets carry no information; dropping them keeps the map as small as the set of active clients.
      for (const [k, b] of this.buckets) {
        if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.perSecond) this.buckets.delete(k);
      }
      this.sweptAt = now;
    }
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.perSecond, at: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    return bucket;
  }
}
