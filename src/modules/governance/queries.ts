// The governance module's read views: every read that JSON-RPC (svc_getProposal,
// svc_getParameterProposals, svc_getGovernanceParams, svc_getTreasuryInfo, the svcProposals
// subscription) and the explorer (/governance/*, /treasury, the proposals room) make of it, and the
// views both answer with: the same fields, each edge with its own way of writing numbers (JSON-RPC:
// 0x quantities for amounts, values, heights, times and epochs; explorer: decimal strings for
// amounts and values, JSON integers for the rest). Counts are JSON numbers and shares are
// percentages (3340 bps -> 33.4) in both; addresses are EIP-55 checksummed. Shapes: docs/rpc.md
// (Governance) and docs/explorer.md. Serving code reads governance only through these.
import { getAddress } from 'viem';
import type { Chain } from '../../native/index.js';
import { system, type GovernanceParams } from '../../params.js';
import { governable, governableParam } from '../governable.js';
import type { GovernanceModule } from './module.js';
import type {
  DepositRecord,
  PendingChange,
  ProposalContent,
  ProposalEvent,
  ProposalKind,
  ProposalRecord,
  ProposalStatus,
  TallyResult,
  VoteRecord,
} from './types.js';

/** How an edge writes the numbers of a view. */
export interface GovernanceStyle {
  /** Wei amounts and parameter values (which may pass 2^53). */
  amount(v: bigint): string;
  /** Block heights, block times (seconds) and epochs. */
  quantity(n: number): string | number;
}

/** Every kind of proposal, and every status, as the views and the filters name them. */
export const PROPOSAL_KINDS: readonly ProposalKind[] = ['parameter-change', 'model-approval', 'model-retirement', 'treasury-spend', 'text'];
export const PROPOSAL_STATUSES: readonly ProposalStatus[] = ['deposit-period', 'voting-period', 'passed', 'rejected', 'vetoed', 'no-quorum', 'expired'];
/** The statuses of a proposal still open (deposit or voting period). */
export const ACTIVE_STATUSES: readonly ProposalStatus[] = ['deposit-period', 'voting-period'];

/** The treasury's accounts as governance keeps them: balance = inflows - outflows. */
export type TreasuryAccounts = ReturnType<GovernanceModule['treasury']>;

/** What the views read besides governance's records: the epoch of a height (staking's epochs). */
export interface GovernanceQueriesKeeper {
  epochOf(height: number): number;
}

/** EIP-55, whatever the case the record holds. */
const checksum = (a: string): string => getAddress(a.toLowerCase());
/** Basis points as a percentage (3340 -> 33.4). */
const percent = (bps: number): number => bps / 100;
/** `part` of `whole` as a percentage with two decimals, floored (0 when `whole` is 0). */
const share = (part: bigint, whole: bigint): number => (whole === 0n ? 0 : Number((part * 10_000n) / whole) / 100);

/** Sources and uses the treasury always reports, at zero until something moves. */
const INFLOW_SOURCES = ['blockRewards', 'taskFees'] as const;
const OUTFLOW_USES = ['spends'] as const;

function byName(known: readonly string[], amounts: Record<string, bigint>, s: GovernanceStyle): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of known) out[k] = s.amount(amounts[k] ?? 0n);
  for (const k of Object.keys(amounts).sort()) if (!(k in out)) out[k] = s.amount(amounts[k]!);
  return out;
}

export class GovernanceQueries {
  constructor(
    private readonly module: GovernanceModule,
    private readonly chain: Chain,
    private readonly keeper: GovernanceQueriesKeeper,
  ) {}

  /** A proposal by id. */
  proposal(id: number): ProposalRecord | undefined {
    return this.module.proposal(id);
  }

  /** Every proposal, newest first. */
  proposals(): ProposalRecord[] {
    return this.module.proposals();
  }

  /** Proposals in their deposit or voting period, oldest first. */
  activeProposals(): ProposalRecord[] {
    return this.module.activeProposals();
  }

  depositsOf(id: number): DepositRecord[] {
    return this.module.depositsOf(id);
  }

  votesOf(id: number): VoteRecord[] {
    return this.module.votesOf(id);
  }

  /** The running tally with the stake bonded now; undefined outside the voting period. */
  runningTally(p: ProposalRecord): { result: TallyResult; voted: bigint; bonded: bigint } | undefined {
    return this.module.runningTally(p);
  }

  /** The governance rules in force (deposit, quorum, thresholds). */
  get rules(): GovernanceParams {
    return this.module.params.governance;
  }

  /** The current value of a governable parameter (`<module>.<key>`), as an integer. */
  paramValue(name: string): bigint {
    return this.module.params.value(name);
  }

  /** Parameter changes passed and waiting for their epoch. */
  pendingChanges(): readonly PendingChange[] {
    return this.module.global.pendingChanges;
  }

  /** The treasury's accounts and the spends passed and not paid in full. */
  treasury(): TreasuryAccounts {
    return this.module.treasury();
  }

  /** The governance events of the committed block at `height` (none once a later block committed). */
  blockEvents(height: number): ProposalEvent[] {
    return this.module.lastBlockEvents.filter((e) => e.height === height);
  }

  // ---- views ----

  /** A proposal as lists show it: everything but its description. */
  proposalSummary(p: ProposalRecord, s: GovernanceStyle) {
    const rules = this.rules;
    const q = (n: number | undefined): string | number | null => (n === undefined ? null : s.quantity(n));
    return {
      id: p.id,
      kind: p.content.kind,
      title: p.title,
      proposer: checksum(p.proposer),
      status: p.status,
      content: this.contentView(p.content, s),
      submitBlock: s.quantity(p.submitHeight),
      submitTime: s.quantity(p.submitTime),
      depositEndTime: s.quantity(p.depositEndTime),
      totalDeposit: s.amount(p.totalDeposit),
      minDeposit: s.amount(rules.minDeposit),
      depositors: p.depositors,
      votingStartBlock: q(p.votingStartHeight),
      votingStartTime: q(p.votingStartTime),
      votingEndTime: q(p.votingEndTime),
      tally: this.tallyView(p, s),
      rules: { quorum: percent(rules.quorumBps), threshold: percent(rules.thresholdBps), vetoThreshold: percent(rules.vetoThresholdBps) },
      voters: p.voters,
      finalBlock: q(p.finalHeight),
      finalTime: q(p.finalTime),
      deposits: p.deposits ?? null,
      execution: p.execution
        ? {
            block: s.quantity(p.execution.height),
            result: p.execution.result,
            detail: p.execution.detail,
            appliesAtEpoch: p.execution.appliesAtEpoch === undefined ? null : s.quantity(p.execution.appliesAtEpoch),
          }
        : null,
    };
  }

  /** A proposal in full (svc_getProposal, /governance/proposals/{id}). */
  proposalView(p: ProposalRecord, s: GovernanceStyle) {
    return { ...this.proposalSummary(p, s), description: p.description };
  }

  /** Every governable parameter: its value now, its range and unit, and the passed changes waiting for their epoch. */
  paramsView(s: GovernanceStyle) {
    const head = this.chain.head().number;
    const pending = this.pendingChanges();
    return {
      blockNumber: s.quantity(head),
      epoch: s.quantity(this.keeper.epochOf(head)),
      params: governable.map((g) => {
        const name = `${g.module}.${g.key}`;
        return {
          name,
          value: s.amount(this.paramValue(name)),
          min: s.amount(g.min),
          max: s.amount(g.max),
          unit: g.unit,
          pending: pending.flatMap((c) =>
            c.changes.filter((x) => x.name === name).map((x) => ({ proposalId: c.proposalId, value: s.amount(x.value), appliesAtEpoch: s.quantity(c.appliesAtEpoch) })),
          ),
        };
      }),
    };
  }

  /**
   * The treasury at the head: its account's balance (what eth_getBalance answers at that block), where
   * its tokens came from and went, and the spends passed and not paid in full.
   */
  treasuryView(s: GovernanceStyle) {
    const head = this.chain.head().number;
    const address = Buffer.from(system.treasuryAddress.slice(2), 'hex');
    const t = this.treasury();
    return {
      address: checksum(system.treasuryAddress),
      balance: s.amount(this.chain.getAccount(address, head).balance),
      inflows: byName(INFLOW_SOURCES, t.inflows, s),
      totalInflows: s.amount(t.totalInflows),
      outflows: byName(OUTFLOW_USES, t.outflows, s),
      totalOutflows: s.amount(t.totalOutflows),
      pendingSpends: t.pendingSpends.map((p) => ({
        proposalId: p.proposalId,
        recipient: checksum(p.recipient),
        amount: s.amount(p.amount),
        paid: s.amount(p.paid),
        parts: p.parts,
        partsPaid: p.partsPaid,
        nextEpoch: s.quantity(p.nextEpoch),
      })),
      pendingSpendsTotal: s.amount(t.pendingSpendsTotal),
      spendsPaid: t.spendsPaid,
      blockNumber: s.quantity(head),
    };
  }

  /** What a proposal would do, with each changed parameter's current value beside the new one. */
  private contentView(c: ProposalContent, s: GovernanceStyle): Record<string, unknown> {
    switch (c.kind) {
      case 'parameter-change':
        return {
          changes: c.changes.map((x) => {
            const g = governableParam(x.name);
            return {
              name: x.name,
              currentValue: g ? s.amount(this.paramValue(x.name)) : null,
              newValue: s.amount(x.value),
              unit: g?.unit ?? null,
            };
          }),
        };
      case 'model-approval': {
        const m = c.model;
        return {
          modelId: m.modelId,
          tier: m.tier,
          dims: m.dims,
          weights: { sha256: `0x${m.weights.sha256}`, size: m.weights.size },
          tokenizer: { sha256: `0x${m.tokenizer.sha256}`, size: m.tokenizer.size },
        };
      }
      case 'model-retirement':
        return { modelId: c.modelId };
      case 'treasury-spend':
        return { recipient: checksum(c.spend.recipient), amount: s.amount(c.spend.amount), vestingEpochs: c.spend.vestingEpochs };
      case 'text':
        return {};
    }
  }

  /** Stake behind each option, the share of each among the votes cast, and the turnout (votes cast of the stake bonded). */
  private tallyView(p: ProposalRecord, s: GovernanceStyle): Record<string, unknown> {
    let result: TallyResult;
    let bonded: bigint | null;
    if (p.tally) {
      result = p.tally;
      bonded = p.bondedAtTally ?? null;
    } else {
      const running = this.runningTally(p);
      result = running?.result ?? { yes: 0n, abstain: 0n, no: 0n, noWithVeto: 0n };
      bonded = running?.bonded ?? null;
    }
    const voted = result.yes + result.abstain + result.no + result.noWithVeto;
    return {
      yes: s.amount(result.yes),
      abstain: s.amount(result.abstain),
      no: s.amount(result.no),
      noWithVeto: s.amount(result.noWithVeto),
      totalVoted: s.amount(voted),
      bonded: bonded === null ? null : s.amount(bonded),
      final: p.tally !== undefined,
      percentages: { yes: share(result.yes, voted), abstain: share(result.abstain, voted), no: share(result.no, voted), noWithVeto: share(result.noWithVeto, voted) },
      turnout: bonded === null ? null : share(voted, bonded),
    };
  }
}

export function voteView(v: VoteRecord, s: GovernanceStyle) {
  return { voter: checksum(v.voter), option: v.option, block: s.quantity(v.height) };
}

export function depositView(d: DepositRecord, s: GovernanceStyle) {
  return { depositor: checksum(d.depositor), amount: s.amount(d.amount) };
}

/** The fields of events' details that hold an address (a title that looks like one stays as written). */
const ADDRESS_FIELDS: ReadonlySet<string> = new Set(['proposer', 'depositor', 'voter', 'recipient']);

/** A value of an event's detail as the edge writes it: amounts and values through the style, addresses checksummed, the rest as is. */
function detailValue(key: string, v: unknown, s: GovernanceStyle): unknown {
  if (typeof v === 'bigint') return s.amount(v);
  if (typeof v === 'string' && ADDRESS_FIELDS.has(key)) return checksum(v);
  if (typeof v === 'number' && (key === 'votingEndTime' || key === 'epoch')) return s.quantity(v);
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, detailValue(k, x, s)]));
  }
  return v;
}

/** One governance event of a committed block (the svcProposals subscription, the proposals room). */
export function proposalEventView(e: ProposalEvent, s: GovernanceStyle) {
  const fixed = { event: e.type, proposalId: e.proposalId, status: e.status, blockNumber: s.quantity(e.height) };
  // The event's own fields last, so that no detail can stand in for them.
  return Object.assign({ event: e.type }, detailValue('', e.detail, s) as Record<string, unknown>, fixed);
}

