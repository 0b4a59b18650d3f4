// The rent module (docs/rent.md): accounts pay for the storage they keep. A deposit per slot is
// taken from the account's balance when its slots grow and returned when they shrink; slots no
// deposit covers owe rent each epoch, computed lazily per record; an account owing more than the
// limit and inactive for long enough becomes dormant at an epoch start (its calls revert, its
// transactions are refused; its balance and storage stay as they are), until anyone pays the
// reactivation fee and the rent owed.
//
// Driven only by block data: at the start of block N it reads what block N - 1 did (the accounts
// whose slot count changed, from the native store, and the accounts with code its execution
// loaded) and, at an epoch's first block, the dormancy checks due at that epoch. Transactions to
// params.system.rentAddress (abi/rent.json): reactivate, payRent, coverSlots (payable, from
// anyone), rentInfo (view).
import { readFileSync } from 'node:fs';
import { encodeFunctionResult, type Abi } from 'viem';
import type { BalanceMove, Chain, ModuleLog, RecordWrite } from '../../native/index.js';
import { moduleAccounts, system, type RentParams } from '../../params.js';
import {
  abiEvents,
  addressBuffer,
  moduleLog,
  noChange,
  runDecided,
  type BlockContext,
  type BlockInfo,
  type Decision,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import { DORMANT_PREFIX, RentStore } from './store.js';
import type { AccountRentInfo, Address, RentEvent, RentGlobal, RentRecord, RentSchedule } from './types.js';

export const RENT_ABI = JSON.parse(readFileSync(new URL('../../../../abi/rent.json', import.meta.url), 'utf8')) as Abi;

const RENT: Address = system.rentAddress as Address;
const TREASURY: Address = system.treasuryAddress as Address;
const EVENTS = abiEvents(RENT_ABI);
const lower = (a: string): Address => a.toLowerCase() as Address;
const log = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);

/** What the module reads of the chain besides its records: balances and slot counts at the parent, and what a block's execution loaded. */
export interface RentChain {
  balanceAt(address: Address, height: number): bigint;
  slotCount(address: Address): number;
  slotChanges(height: number): { address: Address; count: number }[];
  activeCode(height: number): Address[];
}

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

/** The rules of `p` that decide what a record owes and when it is checked for dormancy. */
export function rentSchedule(p: RentSchedule): RentSchedule {
  return { rentPerSlotPerEpoch: p.rentPerSlotPerEpoch, dormancyOwedLimit: p.dormancyOwedLimit, dormancyEpochs: p.dormancyEpochs };
}

const sameSchedule = (a: RentSchedule, b: RentSchedule): boolean =>
  a.rentPerSlotPerEpoch === b.rentPerSlotPerEpoch && a.dormancyOwedLimit === b.dormancyOwedLimit && a.dormancyEpochs === b.dormancyEpochs;

export class RentModule implements SystemModule {
  readonly name = 'rent';
  readonly address: Address = RENT;
  readonly abi: Abi = RENT_ABI;
  /** The rent events of the last block committed. */
  lastBlockEvents: RentEvent[] = [];
  private building: RentEvent[] = [];
  private readonly store: RentStore;
  private readonly exempt: ReadonlySet<Address>;
  /** Accounts made dormant and active again in the block being built (the native executor's view of it). */
  private madeDormant: Address[] = [];
  private reactivated: Address[] = [];

  constructor(
    chain: Chain,
    private readonly reads: RentChain,
    private readonly params: RentParams,
    exempt: readonly string[],
    /** The genesis rules: what the records were filed under until governance first changed one. */
    private readonly genesisSchedule: RentSchedule = rentSchedule(params),
  ) {
    this.store = new RentStore(chain);
    // eth_call at the head reverts calls into dormant accounts as blocks do.
    chain.setDormancyPrefix(Buffer.from(DORMANT_PREFIX));
    this.exempt = new Set([...exempt, ...moduleAccounts].map(lower));
  }

  // ---- reads ----

  get global(): Readonly<RentGlobal> {
    return this.store.global;
  }

  isExempt(address: string): boolean {
    return this.exempt.has(lower(address));
  }

  /** Whether `address` is dormant now (in the block being built, or at the head between blocks). */
  isDormant(address: string): boolean {
    return this.store.global.dormantCount > 0 && this.store.isDormant(lower(address));
  }

  /** Whether any account is dormant (when none is, no transaction needs a check). */
  get anyDormant(): boolean {
    return this.store.global.dormantCount > 0;
  }

  /** The account's record (a copy), if it holds or held storage. */
  record(address: string): RentRecord | null {
    return this.store.record(lower(address));
  }

  /** svc_getAccountRentInfo at `epoch` (the head's). */
  info(address: string, epoch: number): AccountRentInfo {
    const a = lower(address);
    const r = this.store.record(a);
    return {
      address: a,
      storageDeposit: (r?.deposit ?? 0n).toString(),
      storageSlotCount: r?.slots ?? this.reads.slotCount(a),
      lastActiveEpoch: r?.lastActiveEpoch ?? 0,
      isDormant: r?.dormant ?? false,
      rentOwed: (r && !this.isExempt(a) ? owedAt(r, epoch, this.params.rentPerSlotPerEpoch) : 0n).toString(),
      currentEpoch: epoch,
      reactivationFee: this.params.reactivationFee.toString(),
    };
  }

  /** What the native executor needs for the block being built: null when no account is dormant. */
  dormancy(): { prefix: Buffer; dormant: Buffer[]; reactivated: Buffer[] } | null {
    if (this.store.global.dormantCount === 0) return null;
    return { prefix: Buffer.from(DORMANT_PREFIX), dormant: this.madeDormant.map(addressBuffer), reactivated: this.reactivated.map(addressBuffer) };
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return this.run(tx, ctx, true, tx.txHash.toString('hex'));
  }

  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return this.run(call, ctx, false, '');
  }

  private run(call: ModuleCall, ctx: BlockContext, apply: boolean, txHash: string): ModuleOutcome {
    let moves: BalanceMove[] = [];
    const outcome = runDecided(
      'rent',
      RENT_ABI,
      call,
      apply,
      (name, isView) => (isView ? this.params.gas.view : (this.params.gas as Record<string, number>)[name] ?? this.params.gas.view),
      (name, args) => {
        const d = this.decide(name, args, call, ctx, txHash);
        if (d.ok) moves = d.moves;
        return d;
      },
    );
    return outcome.success ? { ...outcome, moves } : outcome;
  }

  private decide(name: string, args: readonly unknown[], call: ModuleCall, ctx: BlockContext, txHash: string): (Decision & { moves: BalanceMove[] }) | { ok: false; reason: string } {
    const account = lower(args[0] as string);
    const from = lower(call.from);
    const refund = (amount: bigint): BalanceMove[] => (amount > 0n ? [{ from: addressBuffer(RENT), to: addressBuffer(from), amount }] : []);
    const toTreasury = (amount: bigint): BalanceMove[] => (amount > 0n ? [{ from: addressBuffer(RENT), to: addressBuffer(TREASURY), amount }] : []);
    if (name === 'rentInfo') {
      const info = this.info(account, ctx.epoch);
      const r = this.store.record(account);
      const returnData = Buffer.from(
        encodeFunctionResult({
          abi: RENT_ABI,
          functionName: 'rentInfo',
          result: [BigInt(info.storageDeposit), BigInt(info.storageSlotCount), BigInt(r?.covered ?? 0), BigInt(info.lastActiveEpoch), info.isDormant, BigInt(info.rentOwed), BigInt(info.reactivationFee)],
        }).slice(2),
        'hex',
      );
      return { ok: true, returnData, logs: [], apply: () => {}, moves: [] };
    }
    const r = this.store.record(account);
    if (this.isExempt(account)) return { ok: false, reason: `${account} is exempt from rent` };
    if (!r) return { ok: false, reason: `${account} holds no storage and owes no rent` };
    this.settle(r, ctx.epoch);
    const encode = (value: bigint) => Buffer.from(encodeFunctionResult({ abi: RENT_ABI, functionName: name, result: value } as never).slice(2), 'hex');
    switch (name) {
      case 'reactivate': {
        if (!r.dormant) return { ok: false, reason: `${account} is not dormant` };
        const fee = this.params.reactivationFee;
        const owed = r.owed;
        if (call.value < fee + owed) return { ok: false, reason: `reactivation of ${account} needs ${fee + owed} wei (fee ${fee} + rent owed ${owed}), sent ${call.value}` };
        return {
          ok: true,
          returnData: Buffer.alloc(0),
          logs: [log('AccountReactivated', { account, payer: from }, [{ type: 'uint256', value: owed }, { type: 'uint256', value: fee }])],
          moves: [...toTreasury(fee + owed), ...refund(call.value - fee - owed)],
          apply: () => {
            r.owed = 0n;
            r.rentPaid += owed;
            r.dormant = false;
            r.lastActiveEpoch = ctx.epoch;
            this.reschedule(r, ctx.epoch);
            this.store.save(r);
            this.store.setDormantFlag(account, false);
            const g = this.store.global;
            g.dormantCount -= 1;
            g.rentCollected += owed;
            g.feesCollected += fee;
            this.store.saveGlobal();
            this.madeDormant = this.madeDormant.filter((a) => a !== account);
            if (!this.reactivated.includes(account)) this.reactivated.push(account);
            this.building.push({ kind: 'reactivated', height: ctx.height, account, epoch: ctx.epoch, payer: from, rentPaid: owed, fee, txHash: `0x${txHash}` });
          },
        };
      }
      case 'payRent': {
        if (r.dormant) return { ok: false, reason: `${account} is dormant: reactivate it` };
        const paid = call.value < r.owed ? call.value : r.owed;
        return {
          ok: true,
          returnData: encode(paid),
          logs: [log('RentPaid', { account, payer: from }, [{ type: 'uint256', value: paid }, { type: 'uint256', value: r.owed - paid }])],
          moves: [...toTreasury(paid), ...refund(call.value - paid)],
          apply: () => {
            r.owed -= paid;
            r.rentPaid += paid;
            this.reschedule(r, ctx.epoch);
            this.store.save(r);
            this.store.global.rentCollected += paid;
            this.store.saveGlobal();
          },
        };
      }
      case 'coverSlots': {
        const per = this.params.depositPerSlot;
        const uncovered = BigInt(r.slots - r.covered);
        const slots = per === 0n ? uncovered : call.value / per < uncovered ? call.value / per : uncovered;
        const deposit = slots * per;
        return {
          ok: true,
          returnData: encode(slots),
          logs: [log('SlotsCovered', { account, payer: from }, [{ type: 'uint256', value: slots }, { type: 'uint256', value: deposit }])],
          moves: refund(call.value - deposit),
          apply: () => {
            r.covered += Number(slots);
            r.deposit += deposit;
            this.reschedule(r, ctx.epoch);
            this.store.save(r);
            this.store.global.deposits += deposit;
            this.store.saveGlobal();
          },
        };
      }
      default:
        return { ok: false, reason: `unknown function ${name}` };
    }
  }

  // ---- hooks ----

  /**
   * Before the block's transactions: the deposits of the slots the parent created or freed (moved
   * before any transaction, from the balance the parent left), the activity of the parent's
   * execution, and at an epoch's first block the dormancy checks due at that epoch.
   */
  beginBlock(block: BlockInfo): HookResult {
    const preMoves: BalanceMove[] = [];
    const result: HookResult = { ...noChange(), preMoves };
    if (block.height <= 1) return result;
    const parent = block.height - 1;
    const parentEpoch = block.isEpochStart ? block.epoch - 1 : block.epoch;
    let changed = this.refileIfRulesChanged(block);
    for (const { address, count } of this.reads.slotChanges(parent)) {
      const a = lower(address);
      if (this.isExempt(a)) continue;
      const moves = this.slotsChanged(a, count, block.epoch, parentEpoch, parent);
      preMoves.push(...moves);
      changed = true;
    }
    for (const address of this.reads.activeCode(parent)) {
      const a = lower(address);
      if (this.isExempt(a)) continue;
      const r = this.store.record(a);
      if (!r || r.dormant || r.lastActiveEpoch >= parentEpoch) continue;
      this.settle(r, block.epoch);
      r.lastActiveEpoch = parentEpoch;
      this.reschedule(r, block.epoch);
      this.store.save(r);
    }
    if (block.isEpochStart) changed = this.dormancyDue(block) || changed;
    if (changed) this.store.saveGlobal();
    return result;
  }

  endBlock(_block: BlockInfo): HookResult {
    return noChange();
  }

  /** The slot count of `a` moved to `count` in the parent: its deposit follows, and its record. */
  private slotsChanged(a: Address, count: number, epoch: number, parentEpoch: number, parent: number): BalanceMove[] {
    const g = this.store.global;
    const existing = this.store.record(a);
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
    this.settle(r, epoch);
    // The parent changed its storage, so its code ran there.
    if (r.lastActiveEpoch < parentEpoch) r.lastActiveEpoch = parentEpoch;
    const moves: BalanceMove[] = [];
    const per = this.params.depositPerSlot;
    if (count > r.slots) {
      const wanted = BigInt(count - r.covered);
      const affordable = per === 0n ? wanted : this.reads.balanceAt(a, parent) / per;
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
        this.store.remove(a);
        g.accounts -= 1;
      }
      return moves;
    }
    if (isNew) g.accounts += 1;
    this.reschedule(r, epoch);
    this.store.save(r);
    return moves;
  }

  /** The epoch's first block: accounts due now that owe more than the limit and were inactive long enough become dormant (entries a later touch made stale are dropped). */
  private dormancyDue(block: BlockInfo): boolean {
    const due = this.store.dueAt(block.epoch);
    for (const a of due) {
      this.store.setDue(block.epoch, a, false);
      const r = this.store.record(a);
      if (!r || r.dormant || r.dueEpoch !== block.epoch) continue;
      this.settle(r, block.epoch);
      r.dueEpoch = null;
      this.checkDormancy(r, block);
      this.store.save(r);
    }
    return due.length > 0;
  }

  /**
   * At an epoch start, `r` (settled at it) becomes dormant when it owes more than the limit and was
   * inactive for dormancyEpochs (the one statement of the rule); else its next check is filed.
   */
  private checkDormancy(r: RentRecord, block: BlockInfo): void {
    if (block.isEpochStart && r.owed > this.params.dormancyOwedLimit && block.epoch - r.lastActiveEpoch >= this.params.dormancyEpochs) {
      r.dormant = true;
      r.dueEpoch = null;
      this.store.setDormantFlag(r.address, true);
      this.store.global.dormantCount += 1;
      this.madeDormant.push(r.address);
      this.building.push({ kind: 'dormant', height: block.height, account: r.address, epoch: block.epoch, rentOwed: r.owed });
    } else {
      this.reschedule(r, block.epoch);
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
  private refileIfRulesChanged(block: BlockInfo): boolean {
    const g = this.store.global;
    const filed = g.filedUnder ?? this.genesisSchedule;
    const now = rentSchedule(this.params);
    if (sameSchedule(filed, now)) return false;
    for (const r of this.store.allRecords()) {
      if (block.epoch > r.settledEpoch) {
        if (!this.isExempt(r.address)) r.owed = owedAt(r, block.epoch, filed.rentPerSlotPerEpoch);
        r.settledEpoch = block.epoch;
      }
      if (!r.dormant) {
        r.dueEpoch = null;
        this.checkDormancy(r, block);
      }
      this.store.save(r);
    }
    g.filedUnder = now;
    return true;
  }

  /** Brings `r.owed` to `epoch` (exempt accounts owe nothing). */
  private settle(r: RentRecord, epoch: number): void {
    if (epoch <= r.settledEpoch) return;
    if (!this.isExempt(r.address)) r.owed = owedAt(r, epoch, this.params.rentPerSlotPerEpoch);
    r.settledEpoch = epoch;
  }

  /**
   * Records when `r` is next checked for dormancy (settled at `epoch`), writing as little as it can:
   * a check already filed for an epoch no later than the new one stands (it looks again then and
   * files the next), and a check no longer needed is left to be dropped when its epoch comes (the
   * record's `dueEpoch` names the one entry that counts). So a touch writes the due index only when
   * it brings the check forward, and never deletes from it.
   */
  private reschedule(r: RentRecord, epoch: number): void {
    const next = dueEpoch(r, epoch, this.params);
    if (next === null) {
      r.dueEpoch = null;
      return;
    }
    if (r.dueEpoch !== null && r.dueEpoch > epoch && r.dueEpoch <= next) return;
    r.dueEpoch = next;
    this.store.setDue(next, r.address, true);
  }

  takeWrites(): RecordWrite[] {
    return this.store.takeWrites();
  }

  committed(): void {
    this.store.committedBlock();
    this.lastBlockEvents = this.building;
    this.building = [];
    this.madeDormant = [];
    this.reactivated = [];
  }

  reload(chain: Chain): void {
    this.store.reload(chain);
    this.building = [];
    this.madeDormant = [];
    this.reactivated = [];
  }
}
