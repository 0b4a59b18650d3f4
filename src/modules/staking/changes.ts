// What changed in the staking module from one block to the next: a new epoch (and its validator set),
// and validators registered, jailed, unjailed, slashed, or moved into or out of the active set. The
// ledger keeps state, not history, so changes are found by comparing it after each block with what
// it was after the previous one. Shared by the WebSocket subscriptions and the explorer's live feed.
import type { StakingLedger } from './ledger.js';
import type { Address, EpochSnapshot, SlashRecord, ValidatorStatus, ValidatorView } from './types.js';

/** One kind of validator change, in the order a notification lists them. */
export type ValidatorChangeKind = 'registered' | 'slashed' | 'jailed' | 'unjailed' | 'joinedActiveSet' | 'leftActiveSet' | 'removed';

/** Everything that changed for one validator in one block. */
export interface ValidatorChange {
  address: Address;
  kinds: ValidatorChangeKind[];
  /** The validator after the block (undefined once removed). */
  validator: ValidatorView | undefined;
  /** Its status before the block (null when it was not registered). */
  previousStatus: ValidatorStatus | null;
  /** Slashes applied in the block. */
  slashes: SlashRecord[];
}

interface Seen {
  status: ValidatorStatus;
  jailedUntil: number;
  slashCount: number;
}

/** Reports validator changes between calls of `next()`, one call per block. */
export class ValidatorWatch {
  private last: Map<Address, Seen>;

  constructor(private readonly ledger: () => StakingLedger) {
    this.last = this.snapshot(ledger().validators());
  }

  /** The changes since the previous call (or construction). */
  next(): ValidatorChange[] {
    const now = this.ledger().validators();
    const changes: ValidatorChange[] = [];
    const present = new Set<Address>();
    for (const v of now) {
      present.add(v.address);
      const before = this.last.get(v.address);
      const kinds = new Set<ValidatorChangeKind>();
      if (before === undefined) kinds.add('registered');
      const slashes = v.slashes.slice(before?.slashCount ?? v.slashes.length);
      if (slashes.length > 0) kinds.add('slashed');
      const wasJailed = before?.status === 'jailed';
      if (v.status === 'jailed' && (!wasJailed || v.jailedUntil > before.jailedUntil)) kinds.add('jailed');
      if (wasJailed && v.status !== 'jailed') kinds.add('unjailed');
      if (v.status === 'active' && before?.status !== 'active') kinds.add('joinedActiveSet');
      if (before?.status === 'active' && v.status !== 'active') kinds.add('leftActiveSet');
      if (kinds.size > 0) changes.push({ address: v.address, kinds: ORDER.filter((k) => kinds.has(k)), validator: v, previousStatus: before?.status ?? null, slashes });
    }
    for (const [address, before] of this.last) {
      if (!present.has(address)) changes.push({ address, kinds: ['removed'], validator: undefined, previousStatus: before.status, slashes: [] });
    }
    this.last = this.snapshot(now);
    return changes;
  }

  private snapshot(views: ValidatorView[]): Map<Address, Seen> {
    return new Map(views.map((v) => [v.address, { status: v.status, jailedUntil: v.jailedUntil, slashCount: v.slashes.length }]));
  }
}

const ORDER: ValidatorChangeKind[] = ['registered', 'slashed', 'jailed', 'unjailed', 'joinedActiveSet', 'leftActiveSet', 'removed'];

/** Reports the validator set of each new epoch, one call per block. */
export class EpochWatch {
  private last: number;

  constructor(private readonly ledger: () => StakingLedger) {
    this.last = ledger().currentEpoch;
  }

  /** The set of the epoch that started since the previous call, if one did. */
  next(): EpochSnapshot | undefined {
    const ledger = this.ledger();
    const epoch = ledger.currentEpoch;
    if (epoch === this.last) return undefined;
    this.last = epoch;
    return epoch < 0 ? undefined : ledger.validatorSet(epoch);
  }
}
