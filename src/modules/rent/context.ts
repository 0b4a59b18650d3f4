// What rent's messages (messages.ts), block hooks (hooks.ts) and rules (rules.ts) share: its
// records, what it reads of the chain, its parameters, the accounts exempt from it, and what the
// block being built changed. The module (module.ts) builds it once.
import type { RentParams } from '../../params.js';
import type { RentStore } from './store.js';
import type { Address, RentEvent, RentSchedule } from './types.js';

/** What the module reads of the chain besides its records: balances and slot counts at the parent, and what a block's execution loaded. */
export interface RentChain {
  balanceAt(address: Address, height: number): bigint;
  slotCount(address: Address): number;
  slotChanges(height: number): { address: Address; count: number }[];
  activeCode(height: number): Address[];
}

/** Accounts made dormant and active again in the block being built (the native executor's view of it). */
export interface RentBlockState {
  madeDormant: Address[];
  reactivated: Address[];
}

export interface RentContext {
  readonly store: RentStore;
  readonly reads: RentChain;
  /** The live parameters (governance changes them in place). */
  readonly params: RentParams;
  /** The genesis rules: what the records were filed under until governance first changed one. */
  readonly genesisSchedule: RentSchedule;
  readonly exempt: ReadonlySet<Address>;
  readonly block: RentBlockState;
  /** Records an event of the block being built. */
  event(e: RentEvent): void;
}
