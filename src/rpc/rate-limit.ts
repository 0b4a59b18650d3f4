// Per-IP token buckets for the public JSON-RPC (spec: 100 requests per second). A request needs one
// token to be admitted; a batch then pays for its remaining items, possibly going into debt, so
// batches are served whatever their size and the average rate still holds.
import { isIP } from 'node:net';

/** How often buckets that have refilled are forgotten. */
const SWEEP_INTERVAL_MS = 10_000;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** The answer to "may this client make a request now?". */
export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(ip: string): boolean {
  const v4 = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  return v4.startsWith('127.') || ip === '::1';
}

/** IPv6 clients are keyed by their /64, the block one subscriber usually holds. */
function clientKey(ip: string): string {
  if (isIP(ip) !== 6 || ip.startsWith('::ffff:')) return ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  const [head = '', tail = ''] = ip.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly sweepTimer: NodeJS.Timeout;

  /**
   * @param perSecond tokens added per second, also the burst a client may spend at once
   * @param exemptLoopback let local tools (tests, scripts on the node's host) through unmetered
   */
  constructor(
    private readonly perSecond: number,
    private readonly exemptLoopback: boolean,
    private readonly now: () => number = () => performance.now(),
  ) {
    // Full buckets carry no information; dropping them keeps the map as small as the set of active clients.
    this.sweepTimer = setInterval(() => this.dropFull(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  /** Takes one token for a request from `ip`, or says how long to wait. */
  admit(ip: string): Admission {
    if (this.exempt(ip)) return { admitted: true };
    const bucket = this.refill(clientKey(ip));
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { admitted: true };
    }
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)) };
  }

  /** Charges `extra` more tokens to an admitted request (the other items of a batch). */
  charge(ip: string, extra: number): void {
    if (extra <= 0 || this.exempt(ip)) return;
    this.refill(clientKey(ip)).tokens -= extra;
  }

  close(): void {
    clearInterval(this.sweepTimer);
    this.buckets.clear();
  }

  private exempt(ip: string): boolean {
    return this.exemptLoopback && isLoopback(ip);
  }

  private refill(key: string): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.perSecond, updatedAt: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    return bucket;
  }

  private dropFull(): void {
    for (const [key, bucket] of this.buckets) {
      const tokens = bucket.tokens + ((this.now() - bucket.updatedAt) / 1000) * this.perSecond;
      if (tokens >= this.perSecond) this.buckets.delete(key);
    }
  }
}
