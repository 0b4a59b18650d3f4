// The per-IP request rate limit of the WebSocket endpoint, with the rules of the native HTTP server's
// limiter (crates/svc-rpc-http/src/limiter.rs), which JavaScript cannot reach: a token bucket per
// client refilled at config.rpcRateLimit per second up to one second's worth; a message needs one
// token to be admitted and a batch then pays for its other items, possibly going into debt.
import { isIPv4, isIPv6 } from 'node:net';

/** How often buckets that have refilled are forgotten. */
const SWEEP_INTERVAL_MS = 10_000;

interface Bucket {
  tokens: number;
  /** Last refill, milliseconds (monotonic clock). */
  at: number;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address, else the address unchanged. */
function unmapped(ip: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;
}

/** The eight 16-bit groups of an IPv6 address. */
function ipv6Groups(ip: string): number[] {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16) || 0);
}

/** Whether the address is the local host: 127.0.0.0/8, ::1, or their IPv4-mapped forms. */
export function isLoopback(ip: string): boolean {
  const v4 = unmapped(ip);
  if (isIPv4(v4)) return v4.startsWith('127.');
  return isIPv6(ip) && ipv6Groups(ip).every((g, i) => g === (i === 7 ? 1 : 0));
}

/** IPv4 clients by address (mapped ones too); IPv6 clients by their /64, the block one subscriber usually holds. */
export function clientKey(ip: string): string {
  const v4 = unmapped(ip);
  if (isIPv4(v4) || !isIPv6(v4)) return v4;
  const groups = ipv6Groups(v4).slice(0, 4);
  return `${groups.map((g) => g.toString(16)).join(':')}::/64`;
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
