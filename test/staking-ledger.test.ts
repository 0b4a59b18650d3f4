// The staking ledger against the rules of Cosmos x/staking, x/distribution and x/slashing as the
// node applies them: each operation and its refusals, reward arithmetic by hand, unbonding
// timing, commission limits, slashing, jail, epochs, liveness, persistence, and a seeded random
// run that checks the accounting invariants after every step.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { staking, type StakingParams } from '../src/params.js';
import { StakingLedger } from '../src/modules/staking/ledger.js';
import { StakingRecordError } from '../src/modules/staking/store.js';
import { blockRewardFor, inferenceMinersShareBps, rewardMultiplierBps, splitBlockReward } from '../src/modules/staking/rewards.js';
import { downtimePenalty, spotCheckPenalty } from '../src/modules/staking/penalties.js';
import { epochOfHeight, isEpochLastBlock } from '../src/modules/staking/epoch.js';
import type { Address, Applied, LedgerResult, ValidatorDescription } from '../src/modules/staking/types.js';

const ETHER = 10n ** 18n;
const T0 = 1_735_689_600;
const DAY = 86_400;

/** Address number n, e.g. addr(1) = 0x00..01. */
const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
const [V1, V2, V3, V4] = [addr(0xa1), addr(0xa2), addr(0xa3), addr(0xa4)];
const [B, C, D] = [addr(0xb), addr(0xc), addr(0xd)];

const PARAMS: StakingParams = { ...staking };

const description = (over: Partial<ValidatorDescription> = {}): ValidatorDescription => ({
  moniker: 'node one',
  commissionBps: 1_000,
  maxCommissionBps: 2_000,
  maxChangeBpsPerDay: 100,
  ...over,
});

/** The applied result, or a test failure naming the refusal. */
function ok<T extends object>(r: LedgerResult<T>): Applied<T> {
  if (!r.ok) assert.fail(`refused: ${r.reason}`);
  return r;
}

const dump = (ledger: StakingLedger): string[] => ledger.records().map((r) => `${r.key.toString('hex')}=${r.value.toString('utf8')}`);

/** Assert an operation is refused with `reason` and that the ledger did not change at all. */
function assertRefused(ledger: StakingLedger, op: () => LedgerResult<object>, reason: string): void {
  ledger.dirtyRecords();
  const before = dump(ledger);
  assert.deepEqual(op(), { ok: false, reason });
  assert.deepEqual(ledger.dirtyRecords(), []);
  assert.deepEqual(dump(ledger), before);
}

/** A ledger with validator V1 (10 ether self stake, 10% commission) registered at height 1, time T0. */
function withValidator(params: StakingParams = PARAMS): StakingLedger {
  const ledger = new StakingLedger(params);
  ok(ledger.registerValidator(V1, description(), 10n * ETHER, 1, T0));
  return ledger;
}

describe('registerValidator', () => {
  it('creates the validator with its self-delegation; it is inactive until the next epoch', () => {
    const ledger = new StakingLedger(PARAMS);
    const r = ok(ledger.registerValidator(V1, description(), 10n * ETHER, 5, T0));
    assert.deepEqual(r.events, [
      {
        type: 'ValidatorRegistered',
        validator: V1,
        moniker: 'node one',
        commissionBps: 1_000,
        maxCommissionBps: 2_000,
        maxChangeBpsPerDay: 100,
        selfStake: 10n * ETHER,
        shares: 10n * ETHER,
        height: 5,
      },
    ]);
    assert.deepEqual(r.payouts, []);
    const v = ledger.validator(V1)!;
    assert.equal(v.tokens, 10n * ETHER);
    assert.equal(v.selfStake, 10n * ETHER);
    assert.equal(v.delegatedStake, 0n);
    assert.equal(v.delegatorCount, 0);
    assert.equal(v.status, 'inactive');
    assert.equal(v.registeredAt, 5);
    assert.equal(v.votingPower, 10n);
    assert.equal(ledger.stakeInfo(V1).stakedAmount, 10n * ETHER);
    assert.equal(ledger.moduleBalance(), 10n * ETHER);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('refuses bad registrations and changes nothing', () => {
    const ledger = withValidator();
    const reg = (over: Partial<ValidatorDescription>, stake = ETHER, who: Address = V2) => () =>
      ledger.registerValidator(who, description(over), stake, 2, T0);
    assertRefused(ledger, reg({}, ETHER, V1), 'already registered');
    assertRefused(ledger, reg({ moniker: '' }), 'moniker must be 1..64 characters');
    assertRefused(ledger, reg({ moniker: 'x'.repeat(65) }), 'moniker must be 1..64 characters');
    assertRefused(ledger, reg({ commissionBps: 2_001 }), 'commission above max');
    assertRefused(ledger, reg({ maxCommissionBps: 10_001, commissionBps: 0 }), 'max commission above 10000 bps');
    assertRefused(ledger, reg({ maxChangeBpsPerDay: 2_001 }), 'max daily change above max commission');
    assertRefused(ledger, reg({ commissionBps: 1.5 }), 'commission rates must be whole basis points');
    assertRefused(ledger, reg({}, ETHER - 1n), 'self stake below minimum');
    assertRefused(ledger, reg({}, ETHER, '0xABC' as Address), 'invalid address');
    ok(ledger.registerValidator(V2, description({ moniker: 'é'.repeat(64) }), ETHER, 2, T0));
  });
});

describe('delegate', () => {
  it('mints shares 1:1 on an unslashed validator and counts delegators', () => {
    const ledger = withValidator();
    const r = ok(ledger.delegate(B, V1, 30n * ETHER, 2));
    assert.equal(r.shares, 30n * ETHER);
    assert.deepEqual(r.events, [{ type: 'Delegated', delegator: B, validator: V1, amount: 30n * ETHER, shares: 30n * ETHER, height: 2 }]);
    ok(ledger.delegate(C, V1, 60n * ETHER, 2));
    ok(ledger.delegate(C, V1, 1n, 3));
    assert.equal(ledger.delegatorCount(V1), 2);
    assert.deepEqual(ledger.delegation(C, V1), { delegator: C, validator: V1, shares: 60n * ETHER + 1n, amount: 60n * ETHER + 1n, pendingRewards: 0n });
    const v = ledger.validator(V1)!;
    assert.equal(v.tokens, 100n * ETHER + 1n);
    assert.equal(v.delegatedStake, 90n * ETHER + 1n);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('refuses unknown validators, non-positive and below-minimum amounts', () => {
    const ledger = withValidator({ ...PARAMS, minDelegation: 10n });
    assertRefused(ledger, () => ledger.delegate(B, V2, ETHER, 2), 'validator not found');
    assertRefused(ledger, () => ledger.delegate(B, V1, 9n, 2), 'amount below minimum delegation');
    assertRefused(ledger, () => ledger.delegate(B, V1, 0n, 2), 'amount must be positive');
    assertRefused(ledger, () => ledger.delegate(B, V1, -5n, 2), 'amount must be positive');
    assertRefused(ledger, () => ledger.delegate('0x12' as Address, V1, ETHER, 2), 'invalid address');
  });

  it('accepts delegations to jailed validators (Cosmos)', () => {
    const ledger = withValidator();
    ok(ledger.slash(V1, 0, 1, T0 + 100, 'test', 1));
    assert.equal(ledger.validator(V1)!.status, 'jailed');
    ok(ledger.delegate(B, V1, ETHER, 2));
  });

  it('refuses a validator slashed to zero tokens', () => {
    const ledger = withValidator();
    ok(ledger.slash(V1, 10_000, 1, T0, 'test', 1));
    assertRefused(ledger, () => ledger.delegate(B, V1, ETHER, 2), 'validator has no tokens');
  });
});

describe('undelegate', () => {
  it('moves tokens into an unbonding entry that completes one unbonding period later', () => {
    const ledger = withValidator();
    ok(ledger.delegate(B, V1, 30n * ETHER, 2));
    const r = ok(ledger.undelegate(B, V1, 10n * ETHER, 3, T0 + 5));
    assert.equal(r.completesAt, T0 + 5 + PARAMS.unbondingPeriodSeconds);
    assert.deepEqual(r.events, [
      {
        type: 'Undelegated',
        delegator: B,
        validator: V1,
        amount: 10n * ETHER,
        shares: 10n * ETHER,
        unbondingId: r.unbondingId,
        height: 3,
        completesAt: r.completesAt,
      },
    ]);
    assert.deepEqual(ledger.stakeInfo(B), {
      stakedAmount: 20n * ETHER,
      unstakingAmount: 10n * ETHER,
      unstakingCompletesAt: r.completesAt,
      pendingRewards: 0n,
    });
    assert.equal(ledger.validator(V1)!.tokens, 30n * ETHER);
    assert.equal(ledger.totals().totalUnbonding, 10n * ETHER);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('a full exit removes the delegation and pays its rewards', () => {
    const ledger = withValidator();
    ok(ledger.delegate(B, V1, 10n * ETHER, 2));
    ok(ledger.distribute(new Map([[V1, ETHER]])));
    const r = ok(ledger.undelegate(B, V1, 10n * ETHER, 3, T0));
    assert.equal(ledger.delegation(B, V1), undefined);
    assert.equal(ledger.delegatorCount(V1), 0);
    // 1 ether, 10% commission, B holds half of the shares: 0.45 ether.
    assert.deepEqual(r.payouts, [{ to: B, amount: 45n * 10n ** 16n }]);
    assert.deepEqual(r.events[1], { type: 'RewardsClaimed', delegator: B, validator: V1, rewards: 45n * 10n ** 16n, commission: 0n });
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('refuses more than the delegation holds, missing delegations and too many entries', () => {
    const ledger = withValidator({ ...PARAMS, maxUnbondingEntries: 2 });
    ok(ledger.delegate(B, V1, 5n * ETHER, 2));
    assertRefused(ledger, () => ledger.undelegate(B, V1, 5n * ETHER + 1n, 3, T0), 'insufficient delegation');
    assertRefused(ledger, () => ledger.undelegate(C, V1, 1n, 3, T0), 'insufficient delegation');
    assertRefused(ledger, () => ledger.undelegate(B, V2, 1n, 3, T0), 'validator not found');
    assertRefused(ledger, () => ledger.undelegate(B, V1, 0n, 3, T0), 'amount must be positive');
    ok(ledger.undelegate(B, V1, ETHER, 3, T0));
    ok(ledger.undelegate(B, V1, ETHER, 3, T0));
    assertRefused(ledger, () => ledger.undelegate(B, V1, ETHER, 3, T0), 'too many unbonding entries');
  });

  it('jails the validator when the operator takes its self stake below the minimum', () => {
    const ledger = withValidator();
    const r = ok(ledger.undelegate(V1, V1, 9n * ETHER + 1n, 3, T0 + 10));
    assert.deepEqual(r.events.at(-1), { type: 'Jailed', validator: V1, until: T0 + 10, reason: 'self stake below minimum' });
    assert.equal(ledger.validator(V1)!.status, 'jailed');
    assertRefused(ledger, () => ledger.unjail(V1, T0 + 10), 'self stake below minimum');
    ok(ledger.delegate(V1, V1, 1n, 4));
    ok(ledger.unjail(V1, T0 + 11));
    assert.equal(ledger.validator(V1)!.status, 'inactive');
  });
});

describe('withdraw', () => {
  it('pays an entry exactly at its completion time, not one second before', () => {
    const ledger = withValidator();
    ok(ledger.delegate(B, V1, 3n * ETHER, 2));
    const first = ok(ledger.undelegate(B, V1, ETHER, 3, T0 + 100));
    const second = ok(ledger.undelegate(B, V1, ETHER, 4, T0 + 110));
    assertRefused(ledger, () => ledger.withdraw(B, first.completesAt - 1), 'nothing to withdraw');
    const r = ok(ledger.withdraw(B, first.completesAt));
    assert.deepEqual(r.payouts, [{ to: B, amount: ETHER }]);
    assert.deepEqual(r.events, [
      { type: 'Withdrawn', delegator: B, validator: V1, amount: ETHER, unbondingId: first.unbondingId, completesAt: first.completesAt, at: first.completesAt },
    ]);
    assert.equal(ledger.stakeInfo(B).unstakingCompletesAt, second.completesAt);
    assertRefused(ledger, () => ledger.withdraw(B, second.completesAt - 1), 'nothing to withdraw');
    assert.deepEqual(ok(ledger.withdraw(B, second.completesAt + 1000)).payouts, [{ to: B, amount: ETHER }]);
    assert.deepEqual(ledger.stakeInfo(B), { stakedAmount: ETHER, unstakingAmount: 0n, unstakingCompletesAt: 0, pendingRewards: 0n });
    assert.equal(ledger.moduleBalance(), 11n * ETHER);
    assertRefused(ledger, () => ledger.withdraw(C, T0 + 10 * DAY), 'nothing to withdraw');
  });
});

describe('rewards', () => {
  it('match a hand computation with commission and two delegators of different stakes', () => {
    // V1: 10 ether own, B 30, C 60; commission 10%. A reward of 1 ether gives 0.1 commission and
    // 0.9 by shares: V1 0.09, B 0.27, C 0.54.
    const ledger = withValidator();
    ok(ledger.delegate(B, V1, 30n * ETHER, 2));
    ok(ledger.delegate(C, V1, 60n * ETHER, 2));
    const d = ok(ledger.distribute(new Map([[V1, ETHER]])));
    assert.deepEqual(d.events, [{ type: 'RewardsDistributed', validator: V1, amount: ETHER, commission: ETHER / 10n }]);
    const milli = 10n ** 15n;
    assert.equal(ledger.delegation(V1, V1)!.pendingRewards, 90n * milli);
    assert.equal(ledger.delegation(B, V1)!.pendingRewards, 270n * milli);
    assert.equal(ledger.delegation(C, V1)!.pendingRewards, 540n * milli);
    assert.equal(ledger.stakeInfo(V1).pendingRewards, 190n * milli);
    assert.equal(ledger.validator(V1)!.totalRewards, ETHER);

    // B's shares change (settled at the old rate), then a second reward of 1 ether at 40 / 100.
    ok(ledger.delegate(B, V1, 10n * ETHER, 3));
    ok(ledger.undelegate(C, V1, 10n * ETHER, 3, T0));
    ok(ledger.distribute(new Map([[V1, ETHER]])));
    assert.equal(ledger.delegation(B, V1)!.pendingRewards, 270n * milli + 360n * milli);
    assert.equal(ledger.delegation(C, V1)!.pendingRewards, 540n * milli + 450n * milli);

    const op = ok(ledger.claimRewards(V1, V1));
    assert.deepEqual(op.payouts, [{ to: V1, amount: 2n * 90n * milli + 2n * 100n * milli }]);
    assert.deepEqual(op.events, [{ type: 'RewardsClaimed', delegator: V1, validator: V1, rewards: 180n * milli, commission: 200n * milli }]);
    assert.deepEqual(ok(ledger.claimRewards(B, V1)).payouts, [{ to: B, amount: 630n * milli }]);
    assertRefused(ledger, () => ledger.claimRewards(B, V1), 'nothing to claim');
    assertRefused(ledger, () => ledger.claimRewards(D, V1), 'delegation not found');
    assertRefused(ledger, () => ledger.claimRewards(B, V2), 'validator not found');
    assert.equal(ledger.stakeInfo(V1).pendingRewards, 0n);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('floors per delegation and turns the remainder into dust when the last share leaves', () => {
    const ledger = new StakingLedger({ ...PARAMS, minSelfStake: 1n });
    ok(ledger.registerValidator(V1, description({ commissionBps: 0 }), 1n, 1, T0));
    ok(ledger.delegate(B, V1, 2n, 1));
    ok(ledger.distribute(new Map([[V1, 10n]])));
    // 10 wei over 3 shares: floor(10/3) = 3 and floor(20/3) = 6; 1 wei left over.
    assert.equal(ledger.delegation(V1, V1)!.pendingRewards, 3n);
    assert.equal(ledger.delegation(B, V1)!.pendingRewards, 6n);
    assert.equal(ledger.totals().totalUnclaimedRewards, 10n);
    assert.deepEqual(ok(ledger.undelegate(B, V1, 2n, 2, T0)).payouts, [{ to: B, amount: 6n }]);
    assert.deepEqual(ok(ledger.undelegate(V1, V1, 1n, 2, T0)).payouts, [{ to: V1, amount: 3n }]);
    assert.deepEqual(ledger.totals(), { totalStaked: 0n, totalUnbonding: 3n, totalUnclaimedRewards: 0n, totalCommission: 0n, dust: 1n, burned: 0n });
    assert.equal(ledger.moduleBalance(), 4n);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('refuses unknown validators and negative rewards without crediting any', () => {
    const ledger = withValidator();
    assertRefused(ledger, () => ledger.distribute(new Map([[V1, ETHER], [V2, 1n]])), 'validator not found');
    assertRefused(ledger, () => ledger.distribute(new Map([[V1, -1n]])), 'reward must not be negative');
  });
});

describe('editCommission', () => {
  it('allows one change per 24 hours within the max daily change and the max rate', () => {
    const ledger = withValidator();
    assertRefused(ledger, () => ledger.editCommission(V1, 1_050, T0 + DAY - 1), 'commission changed less than 24 hours ago');
    const r = ok(ledger.editCommission(V1, 1_100, T0 + DAY));
    assert.deepEqual(r.events, [{ type: 'CommissionChanged', validator: V1, oldBps: 1_000, newBps: 1_100, at: T0 + DAY }]);
    assertRefused(ledger, () => ledger.editCommission(V1, 1_150, T0 + 2 * DAY - 1), 'commission changed less than 24 hours ago');
    assertRefused(ledger, () => ledger.editCommission(V1, 1_201, T0 + 2 * DAY), 'commission change exceeds max daily change');
    assertRefused(ledger, () => ledger.editCommission(V1, 999, T0 + 2 * DAY), 'commission change exceeds max daily change');
    ok(ledger.editCommission(V1, 1_000, T0 + 2 * DAY));
    assert.equal(ledger.validator(V1)!.commissionBps, 1_000);
    assertRefused(ledger, () => ledger.editCommission(V2, 1_000, T0 + 9 * DAY), 'validator not found');
  });

  it('never goes above the validator max', () => {
    const ledger = new StakingLedger(PARAMS);
    ok(ledger.registerValidator(V1, description({ commissionBps: 1_950, maxCommissionBps: 2_000, maxChangeBpsPerDay: 100 }), ETHER, 1, T0));
    assertRefused(ledger, () => ledger.editCommission(V1, 2_001, T0 + DAY), 'commission above max');
    ok(ledger.editCommission(V1, 2_000, T0 + DAY));
  });
});

describe('slash', () => {
  it('hits delegators pro rata and the unbonding entries created at or after the infraction', () => {
    const ledger = withValidator();
    ok(ledger.delegate(B, V1, 30n * ETHER, 2));
    ok(ledger.delegate(C, V1, 60n * ETHER, 2));
    const before = ok(ledger.undelegate(C, V1, 10n * ETHER, 4, T0)); // before the infraction: spared
    const after = ok(ledger.undelegate(B, V1, 10n * ETHER, 6, T0)); // at the infraction height: slashed
    const r = ok(ledger.slash(V1, 1_000, 6, T0 + 3600, 'double sign', 8));
    // tokens 80 ether -> 8 burned; B's entry 10 -> 1 burned.
    assert.equal(r.burned, 9n * ETHER);
    assert.deepEqual(r.events, [
      { type: 'Slashed', validator: V1, fractionBps: 1_000, infractionHeight: 6, height: 8, tokensBurned: 8n * ETHER, unbondingBurned: ETHER, reason: 'double sign' },
      { type: 'Jailed', validator: V1, until: T0 + 3600, reason: 'double sign' },
    ]);
    assert.equal(ledger.delegation(V1, V1)!.amount, 9n * ETHER);
    assert.equal(ledger.delegation(B, V1)!.amount, 18n * ETHER);
    assert.equal(ledger.delegation(C, V1)!.amount, 45n * ETHER);
    const entries = new Map([...ledger.unbondingsOf(B), ...ledger.unbondingsOf(C)].map((u) => [u.id, u.balance]));
    assert.equal(entries.get(before.unbondingId), 10n * ETHER);
    assert.equal(entries.get(after.unbondingId), 9n * ETHER);
    const v = ledger.validator(V1)!;
    assert.equal(v.status, 'jailed');
    assert.equal(v.jailedUntil, T0 + 3600);
    assert.deepEqual(v.slashes, [
      { height: 8, infractionHeight: 6, fractionBps: 1_000, tokensBurned: 8n * ETHER, unbondingBurned: ETHER, reason: 'double sign' },
    ]);
    assert.equal(ledger.totals().burned, 9n * ETHER);
    assert.equal(ledger.moduleBalance(), 100n * ETHER - 9n * ETHER);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('uses the spec penalty for a failed spot-check: 5% and 6 hours', () => {
    const ledger = withValidator();
    const order = spotCheckPenalty(PARAMS, 1, T0);
    assert.deepEqual(order, { fractionBps: 500, infractionHeight: 1, jailUntil: T0 + 6 * 3600, reason: 'spot-check failure' });
    const r = ok(ledger.slash(V1, order.fractionBps, order.infractionHeight, order.jailUntil, order.reason, 2));
    assert.equal(r.burned, ETHER / 2n);
    assert.equal(ledger.validator(V1)!.jailedUntil, T0 + 6 * 3600);
  });

  it('refuses bad fractions, unknown validators and future infractions', () => {
    const ledger = withValidator();
    assertRefused(ledger, () => ledger.slash(V1, 10_001, 1, T0, 'x', 2), 'slash fraction must be 0..10000 bps');
    assertRefused(ledger, () => ledger.slash(V1, -1, 1, T0, 'x', 2), 'slash fraction must be 0..10000 bps');
    assertRefused(ledger, () => ledger.slash(V2, 100, 1, T0, 'x', 2), 'validator not found');
    assertRefused(ledger, () => ledger.slash(V1, 100, 3, T0, 'x', 2), 'infraction height after current height');
  });
});

describe('jail and unjail', () => {
  it('refuses to unjail before jailedUntil and allows it from that second on', () => {
    const ledger = withValidator();
    assertRefused(ledger, () => ledger.unjail(V1, T0), 'validator is not jailed');
    ok(ledger.slash(V1, 0, 1, 1_700_000_000, 'test', 1));
    assertRefused(ledger, () => ledger.unjail(V1, 1_699_999_999), 'validator is jailed until 1700000000');
    assert.deepEqual(ok(ledger.unjail(V1, 1_700_000_000)).events, [{ type: 'Unjailed', validator: V1, at: 1_700_000_000 }]);
    assert.equal(ledger.validator(V1)!.status, 'inactive');
    assertRefused(ledger, () => ledger.unjail(V2, T0), 'validator not found');
  });

  it('never shortens a running jail', () => {
    const ledger = withValidator();
    ok(ledger.slash(V1, 0, 1, T0 + 1000, 'first', 1));
    const r = ok(ledger.slash(V1, 0, 1, T0 + 10, 'second', 2));
    assert.equal(r.events.some((e) => e.type === 'Jailed'), false);
    assert.equal(ledger.validator(V1)!.jailedUntil, T0 + 1000);
  });

  it('a jailed validator leaves the active set and comes back at the epoch after unjail', () => {
    const ledger = withValidator();
    ledger.startEpoch(0, 0);
    assert.equal(ledger.validator(V1)!.status, 'active');
    ok(ledger.slash(V1, 0, 3, T0 + 60, 'test', 3));
    assert.deepEqual(ledger.endEpoch(0, 9).snapshot.validators, []);
    ok(ledger.unjail(V1, T0 + 60));
    const change = ledger.endEpoch(1, 19);
    assert.deepEqual(change.joined, [V1]);
    assert.equal(ledger.validator(V1)!.status, 'active');
  });
});

describe('epochs', () => {
  it('choose the top maxValidators by tokens, ties to the lower address, and keep every snapshot', () => {
    const ledger = new StakingLedger({ ...PARAMS, maxValidators: 2 });
    ok(ledger.registerValidator(V3, description(), 5n * ETHER, 0, T0));
    ok(ledger.registerValidator(V2, description(), 5n * ETHER, 0, T0));
    ok(ledger.registerValidator(V1, description(), 3n * ETHER, 0, T0));
    const first = ledger.startEpoch(0, 0);
    assert.deepEqual(first.snapshot, {
      epoch: 0,
      startHeight: 0,
      validators: [
        { address: V2, tokens: 5n * ETHER, votingPower: 5n },
        { address: V3, tokens: 5n * ETHER, votingPower: 5n },
      ],
    });
    assert.deepEqual(first.joined, [V2, V3]);
    ok(ledger.delegate(B, V1, 10n * ETHER, 3));
    const second = ledger.endEpoch(0, 9);
    assert.deepEqual(second.snapshot.epoch, 1);
    assert.deepEqual(second.snapshot.startHeight, 10);
    assert.deepEqual(second.snapshot.validators.map((m) => m.address), [V1, V2]);
    assert.deepEqual(second.left, [V3]);
    assert.equal(ledger.validator(V3)!.status, 'inactive');
    assert.deepEqual(ledger.validatorSet(0), first.snapshot);
    assert.deepEqual(ledger.validatorSet(), second.snapshot);
    assert.equal(ledger.currentEpoch, 1);
    assert.throws(() => ledger.startEpoch(1, 10), RangeError);
  });

  it('leave out validators whose self stake is below the minimum', () => {
    const ledger = new StakingLedger(PARAMS);
    ok(ledger.registerValidator(V1, description(), ETHER, 0, T0));
    ok(ledger.delegate(B, V1, 50n * ETHER, 0));
    ok(ledger.slash(V1, 100, 0, T0, 'test', 0)); // self stake now 0.99 ether
    ok(ledger.registerValidator(V2, description(), ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    assert.deepEqual(ledger.validatorSet(0)!.validators.map((m) => m.address), [V2]);
  });

  it('have fixed lengths', () => {
    assert.equal(epochOfHeight(0, PARAMS), 0);
    assert.equal(epochOfHeight(PARAMS.epochLengthBlocks, PARAMS), 1);
    assert.equal(isEpochLastBlock(PARAMS.epochLengthBlocks - 1, PARAMS), true);
    assert.equal(isEpochLastBlock(PARAMS.epochLengthBlocks, PARAMS), false);
  });
});

describe('liveness', () => {
  const params: StakingParams = { ...PARAMS, signedBlocksWindow: 10, minSignedPerWindowBps: 5_000, downtimeJailSeconds: 600, downtimeSlashBps: 100 };

  it('counts produced and missed blocks and slashes through slash() past the downtime threshold', () => {
    const ledger = new StakingLedger(params);
    ok(ledger.registerValidator(V1, description(), 10n * ETHER, 0, T0));
    ok(ledger.registerValidator(V2, description(), 10n * ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    // V2 misses 6 of the first 10 blocks: 5 may be missed (must sign 5 of 10), so block 10 trips it.
    let last = { events: [] as unknown[], jailed: [] as Address[], burned: 0n };
    for (let h = 1; h <= 10; h++) {
      const signers = h <= 6 ? [V1] : [V1, V2];
      last = ledger.recordBlock(h, V1, signers, T0 + h);
      if (h < 10) assert.deepEqual(last.jailed, []);
    }
    assert.deepEqual(last.jailed, [V2]);
    assert.equal(last.burned, ETHER / 10n);
    const down = downtimePenalty(params, 10, T0 + 10);
    assert.deepEqual(last.events, [
      { type: 'Slashed', validator: V2, fractionBps: 100, infractionHeight: 10, height: 10, tokensBurned: ETHER / 10n, unbondingBurned: 0n, reason: 'downtime' },
      { type: 'Jailed', validator: V2, until: down.jailUntil, reason: 'downtime' },
    ]);
    const v1 = ledger.validator(V1)!;
    const v2 = ledger.validator(V2)!;
    assert.equal(v1.blocksProduced, 10);
    assert.equal(v1.uptimeBps, 10_000);
    assert.equal(v2.blocksMissed, 6);
    assert.equal(v2.status, 'jailed');
    // The jail keeps the window's misses (uptime shows them); downtime is judged afresh from here.
    assert.equal(v2.missedInWindow, 6);
    assert.equal(v2.uptimeBps, 4_000);
    assert.equal(v2.lastActiveAt, 10);
    assert.throws(() => ledger.recordBlock(11, V4, [], T0 + 11), RangeError);
  });

  it('keeps uptime and the score\'s uptime part across a downtime jail, and judges a returning validator over a full window of its own', () => {
    const ledger = new StakingLedger(params);
    ok(ledger.registerValidator(V1, description(), 10n * ETHER, 0, T0));
    ok(ledger.registerValidator(V2, description(), 10n * ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    // V2 misses everything: jailed at block 10 with 10 of 10 missed.
    for (let h = 1; h <= 10; h++) ledger.recordBlock(h, V1, [V1], T0 + h);
    const jailed = ledger.validator(V2)!;
    assert.equal(jailed.status, 'jailed');
    assert.equal(jailed.blocksMissed, 10);
    assert.equal(jailed.missedInWindow, 10);
    assert.equal(jailed.uptimeBps, 0, 'not 100% uptime beside 10 missed blocks');
    // It stays so while jailed (a jailed validator is not counted), also after a restart from the records.
    for (let h = 11; h <= 15; h++) ledger.recordBlock(h, V1, [V1], T0 + h);
    const restored = StakingLedger.restore(params, ledger.records());
    assert.equal(restored.validator(V2)!.uptimeBps, 0);
    assert.deepEqual(restored.records(), ledger.records());

    // Back after the jail (unjail, then the next epoch makes it active): it signs, and the misses
    // leave the window one block at a time; it is not jailed again for the old misses.
    ok(ledger.unjail(V2, T0 + 10 + params.downtimeJailSeconds));
    ledger.startEpoch(1, 16);
    assert.equal(ledger.validator(V2)!.status, 'active');
    for (let h = 16; h <= 19; h++) assert.deepEqual(ledger.recordBlock(h, V1, [V1, V2], T0 + h).jailed, []);
    assert.equal(ledger.validator(V2)!.missedInWindow, 6);
    assert.equal(ledger.validator(V2)!.uptimeBps, 4_000);
    // Missing again: downtime is judged once a full window has been counted since the jail (block 25).
    for (let h = 20; h <= 24; h++) assert.deepEqual(ledger.recordBlock(h, V1, [V1], T0 + h).jailed, [], `block ${h}`);
    assert.deepEqual(ledger.recordBlock(25, V1, [V1], T0 + 25).jailed, [V2]);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('starts every window afresh when the window size changes (a governance change)', () => {
    const live: { -readonly [K in keyof StakingParams]: StakingParams[K] } = { ...params };
    const ledger = new StakingLedger(live);
    ok(ledger.registerValidator(V1, description(), 10n * ETHER, 0, T0));
    ok(ledger.registerValidator(V2, description(), 10n * ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    for (let h = 1; h <= 4; h++) ledger.recordBlock(h, V1, [V1], T0 + h);
    assert.equal(ledger.validator(V2)!.missedInWindow, 4);
    live.signedBlocksWindow = 20;
    live.minSignedPerWindowBps = 9_000;
    ledger.recordBlock(5, V1, [V1], T0 + 5);
    assert.equal(ledger.validator(V2)!.missedInWindow, 1);
    // 20 blocks, at most 2 missed: the third miss past a full window of 20 jails.
    for (let h = 6; h <= 21; h++) assert.deepEqual(ledger.recordBlock(h, V1, [V1, V2], T0 + h).jailed, [], `block ${h}`);
    assert.deepEqual(ledger.recordBlock(22, V1, [V1], T0 + 22).jailed, []);
    assert.deepEqual(ledger.recordBlock(23, V1, [V1], T0 + 23).jailed, []);
    assert.deepEqual(ledger.recordBlock(24, V1, [V1], T0 + 24).jailed, [V2]);
    assert.deepEqual(ledger.checkInvariants(), []);
  });

  it('does not trip at exactly the allowed misses', () => {
    const ledger = new StakingLedger(params);
    ok(ledger.registerValidator(V1, description(), 10n * ETHER, 0, T0));
    ok(ledger.registerValidator(V2, description(), 10n * ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    for (let h = 1; h <= 30; h++) {
      const r = ledger.recordBlock(h, V1, h % 2 === 0 ? [V1, V2] : [V1], T0 + h);
      assert.deepEqual(r.jailed, []);
    }
    assert.equal(ledger.validator(V2)!.uptimeBps, 5_000);
  });

  it('counts CometBFT\'s decided last commit as Cosmos x/slashing does: block 1 charges nobody, only absent votes miss, nil is signed', () => {
    const ledger = new StakingLedger(params);
    for (const v of [V1, V2, V3, V4]) ok(ledger.registerValidator(v, description(), 10n * ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    // Block 1 has no last commit: nobody is counted (not even the validators that did not propose it).
    ledger.recordBlock(1, V1, [], T0 + 1, []);
    for (const v of [V1, V2, V3, V4]) {
      assert.equal(ledger.validator(v)!.blocksMissed, 0, `${v} at block 1`);
      assert.equal(ledger.validator(v)!.uptimeBps, 10_000, `${v} at block 1`);
    }
    // Block 2: V2 absent, V3 voted nil (a vote was cast: signed), V4 for the block; V1 proposed block 2 but its vote is what counts.
    ledger.recordBlock(2, V1, [], T0 + 2, [
      { validator: V1, flag: 'absent' },
      { validator: V2, flag: 'absent' },
      { validator: V3, flag: 'nil' },
      { validator: V4, flag: 'commit' },
    ]);
    assert.deepEqual([V1, V2, V3, V4].map((v) => ledger.validator(v)!.blocksMissed), [1, 1, 0, 0]);
    assert.deepEqual([V1, V2, V3, V4].map((v) => ledger.validator(v)!.uptimeBps), [0, 0, 10_000, 10_000]);
  });

  it('does not charge a validator entering the set for the blocks before CometBFT\'s set includes it', () => {
    const ledger = new StakingLedger(params);
    for (const v of [V1, V2, V3]) ok(ledger.registerValidator(v, description(), 10n * ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    ok(ledger.registerValidator(V4, description(), 10n * ETHER, 5, T0 + 5));
    const all = (flag: 'commit' | 'absent') => [V1, V2, V3].map((validator) => ({ validator, flag }));
    for (let h = 1; h <= 9; h++) ledger.recordBlock(h, V1, [], T0 + h, all('commit'));
    // V4 is active from the epoch that starts at block 10, but CometBFT's set takes it in two blocks
    // after the update, and a commit lists it one block later still: blocks 10..12 do not count it.
    ledger.startEpoch(1, 10);
    assert.equal(ledger.validator(V4)!.status, 'active');
    for (let h = 10; h <= 12; h++) ledger.recordBlock(h, V1, [], T0 + h, all('commit'));
    assert.equal(ledger.validator(V4)!.blocksMissed, 0);
    assert.equal(ledger.validator(V4)!.uptimeBps, 10_000);
    // Listed from block 13 on: counted, signed or absent as the commit says.
    ledger.recordBlock(13, V1, [], T0 + 13, [...all('commit'), { validator: V4, flag: 'commit' }]);
    ledger.recordBlock(14, V1, [], T0 + 14, [...all('commit'), { validator: V4, flag: 'absent' }]);
    assert.equal(ledger.validator(V4)!.blocksMissed, 1);
    assert.equal(ledger.validator(V4)!.uptimeBps, 5_000);
    // The solo driver's meaning is kept: without a commit, every active validator not among the signers misses.
    ledger.recordBlock(15, V1, [V1], T0 + 15);
    assert.deepEqual([V1, V2, V3, V4].map((v) => ledger.validator(v)!.blocksMissed), [0, 1, 1, 2]);
  });
});

describe('block reward', () => {
  it('splits exactly: 10% treasury, 15% inference miners, the rest to validators', () => {
    assert.deepEqual(splitBlockReward(2n * ETHER, PARAMS), { treasury: ETHER / 5n, inferenceMiners: (3n * ETHER) / 10n, validators: (3n * ETHER) / 2n });
    for (const minted of [0n, 1n, 7n, 999n, 10n ** 18n + 3n]) {
      const s = splitBlockReward(minted, PARAMS);
      assert.equal(s.treasury + s.inferenceMiners + s.validators, minted);
    }
  });

  it('grows the miners\' share from 15% by 0.5 points per active miner beyond 10, up to 25% (docs/staking.md)', () => {
    // The default rule at counts below, at, just past and well past its base, at the cap and beyond it.
    const expected: [number, number][] = [[0, 1_500], [1, 1_500], [10, 1_500], [11, 1_550], [12, 1_600], [20, 2_000], [29, 2_450], [30, 2_500], [31, 2_500], [1_000, 2_500], [1_000_000_000, 2_500]];
    for (const [miners, bps] of expected) assert.equal(inferenceMinersShareBps(miners, PARAMS), bps, `${miners} active miners`);
    let previous = 0;
    for (let n = 0; n <= 60; n++) {
      const bps = inferenceMinersShareBps(n, PARAMS);
      assert.ok(bps >= previous && bps >= PARAMS.inferenceMinersShareBps && bps <= PARAMS.inferenceMinersShareMaxBps, `${n}: ${bps}`);
      previous = bps;
    }
    // Another chain's parameters: growth from the first miner, a cap that is not a multiple of the step.
    const other = { ...PARAMS, inferenceMinersShareBps: 1_000, inferenceMinersShareBaseMiners: 0, inferenceMinersShareStepBps: 300, inferenceMinersShareMaxBps: 2_000 };
    assert.deepEqual([0, 1, 2, 3, 4, 9].map((n) => inferenceMinersShareBps(n, other)), [1_000, 1_300, 1_600, 1_900, 2_000, 2_000]);
    for (const bad of [-1, 1.5, Number.NaN]) assert.throws(() => inferenceMinersShareBps(bad, PARAMS), RangeError);
  });

  it('splits with the grown share exactly, and refuses shares that leave validators less than nothing', () => {
    const minted = 2n * ETHER + 7n;
    for (const miners of [0, 11, 20, 30, 100]) {
      const bps = inferenceMinersShareBps(miners, PARAMS);
      const s = splitBlockReward(minted, PARAMS, bps);
      assert.equal(s.inferenceMiners, (minted * BigInt(bps)) / 10_000n);
      assert.equal(s.treasury, (minted * 1_000n) / 10_000n);
      assert.equal(s.treasury + s.inferenceMiners + s.validators, minted);
    }
    assert.deepEqual(splitBlockReward(2n * ETHER, PARAMS, 2_500), { treasury: ETHER / 5n, inferenceMiners: ETHER / 2n, validators: (13n * ETHER) / 10n });
    assert.throws(() => splitBlockReward(minted, PARAMS, 9_001), RangeError);
    assert.throws(() => splitBlockReward(minted, PARAMS, -1), RangeError);
    // A chain whose cap would leave the validators less than nothing, or whose cap is below its base, does not start.
    assert.throws(() => new StakingLedger({ ...PARAMS, inferenceMinersShareMaxBps: 9_500 }), /basis-point shares above 10000/);
    assert.throws(() => new StakingLedger({ ...PARAMS, inferenceMinersShareMaxBps: 1_000 }), /must grow from its base/);
  });

  it('scales with the stake ratio from 0.5x to 1.5x', () => {
    const supply = 1_000n * ETHER;
    assert.equal(rewardMultiplierBps(0n, supply), 5_000n);
    assert.equal(rewardMultiplierBps(0n, 0n), 5_000n);
    assert.equal(rewardMultiplierBps((supply * 6_667n) / 10_000n, supply), 15_000n);
    assert.equal(rewardMultiplierBps(supply, supply), 15_000n);
    const half = rewardMultiplierBps((supply * 6_667n) / 20_000n, supply);
    assert.ok(half >= 9_999n && half <= 10_000n);
    let previous = 0n;
    for (let pct = 0n; pct <= 100n; pct += 5n) {
      const m = rewardMultiplierBps((supply * pct) / 100n, supply);
      assert.ok(m >= previous && m >= 5_000n && m <= 15_000n);
      previous = m;
    }
    assert.equal(blockRewardFor(0n, supply, PARAMS), ETHER);
    assert.equal(blockRewardFor(supply, supply, PARAMS), 3n * ETHER);
  });
});

/** Apply dirty records to a key/value map as a node's store would. */
function applyRecords(store: Map<string, Buffer>, records: { key: Buffer; value: Buffer | null }[]): void {
  for (const { key, value } of records) {
    if (value === null) store.delete(key.toString('hex'));
    else store.set(key.toString('hex'), value);
  }
}

const storeRecords = (store: Map<string, Buffer>) => [...store].map(([k, value]) => ({ key: Buffer.from(k, 'hex'), value }));

/** Everything the queries show, for comparing two ledgers. */
function queries(ledger: StakingLedger, people: Address[]): unknown {
  return {
    validators: ledger.validators(),
    sets: [0, 1, 2].map((e) => ledger.validatorSet(e)),
    people: people.map((p) => ({ info: ledger.stakeInfo(p), delegations: ledger.delegationsOf(p), unbondings: ledger.unbondingsOf(p) })),
    totals: ledger.totals(),
    balance: ledger.moduleBalance(),
    epoch: ledger.currentEpoch,
  };
}

describe('persistence', () => {
  it('restore(dirtyRecords...) gives identical queries and identical further behaviour', () => {
    const ledger = new StakingLedger(PARAMS);
    const store = new Map<string, Buffer>();
    ok(ledger.registerValidator(V1, description(), 10n * ETHER, 0, T0));
    ok(ledger.registerValidator(V2, description(), 5n * ETHER, 0, T0));
    ledger.startEpoch(0, 0);
    applyRecords(store, ledger.dirtyRecords());
    ok(ledger.delegate(B, V1, 7n * ETHER, 1));
    ok(ledger.delegate(C, V2, 3n * ETHER, 1));
    ok(ledger.distribute(new Map([[V1, ETHER], [V2, ETHER / 3n]])));
    ok(ledger.undelegate(B, V1, 2n * ETHER, 2, T0 + 2));
    ok(ledger.slash(V2, 250, 1, T0 + 100, 'test', 2));
    ledger.recordBlock(3, V1, [V1], T0 + 3);
    applyRecords(store, ledger.dirtyRecords());
    ok(ledger.undelegate(C, V2, ledger.delegation(C, V2)!.amount, 4, T0 + 4)); // full exit: the record is deleted
    ledger.endEpoch(0, 9);
    applyRecords(store, ledger.dirtyRecords());
    assert.equal(store.has(Buffer.concat([Buffer.from('d/'), Buffer.from(V2.slice(2), 'hex'), Buffer.from(C.slice(2), 'hex')]).toString('hex')), false);

    const restored = StakingLedger.restore(PARAMS, storeRecords(store));
    const people = [V1, V2, B, C];
    assert.deepEqual(queries(restored, people), queries(ledger, people));
    assert.deepEqual(dump(restored), dump(ledger));
    assert.deepEqual(restored.checkInvariants(), []);
    assert.deepEqual(StakingLedger.restore(PARAMS, ledger.records()).records(), ledger.records());

    for (const l of [ledger, restored]) {
      ok(l.distribute(new Map([[V1, 12345n]])));
      ok(l.withdraw(B, T0 + 2 + PARAMS.unbondingPeriodSeconds));
      ok(l.claimRewards(V1, V1));
    }
    assert.deepEqual(queries(restored, people), queries(ledger, people));
    assert.deepEqual(restored.dirtyRecords(), ledger.dirtyRecords());
  });

  it('encodes keys with kind prefixes and values with the kernel codec (bigints tagged, keys sorted)', () => {
    const ledger = withValidator();
    const records = ledger.dirtyRecords();
    const keys = records.map((r) => r.key.toString('latin1').slice(0, 2));
    assert.deepEqual(keys, ['d/', 'v/']);
    assert.equal(records[0]!.key.length, 42);
    assert.equal(records[0]!.value!.toString(), '{"accrued":{"$n":"0"},"rewardCheckpoint":{"$n":"0"},"shares":{"$n":"10000000000000000000"}}');
    assert.equal(ledger.dirtyRecords().length, 0);
  });

  it('refuses malformed records', () => {
    assert.throws(() => StakingLedger.restore(PARAMS, [{ key: Buffer.from('x/1'), value: Buffer.from('{}') }]), StakingRecordError);
    const good = withValidator().records().find((r) => r.key[0] === 0x76)!;
    const bad = JSON.parse(good.value.toString()) as Record<string, unknown>;
    bad.tokens = '-1';
    assert.throws(() => StakingLedger.restore(PARAMS, [{ key: good.key, value: Buffer.from(JSON.stringify(bad)) }]), StakingRecordError);
  });
});

/** splitmix32-style deterministic generator (no dependency). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

describe('invariants under random operations', () => {
  for (const seed of [1, 42, 20250101]) {
    it(`hold after every one of 400 seeded operations (seed ${seed})`, () => {
      const params: StakingParams = {
        ...PARAMS,
        maxValidators: 3,
        epochLengthBlocks: 5,
        signedBlocksWindow: 8,
        minSignedPerWindowBps: 5_000,
        downtimeSlashBps: 100,
        downtimeJailSeconds: 30,
        unbondingPeriodSeconds: 50,
        maxUnbondingEntries: 4,
        commissionChangeIntervalSeconds: 20,
      };
      const next = prng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[next() % xs.length]!;
      const wei = (maxEther: number): bigint => BigInt(next() % maxEther) * ETHER + BigInt(next()) * BigInt(next() % 1_000_000) + 1n;
      const operators = [addr(0x101), addr(0x102), addr(0x103), addr(0x104), addr(0x105)];
      const people = [...operators, addr(0x201), addr(0x202), addr(0x203), addr(0x204)];

      const ledger = new StakingLedger(params);
      const store = new Map<string, Buffer>();
      let paidIn = 0n;
      let paidOut = 0n;
      let distributed = 0n;
      let now = T0;
      let applied = 0;
      const kinds = new Map<string, number>();

      for (let step = 0, height = 1; step < 400; step++, height++) {
        now += next() % 15;
        const registered = ledger.validators().map((v) => v.address);
        const before = dump(ledger);
        ledger.dirtyRecords();
        // Weights out of 16: register 1, delegate 3, undelegate 2, withdraw 1, claim 1, distribute 2,
        // slash 1, unjail 1, commission 1, block 3.
        const choice = registered.length === 0 ? 0 : [0, 1, 1, 1, 3, 3, 4, 5, 6, 6, 7, 8, 9, 10, 10, 10][next() % 16]!;
        let r: LedgerResult<object> | undefined;
        let kind = '';
        switch (choice) {
          case 0: {
            kind = 'register';
            const stake = params.minSelfStake + wei(20);
            const op = pick(operators);
            const commissionBps = next() % 3_000;
            r = ledger.registerValidator(op, description({ moniker: `v${op.slice(-3)}`, commissionBps, maxCommissionBps: 3_000, maxChangeBpsPerDay: 200 }), stake, height, now);
            if (r.ok) paidIn += stake;
            break;
          }
          case 1: {
            kind = 'delegate';
            const amount = wei(20);
            r = ledger.delegate(pick(people), pick(registered), amount, height);
            if (r.ok) paidIn += amount;
            break;
          }
          case 3: {
            kind = 'undelegate';
            const who = pick(people);
            const mine = ledger.delegationsOf(who);
            if (mine.length === 0) {
              r = ledger.undelegate(who, pick(registered), 1n, height, now);
            } else {
              const d = pick(mine);
              const amount = next() % 3 === 0 ? d.amount : d.amount / BigInt(1 + (next() % 4)) + BigInt(next() % 3);
              r = ledger.undelegate(who, d.validator, amount, height, now);
            }
            break;
          }
          case 4:
            kind = 'withdraw';
            r = ledger.withdraw(pick(people), now);
            break;
          case 5:
            kind = 'claim';
            r = ledger.claimRewards(pick(people), pick(registered));
            break;
          case 6: {
            kind = 'distribute';
            const rewards = new Map<Address, bigint>();
            for (const v of registered) if (next() % 2 === 0) rewards.set(v, BigInt(next()) * BigInt(next() % 100_000));
            r = ledger.distribute(rewards);
            if (r.ok) for (const amount of rewards.values()) distributed += amount;
            break;
          }
          case 7: {
            kind = 'slash';
            const bps = next() % 40 === 0 ? 10_000 : next() % 1_000;
            r = ledger.slash(pick(registered), bps, Math.max(0, height - (next() % 20)), now + (next() % 100), 'random', height);
            break;
          }
          case 8:
            kind = 'unjail';
            r = ledger.unjail(pick(registered), now);
            break;
          case 9: {
            kind = 'commission';
            const v = ledger.validator(pick(registered))!;
            r = ledger.editCommission(v.address, Math.max(0, v.commissionBps + (next() % 500) - 250), now);
            break;
          }
          case 10: {
            kind = 'block';
            const active = ledger.validators().filter((v) => v.status === 'active').map((v) => v.address);
            const signers = active.filter(() => next() % 3 !== 0);
            const rec = ledger.recordBlock(height, pick(registered), signers, now);
            assert.equal(rec.events.filter((e) => e.type === 'Slashed').length, rec.jailed.length);
            break;
          }
        }
        if (r) {
          if (r.ok) {
            applied++;
            kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
            for (const p of r.payouts) {
              assert.ok(p.amount > 0n, 'payouts are positive');
              paidOut += p.amount;
            }
          } else {
            assert.deepEqual(ledger.dirtyRecords(), [], `refused ${kind} (${r.reason}) left no dirty record`);
            assert.deepEqual(dump(ledger), before, `refused ${kind} (${r.reason}) changed the ledger`);
          }
        }
        if (isEpochLastBlock(height, params)) ledger.endEpoch(epochOfHeight(height, params), height);
        applyRecords(store, ledger.dirtyRecords());

        assert.deepEqual(ledger.checkInvariants(), [], `after step ${step} (${kind})`);
        for (const v of ledger.validators()) {
          assert.ok(v.tokens >= 0n && v.selfStake >= 0n && v.commission >= 0n && v.totalShares >= 0n);
        }
        for (const p of people) {
          const info = ledger.stakeInfo(p);
          assert.ok(info.stakedAmount >= 0n && info.unstakingAmount >= 0n && info.pendingRewards >= 0n);
        }
        const totals = ledger.totals();
        assert.equal(paidIn - paidOut - totals.burned + distributed, ledger.moduleBalance(), `supply check after step ${step} (${kind})`);
        if (step % 50 === 49) {
          assert.deepEqual(dump(StakingLedger.restore(params, storeRecords(store))), dump(ledger), `restore after step ${step}`);
        }
      }
      assert.deepEqual(queries(StakingLedger.restore(params, storeRecords(store)), people), queries(ledger, people));
      // The run must have exercised the operations, not just refused them.
      assert.ok(applied >= 150, `only ${applied} operations applied`);
      for (const k of ['register', 'delegate', 'undelegate', 'withdraw', 'claim', 'distribute', 'slash']) {
        assert.ok((kinds.get(k) ?? 0) > 0, `no ${k} applied: ${JSON.stringify([...kinds])}`);
      }
      assert.ok(ledger.currentEpoch >= 70);
    });
  }
});
