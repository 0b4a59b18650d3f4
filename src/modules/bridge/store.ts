// The bridge module's records: the keys under "bridge/" (global, deposits by nonce, withdrawals by
// id, wrapped balances by token and holder), values through the kernel's record codec. Deposits
// and withdrawals still open are held in memory; settled ones, and balances, are read from the
// chain (with what the block being built changed).
import type { Chain, RecordWrite } from '../../native/index.js';
import { system } from '../../params.js';
import { decodeRecord, RecordChanges } from '../kernel/records.js';
import type { Address, BridgeGlobal, DepositRecord, WithdrawalRecord } from './types.js';

const PREFIX = 'bridge/';
const GLOBAL_KEY = `${PREFIX}global`;
const DEPOSIT = `${PREFIX}deposit/`;
const WITHDRAWAL = `${PREFIX}withdrawal/`;
const WRAPPED = `${PREFIX}wrapped/`;
/** Nonces and ids as 16 digits, so that keys sort by number. */
const numKey = (n: number) => String(n).padStart(16, '0');

export function emptyGlobal(): BridgeGlobal {
  return {
    config: null,
    valset: null,
    pendingValset: null,
    nextWithdrawalId: 1,
    depositsMinted: 0,
    withdrawalsReleased: 0,
    pendingDeposits: [],
    pendingWithdrawals: [],
    lowestUnminted: 1,
    tokens: {},
  };
}

export class BridgeStore {
  global: BridgeGlobal = emptyGlobal();
  /** Deposits attested and not minted, by nonce. */
  readonly deposits = new Map<number, DepositRecord>();
  /** Withdrawals burned and not released, by id. */
  readonly withdrawals = new Map<number, WithdrawalRecord>();
  /** Wrapped balances written since the last commit (key: token/holder). */
  private readonly balances = new Map<string, bigint>();
  /** Deposits and withdrawals that left memory since the last commit (read until their write lands). */
  private readonly settled = new Map<string, DepositRecord | WithdrawalRecord>();
  private readonly changes = new RecordChanges(system.bridgeAddress as Address);

  constructor(private chain: Chain) {
    this.loadFrom(chain);
  }

  private loadFrom(chain: Chain): void {
    this.deposits.clear();
    this.withdrawals.clear();
    this.balances.clear();
    this.settled.clear();
    this.changes.clear();
    const g = chain.getAppValue(Buffer.from(GLOBAL_KEY));
    this.global = g ? { ...emptyGlobal(), ...decodeRecord<BridgeGlobal>(g) } : emptyGlobal();
    for (const nonce of this.global.pendingDeposits) {
      const d = this.read<DepositRecord>(DEPOSIT + numKey(nonce));
      if (!d) throw new Error(`bridge: pending deposit ${nonce} has no record`);
      this.deposits.set(nonce, d);
    }
    for (const id of this.global.pendingWithdrawals) {
      const w = this.read<WithdrawalRecord>(WITHDRAWAL + numKey(id));
      if (!w) throw new Error(`bridge: pending withdrawal ${id} has no record`);
      this.withdrawals.set(id, w);
    }
  }

  reload(chain: Chain): void {
    this.chain = chain;
    this.loadFrom(chain);
  }

  takeWrites(): RecordWrite[] {
    return this.changes.take();
  }

  committed(): void {
    this.balances.clear();
    this.settled.clear();
  }

  // ---- saves ----

  saveGlobal(): void {
    this.changes.mark(GLOBAL_KEY, this.global);
  }

  /** Saves a deposit; one not minted stays in memory. */
  saveDeposit(d: DepositRecord): void {
    const key = DEPOSIT + numKey(d.nonce);
    this.changes.mark(key, d);
    if (d.minted === null) this.deposits.set(d.nonce, d);
    else {
      this.deposits.delete(d.nonce);
      this.settled.set(key, d);
    }
  }

  /** Saves a withdrawal; one not released stays in memory. */
  saveWithdrawal(w: WithdrawalRecord): void {
    const key = WITHDRAWAL + numKey(w.id);
    this.changes.mark(key, w);
    if (w.releasedHeight === null) this.withdrawals.set(w.id, w);
    else {
      this.withdrawals.delete(w.id);
      this.settled.set(key, w);
    }
  }

  setWrapped(token: Address, holder: Address, amount: bigint): void {
    const key = `${token}/${holder}`;
    this.balances.set(key, amount);
    this.changes.mark(WRAPPED + key, amount === 0n ? null : amount);
  }

  // ---- reads ----

  private read<T>(key: string): T | undefined {
    const v = this.chain.getAppValue(Buffer.from(key));
    return v ? decodeRecord<T>(v) : undefined;
  }

  /** A deposit by nonce: open ones from memory, minted ones from the chain. */
  deposit(nonce: number): DepositRecord | undefined {
    const key = DEPOSIT + numKey(nonce);
    return this.deposits.get(nonce) ?? (this.settled.get(key) as DepositRecord | undefined) ?? this.read<DepositRecord>(key);
  }

  /** A withdrawal by id: open ones from memory, released ones from the chain. */
  withdrawal(id: number): WithdrawalRecord | undefined {
    const key = WITHDRAWAL + numKey(id);
    return this.withdrawals.get(id) ?? (this.settled.get(key) as WithdrawalRecord | undefined) ?? this.read<WithdrawalRecord>(key);
  }

  wrapped(token: Address, holder: Address): bigint {
    const key = `${token}/${holder}`;
    return this.balances.get(key) ?? this.read<bigint>(WRAPPED + key) ?? 0n;
  }

  /** Every deposit record, ascending by nonce (minted and open). */
  allDeposits(): DepositRecord[] {
    const byNonce = new Map<number, DepositRecord>();
    for (const e of this.chain.getAppEntries(Buffer.from(DEPOSIT))) {
      const d = decodeRecord<DepositRecord>(e.value);
      byNonce.set(d.nonce, d);
    }
    for (const d of this.deposits.values()) byNonce.set(d.nonce, d);
    return [...byNonce.values()].sort((a, b) => a.nonce - b.nonce);
  }

  /** Every withdrawal record, ascending by id. */
  allWithdrawals(): WithdrawalRecord[] {
    const byId = new Map<number, WithdrawalRecord>();
    for (const e of this.chain.getAppEntries(Buffer.from(WITHDRAWAL))) {
      const w = decodeRecord<WithdrawalRecord>(e.value);
      byId.set(w.id, w);
    }
    for (const w of this.withdrawals.values()) byId.set(w.id, w);
    return [...byId.values()].sort((a, b) => a.id - b.id);
  }
}
