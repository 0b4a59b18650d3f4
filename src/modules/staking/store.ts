// The staking module's records: keys and values (through the kernel's record codec), decoding with
// checks, and the way between ledger state and records (the keys touched since the last flush,
// every record as a full export, and a state rebuilt from stored records), so a node persists
// only what a block changed.
//
// Keys: a two-byte ASCII prefix per record kind, then big-endian binary fields, so that prefix
// scans list a validator's delegations and a delegator's unbondings in order:
//   "v/" validator(20)                  validator
//   "d/" validator(20) delegator(20)    delegation
//   "u/" delegator(20) id(u64 BE)       unbonding entry (ids grow with creation)
//   "s/" validator(20) index(u32 BE)    slash history entry
//   "e/" epoch(u64 BE)                  epoch validator-set snapshot
//   "g/ledger"                          globals (dust, burned, next unbonding id, current epoch)
// Values: the kernel's record codec (src/modules/kernel/records.ts: canonical JSON, keys sorted,
// bigints as {"$n":"<decimal>"}); heights and times as JSON integers, addresses as lowercase 0x
// hex, the missed-block bitmap as plain hex.
// Fields carried by the key are not repeated in the value.
import type { StakingParams } from '../../params.js';
import type {
  Address,
  DelegationRecord,
  EpochSnapshot,
  LedgerRecord,
  SlashRecord,
  UnbondingRecord,
  ValidatorRecord,
  ValidatorStatus,
} from './types.js';
import { isAddress } from './types.js';
import { emptyWindow } from './liveness.js';
import { emptyState, putDelegation, putUnbonding, type LedgerState } from './state.js';
import { decodeRecord as decodeValue, encodeRecord } from '../kernel/records.js';
import { SvcError } from '../../errors.js';

/** Raised for a record that cannot be decoded. */
export class StakingRecordError extends SvcError {
  override readonly name = 'StakingRecordError';
  override readonly code = 'STAKING_RECORD';
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`staking record ${key}: ${reason}`);
  }
}

export const GLOBALS_KEY = Buffer.from('g/ledger', 'ascii');

/** The module-wide values stored under GLOBALS_KEY. */
export interface LedgerGlobals {
  dust: bigint;
  burned: bigint;
  nextUnbondingId: number;
  currentEpoch: number;
}

const prefix = (p: string): Buffer => Buffer.from(p, 'ascii');
const addressBytes = (a: Address): Buffer => Buffer.from(a.slice(2), 'hex');
const addressOf = (b: Buffer): Address => `0x${b.toString('hex')}`;

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export const validatorKey = (v: Address): Buffer => Buffer.concat([prefix('v/'), addressBytes(v)]);
export const delegationKey = (v: Address, d: Address): Buffer => Buffer.concat([prefix('d/'), addressBytes(v), addressBytes(d)]);
export const unbondingKey = (d: Address, id: number): Buffer => Buffer.concat([prefix('u/'), addressBytes(d), u64(id)]);
export const slashKey = (v: Address, index: number): Buffer => Buffer.concat([prefix('s/'), addressBytes(v), u32(index)]);
export const epochKey = (epoch: number): Buffer => Buffer.concat([prefix('e/'), u64(epoch)]);

/** Values go through the kernel's one record codec (canonical JSON, bigints tagged). */
const json = (value: unknown): Buffer => encodeRecord(value);

/** Value of a validator record (slash history is stored apart, under "s/"). */
export function encodeValidator(v: ValidatorRecord): Buffer {
  return json({
    moniker: v.moniker,
    consensusKey: v.consensusKey,
    commissionBps: v.commissionBps,
    maxCommissionBps: v.maxCommissionBps,
    maxChangeBpsPerDay: v.maxChangeBpsPerDay,
    lastCommissionChangeAt: v.lastCommissionChangeAt,
    tokens: v.tokens,
    totalShares: v.totalShares,
    status: v.status,
    jailedUntil: v.jailedUntil,
    registeredAt: v.registeredAt,
    lastActiveAt: v.lastActiveAt,
    commission: v.commission,
    totalRewards: v.totalRewards,
    rewardPerShare: v.rewardPerShare,
    outstandingRewards: v.outstandingRewards,
    blocksProduced: v.blocksProduced,
    blocksMissed: v.blocksMissed,
    slashCount: v.slashes.length,
    window: { bitmap: Buffer.from(v.window.bitmap).toString('hex'), index: v.window.index, missed: v.window.missed, size: v.window.size, judgedFrom: v.window.judgedFrom },
  });
}

export const encodeDelegation = (d: DelegationRecord): Buffer =>
  json({ shares: d.shares, rewardCheckpoint: d.rewardCheckpoint, accrued: d.accrued });

export const encodeUnbonding = (u: UnbondingRecord): Buffer =>
  json({
    validator: u.validator,
    initialBalance: u.initialBalance,
    balance: u.balance,
    creationHeight: u.creationHeight,
    completesAt: u.completesAt,
  });

export const encodeSlash = (s: SlashRecord): Buffer =>
  json({
    height: s.height,
    infractionHeight: s.infractionHeight,
    fractionBps: s.fractionBps,
    tokensBurned: s.tokensBurned,
    unbondingBurned: s.unbondingBurned,
    reason: s.reason,
  });

export const encodeEpoch = (e: EpochSnapshot): Buffer =>
  json({
    startHeight: e.startHeight,
    validators: e.validators.map((m) => ({ address: m.address, tokens: m.tokens, votingPower: m.votingPower })),
  });

export const encodeGlobals = (g: LedgerGlobals): Buffer =>
  json({ dust: g.dust, burned: g.burned, nextUnbondingId: g.nextUnbondingId, currentEpoch: g.currentEpoch });

/** A decoded record, by kind. */
export type DecodedRecord =
  | { kind: 'validator'; validator: Omit<ValidatorRecord, 'slashes'>; slashCount: number }
  | { kind: 'delegation'; delegation: DelegationRecord }
  | { kind: 'unbonding'; unbonding: UnbondingRecord }
  | { kind: 'slash'; validator: Address; index: number; slash: SlashRecord }
  | { kind: 'epoch'; snapshot: EpochSnapshot }
  | { kind: 'globals'; globals: LedgerGlobals };

/** Decode one stored record; throws StakingRecordError for anything malformed. */
export function decodeRecord(key: Buffer, value: Buffer): DecodedRecord {
  const name = key.toString('hex');
  const tag = key.subarray(0, 2).toString('latin1');
  const body = key.subarray(2);
  const f = new Fields(name, parseJson(name, value));
  const expectLength = (n: number): void => {
    if (body.length !== n) throw new StakingRecordError(name, `key of kind ${tag} must have ${n} bytes after the prefix`);
  };
  switch (tag) {
    case 'v/': {
      expectLength(20);
      const window = new Fields(name, f.object('window'));
      const bitmap = Buffer.from(window.string('bitmap'), 'hex');
      const v: Omit<ValidatorRecord, 'slashes'> = {
        operator: addressOf(body),
        moniker: f.string('moniker'),
        ...f.optionalConsensusKey('consensusKey'),
        commissionBps: f.int('commissionBps'),
        maxCommissionBps: f.int('maxCommissionBps'),
        maxChangeBpsPerDay: f.int('maxChangeBpsPerDay'),
        lastCommissionChangeAt: f.int('lastCommissionChangeAt'),
        tokens: f.big('tokens'),
        totalShares: f.big('totalShares'),
        status: f.status('status'),
        jailedUntil: f.int('jailedUntil'),
        registeredAt: f.int('registeredAt'),
        lastActiveAt: f.int('lastActiveAt'),
        commission: f.big('commission'),
        totalRewards: f.big('totalRewards'),
        rewardPerShare: f.big('rewardPerShare'),
        outstandingRewards: f.big('outstandingRewards'),
        blocksProduced: f.int('blocksProduced'),
        blocksMissed: f.int('blocksMissed'),
        // Records written before windows carried their size and judging start: size 0 (see stateFromRecords).
        window: {
          bitmap: new Uint8Array(bitmap),
          index: window.int('index'),
          missed: window.int('missed'),
          size: window.has('size') ? window.int('size', 1) : 0,
          judgedFrom: window.has('judgedFrom') ? window.int('judgedFrom') : 0,
        },
      };
      return { kind: 'validator', validator: v, slashCount: f.int('slashCount') };
    }
    case 'd/':
      expectLength(40);
      return {
        kind: 'delegation',
        delegation: {
          validator: addressOf(body.subarray(0, 20)),
          delegator: addressOf(body.subarray(20, 40)),
          shares: f.big('shares'),
          rewardCheckpoint: f.big('rewardCheckpoint'),
          accrued: f.big('accrued'),
        },
      };
    case 'u/':
      expectLength(28);
      return {
        kind: 'unbonding',
        unbonding: {
          id: Number(body.readBigUInt64BE(20)),
          delegator: addressOf(body.subarray(0, 20)),
          validator: f.address('validator'),
          initialBalance: f.big('initialBalance'),
          balance: f.big('balance'),
          creationHeight: f.int('creationHeight'),
          completesAt: f.int('completesAt'),
        },
      };
    case 's/':
      expectLength(24);
      return {
        kind: 'slash',
        validator: addressOf(body.subarray(0, 20)),
        index: body.readUInt32BE(20),
        slash: {
          height: f.int('height'),
          infractionHeight: f.int('infractionHeight'),
          fractionBps: f.int('fractionBps'),
          tokensBurned: f.big('tokensBurned'),
          unbondingBurned: f.big('unbondingBurned'),
          reason: f.string('reason'),
        },
      };
    case 'e/': {
      expectLength(8);
      const validators = f.array('validators').map((m) => {
        const mf = new Fields(name, m);
        return { address: mf.address('address'), tokens: mf.big('tokens'), votingPower: mf.big('votingPower') };
      });
      return { kind: 'epoch', snapshot: { epoch: Number(body.readBigUInt64BE(0)), startHeight: f.int('startHeight'), validators } };
    }
    case 'g/':
      if (!key.equals(GLOBALS_KEY)) throw new StakingRecordError(name, 'unknown globals key');
      return {
        kind: 'globals',
        globals: {
          dust: f.big('dust'),
          burned: f.big('burned'),
          nextUnbondingId: f.int('nextUnbondingId'),
          currentEpoch: f.int('currentEpoch', -1),
        },
      };
    default:
      throw new StakingRecordError(name, `unknown record kind ${JSON.stringify(tag)}`);
  }
}

function parseJson(name: string, value: Buffer): unknown {
  try {
    return decodeValue<unknown>(value);
  } catch {
    throw new StakingRecordError(name, 'value is not JSON');
  }
}

/** Typed, checked access to the fields of a decoded JSON object. */
class Fields {
  private readonly o: Record<string, unknown>;
  constructor(
    private readonly name: string,
    value: unknown,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StakingRecordError(name, 'value is not an object');
    this.o = value as Record<string, unknown>;
  }
  private fail(field: string, expected: string): never {
    throw new StakingRecordError(this.name, `field ${field} must be ${expected}`);
  }
  big(field: string): bigint {
    const v = this.o[field];
    if (typeof v !== 'bigint' || v < 0n) this.fail(field, 'a non-negative integer');
    return v;
  }
  has(field: string): boolean {
    return this.o[field] !== undefined;
  }
  int(field: string, min = 0): number {
    const v = this.o[field];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) this.fail(field, `an integer >= ${min}`);
    return v;
  }
  /** An optional Ed25519 key: 0x + 64 lowercase hex, as a spread-able object. */
  optionalConsensusKey(field: 'consensusKey'): { consensusKey?: string } {
    const v = this.o[field];
    if (v === undefined) return {};
    if (typeof v !== 'string' || !/^0x[0-9a-f]{64}$/.test(v)) this.fail(field, '0x and 64 lowercase hex digits');
    return { consensusKey: v as string };
  }

  string(field: string): string {
    const v = this.o[field];
    if (typeof v !== 'string') this.fail(field, 'a string');
    return v;
  }
  address(field: string): Address {
    const v = this.o[field];
    if (!isAddress(v)) this.fail(field, 'a lowercase 0x address');
    return v;
  }
  status(field: string): ValidatorStatus {
    const v = this.o[field];
    if (v !== 'active' && v !== 'inactive' && v !== 'jailed') this.fail(field, 'active, inactive or jailed');
    return v;
  }
  object(field: string): unknown {
    return this.o[field];
  }
  array(field: string): unknown[] {
    const v = this.o[field];
    if (!Array.isArray(v)) this.fail(field, 'an array');
    return v;
  }
}

// ---- ledger state <-> records ----

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
 * A missed-block window keeps the size it was made for (recordBlock starts it afresh at another size).
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
        if (v.window.size === 0) {
          // An older record: its window was made for the genesis size, or starts afresh.
          if (v.window.bitmap.length === Math.ceil(params.signedBlocksWindow / 8)) v.window.size = params.signedBlocksWindow;
          else v.window = emptyWindow(params.signedBlocksWindow);
        }
        if (v.window.bitmap.length !== Math.ceil(v.window.size / 8) || v.window.judgedFrom > v.window.index) throw new StakingRecordError(key.toString('hex'), 'missed-block window does not match its size');
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
