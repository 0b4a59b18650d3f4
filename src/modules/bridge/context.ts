// What the bridge's messages (messages.ts) and block hooks (hooks.ts) share: its records, its
// keepers, its genesis, and what the block being built has touched so far (endBlock decides it).
// The module (module.ts) builds it once and hands it to both.
import type { BridgeGenesis } from './genesis.js';
import type { BridgeKeepers } from './keepers.js';
import type { BridgeStore } from './store.js';
import type { Address, BridgeConfig, BridgeEvent, BridgeValset, TokenTotals, WithdrawalRecord } from './types.js';

/** What the block being built touched: the deposits, releases and set its attestations moved, the native coin withdrawn. */
export interface BridgeBlockState {
  touchedDeposits: Set<number>;
  touchedReleases: Set<number>;
  touchedValset: boolean;
  /** Native coin withdrawn in the block being built: burned at its end. */
  nativeWithdrawn: bigint;
}

export interface BridgeContext {
  readonly store: BridgeStore;
  readonly keepers: BridgeKeepers;
  readonly genesis: BridgeGenesis | null;
  /** The chain id of svc (the contract's svcChainId). */
  readonly svcChainId: number;
  readonly block: BridgeBlockState;
  /** The external chain, as recorded (the genesis's until the first block records it); null: the bridge is inactive. */
  config(): BridgeConfig | null;
  /** The set the external contract holds, as attested. */
  valset(): BridgeValset | null;
  /** Records an event of the block being built. */
  event(e: BridgeEvent): void;
}

/** A block that touched nothing yet. */
export function emptyBlockState(): BridgeBlockState {
  return { touchedDeposits: new Set(), touchedReleases: new Set(), touchedValset: false, nativeWithdrawn: 0n };
}

/** A token's totals (minted, withdrawn, released), created at zero on first use. */
export function tokenTotals(store: BridgeStore, token: Address): TokenTotals {
  const g = store.global;
  return (g.tokens[token] ??= { minted: 0n, withdrawn: 0n, released: 0n });
}

/** Withdrawals not released yet, by id. */
export function openWithdrawals(store: BridgeStore): WithdrawalRecord[] {
  return [...store.withdrawals.values()].sort((a, b) => a.id - b.id);
}
