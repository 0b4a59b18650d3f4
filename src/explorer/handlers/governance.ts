// Governance: proposals (every one, newest first, filtered by status and kind), one proposal in
// full, its votes and deposits, the governable parameters, and the treasury. The same facts as the
// svc_* governance methods (src/rpc/svc/governance.ts), in the explorer's style: amounts and
// parameter values as decimal strings, heights, times and epochs as integers, addresses checksummed.
import {
  depositView,
  governanceParamsView,
  proposalEventView,
  proposalSummary,
  proposalView,
  treasuryView,
  voteView,
  type GovernanceStyle,
} from '../../governance/views.js';
import type { ProposalEvent, ProposalRecord } from '../../modules/governance/types.js';
import type { ExplorerServices, Handler, Schema } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { decodeCursor, listPage, PAGE } from '../pagination.js';
import { be } from '../store.js';

/** The explorer's way of writing the shared views' numbers: decimal strings for amounts, integers otherwise. */
const EXPLORER_STYLE: GovernanceStyle = { amount: (v) => v.toString(), quantity: (n) => n };

/** A governance event as the proposals room of the live feed sends it. */
export const explorerProposalEventView = (e: ProposalEvent): Record<string, unknown> => proposalEventView(e, EXPLORER_STYLE);

const amount: Schema = { type: 'string', description: 'wei, decimal' };
const integerOrNull: Schema = { type: ['integer', 'null'] };

const tallySchema: Schema = {
  type: 'object',
  properties: {
    yes: amount,
    abstain: amount,
    no: amount,
    noWithVeto: amount,
    totalVoted: amount,
    bonded: { type: ['string', 'null'], description: 'stake bonded at the tally (running: now); null before the vote' },
    final: { type: 'boolean' },
    percentages: {
      type: 'object',
      properties: { yes: { type: 'number' }, abstain: { type: 'number' }, no: { type: 'number' }, noWithVeto: { type: 'number' } },
    },
    turnout: { type: ['number', 'null'], description: 'percent of the bonded stake that voted' },
  },
};

export const proposalSchema: Schema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    kind: { type: 'string', enum: ['parameter-change', 'model-approval', 'model-retirement', 'treasury-spend', 'text'] },
    title: { type: 'string' },
    description: { type: 'string', description: 'the full view only' },
    proposer: { type: 'string' },
    status: { type: 'string', enum: ['deposit-period', 'voting-period', 'passed', 'rejected', 'vetoed', 'no-quorum', 'expired'] },
    content: {
      type: 'object',
      description:
        'parameter-change: {changes: [{name, currentValue, newValue, unit}]}; model-approval: {modelId, tier, dims, weights, tokenizer}; model-retirement: {modelId}; treasury-spend: {recipient, amount, vestingEpochs}; text: {}',
    },
    submitBlock: { type: 'integer' },
    submitTime: { type: 'integer', description: 'block time, Unix seconds' },
    depositEndTime: { type: 'integer' },
    totalDeposit: amount,
    minDeposit: amount,
    depositors: { type: 'integer' },
    votingStartBlock: integerOrNull,
    votingStartTime: integerOrNull,
    votingEndTime: integerOrNull,
    tally: tallySchema,
    rules: { type: 'object', properties: { quorum: { type: 'number' }, threshold: { type: 'number' }, vetoThreshold: { type: 'number' } } },
    voters: { type: 'integer' },
    finalBlock: integerOrNull,
    finalTime: integerOrNull,
    deposits: { type: ['string', 'null'], enum: ['refunded', 'burned', null] },
    execution: { type: ['object', 'null'] },
  },
};

export const voteSchema: Schema = {
  type: 'object',
  properties: { voter: { type: 'string' }, option: { type: 'string', enum: ['yes', 'abstain', 'no', 'no-with-veto'] }, block: { type: 'integer' } },
};

export const depositSchema: Schema = { type: 'object', properties: { depositor: { type: 'string' }, amount } };

export const governanceParamsSchema: Schema = {
  type: 'object',
  properties: {
    blockNumber: { type: 'integer' },
    epoch: { type: 'integer' },
    params: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: '<module>.<key>' },
          value: { type: 'string' },
          min: { type: 'string' },
          max: { type: 'string' },
          unit: { type: 'string', enum: ['bps', 'wei', 'seconds', 'blocks', 'epochs', 'count', 'flag', 'gas'] },
          pending: { type: 'array', items: { type: 'object', properties: { proposalId: { type: 'integer' }, value: { type: 'string' }, appliesAtEpoch: { type: 'integer' } } } },
        },
      },
    },
  },
};

export const treasurySchema: Schema = {
  type: 'object',
  properties: {
    address: { type: 'string' },
    balance: amount,
    inflows: { type: 'object', description: 'wei by source: blockRewards, taskFees', additionalProperties: amount },
    totalInflows: amount,
    outflows: { type: 'object', description: 'wei by use: spends', additionalProperties: amount },
    totalOutflows: amount,
    pendingSpends: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          proposalId: { type: 'integer' },
          recipient: { type: 'string' },
          amount,
          paid: amount,
          parts: { type: 'integer' },
          partsPaid: { type: 'integer' },
          nextEpoch: { type: 'integer' },
        },
      },
    },
    pendingSpendsTotal: amount,
    spendsPaid: { type: 'integer' },
    blockNumber: { type: 'integer' },
  },
};

function proposalOrThrow(services: ExplorerServices, id: number): ProposalRecord {
  const p = id > 0 ? services.node.app.governance.proposal(id) : undefined;
  if (!p) throw new NotFoundError(`proposal ${id} not found`);
  return p;
}

const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;

export const governanceHandlers: Record<string, Handler> = {
  listProposals: ({ query }, services) => {
    const gov = services.node.app.governance;
    const list = gov
      .proposals()
      .filter((p) => (query.status === undefined || p.status === query.status) && (query.kind === undefined || p.content.kind === query.kind))
      .map((p) => ({ key: be(p.id, 8), value: p }));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 8, (e) => proposalSummary(services.node, e.value, EXPLORER_STYLE));
  },

  getProposal: ({ params }, services) => proposalView(services.node, proposalOrThrow(services, params.id as number), EXPLORER_STYLE),

  getProposalVotes: ({ params, query }, services) => {
    const p = proposalOrThrow(services, params.id as number);
    // Newest first: by block, then by voter.
    const list = services.node.app.governance
      .votesOf(p.id)
      .map((v) => ({ key: Buffer.concat([be(v.height, 8), Buffer.from(v.voter.slice(2), 'hex')]), value: v }))
      .sort((a, b) => b.key.compare(a.key));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 28, (e) => voteView(e.value, EXPLORER_STYLE));
  },

  getProposalDeposits: ({ params, query }, services) => {
    const p = proposalOrThrow(services, params.id as number);
    // Largest first, then by depositor.
    const list = services.node.app.governance
      .depositsOf(p.id)
      .map((d) => ({ key: Buffer.concat([be(d.amount, 32), Buffer.from(d.depositor.slice(2), 'hex')]), value: d }))
      .sort((a, b) => b.key.compare(a.key));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 52, (e) => depositView(e.value, EXPLORER_STYLE));
  },

  getGovernanceParams: (_input, services) => governanceParamsView(services.node, EXPLORER_STYLE),

  getTreasury: (_input, services) => treasuryView(services.node, EXPLORER_STYLE),
};
