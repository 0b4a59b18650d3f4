// The staking ledger: validators, delegations, unbonding, rewards, slashing and epochs of the
// chain's proof-of-stake module (Cosmos SDK x/staking + x/distribution + x/slashing semantics),
// as pure deterministic integer bookkeeping. It moves no tokens itself: operations return the
// payouts the module account must make, and moduleBalance() says what that account must hold.
//
// Rules the code relies on:
// - Every operation validates everything before it changes anything, so a refusal
//   ({ ok: false, reason }) leaves the ledger untouched; misuse by the caller (a negative height,
//   an unknown block proposer, an epoch out of order) throws before any change.
// - Token <-> share conversion rounds as shares.ts documents (in favour of the remaining shares).
// - Rewards: a validator's reward pays the floored commission to the operator; the rest raises
//   rewardPerShare by floor(rest * 10^36 / totalShares) and is added to outstandingRewards. A
//   delegation's reward is floor(shares * (rewardPerShare - checkpoint) / 10^36), settled into
//   `accrued` whenever its shares change and on claim; the floors leave sub-wei remainders in
//   outstandingRewards, which become `dust` when the validator's last share leaves (as does a
//   reward sent to a validator without shares).
// - Iteration is always in ascending address (or unbonding id) order.
import type { StakingParams } from '../../params.js';
import { commissionEditProblem, commissionRatesProblem } from './commission.js';
import { chooseActiveSet, compareAddress, type RankOf } from './epoch.js';
import { findInvariantViolations } from './invariants.js';
import { countBlock, emptyWindow, isDowntime, missOf, uptimeBps } from './liveness.js';
import { assertStakingParams } from './params.js';
import { downtimePenalty } from './penalties.js';
import { DirtyKeys, allRecords, recordsFor, stateFromRecords } from './store.js';
import { commissionOf, rewardPerShareIncrease, rewardSince } from './rewards.js';
import { sharesForDeposit, sharesForWithdrawal, tokensForShares } from './shares.js';
import {
  dropDelegation,
  dropUnbonding,
  emptyState,
  getDelegation,
  putDelegation,
  putUnbonding,
  sortedIds,
  type LedgerState,
} from './state.js';
import {
  isAddress,
  type Address,
  type Applied,
  type BlockRecord,
  type CommitVote,
  type DelegationRecord,
  type DelegationView,
  type EpochChange,
  type EpochSnapshot,
  type LedgerEvent,
  type LedgerRecord,
  type LedgerResult,
  type Payout,
  type SigningWindow,
  type Refusal,
  type StakeInfo,
  type StakingTotals,
  type UnbondingView,
  type ValidatorDescription,
  type ValidatorRecord,
  type ValidatorView,
} from './types.js';

const MAX_MONIKER_CHARS = 64;

const refuse = (reason: string): Refusal => ({ ok: false, reason });

function applied<T extends object>(events: LedgerEvent[], payouts: Payout[], extra: T): Applied<T> {
  return { ok: true, events, payouts, ...extra };
}

/** Throw for a block height or timestamp that is not a non-negative safe integer (a caller bug). */
function assertBlockNumber(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
}

/** The proof-of-stake ledger. */
export class StakingLedger {
  private state: LedgerState = emptyState();
  private readonly dirty = new DirtyKeys();

  constructor(readonly params: StakingParams) {
    assertStakingParams(params);
  }

  /** A ledger rebuilt from stored records (what dirtyRecords() or records() wrote). */
  static restore(params: StakingParams, records: Iterable<{ key: Buffer; value: Buffer }>): StakingLedger {
    const ledger = new StakingLedger(params);
    ledger.state = stateFromRecords(params, records);
    return ledger;
  }

  // ---- operations -------------------------------------------------------------------------

  /** Create a validator owned by `operator` with a self-delegation of `selfStake`; it joins the active set at the next epoch. */
  registerValidator(operator: Address, description: ValidatorDescription, selfStake: bigint, height: number, now: number): LedgerResult {
    assertBlockNumber('height', height);
    assertBlockNumber('now', now);
    if (!isAddress(operator)) return refuse('invalid address');
    if (this.state.validators.has(operator)) return refuse('already registered');
    const monikerChars = typeof description.moniker === 'string' ? [...description.moniker].length : 0;
    if (monikerChars < 1 || monikerChars > MAX_MONIKER_CHARS) return refuse(`moniker must be 1..${MAX_MONIKER_CHARS} characters`);
    const ratesProblem = commissionRatesProblem(description, this.params);
    if (ratesProblem) return refuse(ratesProblem);
    if (selfStake < this.params.minSelfStake) return refuse('self stake below minimum');
    const { consensusKey } = description;
    if (consensusKey !== undefined) {
      if (!/^0x[0-9a-f]{64}$/.test(consensusKey)) return refuse('consensus key must be 32 bytes');
      for (const other of this.state.validators.values()) if (other.consensusKey === consensusKey) return refuse('consensus key already in use');
    }

    const v: ValidatorRecord = {
      operator,
      moniker: description.moniker,
      ...(consensusKey !== undefined ? { consensusKey } : {}),
      commissionBps: description.commissionBps,
      maxCommissionBps: description.maxCommissionBps,
      maxChangeBpsPerDay: description.maxChangeBpsPerDay,
      lastCommissionChangeAt: now,
      tokens: selfStake,
      totalShares: selfStake,
      status: 'inactive',
      jailedUntil: 0,
      registeredAt: height,
      lastActiveAt: height,
      commission: 0n,
      totalRewards: 0n,
      rewardPerShare: 0n,
      outstandingRewards: 0n,
      blocksProduced: 0,
      blocksMissed: 0,
      window: emptyWindow(this.params.signedBlocksWindow),
      slashes: [],
    };
    this.state.validators.set(operator, v);
    putDelegation(this.state, { delegator: operator, validator: operator, shares: selfStake, rewardCheckpoint: 0n, accrued: 0n });
    this.state.totals.staked += selfStake;
    this.dirty.validators.add(operator);
    this.dirty.delegation(operator, operator);
    return applied(
      [
        {
          type: 'ValidatorRegistered',
          validator: operator,
          moniker: v.moniker,
          commissionBps: v.commissionBps,
          maxCommissionBps: v.maxCommissionBps,
          maxChangeBpsPerDay: v.maxChangeBpsPerDay,
          selfStake,
          shares: selfStake,
          height,
        },
      ],
      [],
      {},
    );
  }

  /** Bond `amount` tokens from `delegator` to `validator` (jailed and inactive validators accept delegations too). */
  delegate(delegator: Address, validator: Address, amount: bigint, height: number): LedgerResult<{ shares: bigint }> {
    assertBlockNumber('height', height);
    if (!isAddress(delegator) || !isAddress(validator)) return refuse('invalid address');
    if (amount <= 0n) return refuse('amount must be positive');
    if (amount < this.params.minDelegation) return refuse('amount below minimum delegation');
    const v = this.state.validators.get(validator);
    if (!v) return refuse('validator not found');
    if (v.totalShares > 0n && v.tokens === 0n) return refuse('validator has no tokens');
    const shares = sharesForDeposit(amount, v.tokens, v.totalShares);
    if (shares === 0n) return refuse('amount too small to buy a share');

    let d = getDelegation(this.state, validator, delegator);
    if (d) this.settle(v, d);
    else putDelegation(this.state, (d = { delegator, validator, shares: 0n, rewardCheckpoint: v.rewardPerShare, accrued: 0n }));
    d.shares += shares;
    v.totalShares += shares;
    v.tokens += amount;
    this.state.totals.staked += amount;
    this.dirty.validators.add(validator);
    this.dirty.delegation(validator, delegator);
    return applied([{ type: 'Delegated', delegator, validator, amount, shares, height }], [], { shares });
  }

  /**
   * Start unbonding `amount` tokens of a delegation; they are paid by withdraw() once the
   * unbonding period has passed and stay slashable until then. When the amount needs all the
   * delegation's shares, or would leave shares worth nothing, the whole position leaves (its full
   * value, at least `amount`), the record is removed and its settled rewards are paid out. An
   * operator whose self stake falls below minSelfStake is jailed (Cosmos).
   */
  undelegate(
    delegator: Address,
    validator: Address,
    amount: bigint,
    height: number,
    now: number,
  ): LedgerResult<{ amount: bigint; completesAt: number; unbondingId: number }> {
    assertBlockNumber('height', height);
    assertBlockNumber('now', now);
    if (!isAddress(delegator) || !isAddress(validator)) return refuse('invalid address');
    if (amount <= 0n) return refuse('amount must be positive');
    const v = this.state.validators.get(validator);
    if (!v) return refuse('validator not found');
    const d = getDelegation(this.state, validator, delegator);
    if (!d) return refuse('insufficient delegation');
    const current = tokensForShares(d.shares, v.tokens, v.totalShares);
    if (amount > current) return refuse('insufficient delegation');
    let pairEntries = 0;
    for (const id of this.state.unbondingsOf.get(delegator) ?? []) if (this.state.unbondings.get(id)!.validator === validator) pairEntries++;
    if (pairEntries >= this.params.maxUnbondingEntries) return refuse('too many unbonding entries');

    const burn = sharesForWithdrawal(amount, v.tokens, v.totalShares);
    const full =
      burn >= d.shares ||
      amount === current ||
      tokensForShares(d.shares - burn, v.tokens - amount, v.totalShares - burn) === 0n;
    const sharesOut = full ? d.shares : burn;
    const tokensOut = full ? current : amount;

    this.settle(v, d);
    d.shares -= sharesOut;
    v.totalShares -= sharesOut;
    v.tokens -= tokensOut;
    this.state.totals.staked -= tokensOut;
    const id = this.state.nextUnbondingId++;
    const completesAt = now + this.params.unbondingPeriodSeconds;
    putUnbonding(this.state, {
      id,
      delegator,
      validator,
      initialBalance: tokensOut,
      balance: tokensOut,
      creationHeight: height,
      completesAt,
    });
    this.state.totals.unbonding += tokensOut;
    this.dirty.unbondings.set(id, delegator);
    this.dirty.globals = true;
    this.dirty.validators.add(validator);
    this.dirty.delegation(validator, delegator);

    const events: LedgerEvent[] = [
      { type: 'Undelegated', delegator, validator, amount: tokensOut, shares: sharesOut, unbondingId: id, height, completesAt },
    ];
    const payouts: Payout[] = [];
    if (full) {
      if (d.accrued > 0n) {
        payouts.push({ to: delegator, amount: d.accrued });
        events.push({ type: 'RewardsClaimed', delegator, validator, rewards: d.accrued, commission: 0n });
        this.state.totals.unclaimedRewards -= d.accrued;
        d.accrued = 0n;
      }
      dropDelegation(this.state, d);
      this.releaseRemaindersIfEmpty(v);
    }
    if (delegator === validator && v.status !== 'jailed' && this.selfStake(v) < this.params.minSelfStake) {
      this.jail(v, now, 'self stake below minimum', events);
    }
    return applied(events, payouts, { amount: tokensOut, completesAt, unbondingId: id });
  }

  /** Pay out every unbonding entry of `delegator` that completes at or before `now`. */
  withdraw(delegator: Address, now: number): LedgerResult<{ amount: bigint }> {
    assertBlockNumber('now', now);
    if (!isAddress(delegator)) return refuse('invalid address');
    const matured = sortedIds(this.state.unbondingsOf.get(delegator))
      .map((id) => this.state.unbondings.get(id)!)
      .filter((u) => u.completesAt <= now);
    if (matured.length === 0) return refuse('nothing to withdraw');

    const events: LedgerEvent[] = [];
    let total = 0n;
    for (const u of matured) {
      dropUnbonding(this.state, u);
      this.state.totals.unbonding -= u.balance;
      total += u.balance;
      this.dirty.unbondings.set(u.id, delegator);
      events.push({ type: 'Withdrawn', delegator, validator: u.validator, amount: u.balance, unbondingId: u.id, completesAt: u.completesAt, at: now });
    }
    return applied(events, total > 0n ? [{ to: delegator, amount: total }] : [], { amount: total });
  }

  /** Pay `delegator` its rewards from `validator`; the operator claiming from its own validator also gets the commission. */
  claimRewards(delegator: Address, validator: Address): LedgerResult<{ rewards: bigint; commission: bigint }> {
    if (!isAddress(delegator) || !isAddress(validator)) return refuse('invalid address');
    const v = this.state.validators.get(validator);
    if (!v) return refuse('validator not found');
    const d = getDelegation(this.state, validator, delegator);
    const isOperator = delegator === validator;
    if (!d && !isOperator) return refuse('delegation not found');
    const rewards = d ? d.accrued + rewardSince(d.shares, v.rewardPerShare, d.rewardCheckpoint) : 0n;
    const commission = isOperator ? v.commission : 0n;
    if (rewards + commission === 0n) return refuse('nothing to claim');

    if (d) {
      this.settle(v, d);
      d.accrued = 0n;
      this.state.totals.unclaimedRewards -= rewards;
      this.dirty.delegation(validator, delegator);
    }
    if (commission > 0n) {
      v.commission = 0n;
      this.state.totals.commission -= commission;
    }
    this.dirty.validators.add(validator);
    return applied(
      [{ type: 'RewardsClaimed', delegator, validator, rewards, commission }],
      [{ to: delegator, amount: rewards + commission }],
      { rewards, commission },
    );
  }

  /** Change a validator's commission: at most once per day, by at most its max daily change, never above its max. */
  editCommission(operator: Address, newBps: number, now: number): LedgerResult {
    assertBlockNumber('now', now);
    if (!isAddress(operator)) return refuse('invalid address');
    const v = this.state.validators.get(operator);
    if (!v) return refuse('validator not found');
    const problem = commissionEditProblem(v, newBps, now, this.params);
    if (problem) return refuse(problem);
    const oldBps = v.commissionBps;
    v.commissionBps = newBps;
    v.lastCommissionChangeAt = now;
    this.dirty.validators.add(operator);
    return applied([{ type: 'CommissionChanged', validator: operator, oldBps, newBps, at: now }], [], {});
  }

  /** Release a jailed validator once its jail time is over and its self stake is back at the minimum; it rejoins at the next epoch. */
  unjail(operator: Address, now: number): LedgerResult {
    assertBlockNumber('now', now);
    if (!isAddress(operator)) return refuse('invalid address');
    const v = this.state.validators.get(operator);
    if (!v) return refuse('validator not found');
    if (v.status !== 'jailed') return refuse('validator is not jailed');
    if (v.jailedUntil === Number.MAX_SAFE_INTEGER) return refuse('validator is banned for double signing and can never unjail');
    if (now < v.jailedUntil) return refuse(`validator is jailed until ${v.jailedUntil}`);
    if (this.selfStake(v) < this.params.minSelfStake) return refuse('self stake below minimum');
    v.status = 'inactive';
    this.dirty.validators.add(operator);
    return applied([{ type: 'Unjailed', validator: operator, at: now }], [], {});
  }

  /**
   * Burn fractionBps of a validator's tokens (its shares stay, so every delegator loses pro rata)
   * and of each of its unbonding entries created at or after infractionHeight (of the entry's
   * initial balance, capped at what is left, as Cosmos does), then jail it until jailUntil.
   */
  slash(
    validator: Address,
    fractionBps: number,
    infractionHeight: number,
    jailUntil: number,
    reason: string,
    height: number,
  ): LedgerResult<{ burned: bigint }> {
    assertBlockNumber('height', height);
    assertBlockNumber('infractionHeight', infractionHeight);
    assertBlockNumber('jailUntil', jailUntil);
    if (!isAddress(validator)) return refuse('invalid address');
    const v = this.state.validators.get(validator);
    if (!v) return refuse('validator not found');
    if (!Number.isSafeInteger(fractionBps) || fractionBps < 0 || fractionBps > 10_000) return refuse('slash fraction must be 0..10000 bps');
    if (infractionHeight > height) return refuse('infraction height after current height');
    if (typeof reason !== 'string' || reason.length === 0) return refuse('slash reason required');

    const fraction = BigInt(fractionBps);
    const tokensBurned = (v.tokens * fraction) / 10_000n;
    v.tokens -= tokensBurned;
    this.state.totals.staked -= tokensBurned;
    let unbondingBurned = 0n;
    for (const id of sortedIds(this.state.unbondingsFrom.get(validator))) {
      const u = this.state.unbondings.get(id)!;
      if (u.creationHeight < infractionHeight) continue;
      const cut = (u.initialBalance * fraction) / 10_000n;
      const taken = cut < u.balance ? cut : u.balance;
      if (taken === 0n) continue;
      u.balance -= taken;
      unbondingBurned += taken;
      this.dirty.unbondings.set(id, u.delegator);
    }
    this.state.totals.unbonding -= unbondingBurned;
    const burned = tokensBurned + unbondingBurned;
    this.state.burned += burned;
    v.slashes.push({ height, infractionHeight, fractionBps, tokensBurned, unbondingBurned, reason });
    this.dirty.slash(validator, v.slashes.length - 1);
    this.dirty.validators.add(validator);
    this.dirty.globals = true;
    const events: LedgerEvent[] = [
      { type: 'Slashed', validator, fractionBps, infractionHeight, height, tokensBurned, unbondingBurned, reason },
    ];
    this.jail(v, jailUntil, reason, events);
    return applied(events, [], { burned });
  }

  /** Credit block rewards: each validator's commission to its operator, the rest to its delegators by shares. */
  distribute(rewardsByValidator: ReadonlyMap<Address, bigint>): LedgerResult<{ total: bigint }> {
    const entries = [...rewardsByValidator].sort(([a], [b]) => compareAddress(a, b));
    for (const [address, amount] of entries) {
      if (!isAddress(address)) return refuse('invalid address');
      if (!this.state.validators.has(address)) return refuse('validator not found');
      if (amount < 0n) return refuse('reward must not be negative');
    }
    const events: LedgerEvent[] = [];
    let total = 0n;
    for (const [address, amount] of entries) {
      if (amount === 0n) continue;
      const v = this.state.validators.get(address)!;
      const commission = commissionOf(amount, v.commissionBps);
      const rest = amount - commission;
      v.commission += commission;
      v.totalRewards += amount;
      this.state.totals.commission += commission;
      if (v.totalShares === 0n) {
        this.state.dust += rest;
        this.dirty.globals = true;
      } else {
        v.rewardPerShare += rewardPerShareIncrease(rest, v.totalShares);
        v.outstandingRewards += rest;
        this.state.totals.unclaimedRewards += rest;
      }
      total += amount;
      this.dirty.validators.add(address);
      events.push({ type: 'RewardsDistributed', validator: address, amount, commission });
    }
    return applied(events, [], { total });
  }

  // ---- block and epoch hooks ----------------------------------------------------------------

  /**
   * Count a block: the proposer's blocksProduced, and for every active validator the block counts
   * (see missOf) a signed or missed block in its downtime window. With `commit` (CometBFT's
   * decided last commit) only the validators it lists are counted and only its absent ones miss;
   * without it (solo) every active validator not among `signers` misses (the proposer counts as
   * signing). Validators whose window shows downtime are slashed and jailed here through slash()
   * (downtimePenalty's order).
   */
  recordBlock(height: number, proposer: Address, signers: readonly Address[], now: number, commit?: readonly CommitVote[]): BlockRecord {
    assertBlockNumber('height', height);
    assertBlockNumber('now', now);
    const p = this.state.validators.get(proposer);
    if (!p) throw new RangeError(`block proposer ${proposer} is not a validator`);
    p.blocksProduced++;
    p.lastActiveAt = height;
    this.dirty.validators.add(proposer);

    const signed = new Set<Address>(signers);
    signed.add(proposer);
    const votes = commit ? new Map(commit.map((c) => [c.validator, c.flag])) : undefined;
    const down: Address[] = [];
    for (const address of [...this.state.validators.keys()].sort()) {
      const v = this.state.validators.get(address)!;
      if (v.status !== 'active') continue;
      const missed = missOf(address, signed, votes);
      if (missed === undefined) continue;
      // A governance change of the window size starts every window afresh at its first block.
      if (v.window.size !== this.params.signedBlocksWindow) v.window = emptyWindow(this.params.signedBlocksWindow);
      countBlock(v.window, this.params.signedBlocksWindow, missed);
      if (missed) v.blocksMissed++;
      else v.lastActiveAt = height;
      this.dirty.validators.add(address);
      if (isDowntime(v.window, this.params)) down.push(address);
    }

    const events: LedgerEvent[] = [];
    let burned = 0n;
    for (const address of down) {
      const order = downtimePenalty(this.params, height, now);
      const r = this.slash(address, order.fractionBps, order.infractionHeight, order.jailUntil, order.reason, height);
      if (!r.ok) throw new Error(`downtime slash of ${address} refused: ${r.reason}`);
      events.push(...r.events);
      burned += r.burned;
    }
    return { events, jailed: down, burned };
  }

  /**
   * Start epoch `epoch` at `startHeight`: choose the active set (see chooseActiveSet), set each
   * validator's status accordingly and keep the set as that epoch's snapshot.
   */
  startEpoch(epoch: number, startHeight: number, rankOf?: RankOf): EpochChange {
    assertBlockNumber('epoch', epoch);
    assertBlockNumber('startHeight', startHeight);
    if (epoch <= this.state.currentEpoch) throw new RangeError(`epoch ${epoch} does not follow epoch ${this.state.currentEpoch}`);
    const members = chooseActiveSet(
      [...this.state.validators.keys()].sort().map((a) => this.state.validators.get(a)!),
      (v) => this.selfStake(v),
      this.params,
      rankOf,
    );
    const chosen = new Set(members.map((m) => m.address));
    const joined: Address[] = [];
    const left: Address[] = [];
    for (const address of [...this.state.validators.keys()].sort()) {
      const v = this.state.validators.get(address)!;
      if (chosen.has(address) && v.status !== 'active') {
        v.status = 'active';
        joined.push(address);
        this.dirty.validators.add(address);
      } else if (!chosen.has(address) && v.status === 'active') {
        v.status = 'inactive';
        left.push(address);
        this.dirty.validators.add(address);
      }
    }
    const snapshot: EpochSnapshot = { epoch, startHeight, validators: members };
    this.state.epochs.set(epoch, snapshot);
    this.state.currentEpoch = epoch;
    this.dirty.epochs.add(epoch);
    this.dirty.globals = true;
    return { snapshot: copySnapshot(snapshot), joined, left };
  }

  /** Close epoch `epoch` with its last block `height`: the next epoch (epoch + 1) starts at height + 1. */
  endEpoch(epoch: number, height: number, rankOf?: RankOf): EpochChange {
    assertBlockNumber('epoch', epoch);
    assertBlockNumber('height', height);
    return this.startEpoch(epoch + 1, height + 1, rankOf);
  }

  // ---- queries ------------------------------------------------------------------------------

  /** A validator by operator address. */
  validator(address: Address): ValidatorView | undefined {
    const v = this.state.validators.get(address);
    return v ? this.view(v) : undefined;
  }

  /** A validator's downtime window as recorded (a copy), or undefined for an unknown address. */
  signingWindow(address: Address): SigningWindow | undefined {
    const v = this.state.validators.get(address);
    return v ? { ...v.window, bitmap: Uint8Array.from(v.window.bitmap) } : undefined;
  }

  /** Every validator, by address. */
  validators(): ValidatorView[] {
    return [...this.state.validators.keys()].sort().map((a) => this.view(this.state.validators.get(a)!));
  }

  /** The validator set of an epoch (the current one by default). */
  validatorSet(epoch: number = this.state.currentEpoch): EpochSnapshot | undefined {
    const s = this.state.epochs.get(epoch);
    return s ? copySnapshot(s) : undefined;
  }

  /** Epoch of the latest snapshot; -1 before the first. */
  get currentEpoch(): number {
    return this.state.currentEpoch;
  }

  /** One delegation with its current token value and rewards. */
  delegation(delegator: Address, validator: Address): DelegationView | undefined {
    const v = this.state.validators.get(validator);
    const d = getDelegation(this.state, validator, delegator);
    return v && d ? delegationView(v, d) : undefined;
  }

  /** Every delegation of a delegator, by validator address. */
  delegationsOf(delegator: Address): DelegationView[] {
    return [...(this.state.delegationsOf.get(delegator) ?? [])]
      .sort()
      .map((a) => delegationView(this.state.validators.get(a)!, getDelegation(this.state, a, delegator)!));
  }

  /** Every delegation to a validator, by delegator address. */
  delegationsTo(validator: Address): DelegationView[] {
    const v = this.state.validators.get(validator);
    const byDelegator = this.state.delegations.get(validator);
    if (!v || !byDelegator) return [];
    return [...byDelegator.keys()].sort().map((a) => delegationView(v, byDelegator.get(a)!));
  }

  /** Delegations to a validator other than its operator's own. */
  delegatorCount(validator: Address): number {
    const byDelegator = this.state.delegations.get(validator);
    if (!byDelegator) return 0;
    return byDelegator.size - (byDelegator.has(validator) ? 1 : 0);
  }

  /** Unbonding entries of a delegator not yet withdrawn, oldest first. */
  unbondingsOf(delegator: Address): UnbondingView[] {
    return sortedIds(this.state.unbondingsOf.get(delegator)).map((id) => ({ ...this.state.unbondings.get(id)! }));
  }

  /** svc_getStakeInfo's numbers for an address. */
  stakeInfo(address: Address): StakeInfo {
    let stakedAmount = 0n;
    let pendingRewards = this.state.validators.get(address)?.commission ?? 0n;
    for (const d of this.delegationsOf(address)) {
      stakedAmount += d.amount;
      pendingRewards += d.pendingRewards;
    }
    let unstakingAmount = 0n;
    let unstakingCompletesAt = 0;
    for (const u of this.unbondingsOf(address)) {
      unstakingAmount += u.balance;
      unstakingCompletesAt = Math.max(unstakingCompletesAt, u.completesAt);
    }
    return { stakedAmount, unstakingAmount, unstakingCompletesAt, pendingRewards };
  }

  /** Module-wide sums. */
  totals(): StakingTotals {
    const t = this.state.totals;
    return {
      totalStaked: t.staked,
      totalUnbonding: t.unbonding,
      totalUnclaimedRewards: t.unclaimedRewards,
      totalCommission: t.commission,
      dust: this.state.dust,
      burned: this.state.burned,
    };
  }

  /** What the module account must hold: staked + unbonding + unclaimed rewards + unclaimed commission + dust. */
  moduleBalance(): bigint {
    const t = this.state.totals;
    return t.staked + t.unbonding + t.unclaimedRewards + t.commission + this.state.dust;
  }

  /** Broken accounting rules, one line each (see invariants.ts); empty when the books balance. */
  checkInvariants(): string[] {
    return findInvariantViolations(this.state, this.params);
  }

  // ---- persistence --------------------------------------------------------------------------

  /** Records changed since the last call (value null: delete the key), sorted by key; clears the change set. */
  dirtyRecords(): LedgerRecord[] {
    const out = recordsFor(this.state, this.dirty);
    this.dirty.clear();
    return out;
  }

  /** Every record of the ledger, sorted by key (a full export; does not touch the change set). */
  records(): { key: Buffer; value: Buffer }[] {
    return allRecords(this.state);
  }

  // ---- internals ----------------------------------------------------------------------------

  /** Move a delegation's rewards since its checkpoint into `accrued`. */
  private settle(v: ValidatorRecord, d: DelegationRecord): void {
    const pending = rewardSince(d.shares, v.rewardPerShare, d.rewardCheckpoint);
    v.outstandingRewards -= pending;
    d.accrued += pending;
    d.rewardCheckpoint = v.rewardPerShare;
    this.dirty.validators.add(v.operator);
    this.dirty.delegation(v.operator, d.delegator);
  }

  /** When a validator's last share has left, what no delegation can claim any more becomes dust. */
  private releaseRemaindersIfEmpty(v: ValidatorRecord): void {
    if (v.totalShares !== 0n || v.outstandingRewards === 0n) return;
    this.state.dust += v.outstandingRewards;
    this.state.totals.unclaimedRewards -= v.outstandingRewards;
    v.outstandingRewards = 0n;
    this.dirty.globals = true;
  }

  /**
   * Jail a validator until `until` (never shortening a running jail). Downtime is judged afresh
   * from here (a full window after its return, as Cosmos resets its window at a jail), but the
   * window's bitmap stays: uptime and the score's uptime part keep the blocks it missed until
   * newer blocks overwrite them.
   */
  private jail(v: ValidatorRecord, until: number, reason: string, events: LedgerEvent[]): void {
    const wasJailed = v.status === 'jailed';
    const newUntil = wasJailed ? Math.max(v.jailedUntil, until) : until;
    if (wasJailed && newUntil === v.jailedUntil) return;
    v.status = 'jailed';
    v.jailedUntil = newUntil;
    if (!wasJailed) v.window.judgedFrom = v.window.index;
    this.dirty.validators.add(v.operator);
    events.push({ type: 'Jailed', validator: v.operator, until: newUntil, reason });
  }

  private selfStake(v: ValidatorRecord): bigint {
    const d = getDelegation(this.state, v.operator, v.operator);
    return d ? tokensForShares(d.shares, v.tokens, v.totalShares) : 0n;
  }

  private view(v: ValidatorRecord): ValidatorView {
    const selfStake = this.selfStake(v);
    return {
      address: v.operator,
      operator: v.operator,
      moniker: v.moniker,
      ...(v.consensusKey !== undefined ? { consensusKey: v.consensusKey } : {}),
      commissionBps: v.commissionBps,
      maxCommissionBps: v.maxCommissionBps,
      maxChangeBpsPerDay: v.maxChangeBpsPerDay,
      lastCommissionChangeAt: v.lastCommissionChangeAt,
      tokens: v.tokens,
      totalShares: v.totalShares,
      selfStake,
      delegatedStake: v.tokens - selfStake,
      delegatorCount: this.delegatorCount(v.operator),
      votingPower: v.tokens / this.params.powerReduction,
      status: v.status,
      jailedUntil: v.jailedUntil,
      registeredAt: v.registeredAt,
      lastActiveAt: v.lastActiveAt,
      commission: v.commission,
      totalRewards: v.totalRewards,
      blocksProduced: v.blocksProduced,
      blocksMissed: v.blocksMissed,
      uptimeBps: uptimeBps(v.window, v.window.size),
      missedInWindow: v.window.missed,
      slashes: v.slashes.map((s) => ({ ...s })),
    };
  }
}

function delegationView(v: ValidatorRecord, d: DelegationRecord): DelegationView {
  return {
    delegator: d.delegator,
    validator: d.validator,
    shares: d.shares,
    amount: tokensForShares(d.shares, v.tokens, v.totalShares),
    pendingRewards: d.accrued + rewardSince(d.shares, v.rewardPerShare, d.rewardCheckpoint),
  };
}

function copySnapshot(s: EpochSnapshot): EpochSnapshot {
  return { epoch: s.epoch, startHeight: s.startHeight, validators: s.validators.map((m) => ({ ...m })) };
}
