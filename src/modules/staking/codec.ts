// Key/value records of the staking ledger, so a node persists only what a block changed.
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
import type {
  Address,
  DelegationRecord,
  EpochSnapshot,
  SlashRecord,
  UnbondingRecord,
  ValidatorRecord,
  ValidatorStatus,
} from './types.js';
import { isAddress } from './types.js';
import { decodeRecord as decodeValue, encodeRecord } from '../kernel/records.js';

/** Raised for a record that cannot be decoded. */
export class StakingRecordError extends Error {
  override readonly name = 'StakingRecordError';
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
    window: { bitmap: Buffer.from(v.window.bitmap).toString('hex'), index: v.window.index, missed: v.window.missed },
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
        window: { bitmap: new Uint8Array(bitmap), index: window.int('index'), missed: window.int('missed') },
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
  int(field: string, min = 0): number {
    const v = this.o[field];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) this.fail(field, `an integer >= ${min}`);
    return v;
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
