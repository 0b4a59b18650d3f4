// ERC-7562's reputation of factories and paymasters: operations seen (accepted into the pool) and
// included (mined), decayed by 1/24 every hour; an entity whose inclusion rate falls behind is
// throttled, then banned (ERC-7769 -32504). Node-local, as every bundler keeps it.
import { bundler as params } from '../params.js';

export type ReputationStatus = 'ok' | 'throttled' | 'banned';

interface Entry {
  opsSeen: bigint;
  opsIncluded: bigint;
}

export class Reputation {
  private readonly entries = new Map<string, Entry>();

  private entry(address: string): Entry {
    const key = address.toLowerCase();
    let e = this.entries.get(key);
    if (!e) this.entries.set(key, (e = { opsSeen: 0n, opsIncluded: 0n }));
    return e;
  }

  seen(address: string): void {
    this.entry(address).opsSeen += 1n;
  }

  included(address: string): void {
    this.entry(address).opsIncluded += 1n;
  }

  /** ERC-7562: maxSeen = opsSeen / MIN_INCLUSION_RATE_DENOMINATOR, compared with opsIncluded plus a slack. */
  status(address: string): ReputationStatus {
    const e = this.entries.get(address.toLowerCase());
    if (!e) return 'ok';
    const maxSeen = e.opsSeen / params.minInclusionRateDenominator;
    if (maxSeen > e.opsIncluded + params.banSlack) return 'banned';
    if (maxSeen > e.opsIncluded + params.throttlingSlack) return 'throttled';
    return 'ok';
  }

  /** The hourly decay: each counter loses 1/24 (entries that reach zero are forgotten). */
  decay(): void {
    for (const [key, e] of this.entries) {
      e.opsSeen -= e.opsSeen / 24n;
      e.opsIncluded -= e.opsIncluded / 24n;
      if (e.opsSeen === 0n && e.opsIncluded === 0n) this.entries.delete(key);
    }
  }

  /** Every entry, for diagnostics. */
  dump(): { address: string; opsSeen: bigint; opsIncluded: bigint; status: ReputationStatus }[] {
    return [...this.entries].map(([address, e]) => ({ address, ...e, status: this.status(address) }));
  }
}
