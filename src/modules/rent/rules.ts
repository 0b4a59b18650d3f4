// Rent's rules (docs/rent.md): what a record owes, when it is next checked for dormancy, the
// refusal text, and the two steps every touch of a record takes (settle, then reschedule); and
// svc_getAccountRentInfo's view of an account. Messages and hooks both apply them.
import type { RentParams } from '../../params.js';
import type { RentContext } from './context.js';
import type { AccountRentInfo, Address, RentRecord, RentSchedule } from './types.js';

const lower = (a: string): Address => a.toLowerCase() as Address;

/** Why a call into, or a transaction from or to, a dormant account fails (the native executor's text for calls inside contracts). */
export function dormantReason(address: string): string {
  return `rent: account ${address.toLowerCase()} is dormant; reactivate it through the rent module`;
}

/** The rent owed by `r` at `epoch`: what was settled plus the uncovered slots' rent since. */
export function owedAt(r: Pick<RentRecord, 'owed' | 'settledEpoch' | 'slots' | 'covered'>, epoch: number, rate: bigint): bigint {
  const epochs = epoch > r.settledEpoch ? BigInt(epoch - r.settledEpoch) : 0n;
  return r.owed + BigInt(r.slots - r.covered) * rate * epochs;
}

/**
 * The first epoch after `epoch` at whose start `r` is dormant if nothing changes it: owing more
 * than the limit and inactive for `dormancyEpochs`; null when it never is (no uncovered slot and
 * nothing owed above the limit).
 */
export function dueEpoch(r: RentRecord, epoch: number, p: RentParams): number | null {
  if (r.dormant) return null;
  const inactiveFrom = r.lastActiveEpoch + p.dormancyEpochs;
  const earliest = Math.max(epoch + 1, inactiveFrom);
  const owed = owedAt(r, r.settledEpoch, p.rentPerSlotPerEpoch);
  if (owed > p.dormancyOwedLimit) return earliest;
  const perEpoch = BigInt(r.slots - r.covered) * p.rentPerSlotPerEpoch;
  if (perEpoch === 0n) return null;
  // owed + perEpoch * (e - settled) > limit  <=>  e > settled + (limit - owed) / perEpoch
  const over = BigInt(r.settledEpoch) + (p.dormancyOwedLimit - owed) / perEpoch + 1n;
  // Beyond 2^53 epochs: never, as far as any chain runs (a later touch or payment schedules again).
  if (over > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Math.max(earliest, Number(over));
}


/** Whether two schedules are the same rules. */
export const sameSchedule = (a: RentSchedule, b: RentSchedule): boolean =>
  a.rentPerSlotPerEpoch === b.rentPerSlotPerEpoch && a.dormancyOwedLimit === b.dormancyOwedLimit && a.dormancyEpochs === b.dormancyEpochs;

/** Whether `address` is exempt from rent (a system module's, or one the app names). */
export function isExempt(rent: RentContext, address: string): boolean {
  return rent.exempt.has(lower(address));
}

/** svc_getAccountRentInfo at `epoch` (the head's). */
export function accountInfo(rent: RentContext, address: string, epoch: number): AccountRentInfo {
  const a = lower(address);
  const r = rent.store.record(a);
  return {
    address: a,
    storageDeposit: (r?.deposit ?? 0n).toString(),
    storageSlotCount: r?.slots ?? rent.reads.slotCount(a),
    lastActiveEpoch: r?.lastActiveEpoch ?? 0,
    isDormant: r?.dormant ?? false,
    rentOwed: (r && !isExempt(rent, a) ? owedAt(r, epoch, rent.params.rentPerSlotPerEpoch) : 0n).toString(),
    currentEpoch: epoch,
    reactivationFee: rent.params.reactivationFee.toString(),
  };
}

/** Brings `r.owed` to `epoch` (exempt accounts owe nothing). */
export function settle(rent: RentContext, r: RentRecord, epoch: number): void {
  if (epoch <= r.settledEpoch) return;
  if (!isExempt(rent, r.address)) r.owed = owedAt(r, epoch, rent.params.rentPerSlotPerEpoch);
  r.settledEpoch = epoch;
}

/**
 * Records when `r` is next checked for dormancy (settled at `epoch`), writing as little as it can:
 * a check already filed for an epoch no later than the new one stands (it looks again then and
 * files the next), and a check no longer needed is left to be dropped when its epoch comes (the
 * record's `dueEpoch` names the one entry that counts). So a touch writes the due index only when
 * it brings the check forward, and never deletes from it.
 */
export function reschedule(rent: RentContext, r: RentRecord, epoch: number): void {
  const next = dueEpoch(r, epoch, rent.params);
  if (next === null) {
    r.dueEpoch = null;
    return;
  }
  if (r.dueEpoch !== null && r.dueEpoch > epoch && r.dueEpoch <= next) return;
  r.dueEpoch = next;
  rent.store.setDue(next, r.address, true);
}
