// Accounting invariants of the ledger, checked from the records alone (O(state)); an empty list
// means the books balance.
import type { StakingParams } from '../../params.js';
import { rewardSince } from './rewards.js';
import { tokensForShares } from './shares.js';
import type { LedgerState } from './state.js';

/**
 * Everything that is wrong with the state, one line each:
 * - per validator, the delegations' shares sum to totalShares;
 * - per validator, tokens - sum(floor(shares_i * tokens / totalShares)) equals exactly
 *   sum((shares_i * tokens) mod totalShares) / totalShares, the amount the floors leave behind
 *   (so it is at least 0 and below the number of delegations), and a validator without shares
 *   holds no tokens and no outstanding rewards;
 * - per validator, the delegations' unsettled rewards do not exceed its outstanding rewards;
 * - no negative amount anywhere, unbonding balances within their initial balance, indexes and
 *   missed-block counters consistent, at most maxValidators active;
 * - the running totals equal the sums over the records.
 */
export function findInvariantViolations(state: LedgerState, params: StakingParams): string[] {
  const problems: string[] = [];
  const sums = { staked: 0n, unbonding: 0n, unclaimedRewards: 0n, commission: 0n };
  let active = 0;
  for (const address of [...state.validators.keys()].sort()) {
    const v = state.validators.get(address)!;
    const at = `validator ${address}`;
    if (v.operator !== address) problems.push(`${at}: stored under the wrong address`);
    for (const [name, value] of [
      ['tokens', v.tokens],
      ['totalShares', v.totalShares],
      ['commission', v.commission],
      ['outstandingRewards', v.outstandingRewards],
      ['rewardPerShare', v.rewardPerShare],
      ['totalRewards', v.totalRewards],
    ] as const) {
      if (value < 0n) problems.push(`${at}: negative ${name} ${value}`);
    }
    if (v.status === 'active') active++;
    sums.staked += v.tokens;
    sums.commission += v.commission;
    sums.unclaimedRewards += v.outstandingRewards;

    const delegations = state.delegations.get(address) ?? new Map();
    let shares = 0n;
    let amounts = 0n;
    let remainders = 0n;
    let unsettled = 0n;
    for (const [delegator, d] of delegations) {
      const dat = `delegation ${delegator} -> ${address}`;
      if (d.delegator !== delegator || d.validator !== address) problems.push(`${dat}: stored under the wrong key`);
      if (d.shares <= 0n) problems.push(`${dat}: shares ${d.shares} not positive`);
      if (d.accrued < 0n) problems.push(`${dat}: negative accrued rewards ${d.accrued}`);
      if (d.rewardCheckpoint < 0n || d.rewardCheckpoint > v.rewardPerShare) problems.push(`${dat}: reward checkpoint out of range`);
      if (!state.delegationsOf.get(delegator)?.has(address)) problems.push(`${dat}: missing from the delegator index`);
      shares += d.shares;
      if (v.totalShares > 0n) {
        amounts += tokensForShares(d.shares, v.tokens, v.totalShares);
        remainders += (d.shares * v.tokens) % v.totalShares;
      }
      unsettled += rewardSince(d.shares, v.rewardPerShare, d.rewardCheckpoint);
      sums.unclaimedRewards += d.accrued;
    }
    if (shares !== v.totalShares) problems.push(`${at}: delegation shares sum to ${shares}, totalShares is ${v.totalShares}`);
    if (v.totalShares === 0n) {
      if (v.tokens !== 0n) problems.push(`${at}: ${v.tokens} tokens without shares`);
      if (v.outstandingRewards !== 0n) problems.push(`${at}: ${v.outstandingRewards} outstanding rewards without shares`);
    } else {
      const residual = v.tokens - amounts;
      if (remainders % v.totalShares !== 0n || residual !== remainders / v.totalShares) {
        problems.push(`${at}: tokens ${v.tokens} minus delegation amounts ${amounts} is not the rounding residue`);
      }
      if (residual < 0n || residual >= BigInt(Math.max(delegations.size, 1))) {
        problems.push(`${at}: rounding residue ${residual} outside [0, ${delegations.size})`);
      }
    }
    if (unsettled > v.outstandingRewards) {
      problems.push(`${at}: unsettled rewards ${unsettled} exceed outstanding rewards ${v.outstandingRewards}`);
    }

    const w = v.window;
    let bits = 0;
    for (const byte of w.bitmap) for (let b = byte; b !== 0; b &= b - 1) bits++;
    if (bits !== w.missed || w.missed > Math.min(w.index, w.size) || w.judgedFrom > w.index) problems.push(`${at}: missed-block window inconsistent`);
    if (v.blocksProduced < 0 || v.blocksMissed < 0) problems.push(`${at}: negative block counters`);
  }
  if (active > params.maxValidators) problems.push(`${active} active validators, more than ${params.maxValidators}`);

  for (const [delegator, validators] of state.delegationsOf) {
    for (const validator of validators) {
      if (!state.delegations.get(validator)?.has(delegator)) problems.push(`delegator index lists ${delegator} -> ${validator} that does not exist`);
    }
  }
  for (const [id, u] of state.unbondings) {
    const at = `unbonding ${id}`;
    if (u.id !== id) problems.push(`${at}: stored under the wrong id`);
    if (id >= state.nextUnbondingId) problems.push(`${at}: id not below nextUnbondingId ${state.nextUnbondingId}`);
    if (u.balance < 0n || u.balance > u.initialBalance) problems.push(`${at}: balance ${u.balance} outside [0, ${u.initialBalance}]`);
    if (!state.validators.has(u.validator)) problems.push(`${at}: unknown validator ${u.validator}`);
    if (!state.unbondingsOf.get(u.delegator)?.has(id) || !state.unbondingsFrom.get(u.validator)?.has(id)) {
      problems.push(`${at}: missing from an index`);
    }
    sums.unbonding += u.balance;
  }
  for (const index of [state.unbondingsOf, state.unbondingsFrom]) {
    for (const ids of index.values()) for (const id of ids) if (!state.unbondings.has(id)) problems.push(`unbonding index lists missing entry ${id}`);
  }
  if (state.dust < 0n) problems.push(`negative dust ${state.dust}`);
  if (state.burned < 0n) problems.push(`negative burned ${state.burned}`);
  for (const key of ['staked', 'unbonding', 'unclaimedRewards', 'commission'] as const) {
    if (sums[key] !== state.totals[key]) problems.push(`running total ${key} is ${state.totals[key]}, records sum to ${sums[key]}`);
  }
  return problems;
}
