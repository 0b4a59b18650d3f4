// A sliding-window rate limiter: per caller, the times of the requests inside the last window;
// a request is admitted while fewer than `limit` fall inside it. Time comes from a clock the
// owner passes in (wall-clock milliseconds), so tests can move it instead of sleeping.

/** What a request would get from one limit. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window once this one is counted (0 when refused). */
  remaining: number;
  /** Unix milliseconds when the next slot frees (refused: when this request could pass). */
  resetAt: number;
}

export class SlidingWindowLimiter {
  /** Caller -> times of its requests inside the window, oldest first. */
  private readonly hits = new Map<string, number[]>();

  constructor(readonly windowMs: number) {}

  /** The decision for a request of `caller` at `now`, without counting it. */
  check(caller: string, limit: number, now: number): RateDecision {
    const times = this.recent(caller, now);
    const count = times.length;
    if (count < limit) return { allowed: true, limit, remaining: limit - count - 1, resetAt: (times[0] ?? now) + this.windowMs };
    // Enough of the oldest requests must leave the window that one more fits.
    return { allowed: false, limit, remaining: 0, resetAt: times[count - limit]! + this.windowMs };
  }

  /** Counts a request of `caller` at `now`. */
  take(caller: string, now: number): void {
    const times = this.recent(caller, now);
    times.push(now);
    this.hits.set(caller, times);
  }

  /** Forgets callers with no request inside the window (bounds memory to recent callers). */
  sweep(now: number): void {
    for (const [caller, times] of this.hits) {
      if ((times[times.length - 1] ?? -Infinity) <= now - this.windowMs) this.hits.delete(caller);
    }
  }

  private recent(caller: string, now: number): number[] {
    const times = this.hits.get(caller) ?? [];
    let drop = 0;
    while (drop < times.length && times[drop]! <= now - this.windowMs) drop++;
    if (drop > 0) times.splice(0, drop);
    return times;
  }
}
