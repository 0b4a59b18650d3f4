// Rent's block hooks, driven only by block data: at the start of block N it reads what block N - 1
// did (the accounts whose slot count changed, from the native store, and the accounts with code its
// execution loaded) and, at an epoch's first block, the dormancy checks due at that epoch; when
// governance changed a rule of rent, every record is brought under the new rules first.
import type { BalanceMove } from '../../native/index.js';
import { system } from '../../params.js';
import { addressBuffer, noChange, type BlockInfo, type HookResult } from '../kernel/module.js';
import type { RentContext } from './context.js';
import { rentSchedule } from './genesis.js';
import { isExempt, owedAt, reschedule, sameSchedule, settle } from './rules.js';
import type { Address, RentRecord } from './types.js';

const RENT: Address = system.rentAddress as Address;
const lower = (a: string): Address => a.toLowerCase() as Address;

/**
 * Before the block's transactions: the deposits of the slots the parent created or freed (moved
 * before any transaction, from the balance the parent left), the activity of the parent's
 * execution, and at an epoch's first block the dormancy checks due at that epoch.
 */
export function rentBeginBlock(rent: RentContext, block: BlockInfo): HookResult {
  const preMoves: BalanceMove[] = [];
  const result: HookResult = { ...noChange(), preMoves };
  if (block.height <= 1) return result;
  const parent = block.height - 1;
  const parentEpoch = block.isEpochStart ? block.epoch - 1 : block.epoch;
  let changed = refileIfRulesChanged(rent, block);
  for (const { address, count } of rent.reads.slotChanges(parent)) {
    const a = lower(address);
    if (isExempt(rent, a)) continue;
    const moves = slotsChanged(rent, a, count, block.epoch, parentEpoch, parent);
    preMoves.push(...moves);
    changed = true;
  }
  for (const address of rent.reads.activeCode(parent)) {
    const a = lower(address);
    if (isExempt(rent, a)) continue;
    const r = rent.store.record(a);
    if (!r || r.dormant || r.lastActiveEpoch >= parentEpoch) continue;
    settle(rent, r, block.epoch);
    r.lastActiveEpoch = parentEpoch;
    reschedule(rent, r, block.epoch);
    rent.store.save(r);
  }
  if (block.isEpochStart) changed = dormancyDue(rent, block) || changed;
  if (changed) rent.store.saveGlobal();
  return result;
}

export function rentEndBlock(rent: RentContext, _block: BlockInfo): HookResult {
  return noChange();
}

/** The slot count of `a` moved to `count` in the parent: its deposit follows, and its record. */
function slotsChanged(rent: RentContext, a: Address, count: number, epoch: number, parentEpoch: number, parent: number): BalanceMove[] {
  const g = rent.store.global;
  const existing = rent.store.record(a);
  const r: RentRecord = existing ?? {
    address: a,
    slots: 0,
    covered: 0,
    deposit: 0n,
    owed: 0n,
    settledEpoch: epoch,
    lastActiveEpoch: parentEpoch,
    dormant: false,
    dueEpoch: null,
    rentPaid: 0n,
  };
  const isNew = existing === null;
  settle(rent, r, epoch);
  // The parent changed its storage, so its code ran there.
  if (r.lastActiveEpoch < parentEpoch) r.lastActiveEpoch = parentEpoch;
  const moves: BalanceMove[] = [];
  const per = rent.params.depositPerSlot;
  if (count > r.slots) {
    const wanted = BigInt(count - r.covered);
    const affordable = per === 0n ? wanted : rent.reads.balanceAt(a, parent) / per;
    const take = wanted < affordable ? wanted : affordable;
    if (take > 0n) {
      r.covered += Number(take);
      r.deposit += take * per;
      g.deposits += take * per;
      if (take * per > 0n) moves.push({ from: addressBuffer(a), to: addressBuffer(RENT), amount: take * per });
    }
  } else if (count < r.slots) {
    // Freed slots release the uncovered ones first.
    const freed = r.slots - count;
    const uncovered = r.slots - r.covered;
    const freedCovered = Math.max(0, freed - uncovered);
    if (freedCovered > 0) {
      const back = freedCovered === r.covered ? r.deposit : (r.deposit * BigInt(freedCovered)) / BigInt(r.covered);
      r.covered -= freedCovered;
      r.deposit -= back;
      g.deposits -= back;
      if (back > 0n) moves.push({ from: addressBuffer(RENT), to: addressBuffer(a), amount: back });
    }
  }
  r.slots = count;
  if (r.slots === 0 && r.deposit === 0n && r.owed === 0n && !r.dormant) {
    // A check filed for it is dropped when its epoch comes (no record: nothing to check).
    if (!isNew) {
      rent.store.remove(a);
      g.accounts -= 1;
    }
    return moves;
  }
  if (isNew) g.accounts += 1;
  reschedule(rent, r, epoch);
  rent.store.save(r);
  return moves;
}

/** The epoch's first block: accounts due now that owe more than the limit and were inactive long enough become dormant (entries a later touch made stale are dropped). */
function dormancyDue(rent: RentContext, block: BlockInfo): boolean {
  const due = rent.store.dueAt(block.epoch);
  for (const a of due) {
    rent.store.setDue(block.epoch, a, false);
    const r = rent.store.record(a);
    if (!r || r.dormant || r.dueEpoch !== block.epoch) continue;
    settle(rent, r, block.epoch);
    r.dueEpoch = null;
    checkDormancy(rent, r, block);
    rent.store.save(r);
  }
  return due.length > 0;
}

/**
 * At an epoch start, `r` (settled at it) becomes dormant when it owes more than the limit and was
 * inactive for dormancyEpochs (the one statement of the rule); else its next check is filed.
 */
function checkDormancy(rent: RentContext, r: RentRecord, block: BlockInfo): void {
  if (block.isEpochStart && r.owed > rent.params.dormancyOwedLimit && block.epoch - r.lastActiveEpoch >= rent.params.dormancyEpochs) {
    r.dormant = true;
    r.dueEpoch = null;
    rent.store.setDormantFlag(r.address, true);
    rent.store.global.dormantCount += 1;
    rent.block.madeDormant.push(r.address);
    rent.event({ kind: 'dormant', height: block.height, account: r.address, epoch: block.epoch, rentOwed: r.owed });
  } else {
    reschedule(rent, r, block.epoch);
  }
}

/**
 * When governance changed a rule that decides rent or dormancy (applied at this epoch's first
 * block, before this hook), every record is brought under the new rules at once, so that the rule
 * reaches an idle account exactly as one written after the change: its rent up to this epoch is
 * settled at the rate those epochs had, the rule is checked now (this is an epoch start) and the
 * next check is filed under the new rules, whatever was filed before. The rules the records are
 * filed under are kept in the module's global record (covered by the block root), so a replay
 * does the same at the same block. Cost: one pass over the records, once per change.
 */
function refileIfRulesChanged(rent: RentContext, block: BlockInfo): boolean {
  const g = rent.store.global;
  const filed = g.filedUnder ?? rent.genesisSchedule;
  const now = rentSchedule(rent.params);
  if (sameSchedule(filed, now)) return false;
  for (const r of rent.store.allRecords()) {
    if (block.epoch > r.settledEpoch) {
      if (!isExempt(rent, r.address)) r.owed = owedAt(r, block.epoch, filed.rentPerSlotPerEpoch);
      r.settledEpoch = block.epoch;
    }
    if (!r.dormant) {
      r.dueEpoch = null;
      checkDormancy(rent, r, block);
    }
    rent.store.save(r);
  }
  g.filedUnder = now;
  return true;
}
