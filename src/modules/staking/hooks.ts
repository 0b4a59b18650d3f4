// The staking module's block hooks: at a block's start the spot-check penalties the compute module
// found are ordered; at its end the block's evidence and ordered penalties are applied, liveness is
// counted, the block reward is minted and split (treasury, inference miners, validators by
// contribution score) and the epoch closes on its last block.
import type { BalanceMove } from '../../native/index.js';
import { system, type StakingParams } from '../../params.js';
import { addressBuffer, type BlockContext } from '../kernel/module.js';
import { isEpochLastBlock } from './epoch.js';
import type { StakingLedger } from './ledger.js';
import type { Evidence } from './messages.js';
import { BANNED, doubleSignPenalty, spotCheckPenalty } from './penalties.js';
import { blockRewardFor, inferenceMinersShareBps, splitBlockReward } from './rewards.js';
import type { ScoreBreakdown } from './score.js';
import type { Address, CommitVote, LedgerEvent } from './types.js';

const STAKING: Address = system.stakingAddress;
const TREASURY: Address = system.treasuryAddress;

/** What the end of a block did. */
export interface BlockEnd {
  /** Mints of the validators' and treasury's parts, and burns; the miners' share is left to the compute module. */
  moves: BalanceMove[];
  /** The whole block reward minted (validators, treasury and miners). */
  minted: bigint;
  /** The inference miners' part of `minted` (15% grown with the active miners), not in `moves`. */
  minersShare: bigint;
  /** The share it was computed with, basis points. */
  minersShareBps: number;
  burned: bigint;
  events: LedgerEvent[];
}

/** A spot-check penalty ordered for the block being built, applied at its end. */
export interface OrderedPenalty {
  validator: Address;
  reason: string;
  /** The failed proof's block (default: the block that applies it). */
  infractionHeight: number | undefined;
}

/** What a block ordered for its end: the evidence and last commit it carries, the penalties ordered. */
export interface BlockOrders {
  evidence: Evidence[];
  penalties: OrderedPenalty[];
  lastCommit: CommitVote[] | undefined;
}

/**
 * End of a block: apply the evidence and the ordered penalties, count liveness (the block's last
 * commit when it carries one, else `signers` signed; the proposer proposed), mint the block reward
 * (times the stake-ratio multiplier) and split it: the treasury's share, the inference miners'
 * share (grown with `activeMiners`, the compute module's count; returned as minersShare: the compute
 * module mints and pays it), and the validators' share by contribution score, commission first,
 * then delegators pro rata. Closes the epoch on its last block.
 */
export function closeBlock(
  ledger: StakingLedger,
  params: StakingParams,
  ctx: BlockContext,
  proposer: Address,
  signers: readonly Address[],
  supply: bigint,
  activeMiners: number,
  orders: BlockOrders,
  scores: () => Map<Address, ScoreBreakdown>,
): BlockEnd {
  const events: LedgerEvent[] = [];
  let burned = 0n;
  for (const e of orders.evidence) {
    const v = ledger.validator(e.validator);
    // A validator banned already has paid for its key's infractions (Cosmos: tombstoned once).
    if (!v || v.jailedUntil === BANNED) continue;
    const order = doubleSignPenalty(params, Math.min(e.height, ctx.height));
    const r = ledger.slash(e.validator, order.fractionBps, order.infractionHeight, order.jailUntil, order.reason, ctx.height);
    if (!r.ok) throw new Error(`double-sign penalty of ${e.validator} refused: ${r.reason}`);
    events.push(...r.events);
    burned += r.burned;
  }
  for (const p of orders.penalties) {
    const order = spotCheckPenalty(params, p.infractionHeight ?? ctx.height, ctx.now);
    const r = ledger.slash(p.validator, order.fractionBps, order.infractionHeight, order.jailUntil, p.reason, ctx.height);
    if (!r.ok) throw new Error(`penalty of ${p.validator} refused: ${r.reason}`);
    events.push(...r.events);
    burned += r.burned;
  }
  if (ledger.validator(proposer)) {
    const record = ledger.recordBlock(ctx.height, proposer, signers, ctx.now, orders.lastCommit);
    events.push(...record.events);
    burned += record.burned;
  }

  const minted = blockRewardFor(ledger.totals().totalStaked, supply, params);
  const minersShareBps = inferenceMinersShareBps(activeMiners, params);
  const split = splitBlockReward(minted, params, minersShareBps);
  const shares = validatorShares(ledger, split.validators, scores());
  let distributed = 0n;
  if (shares.size > 0) {
    const r = ledger.distribute(shares);
    if (!r.ok) throw new Error(`reward distribution refused: ${r.reason}`);
    events.push(...r.events);
    distributed = r.total;
  }
  const moves: BalanceMove[] = [];
  if (distributed > 0n) moves.push({ to: addressBuffer(STAKING), amount: distributed });
  // The miners' share is minted by the compute module, which pays it by FLOPs.
  const toTreasury = minted - distributed - split.inferenceMiners;
  if (toTreasury > 0n) moves.push({ to: addressBuffer(TREASURY), amount: toTreasury });
  if (burned > 0n) moves.push({ from: addressBuffer(STAKING), amount: burned });

  if (isEpochLastBlock(ctx.height, params)) {
    // The next epoch's set: stake times contribution score decides who is in; power follows stake.
    const epochScores = scores();
    ledger.endEpoch(ledger.currentEpoch, ctx.height, (v) => v.tokens * BigInt(epochScores.get(v.operator)?.totalBps ?? 0));
  }
  return { moves, minted, minersShare: split.inferenceMiners, minersShareBps, burned, events };
}

/** The validators' part of a reward split by contribution score among the active set; the rounding remainder goes to the best score. */
function validatorShares(ledger: StakingLedger, total: bigint, scores: Map<Address, ScoreBreakdown>): Map<Address, bigint> {
  const active = ledger.validators().filter((v) => v.status === 'active');
  const weights = active.map((v) => ({ address: v.address, weight: BigInt(scores.get(v.address)?.totalBps ?? 0) }));
  const sum = weights.reduce((a, w) => a + w.weight, 0n);
  const out = new Map<Address, bigint>();
  if (total === 0n || sum === 0n) return out;
  let given = 0n;
  for (const w of weights) {
    const amount = (total * w.weight) / sum;
    out.set(w.address, amount);
    given += amount;
  }
  const best = [...weights].sort((a, b) => (a.weight !== b.weight ? (a.weight > b.weight ? -1 : 1) : a.address < b.address ? -1 : 1))[0]!;
  out.set(best.address, (out.get(best.address) ?? 0n) + (total - given));
  return out;
}
