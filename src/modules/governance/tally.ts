// The tally of a proposal's votes, weighted by bonded stake (Cosmos SDK x/gov v1's Tally): a
// delegator's stake follows its validator's vote unless the delegator voted itself. Pure integer
// arithmetic on the staking ledger's shares and tokens; votes and validators in address order.
import type { GovernanceParams } from '../../params.js';
import type { Address, ProposalRecord, TallyResult, VoteOption, VoteRecord } from './types.js';

/** A bonded (active) validator as the tally reads it. */
export interface BondedValidator {
  address: Address;
  tokens: bigint;
  totalShares: bigint;
}

/** What the tally reads of the staking module. */
export interface TallyStake {
  /** The active set's validators. */
  bonded(): BondedValidator[];
  /** A voter's delegations (its own self-delegation included when it is an operator): shares by validator. */
  delegationsOf(voter: Address): { validator: Address; shares: bigint }[];
}

export type TallyOutcome = 'passed' | 'rejected' | 'vetoed' | 'no-quorum';

export interface Tally {
  result: TallyResult;
  /** Stake that voted (abstain included). */
  voted: bigint;
  /** Stake bonded when tallied. */
  bonded: bigint;
  outcome: TallyOutcome;
  /** Whether the deposits are burned (the rules' burn flags for veto and missed quorum). */
  burn: boolean;
}

const emptyResult = (): TallyResult => ({ yes: 0n, abstain: 0n, no: 0n, noWithVeto: 0n });

function add(result: TallyResult, option: VoteOption, power: bigint): void {
  switch (option) {
    case 'yes':
      result.yes += power;
      break;
    case 'abstain':
      result.abstain += power;
      break;
    case 'no':
      result.no += power;
      break;
    case 'no-with-veto':
      result.noWithVeto += power;
      break;
  }
}

/** Stake behind each option: delegators' own votes first, each validator's vote then carries the shares not deducted. */
export function tallyVotes(votes: readonly VoteRecord[], stake: TallyStake): { result: TallyResult; voted: bigint; bonded: bigint } {
  const validators = new Map<Address, BondedValidator & { deducted: bigint; vote?: VoteOption }>();
  let bonded = 0n;
  for (const v of stake.bonded()) {
    validators.set(v.address, { ...v, deducted: 0n });
    bonded += v.tokens;
  }
  const result = emptyResult();
  let voted = 0n;
  const ordered = [...votes].sort((a, b) => (a.voter < b.voter ? -1 : a.voter > b.voter ? 1 : 0));
  for (const vote of ordered) {
    const own = validators.get(vote.voter);
    if (own) own.vote = vote.option;
    for (const d of stake.delegationsOf(vote.voter)) {
      const v = validators.get(d.validator);
      if (!v || v.totalShares === 0n) continue;
      v.deducted += d.shares;
      const power = (d.shares * v.tokens) / v.totalShares;
      add(result, vote.option, power);
      voted += power;
    }
  }
  for (const v of [...validators.values()].sort((a, b) => (a.address < b.address ? -1 : 1))) {
    if (v.vote === undefined || v.totalShares === 0n) continue;
    const power = ((v.totalShares - v.deducted) * v.tokens) / v.totalShares;
    add(result, v.vote, power);
    voted += power;
  }
  return { result, voted, bonded };
}

/** The outcome of a tally under the rules: quorum, then veto, then threshold (x/gov v1's order). */
export function decide(
  t: { result: TallyResult; voted: bigint; bonded: bigint },
  rules: Pick<GovernanceParams, 'quorumBps' | 'thresholdBps' | 'vetoThresholdBps' | 'burnDepositsOnVeto' | 'burnDepositsOnNoQuorum'>,
): Tally {
  const done = (outcome: TallyOutcome, burn: boolean): Tally => ({ ...t, outcome, burn });
  // Nothing bonded, or less than the quorum voted.
  if (t.bonded === 0n || t.voted * 10_000n < BigInt(rules.quorumBps) * t.bonded) return done('no-quorum', rules.burnDepositsOnNoQuorum === 1);
  if (t.voted === 0n) return done('no-quorum', rules.burnDepositsOnNoQuorum === 1);
  if (t.result.noWithVeto * 10_000n > BigInt(rules.vetoThresholdBps) * t.voted) return done('vetoed', rules.burnDepositsOnVeto === 1);
  const deciding = t.voted - t.result.abstain;
  if (deciding === 0n) return done('rejected', false);
  if (t.result.yes * 10_000n > BigInt(rules.thresholdBps) * deciding) return done('passed', false);
  return done('rejected', false);
}

/** A proposal's tally as read now: the final one of a finished proposal, the running one of a proposal being voted, zeros before the vote. */
export function currentTally(p: ProposalRecord, votesOf: (id: number) => VoteRecord[], stake: TallyStake): TallyResult {
  if (p.tally) return p.tally;
  if (p.status !== 'voting-period') return emptyResult();
  return tallyVotes(votesOf(p.id), stake).result;
}
