// Failed sign-ins per account, beside the per-IP limit of /auth/* (which many source addresses
// share out between them): after `failures` failed logins for one email within `windowMs`, that
// email's logins are refused with 429 and Retry-After for `lockoutMs`, right password or not and
// from any address; each further failure (once a lockout has passed) locks it twice as long, up to
// `maxLockoutMs`. A successful sign-in forgets the failures, and so does a quiet `windowMs` after
// the last failure or lockout. Emails are counted whether or not they have an account, so the
// answers tell nothing about which are registered. One account's attempts are checked one at a
// time, so that a burst of guesses sent at once is counted guess by guess, not all let through
// before the first one fails. Time comes from the clock the owner passes in (tests move it).
import type { explorer as explorerParams } from '../../params.js';
import { TooManyRequestsError, UnauthorizedError } from '../envelope.js';
import { WorkGate } from '../work-gate.js';
import { normaliseEmail } from './passwords.js';

export type LoginThrottleParams = (typeof explorerParams)['authPerAccount'];

interface Failures {
  /** Times of the failures inside the window, oldest first. */
  times: number[];
  /** The last failure. */
  lastAt: number;
  /** Logins are refused until then (0: never locked). */
  lockedUntil: number;
  /** Length of the last lockout; the next one is twice as long. 0 before the first. */
  lockoutMs: number;
}

export class LoginThrottle {
  /** Email -> its failures, least recently failed first. */
  private readonly failures = new Map<string, Failures>();
  /** Email -> the gate its attempts pass one at a time, while any is running or waiting. */
  private readonly gates = new Map<string, WorkGate>();

  constructor(
    private readonly params: LoginThrottleParams,
    /** Wall-clock milliseconds. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `signIn` for `email` unless the account is locked (TooManyRequestsError). A 401 from it is
   * a failure; a success forgets the account's failures; other errors (503 busy) count for nothing.
   */
  async attempt<T>(email: string, signIn: () => Promise<T>): Promise<T> {
    const key = normaliseEmail(email);
    // Not an address: no account can match, and nothing is worth remembering.
    if (key === null) return signIn();
    let gate = this.gates.get(key);
    if (!gate) {
      gate = new WorkGate('account sign-in', 1, this.params.maxWaiting);
      this.gates.set(key, gate);
    }
    try {
      return await gate.run(async () => {
        this.refuseWhileLocked(key);
        try {
          const result = await signIn();
          this.failures.delete(key);
          return result;
        } catch (err) {
          if (err instanceof UnauthorizedError) this.failed(key);
          throw err;
        }
      });
    } finally {
      const load = gate.load();
      if (load.running === 0 && load.waiting === 0 && this.gates.get(key) === gate) this.gates.delete(key);
    }
  }

  /** Forgets accounts whose failures and lockouts are over (bounds memory to recent ones). */
  sweep(): void {
    const now = this.now();
    for (const [key, f] of this.failures) if (this.expired(f, now)) this.failures.delete(key);
  }

  /** Accounts remembered now (tests). */
  get tracked(): number {
    return this.failures.size;
  }

  private refuseWhileLocked(key: string): void {
    const now = this.now();
    const f = this.current(key, now);
    if (f === undefined || now >= f.lockedUntil) return;
    const retryAfter = Math.max(1, Math.ceil((f.lockedUntil - now) / 1000));
    throw new TooManyRequestsError(`too many failed sign-ins for this account; retry in ${retryAfter} s`, { 'Retry-After': String(retryAfter) });
  }

  private failed(key: string): void {
    const now = this.now();
    const f = this.current(key, now) ?? { times: [], lastAt: now, lockedUntil: 0, lockoutMs: 0 };
    f.times.push(now);
    f.lastAt = now;
    // The first lockout comes with the `failures`-th failure in the window; once locked, every further failure locks again, twice as long.
    if (f.lockoutMs > 0 || f.times.length >= this.params.failures) {
      f.lockoutMs = f.lockoutMs === 0 ? this.params.lockoutMs : Math.min(this.params.maxLockoutMs, f.lockoutMs * 2);
      f.lockedUntil = now + f.lockoutMs;
    }
    // Re-inserted last: the map's order is least recently failed first, the order of forgetting.
    this.failures.delete(key);
    this.failures.set(key, f);
    for (const oldest of this.failures.keys()) {
      if (this.failures.size <= this.params.maxTracked) break;
      this.failures.delete(oldest);
    }
  }

  /** The account's failures with those outside the window dropped, or undefined when it has none that count. */
  private current(key: string, now: number): Failures | undefined {
    const f = this.failures.get(key);
    if (f === undefined) return undefined;
    if (this.expired(f, now)) {
      this.failures.delete(key);
      return undefined;
    }
    const from = now - this.params.windowMs;
    while (f.times.length > 0 && f.times[0]! <= from) f.times.shift();
    return f;
  }

  /** A quiet window after the last failure and after the lockout ends: the account starts afresh. */
  private expired(f: Failures, now: number): boolean {
    return now >= Math.max(f.lastAt, f.lockedUntil) + this.params.windowMs;
  }
}
