// Governance's block hooks, driven only by block time and height. beginBlock: parameter changes
// due from this epoch apply (before any other module's hook reads them). endBlock: proposals whose
// deposit period ended without the minimum deposit expire; proposals whose voting period ended are
// tallied by bonded stake (tally.ts) and, when passed, carried out by their kind's handler
// (proposals.ts); then the treasury spends due are paid.
import { addressBuffer, type BlockInfo, type HookResult } from '../kernel/module.js';
import type { GovernanceContext } from './context.js';
import { decide, tallyVotes } from './tally.js';
import { TREASURY, treasuryBalance } from './treasury.js';
import type { Address, PendingSpend, ProposalRecord } from './types.js';
import { system } from '../../params.js';

const GOVERNANCE: Address = system.governanceAddress as Address;

/** Start of a block: parameter changes due from this epoch apply (before any other module's hook reads them). */
export function governanceBeginBlock(g: GovernanceContext, block: BlockInfo): HookResult {
  const global = g.store.global;
  const due = global.pendingChanges.filter((c) => c.appliesAtEpoch <= block.epoch);
  if (due.length === 0) return { moves: [], minted: 0n, burned: 0n };
  global.pendingChanges = global.pendingChanges.filter((c) => c.appliesAtEpoch > block.epoch);
  for (const change of due) {
    const problem = g.live.check(change.changes);
    const p = g.store.proposal(change.proposalId);
    if (problem !== null) {
      if (p) {
        p.execution = { height: block.height, result: 'failed', detail: `not applied at epoch ${block.epoch}: ${problem}`, appliesAtEpoch: change.appliesAtEpoch };
        g.store.saveProposal(p);
      }
      g.event('executed', change.proposalId, block.height, p?.status ?? 'passed', { result: 'failed', reason: problem });
      continue;
    }
    for (const c of change.changes) {
      const old = g.live.value(c.name);
      global.params[c.name] = c.value;
      if (c.name === 'staking.epochLengthBlocks') global.epochAnchor = { height: block.height, epoch: block.epoch };
      g.live.reset(global.params, global.epochAnchor);
      g.event('param-changed', change.proposalId, block.height, p?.status ?? 'passed', { name: c.name, oldValue: old, newValue: c.value, epoch: block.epoch });
    }
  }
  g.store.saveGlobal();
  return { moves: [], minted: 0n, burned: 0n };
}

/** End of a block: deposit periods and voting periods that ended, then the treasury spends due. */
export function governanceEndBlock(g: GovernanceContext, block: BlockInfo): HookResult {
  const result: HookResult = { moves: [], minted: 0n, burned: 0n };
  const rules = g.live.governance;
  for (const id of [...g.store.global.active].sort((a, b) => a - b)) {
    const p = g.store.proposals.get(id)!;
    if (p.status === 'deposit-period' && block.now >= p.depositEndTime) {
      finish(g, p, 'expired', rules.burnDepositsOnExpiry === 1, block, result);
    } else if (p.status === 'voting-period' && block.now >= p.votingEndTime!) {
      const t = decide(tallyVotes(g.store.votesOf(id), g.keepers.stake), rules);
      p.tally = t.result;
      p.bondedAtTally = t.bonded;
      finish(g, p, t.outcome, t.burn, block, result);
      if (t.outcome === 'passed') carryOut(g, p, block);
    }
  }
  paySpends(g, block, result);
  return result;
}

/** A proposal leaves its deposit or voting period: its deposits are refunded or burned. */
function finish(g: GovernanceContext, p: ProposalRecord, status: ProposalRecord['status'], burn: boolean, block: BlockInfo, result: HookResult): void {
  const global = g.store.global;
  const deposits = g.store.depositsOf(p.id);
  const total = deposits.reduce((a, d) => a + d.amount, 0n);
  if (total !== p.totalDeposit) throw new Error(`governance: proposal ${p.id} holds ${total} in deposits, its record says ${p.totalDeposit}`);
  if (burn) {
    if (total > 0n) result.moves.push({ from: addressBuffer(GOVERNANCE), amount: total });
    result.burned += total;
    global.depositsBurned += total;
  } else {
    for (const d of deposits) if (d.amount > 0n) result.moves.push({ from: addressBuffer(GOVERNANCE), to: addressBuffer(d.depositor), amount: d.amount });
    global.depositsRefunded += total;
  }
  global.depositsHeld -= total;
  global.active = global.active.filter((x) => x !== p.id);
  p.status = status;
  p.deposits = burn ? 'burned' : 'refunded';
  p.finalHeight = block.height;
  p.finalTime = block.now;
  g.store.saveProposal(p);
  g.store.saveGlobal();
  g.event(status === 'expired' ? 'expired' : 'finished', p.id, block.height, status, {
    deposits: p.deposits,
    depositTotal: total,
    ...(p.tally ? { tally: p.tally, bonded: p.bondedAtTally } : {}),
  });
}

/** A passed proposal's content is carried out by its kind's handler (or, where the state no longer allows it, recorded as failed). */
function carryOut(g: GovernanceContext, p: ProposalRecord, block: BlockInfo): void {
  const { failed, detail, appliesAtEpoch } = g.router.forKind(p.content.kind).execute(p.content, p.id, block, g.env);
  p.execution =
    failed === null
      ? { height: block.height, result: 'applied', detail, ...(appliesAtEpoch !== undefined ? { appliesAtEpoch } : {}) }
      : { height: block.height, result: 'failed', detail: failed };
  g.store.saveProposal(p);
  g.store.saveGlobal();
  g.event('executed', p.id, block.height, p.status, { result: p.execution.result, detail: p.execution.detail });
}

/** Parts of treasury spends due at this block's epoch, paid while the treasury holds them (a part it cannot pay waits). */
function paySpends(g: GovernanceContext, block: BlockInfo, result: HookResult): void {
  const global = g.store.global;
  if (global.pendingSpends.length === 0) return;
  const left: PendingSpend[] = [];
  for (const s of global.pendingSpends) {
    if (s.nextEpoch > block.epoch) {
      left.push(s);
      continue;
    }
    const part = s.partsPaid === s.parts - 1 ? s.amount - s.paid : s.amount / BigInt(s.parts);
    if (part > treasuryBalance(global)) {
      left.push(s);
      continue;
    }
    if (part > 0n) result.moves.push({ from: addressBuffer(TREASURY), to: addressBuffer(s.recipient), amount: part });
    global.treasury.outflows.spends = (global.treasury.outflows.spends ?? 0n) + part;
    s.paid += part;
    s.partsPaid += 1;
    s.nextEpoch = block.epoch + 1;
    const p = g.store.proposal(s.proposalId);
    g.event('spend-paid', s.proposalId, block.height, p?.status ?? 'passed', { recipient: s.recipient, amount: part, paid: s.paid, total: s.amount, part: s.partsPaid, parts: s.parts });
    if (s.partsPaid < s.parts) left.push(s);
    else global.treasury.spendsPaid += 1;
  }
  global.pendingSpends = left;
  g.store.saveGlobal();
}
