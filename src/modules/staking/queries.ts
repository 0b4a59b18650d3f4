// The staking module's read views: every read that JSON-RPC (svc_*), the explorer, the WebSocket
// subscriptions, the live feed and the consensus engine make of it, answered from the ledger at the
// head. Serving code reads staking only through these; each edge writes the numbers its own way.
import type { StakingParams } from '../../params.js';
import { EpochWatch, ValidatorWatch } from './changes.js';
import { epochOfHeight, epochStartHeight } from './epoch.js';
import { minSignedPerWindow, uptimeBps, windowMisses } from './liveness.js';
import { inferenceMinersShareBps } from './rewards.js';
import type { StakingModule } from './module.js';
import type { ScoreBreakdown } from './score.js';
import type { Address, DelegationView, EpochSnapshot, StakeInfo, StakingTotals, UnbondingView, ValidatorView } from './types.js';

export type { ScoreBreakdown } from './score.js';
export type { ValidatorChange, ValidatorChangeKind } from './changes.js';
export { EpochWatch, ValidatorWatch } from './changes.js';

/** A validator with its contribution score (undefined before the first scores exist). */
export interface ScoredValidator {
  validator: ValidatorView;
  score: ScoreBreakdown | undefined;
}

/** A validator's liveness over the signing window: its blocks signed and missed, oldest first. */
export interface SigningWindowView {
  windowSize: number;
  counted: number;
  signed: number;
  missed: number;
  minSignedPerWindow: number;
  maxMissedPerWindow: number;
  uptimeBps: number;
  /** One entry a counted block, oldest first: true where the validator missed it. */
  misses: boolean[];
}

export class StakingQueries {
  constructor(private readonly module: StakingModule) {}

  /** The staking rules the chain runs with (epoch length, signing window, reward shares). */
  get params(): StakingParams {
    return this.module.params;
  }

  /** The epoch the ledger is in (the head's). */
  get currentEpoch(): number {
    return this.module.state.currentEpoch;
  }

  /** The epoch of a block height. */
  epochOf(height: number): number {
    return epochOfHeight(height, this.module.params);
  }

  /** The first block height of an epoch. */
  epochStart(epoch: number): number {
    return epochStartHeight(epoch, this.module.params);
  }

  validators(): ValidatorView[] {
    return this.module.state.validators();
  }

  validator(address: Address): ValidatorView | undefined {
    return this.module.state.validator(address);
  }

  /** Contribution scores of every validator. */
  scores(): Map<Address, ScoreBreakdown> {
    return this.module.scores();
  }

  /** The inference miners' share of the block reward, in basis points, with `activeMiners` active. */
  minersShareBps(activeMiners: number): number {
    return inferenceMinersShareBps(activeMiners, this.module.params);
  }

  /** Every validator with its score (svc_getValidators, /validators, the leaderboard). */
  scoredValidators(): ScoredValidator[] {
    const scores = this.module.scores();
    return this.module.state.validators().map((validator) => ({ validator, score: scores.get(validator.address) }));
  }

  /** One validator with its score (svc_getValidator, /validators/{address}); undefined when not registered. */
  scoredValidator(address: Address): ScoredValidator | undefined {
    const validator = this.module.state.validator(address);
    return validator ? { validator, score: this.module.scores().get(validator.address) } : undefined;
  }

  /** An epoch's validator set (the current epoch's by default); undefined for an epoch the ledger has no set of. */
  validatorSet(epoch: number = this.currentEpoch): EpochSnapshot | undefined {
    return this.module.state.validatorSet(epoch);
  }

  /** The members of the current set with a consensus key that are still active, with the epoch's voting power. */
  consensusMembers(): { validator: ValidatorView; votingPower: bigint }[] {
    const ledger = this.module.state;
    const snapshot = ledger.validatorSet(ledger.currentEpoch);
    if (!snapshot) return [];
    const out: { validator: ValidatorView; votingPower: bigint }[] = [];
    for (const m of snapshot.validators) {
      const v = ledger.validator(m.address);
      if (v?.consensusKey && v.status === 'active' && m.votingPower > 0n) out.push({ validator: v, votingPower: m.votingPower });
    }
    return out;
  }

  totals(): StakingTotals {
    return this.module.state.totals();
  }

  stakeInfo(address: Address): StakeInfo {
    return this.module.state.stakeInfo(address);
  }

  delegation(delegator: Address, validator: Address): DelegationView | undefined {
    return this.module.state.delegation(delegator, validator);
  }

  delegationsTo(validator: Address): DelegationView[] {
    return this.module.state.delegationsTo(validator);
  }

  unbondingsOf(delegator: Address): UnbondingView[] {
    return this.module.state.unbondingsOf(delegator);
  }

  /** A registered validator's signing window; undefined when not registered. */
  signingWindow(address: Address): SigningWindowView | undefined {
    const w = this.module.state.signingWindow(address);
    if (!w) return undefined;
    const misses = windowMisses(w);
    const missed = misses.filter((m) => m).length;
    const minSigned = minSignedPerWindow(this.module.params);
    return {
      windowSize: this.module.params.signedBlocksWindow,
      counted: misses.length,
      signed: misses.length - missed,
      missed,
      minSignedPerWindow: minSigned,
      maxMissedPerWindow: this.module.params.signedBlocksWindow - minSigned,
      uptimeBps: uptimeBps(w, w.size),
      misses,
    };
  }

  /** Reports each new epoch's validator set, one call of next() per block. */
  epochWatch(): EpochWatch {
    return new EpochWatch(() => this.module.state);
  }

  /** Reports validators' changes from block to block, one call of next() per block. */
  validatorWatch(): ValidatorWatch {
    return new ValidatorWatch(() => this.module.state);
  }
}
