// The staking module's part of the genesis: its validators (registered at height 0, active from
// epoch 0, their self stakes held by the module) and the staking rules a genesis may set, with the
// checks of a genesis file's "validators" and "staking" fields.
import type { StakingParams } from '../../params.js';
import { toAddress } from '../kernel/module.js';
import { StakingLedger } from './ledger.js';
import { stakingBound } from './params.js';
import type { ValidatorView } from './types.js';

/** A validator in the genesis: registered and active from block 0, its self stake held by the staking module. */
export interface GenesisValidator {
  operator: Buffer;
  moniker: string;
  selfStake: bigint;
  commissionBps: number;
  maxCommissionBps: number;
  maxChangeBpsPerDay: number;
  /** Its Ed25519 consensus public key, 0x + 64 lowercase hex: required for a CometBFT network (svc-node testnet init writes it). */
  consensusKey?: string;
}

/** The staking parameters a genesis may set: the downtime window and the share of it a validator must sign. */
export interface GenesisStakingParams {
  signedBlocksWindow?: number;
  minSignedPerWindowBps?: number;
}

/** A genesis file's validator entry, as genesisValidators reads it (quantities as decimal strings). */
export interface GenesisValidatorJson {
  operator: string;
  moniker: string;
  selfStake: string;
  commissionBps: number;
  maxCommissionBps: number;
  maxChangeBpsPerDay: number;
  consensusKey?: string;
}

/** The keys of a genesis's "staking" object. */
const GENESIS_STAKING_KEYS = ['signedBlocksWindow', 'minSignedPerWindowBps'] as const;

/** The staking ledger of a genesis: its validators registered at height 0 and active from epoch 0. */
export function genesisLedger(params: StakingParams, validators: readonly GenesisValidator[], timestamp: number): StakingLedger {
  const ledger = new StakingLedger(params);
  for (const v of validators) {
    const r = ledger.registerValidator(
      toAddress(v.operator),
      {
        moniker: v.moniker,
        commissionBps: v.commissionBps,
        maxCommissionBps: v.maxCommissionBps,
        maxChangeBpsPerDay: v.maxChangeBpsPerDay,
        ...(v.consensusKey !== undefined ? { consensusKey: v.consensusKey } : {}),
      },
      v.selfStake,
      0,
      timestamp,
    );
    if (!r.ok) throw new Error(`genesis validator ${toAddress(v.operator)}: ${r.reason}`);
  }
  ledger.startEpoch(0, 0);
  return ledger;
}

/** How the genesis file's reader refuses a field and reads addresses and quantities (its messages name the field). */
export interface GenesisFieldReader {
  fail: (reason: string) => never;
  address: (v: unknown, field: string) => Buffer;
  quantity: (v: unknown, field: string) => bigint;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A genesis's "staking": each value a whole number within the range governance may set it to (the governable parameters). */
export function genesisStaking(value: unknown, read: Pick<GenesisFieldReader, 'fail'>): GenesisStakingParams {
  const fail = read.fail;
  if (!isObject(value)) return fail('"staking" must be an object');
  const out: { -readonly [K in keyof GenesisStakingParams]: number } = {};
  for (const key of Object.keys(value)) {
    if (!(GENESIS_STAKING_KEYS as readonly string[]).includes(key)) fail(`staking: unknown field "${key}" (a genesis may set ${GENESIS_STAKING_KEYS.join(', ')})`);
    const range = stakingBound(key)!;
    const v = value[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || BigInt(v) < range.min || BigInt(v) > range.max) fail(`staking.${key} must be a whole number in [${range.min}, ${range.max}]`);
    out[key as keyof GenesisStakingParams] = v as number;
  }
  return out;
}

/** A genesis's "validators": each operator and consensus key once, the fields the module registers them with. */
export function genesisValidators(value: unknown, read: GenesisFieldReader): GenesisValidator[] {
  const fail = read.fail;
  if (!Array.isArray(value)) return fail('"validators" must be an array');
  const seen = new Set<string>();
  const seenKeys = new Set<string>();
  return value.map((entry, i) => {
    const where = `validators[${i}]`;
    if (!isObject(entry)) return fail(`${where} must be an object`);
    const operator = read.address(entry.operator, `${where}.operator`);
    if (seen.has(operator.toString('hex'))) fail(`${where}: operator listed twice`);
    seen.add(operator.toString('hex'));
    if (typeof entry.moniker !== 'string') fail(`${where}.moniker must be a string`);
    let consensusKey: string | undefined;
    if (entry.consensusKey !== undefined) {
      if (typeof entry.consensusKey !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(entry.consensusKey)) fail(`${where}.consensusKey must be 0x and 64 hex digits (an Ed25519 public key)`);
      consensusKey = (entry.consensusKey as string).toLowerCase();
      if (seenKeys.has(consensusKey)) fail(`${where}: consensusKey listed twice`);
      seenKeys.add(consensusKey);
    }
    for (const key of Object.keys(entry)) {
      if (!['operator', 'moniker', 'selfStake', 'commissionBps', 'maxCommissionBps', 'maxChangeBpsPerDay', 'consensusKey'].includes(key)) fail(`${where}: unknown field "${key}"`);
    }
    const bps = (v: unknown, field: string): number => {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 10_000) fail(`${where}.${field} must be an integer 0..10000`);
      return v as number;
    };
    return {
      operator,
      moniker: entry.moniker as string,
      selfStake: read.quantity(entry.selfStake, `${where}.selfStake`),
      commissionBps: bps(entry.commissionBps, 'commissionBps'),
      maxCommissionBps: bps(entry.maxCommissionBps, 'maxCommissionBps'),
      maxChangeBpsPerDay: bps(entry.maxChangeBpsPerDay, 'maxChangeBpsPerDay'),
      ...(consensusKey !== undefined ? { consensusKey } : {}),
    };
  });
}

/**
 * The module's state as its part of a genesis file (Cosmos' ExportGenesis): its validators as
 * "validators" (each with its self stake and commission now) and the liveness rules the ledger runs
 * with as "staking". genesisValidators and genesisStaking read it back.
 */
export function exportGenesis(
  validators: readonly ValidatorView[],
  params: Pick<StakingParams, 'signedBlocksWindow' | 'minSignedPerWindowBps'>,
): { validators: GenesisValidatorJson[]; staking: Required<GenesisStakingParams> } {
  return {
    validators: validators.map((v) => ({
      operator: v.operator,
      moniker: v.moniker,
      selfStake: v.selfStake.toString(),
      commissionBps: v.commissionBps,
      maxCommissionBps: v.maxCommissionBps,
      maxChangeBpsPerDay: v.maxChangeBpsPerDay,
      ...(v.consensusKey !== undefined ? { consensusKey: v.consensusKey } : {}),
    })),
    staking: { signedBlocksWindow: params.signedBlocksWindow, minSignedPerWindowBps: params.minSignedPerWindowBps },
  };
}
