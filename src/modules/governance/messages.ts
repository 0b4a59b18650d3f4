// Governance's calls (abi/governance.json), dispatched by function: the proposal kinds' submit
// functions (each kind's checks are its handler's, proposals.ts), deposit and vote, and the read
// functions. Every call runs through the kernel's runDecided: decided first, applied only when the
// call is a block's transaction.
import { readFileSync } from 'node:fs';
import { encodeFunctionResult, type Abi, type Hex } from 'viem';
import type { ModuleLog } from '../../native/index.js';
import type { GovernanceParams } from '../../params.js';
import { abiEvents, gasCost, moduleLog, runDecided, type BlockContext, type Decision, type GasTable, type ModuleCall, type ModuleOutcome } from '../kernel/module.js';
import type { GovernanceContext } from './context.js';
import { currentTally } from './tally.js';
import { treasuryAccounts } from './treasury.js';
import { VOTE_OPTIONS, type Address, type DepositRecord, type ProposalContent, type ProposalRecord, type VoteRecord } from './types.js';

export const GOVERNANCE_ABI = JSON.parse(readFileSync(new URL('../../../../abi/governance.json', import.meta.url), 'utf8')) as Abi;

const EVENTS = abiEvents(GOVERNANCE_ABI);
const hexToBuffer = (h: Hex): Buffer => Buffer.from(h.slice(2), 'hex');
const log = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);

/** A call to governance: charged its function's gas (governance.gas), decided, and applied when `apply`. */
export function runGovernanceCall(g: GovernanceContext, call: ModuleCall, ctx: BlockContext, apply: boolean): ModuleOutcome {
  const table = governanceGasTable(g.live.governance.gas, g.router.submitFunctions());
  return runDecided('governance', GOVERNANCE_ABI, call, apply, gasCost(table), (name, args) => decide(g, call, name, args, ctx));
}

/** Governance's gas by function (the kernel's one table shape): deposit, vote and the reads their own, each proposal kind's submit function `submit`. */
export function governanceGasTable(gas: GovernanceParams['gas'], submitFunctions: readonly string[]): GasTable {
  const { submit, ...byFunction } = gas;
  return { ...byFunction, ...Object.fromEntries(submitFunctions.map((f) => [f, submit])) };
}

function decide(g: GovernanceContext, call: ModuleCall, name: string, args: readonly unknown[], ctx: BlockContext): Decision {
  const encode = (result: unknown): Buffer => hexToBuffer(encodeFunctionResult({ abi: GOVERNANCE_ABI, functionName: name, result } as never));
  const view = (result: unknown): Decision => ({ ok: true, returnData: encode(result), logs: [], apply: () => {} });
  const from = call.from;
  const kind = g.router.forFunction(name);
  if (kind) {
    const [title, description, ...rest] = args as [string, string, ...unknown[]];
    const content = kind.validate(rest, g.env);
    if ('refused' in content) return { ok: false, reason: content.refused };
    return submit(g, from, call.value, title, description, content, ctx, encode);
  }
  switch (name) {
    case 'deposit': {
      const p = activeProposal(g, args[0] as bigint);
      if (typeof p === 'string') return { ok: false, reason: p };
      if (call.value === 0n) return { ok: false, reason: 'a deposit of zero' };
      return {
        ok: true,
        returnData: Buffer.alloc(0),
        logs: depositLogs(g, p, from, call.value, ctx),
        apply: () => addDeposit(g, p, from, call.value, ctx),
      };
    }
    case 'vote': {
      const id = args[0] as bigint;
      const option = args[1] as number;
      const p = activeProposal(g, id);
      if (typeof p === 'string') return { ok: false, reason: p };
      if (p.status !== 'voting-period') return { ok: false, reason: `proposal ${p.id} is in its deposit period: votes open once it holds the minimum deposit` };
      if (option < 1 || option > 4) return { ok: false, reason: `option must be 1 (yes), 2 (abstain), 3 (no) or 4 (no with veto), got ${option}` };
      return {
        ok: true,
        returnData: Buffer.alloc(0),
        logs: [log('Voted', { proposalId: BigInt(p.id), voter: from }, [{ type: 'uint8', value: option }])],
        apply: () => {
          const votes = g.store.votes.get(p.id)!;
          if (!votes.has(from)) p.voters += 1;
          const v: VoteRecord = { proposalId: p.id, voter: from, option: VOTE_OPTIONS[option - 1]!, height: ctx.height };
          g.store.saveVote(v);
          g.store.saveProposal(p);
          g.event('vote', p.id, ctx.height, p.status, { voter: from, option: v.option });
        },
      };
    }
    case 'getProposal': {
      const p = proposalById(g, args[0] as bigint);
      if (!p) return { ok: false, reason: 'proposal not found' };
      return view([p.content.kind, p.status, p.proposer, p.totalDeposit, BigInt(p.submitTime), BigInt(p.depositEndTime), BigInt(p.votingStartTime ?? 0), BigInt(p.votingEndTime ?? 0)]);
    }
    case 'getTally': {
      const p = proposalById(g, args[0] as bigint);
      if (!p) return { ok: false, reason: 'proposal not found' };
      const t = currentTally(p, (id) => g.store.votesOf(id), g.keepers.stake);
      return view([t.yes, t.abstain, t.no, t.noWithVeto]);
    }
    case 'getVote': {
      const p = proposalById(g, args[0] as bigint);
      if (!p) return { ok: false, reason: 'proposal not found' };
      const voter = (args[1] as string).toLowerCase();
      const v = g.store.votesOf(p.id).find((x) => x.voter === voter);
      return view(v ? VOTE_OPTIONS.indexOf(v.option) + 1 : 0);
    }
    case 'getTreasury': {
      const t = treasuryAccounts(g.store.global);
      return view([t.balance, t.totalInflows, t.totalOutflows, t.pendingSpendsTotal]);
    }
    default:
      return { ok: false, reason: `unknown function ${name}` };
  }
}

function submit(
  g: GovernanceContext,
  from: Address,
  value: bigint,
  title: string,
  description: string,
  content: ProposalContent,
  ctx: BlockContext,
  encode: (r: unknown) => Buffer,
): Decision {
  const rules = g.live.governance;
  const global = g.store.global;
  if (title.trim().length === 0) return { ok: false, reason: 'the title is empty' };
  if ([...title].length > rules.maxTitleChars) return { ok: false, reason: `title of ${[...title].length} characters, limit ${rules.maxTitleChars}` };
  if ([...description].length > rules.maxDescriptionChars) return { ok: false, reason: `description of ${[...description].length} characters, limit ${rules.maxDescriptionChars}` };
  if (global.active.length >= rules.maxActiveProposals) return { ok: false, reason: `${global.active.length} proposals are open, limit ${rules.maxActiveProposals}` };
  const id = global.nextProposalId;
  const p: ProposalRecord = {
    id,
    proposer: from,
    title,
    description,
    content,
    status: 'deposit-period',
    submitHeight: ctx.height,
    submitTime: ctx.now,
    depositEndTime: ctx.now + rules.depositPeriodSeconds,
    totalDeposit: 0n,
    depositors: 0,
    voters: 0,
  };
  const logs = [log('ProposalSubmitted', { proposalId: BigInt(id), proposer: from }, [{ type: 'string', value: content.kind }, { type: 'string', value: title }])];
  if (value > 0n) logs.push(...depositLogs(g, p, from, value, ctx));
  return {
    ok: true,
    returnData: encode(BigInt(id)),
    logs,
    apply: () => {
      global.nextProposalId += 1;
      global.active.push(id);
      g.store.saveProposal(p);
      g.store.saveGlobal();
      g.event('submitted', id, ctx.height, p.status, { proposer: from, kind: content.kind, title });
      if (value > 0n) addDeposit(g, p, from, value, ctx);
    },
  };
}

function depositLogs(g: GovernanceContext, p: ProposalRecord, from: Address, value: bigint, ctx: BlockContext): ModuleLog[] {
  const rules = g.live.governance;
  const total = p.totalDeposit + value;
  const logs = [log('ProposalDeposit', { proposalId: BigInt(p.id), depositor: from }, [{ type: 'uint256', value }, { type: 'uint256', value: total }])];
  if (p.status === 'deposit-period' && total >= rules.minDeposit) {
    logs.push(log('VotingPeriodStarted', { proposalId: BigInt(p.id) }, [{ type: 'uint64', value: BigInt(ctx.now + rules.votingPeriodSeconds) }]));
  }
  return logs;
}

function addDeposit(g: GovernanceContext, p: ProposalRecord, from: Address, value: bigint, ctx: BlockContext): void {
  const rules = g.live.governance;
  const global = g.store.global;
  const existing = g.store.deposits.get(p.id)?.get(from);
  const d: DepositRecord = { proposalId: p.id, depositor: from, amount: (existing?.amount ?? 0n) + value };
  if (!existing) p.depositors += 1;
  p.totalDeposit += value;
  global.depositsHeld += value;
  g.store.saveDeposit(d);
  g.event('deposit', p.id, ctx.height, p.status, { depositor: from, amount: value, totalDeposit: p.totalDeposit });
  if (p.status === 'deposit-period' && p.totalDeposit >= rules.minDeposit) {
    p.status = 'voting-period';
    p.votingStartHeight = ctx.height;
    p.votingStartTime = ctx.now;
    p.votingEndTime = ctx.now + rules.votingPeriodSeconds;
    g.event('voting-started', p.id, ctx.height, p.status, { votingEndTime: p.votingEndTime });
  }
  g.store.saveProposal(p);
  g.store.saveGlobal();
}

function activeProposal(g: GovernanceContext, id: bigint): ProposalRecord | string {
  const p = proposalById(g, id);
  if (!p) return `proposal ${id} not found`;
  if (p.status !== 'deposit-period' && p.status !== 'voting-period') return `proposal ${id} is ${p.status}`;
  return g.store.proposals.get(p.id)!;
}

function proposalById(g: GovernanceContext, id: bigint): ProposalRecord | undefined {
  return id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? g.store.proposal(Number(id)) : undefined;
}
