// The ledger's in-memory state: records plus the indexes that keep every operation O(1) or
// O(entries touched), and the running totals that moduleBalance() reads.
import type { Address, DelegationRecord, EpochSnapshot, UnbondingRecord, ValidatorRecord } from './types.js';

export interface LedgerState {
  validators: Map<Address, ValidatorRecord>;
  /** validator -> delegator -> delegation. */
  delegations: Map<Address, Map<Address, DelegationRecord>>;
  /** delegator -> validators it delegates to. */
  delegationsOf: Map<Address, Set<Address>>;
  unbondings: Map<number, UnbondingRecord>;
  unbondingsOf: Map<Address, Set<number>>;
  unbondingsFrom: Map<Address, Set<number>>;
  epochs: Map<number, EpochSnapshot>;
  /** Id the next unbonding entry gets. */
  nextUnbondingId: number;
  /** Epoch of the latest snapshot; -1 before the first. */
  currentEpoch: number;
  dust: bigint;
  burned: bigint;
  /** Running sums, recomputed from the records on restore and checked by checkInvariants. */
  totals: { staked: bigint; unbonding: bigint; unclaimedRewards: bigint; commission: bigint };
}

/** A ledger with nothing in it. */
export function emptyState(): LedgerState {
  return {
    validators: new Map(),
    delegations: new Map(),
    delegationsOf: new Map(),
    unbondings: new Map(),
    unbondingsOf: new Map(),
    unbondingsFrom: new Map(),
    epochs: new Map(),
    nextUnbondingId: 1,
    currentEpoch: -1,
    dust: 0n,
    burned: 0n,
    totals: { staked: 0n, unbonding: 0n, unclaimedRewards: 0n, commission: 0n },
  };
}

/** The delegation of `delegator` to `validator`, if any. */
export function getDelegation(state: LedgerState, validator: Address, delegator: Address): DelegationRecord | undefined {
  return state.delegations.get(validator)?.get(delegator);
}

/** Add a delegation to the state and its indexes. */
export function putDelegation(state: LedgerState, d: DelegationRecord): void {
  let byDelegator = state.delegations.get(d.validator);
  if (!byDelegator) state.delegations.set(d.validator, (byDelegator = new Map()));
  byDelegator.set(d.delegator, d);
  let validators = state.delegationsOf.get(d.delegator);
  if (!validators) state.delegationsOf.set(d.delegator, (validators = new Set()));
  validators.add(d.validator);
}

/** Remove a delegation from the state and its indexes. */
export function dropDelegation(state: LedgerState, d: DelegationRecord): void {
  const byDelegator = state.delegations.get(d.validator);
  byDelegator?.delete(d.delegator);
  if (byDelegator?.size === 0) state.delegations.delete(d.validator);
  const validators = state.delegationsOf.get(d.delegator);
  validators?.delete(d.validator);
  if (validators?.size === 0) state.delegationsOf.delete(d.delegator);
}

/** Add an unbonding entry to the state and its indexes. */
export function putUnbonding(state: LedgerState, u: UnbondingRecord): void {
  state.unbondings.set(u.id, u);
  addToIndex(state.unbondingsOf, u.delegator, u.id);
  addToIndex(state.unbondingsFrom, u.validator, u.id);
}

/** Remove an unbonding entry from the state and its indexes. */
export function dropUnbonding(state: LedgerState, u: UnbondingRecord): void {
  state.unbondings.delete(u.id);
  removeFromIndex(state.unbondingsOf, u.delegator, u.id);
  removeFromIndex(state.unbondingsFrom, u.validator, u.id);
}

/** Ids in an index set, ascending (creation order). */
export function sortedIds(ids: Set<number> | undefined): number[] {
  return ids ? [...ids].sort((a, b) => a - b) : [];
}

function addToIndex(index: Map<Address, Set<number>>, key: Address, id: number): void {
  let ids = index.get(key);
  if (!ids) index.set(key, (ids = new Set()));
  ids.add(id);
}

function removeFromIndex(index: Map<Address, Set<number>>, key: Address, id: number): void {
  const ids = index.get(key);
  ids?.delete(id);
  if (ids?.size === 0) index.delete(key);
}
