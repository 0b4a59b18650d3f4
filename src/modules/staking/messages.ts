// The staking module's messages: the calls of its ABI (abi/staking.json), decided on a ledger for
// the kernel's one call path (runDecided), with the EVM logs of their ledger events; and the system
// messages only the consensus engine gives a block (duplicate-vote evidence, the decided last commit).
import { readFileSync } from 'node:fs';
import { encodeFunctionResult, type Abi, type Hex } from 'viem';
import type { BalanceMove, ModuleLog } from '../../native/index.js';
import { system } from '../../params.js';
import { abiEvents, addressBuffer, moduleLog, type BlockContext, type Decision, type ModuleCall } from '../kernel/module.js';
import type { ModuleMessage } from '../kernel/messages.js';
import type { StakingLedger } from './ledger.js';
import type { Address, CommitVote, LedgerEvent, LedgerResult, Payout } from './types.js';

const hexToBuffer = (h: Hex): Buffer => Buffer.from(h.slice(2), 'hex');

/** The module's ABI, shipped as JSON so wallets and explorers can read it too. */
export const STAKING_ABI = JSON.parse(readFileSync(new URL('../../../../abi/staking.json', import.meta.url), 'utf8')) as Abi;

const STAKING: Address = system.stakingAddress;

const EVENTS = abiEvents(STAKING_ABI);

/** One EVM log for a ledger event (block-level events such as RewardsDistributed have none). */
function logOf(e: LedgerEvent): ModuleLog | undefined {
  const make = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);
  switch (e.type) {
    case 'ValidatorRegistered':
      return make('ValidatorRegistered', { validator: e.validator }, [
        { type: 'string', value: e.moniker },
        { type: 'uint16', value: e.commissionBps },
        { type: 'uint256', value: e.selfStake },
      ]);
    case 'Delegated':
      return make('Delegated', { delegator: e.delegator, validator: e.validator }, [
        { type: 'uint256', value: e.amount },
        { type: 'uint256', value: e.shares },
      ]);
    case 'Undelegated':
      return make('Undelegated', { delegator: e.delegator, validator: e.validator }, [
        { type: 'uint256', value: e.amount },
        { type: 'uint64', value: BigInt(e.completesAt) },
      ]);
    case 'Withdrawn':
      return make('Withdrawn', { delegator: e.delegator, validator: e.validator }, [{ type: 'uint256', value: e.amount }]);
    case 'RewardsClaimed':
      return make('RewardsClaimed', { delegator: e.delegator, validator: e.validator }, [
        { type: 'uint256', value: e.rewards },
        { type: 'uint256', value: e.commission },
      ]);
    case 'CommissionChanged':
      return make('CommissionChanged', { validator: e.validator }, [
        { type: 'uint16', value: e.oldBps },
        { type: 'uint16', value: e.newBps },
      ]);
    case 'Unjailed':
      return make('Unjailed', { validator: e.validator }, []);
    case 'Jailed':
      return make('Jailed', { validator: e.validator }, [
        { type: 'uint64', value: BigInt(e.until) },
        { type: 'string', value: e.reason },
      ]);
    case 'Slashed':
      return make('Slashed', { validator: e.validator }, [
        { type: 'uint16', value: e.fractionBps },
        { type: 'uint256', value: e.tokensBurned + e.unbondingBurned },
        { type: 'string', value: e.reason },
      ]);
    case 'RewardsDistributed':
      return undefined;
  }
}

function payoutMoves(payouts: Payout[]): BalanceMove[] {
  return payouts.filter((p) => p.amount > 0n).map((p) => ({ from: addressBuffer(STAKING), to: addressBuffer(p.to), amount: p.amount }));
}

/**
 * A call of the staking ABI decided on `ledger`: the ledger's operations change the ledger they are
 * given when they succeed (the module gives a copy when it simulates), so the decision has nothing
 * left to apply. Its logs are the ledger events', its moves the payouts.
 */
export function decideStakingCall(ledger: StakingLedger, call: ModuleCall, name: string, args: readonly unknown[], ctx: BlockContext): Decision {
  const result = applyCall(ledger, call, name, args, ctx);
  if (!result.ok) return result;
  const logs = result.events.map(logOf).filter((l): l is ModuleLog => l !== undefined);
  return { ok: true, returnData: result.returnData, logs, moves: payoutMoves(result.payouts), apply: () => {} };
}

function applyCall(
  ledger: StakingLedger,
  call: ModuleCall,
  name: string,
  args: readonly unknown[],
  ctx: BlockContext,
): (LedgerResult & { returnData: Buffer }) | { ok: false; reason: string } {
  const from = call.from;
  const encode = (result: unknown): Buffer => hexToBuffer(encodeFunctionResult({ abi: STAKING_ABI, functionName: name, result } as never));
  const done = (r: LedgerResult, returnData: Buffer = Buffer.alloc(0)) => (r.ok ? { ...r, returnData } : r);
  const view = (result: unknown) => ({ ok: true as const, events: [], payouts: [], returnData: encode(result) });
  const lower = (a: unknown) => (a as string).toLowerCase() as Address;
  switch (name) {
    case 'registerValidator': {
      // The overload with a bytes32 consensus key registers the validator's Ed25519 key for CometBFT networks.
      const [moniker, commissionBps, maxCommissionBps, maxChangeBpsPerDay, consensusKey] = args as [string, number, number, number, string | undefined];
      const description = { moniker, commissionBps, maxCommissionBps, maxChangeBpsPerDay, ...(consensusKey !== undefined ? { consensusKey: consensusKey.toLowerCase() } : {}) };
      return done(ledger.registerValidator(from, description, call.value, ctx.height, ctx.now));
    }
    case 'delegate':
      return done(ledger.delegate(from, lower(args[0]), call.value, ctx.height));
    case 'undelegate': {
      const r = ledger.undelegate(from, lower(args[0]), args[1] as bigint, ctx.height, ctx.now);
      return r.ok ? { ...r, returnData: encode(BigInt(r.completesAt)) } : r;
    }
    case 'withdraw': {
      const r = ledger.withdraw(from, ctx.now);
      return r.ok ? { ...r, returnData: encode(r.amount) } : r;
    }
    case 'claimRewards': {
      const r = ledger.claimRewards(from, lower(args[0]));
      return r.ok ? { ...r, returnData: encode([r.rewards, r.commission]) } : r;
    }
    case 'editCommission':
      return done(ledger.editCommission(from, args[0] as number, ctx.now));
    case 'unjail':
      return done(ledger.unjail(from, ctx.now));
    case 'getValidator': {
      const v = ledger.validator(lower(args[0]));
      if (!v) return { ok: false, reason: 'validator not found' };
      return view([v.moniker, v.tokens, v.selfStake, v.commissionBps, v.status, BigInt(v.jailedUntil)]);
    }
    case 'getDelegation': {
      const d = ledger.delegation(lower(args[0]), lower(args[1]));
      return view(d ? [d.amount, d.shares, d.pendingRewards] : [0n, 0n, 0n]);
    }
    case 'getStakeInfo': {
      const s = ledger.stakeInfo(lower(args[0]));
      return view([s.stakedAmount, s.unstakingAmount, BigInt(s.unstakingCompletesAt), s.pendingRewards]);
    }
    default:
      return { ok: false, reason: `unknown function ${name}` };
  }
}

/** Duplicate-vote evidence against a validator (its operator address) for a block at `height`. */
export interface Evidence {
  validator: Address;
  height: number;
}

/** Evidence a block may carry (CometBFT bounds it by bytes; this bounds the work of one block). */
const MAX_EVIDENCE_PER_BLOCK = 100;
/** Votes a block's last-commit message may list (CometBFT's set is the epoch's active set, far fewer). */
const MAX_COMMIT_VOTES = 10_000;
const COMMIT_FLAGS: readonly string[] = ['commit', 'absent', 'nil'] satisfies CommitVote['flag'][];

/**
 * The staking messages a block may carry, which only the consensus engine gives (CometBFT's
 * FinalizeBlock request, turned into messages by the node for every block the same way, so they
 * are stored with the block and a replay applies them too); a proposer cannot put one among its
 * transactions (the CometBFT app refuses it):
 *   evidence  duplicate-vote evidence: { validator, height }
 *   commit    the decided last commit, at most one: { votes: [{ validator, flag }] }, flag
 *             commit, absent or nil (BlockIDFlag), each validator once; liveness counts it
 * Null when the messages can be in a block.
 */
export function checkStakingMessages(messages: readonly ModuleMessage[]): string | null {
  const evidence = messages.filter((m) => m.kind === 'evidence');
  if (evidence.length > MAX_EVIDENCE_PER_BLOCK) return `${evidence.length} pieces of evidence, limit ${MAX_EVIDENCE_PER_BLOCK}`;
  if (messages.filter((m) => m.kind === 'commit').length > 1) return 'more than one last commit';
  for (const m of messages) {
    if (m.kind === 'commit') {
      const problem = commitProblem(m.body);
      if (problem !== null) return problem;
      continue;
    }
    if (m.kind !== 'evidence') return `unknown message kind ${m.kind}`;
    const b = m.body as Record<string, unknown>;
    const ok =
      typeof b === 'object' && b !== null && Object.keys(b).sort().join() === 'height,validator' &&
      typeof b.validator === 'string' && /^0x[0-9a-f]{40}$/.test(b.validator) &&
      typeof b.height === 'number' && Number.isSafeInteger(b.height) && b.height >= 0;
    if (!ok) return 'evidence has exactly a lowercase 0x validator and a height';
  }
  return null;
}

/** A block's staking messages (checked by checkStakingMessages): its evidence and its last commit, if it carries one. */
export function deliveredStakingMessages(messages: readonly ModuleMessage[]): { evidence: Evidence[]; lastCommit: CommitVote[] | undefined } {
  const commit = messages.find((m) => m.kind === 'commit');
  return {
    evidence: messages.filter((m) => m.kind === 'evidence').map((m) => m.body as Evidence),
    lastCommit: commit ? (commit.body as { votes: CommitVote[] }).votes : undefined,
  };
}

/** Why a last-commit message's body is not { votes: [{ validator, flag }] } with each validator once; null when it is. */
function commitProblem(body: unknown): string | null {
  const b = body as Record<string, unknown>;
  if (typeof b !== 'object' || b === null || Object.keys(b).join() !== 'votes' || !Array.isArray(b.votes)) return 'a last commit has exactly a list of votes';
  if (b.votes.length > MAX_COMMIT_VOTES) return `a last commit of ${b.votes.length} votes, limit ${MAX_COMMIT_VOTES}`;
  const seen = new Set<string>();
  for (const v of b.votes as unknown[]) {
    const vote = v as Record<string, unknown>;
    const ok =
      typeof vote === 'object' && vote !== null && Object.keys(vote).sort().join() === 'flag,validator' &&
      typeof vote.validator === 'string' && /^0x[0-9a-f]{40}$/.test(vote.validator) &&
      typeof vote.flag === 'string' && COMMIT_FLAGS.includes(vote.flag);
    if (!ok) return 'a last commit\'s vote has exactly a lowercase 0x validator and a flag (commit, absent or nil)';
    if (seen.has(vote.validator as string)) return `a last commit lists ${vote.validator as string} twice`;
    seen.add(vote.validator as string);
  }
  return null;
}
