// From ledger state to key/value records and back: the keys touched since the last flush, every
// record (a full export), and a state rebuilt from stored records.
import type { StakingParams } from '../../params.js';
import {
  GLOBALS_KEY,
  StakingRecordError,
  decodeRecord,
  delegationKey,
  encodeDelegation,
  encodeEpoch,
  encodeGlobals,
  encodeSlash,
  encodeUnbonding,
  encodeValidator,
  epochKey,
  slashKey,
  unbondingKey,
  validatorKey,
} from './codec.js';
import { emptyWindow } from './liveness.js';
import { emptyState, putDelegation, putUnbonding, type LedgerState } from './state.js';
import type { Address, LedgerRecord, SlashRecord, ValidatorRecord } from './types.js';

/** Keys changed since the last flush, by record kind. */
export class DirtyKeys {
  readonly validators = new Set<Address>();
  /** "validator:delegator" -> the pair. */
  readonly delegations = new Map<string, readonly [Address, Address]>();
  /** unbonding id -> its delegator (needed for the key after the entry is gone). */
  readonly unbondings = new Map<number, Address>();
  readonly slashes = new Map<string, readonly [Address, number]>();
  readonly epochs = new Set<number>();
  globals = false;

  delegation(validator: Address, delegator: Address): void {
    this.delegations.set(`${validator}:${delegator}`, [validator, delegator]);
  }

  slash(validator: Address, index: number): void {
    this.slashes.set(`${validator}:${index}`, [validator, index]);
  }

  clear(): void {
    this.validators.clear();
    this.delegations.clear();
    this.unbondings.clear();
    this.slashes.clear();
    this.epochs.clear();
    this.globals = false;
  }
}

const byKey = (a: LedgerRecord, b: LedgerRecord): number => Buffer.compare(a.key, b.key);

/** The records behind the dirty keys, sorted by key; value null for records that no longer exist. */
export function recordsFor(state: LedgerState, dirty: DirtyKeys): LedgerRecord[] {
  const out: LedgerRecord[] = [];
  for (const a of dirty.validators) {
    const v = state.validators.get(a);
    out.push({ key: validatorKey(a), value: v ? encodeValidator(v) : null });
  }
  for (const [validator, delegator] of dirty.delegations.values()) {
    const d = state.delegations.get(validator)?.get(delegator);
    out.push({ key: delegationKey(validator, delegator), value: d ? encodeDelegation(d) : null });
  }
  for (const [id, delegator] of dirty.unbondings) {
    const u = state.unbondings.get(id);
    out.push({ key: unbondingKey(delegator, id), value: u ? encodeUnbonding(u) : null });
  }
  for (const [validator, index] of dirty.slashes.values()) {
    const s = state.validators.get(validator)?.slashes[index];
    out.push({ key: slashKey(validator, index), value: s ? encodeSlash(s) : null });
  }
  for (const epoch of dirty.epochs) {
    const e = state.epochs.get(epoch);
    out.push({ key: epochKey(epoch), value: e ? encodeEpoch(e) : null });
  }
  if (dirty.globals) out.push({ key: GLOBALS_KEY, value: encodeGlobals(state) });
  return out.sort(byKey);
}

/** Every record of the state, sorted by key (a full export, e.g. for genesis or comparison). */
export function allRecords(state: LedgerState): { key: Buffer; value: Buffer }[] {
  const out: { key: Buffer; value: Buffer }[] = [];
  for (const v of state.validators.values()) {
    out.push({ key: validatorKey(v.operator), value: encodeValidator(v) });
    v.slashes.forEach((s, i) => out.push({ key: slashKey(v.operator, i), value: encodeSlash(s) }));
  }
  for (const byDelegator of state.delegations.values()) {
    for (const d of byDelegator.values()) out.push({ key: delegationKey(d.validator, d.delegator), value: encodeDelegation(d) });
  }
  for (const u of state.unbondings.values()) out.push({ key: unbondingKey(u.delegator, u.id), value: encodeUnbonding(u) });
  for (const e of state.epochs.values()) out.push({ key: epochKey(e.epoch), value: encodeEpoch(e) });
  out.push({ key: GLOBALS_KEY, value: encodeGlobals(state) });
  return out.sort(byKey);
}

/**
 * Rebuild a state from stored records (any order). Running totals are recomputed from the records.
 * A missed-block window stored for another window size is started afresh.
 */
export function stateFromRecords(params: StakingParams, records: Iterable<{ key: Buffer; value: Buffer }>): LedgerState {
  const state = emptyState();
  const slashCounts = new Map<Address, number>();
  const slashes = new Map<Address, Map<number, SlashRecord>>();
  for (const { key, value } of records) {
    const r = decodeRecord(key, value);
    switch (r.kind) {
      case 'validator': {
        const v: ValidatorRecord = { ...r.validator, slashes: [] };
        if (v.window.bitmap.length !== Math.ceil(params.signedBlocksWindow / 8)) v.window = emptyWindow(params.signedBlocksWindow);
        state.validators.set(v.operator, v);
        slashCounts.set(v.operator, r.slashCount);
        break;
      }
      case 'delegation':
        putDelegation(state, r.delegation);
        break;
      case 'unbonding':
        putUnbonding(state, r.unbonding);
        break;
      case 'slash': {
        let list = slashes.get(r.validator);
        if (!list) slashes.set(r.validator, (list = new Map()));
        list.set(r.index, r.slash);
        break;
      }
      case 'epoch':
        state.epochs.set(r.snapshot.epoch, r.snapshot);
        break;
      case 'globals':
        state.dust = r.globals.dust;
        state.burned = r.globals.burned;
        state.nextUnbondingId = r.globals.nextUnbondingId;
        state.currentEpoch = r.globals.currentEpoch;
        break;
    }
  }
  for (const [address, count] of slashCounts) {
    const list = slashes.get(address) ?? new Map<number, SlashRecord>();
    const v = state.validators.get(address)!;
    for (let i = 0; i < count; i++) {
      const s = list.get(i);
      if (!s) throw new StakingRecordError(slashKey(address, i).toString('hex'), 'slash history entry missing');
      v.slashes.push(s);
    }
  }
  for (const address of slashes.keys()) {
    if (!state.validators.has(address)) throw new StakingRecordError(validatorKey(address).toString('hex'), 'slash history of an unknown validator');
  }
  for (const v of state.validators.values()) {
    state.totals.staked += v.tokens;
    state.totals.commission += v.commission;
    state.totals.unclaimedRewards += v.outstandingRewards;
  }
  for (const byDelegator of state.delegations.values()) for (const d of byDelegator.values()) state.totals.unclaimedRewards += d.accrued;
  for (const u of state.unbondings.values()) state.totals.unbonding += u.balance;
  return state;
}
