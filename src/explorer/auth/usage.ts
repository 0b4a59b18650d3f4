// Requests per API key per UTC day: counted in memory on every admitted request and written to the
// users column family every few seconds and on close, so "usage today" survives a restart without
// a synced write per request.
import { be, commit, type Write } from '../store.js';
import { idKey, utcDay, type DayUsage, type UsersStore } from './store.js';

interface Counter {
  keyId: string;
  day: number;
  usage: DayUsage;
  dirty: boolean;
}

const dayKey = (keyId: string, day: number): Buffer => Buffer.concat([idKey(keyId), be(day, 4)]);

export class DailyUsage {
  private readonly counters = new Map<string, Counter>();
  /** Key id -> its last request (unix ms), for keys used since start. */
  private readonly lastUsed = new Map<string, number>();

  constructor(
    private readonly store: UsersStore,
    private readonly now: () => number,
  ) {}

  /** Today (UTC, by this clock) as YYYY-MM-DD, and when it ends (ISO time). */
  day(): { date: string; endsAt: string } {
    const day = utcDay(this.now());
    return { date: new Date(day * 86_400_000).toISOString().slice(0, 10), endsAt: new Date((day + 1) * 86_400_000).toISOString() };
  }

  /** Requests of the key today (UTC, by this clock). */
  today(keyId: string): number {
    return this.counter(keyId, utcDay(this.now())).usage.count;
  }

  /** Counts `requests` requests of the key now; returns today's total. */
  record(keyId: string, requests = 1): number {
    const now = this.now();
    const c = this.counter(keyId, utcDay(now));
    c.usage.count += requests;
    c.usage.lastUsedAt = now;
    c.dirty = true;
    this.lastUsed.set(keyId, now);
    return c.usage.count;
  }

  /** Unix ms of the key's last request, or null when it was never used. */
  lastUsedAt(keyId: string): number | null {
    const known = this.lastUsed.get(keyId);
    if (known !== undefined) return known;
    const [latest] = this.store.usage.scan(idKey(keyId), undefined, 1, true);
    return latest && latest.value.lastUsedAt > 0 ? latest.value.lastUsedAt : null;
  }

  /** Writes changed counts in one batch and forgets the days before today. */
  flush(): void {
    const today = utcDay(this.now());
    const writes: Write[] = [];
    for (const [name, c] of this.counters) {
      if (c.dirty) writes.push(this.store.usage.putWrite(dayKey(c.keyId, c.day), c.usage));
      c.dirty = false;
      if (c.day < today) this.counters.delete(name);
    }
    commit(this.store.chain, 'users', writes);
  }

  /** Drops every count of a revoked key; returns the deletes for the caller's batch. */
  forget(keyId: string): Write[] {
    for (const [name, c] of this.counters) if (c.keyId === keyId) this.counters.delete(name);
    this.lastUsed.delete(keyId);
    return this.store.usage.scan(idKey(keyId), undefined, 10_000, false).map((e) => this.store.usage.deleteWrite(e.key));
  }

  private counter(keyId: string, day: number): Counter {
    const name = `${keyId}/${day}`;
    let c = this.counters.get(name);
    if (!c) {
      c = { keyId, day, usage: this.store.usage.get(dayKey(keyId, day)) ?? { count: 0, lastUsedAt: 0 }, dirty: false };
      this.counters.set(name, c);
    }
    return c;
  }
}
