// Governance: proposals with their votes and deposits, the governable parameters, and the treasury
// (docs/governance.md for the rules, docs/explorer.md for the shapes).
import { object, pageParams, pageSchema, routes, type Api, type FromSchema } from '../schema.js';

const proposalId = {
  name: 'id',
  in: 'path',
  description: 'proposal id (1, 2, ...)',
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'a positive proposal id' },
} as const;

const amount = { type: 'string', description: 'wei, decimal' } as const;
const integerOrNull = { type: ['integer', 'null'] } as const;
const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const unit = { type: 'string', enum: ['bps', 'wei', 'seconds', 'blocks', 'epochs', 'count', 'flag', 'gas'] } as const;
const file = object({ sha256: { type: 'string', description: '0x-prefixed SHA-256' }, size: { type: 'integer', description: 'bytes' } });

const tallySchema = object({
  yes: amount,
  abstain: amount,
  no: amount,
  noWithVeto: amount,
  totalVoted: amount,
  bonded: { type: ['string', 'null'], description: 'stake bonded at the tally (running: now); null before the vote' },
  final: { type: 'boolean' },
  percentages: object({ yes: { type: 'number' }, abstain: { type: 'number' }, no: { type: 'number' }, noWithVeto: { type: 'number' } }),
  turnout: { type: ['number', 'null'], description: 'percent of the bonded stake that voted' },
});

/** What a proposal would do, by its kind. */
const contentSchema = {
  description: 'parameter-change: {changes}; model-approval: {modelId, tier, dims, weights, tokenizer}; model-retirement: {modelId}; treasury-spend: {recipient, amount, vestingEpochs}; text: {}',
  anyOf: [
    object({ changes: { type: 'array', items: object({ name: str, currentValue: { type: ['string', 'null'] }, newValue: str, unit: { ...unit, type: ['string', 'null'], enum: [...unit.enum, null] } }) } }, [], 'parameter-change'),
    object({ modelId: str, tier: str, dims: int, weights: file, tokenizer: file }, [], 'model-approval'),
    object({ modelId: str }, [], 'model-retirement'),
    object({ recipient: str, amount, vestingEpochs: int }, [], 'treasury-spend'),
    object({}, [], 'text'),
  ],
} as const;

export const proposalSchema = object(
  {
    id: int,
    kind: { type: 'string', enum: ['parameter-change', 'model-approval', 'model-retirement', 'treasury-spend', 'text'] },
    title: str,
    description: { type: 'string', description: 'the full view only' },
    proposer: str,
    status: { type: 'string', enum: ['deposit-period', 'voting-period', 'passed', 'rejected', 'vetoed', 'no-quorum', 'expired'] },
    content: contentSchema,
    submitBlock: int,
    submitTime: { type: 'integer', description: 'block time, Unix seconds' },
    depositEndTime: int,
    totalDeposit: amount,
    minDeposit: amount,
    depositors: int,
    votingStartBlock: integerOrNull,
    votingStartTime: integerOrNull,
    votingEndTime: integerOrNull,
    tally: tallySchema,
    rules: object({ quorum: { type: 'number' }, threshold: { type: 'number' }, vetoThreshold: { type: 'number' } }),
    voters: int,
    finalBlock: integerOrNull,
    finalTime: integerOrNull,
    deposits: { type: ['string', 'null'], enum: ['refunded', 'burned', null] },
    execution: {
      oneOf: [object({ block: int, result: str, detail: str, appliesAtEpoch: integerOrNull }), { type: 'null' }],
    },
  },
  ['description'],
);
export type Proposal = FromSchema<typeof proposalSchema>;

export const voteSchema = object({ voter: str, option: { type: 'string', enum: ['yes', 'abstain', 'no', 'no-with-veto'] }, block: int });
export type ProposalVote = FromSchema<typeof voteSchema>;

export const depositSchema = object({ depositor: str, amount });
export type ProposalDeposit = FromSchema<typeof depositSchema>;

export const governanceParamsSchema = object({
  blockNumber: int,
  epoch: int,
  params: {
    type: 'array',
    items: object({
      name: { type: 'string', description: '<module>.<key>' },
      value: str,
      min: str,
      max: str,
      unit,
      pending: { type: 'array', items: object({ proposalId: int, value: str, appliesAtEpoch: int }) },
    }),
  },
});
export type GovernanceParams = FromSchema<typeof governanceParamsSchema>;

export const treasurySchema = object({
  address: str,
  balance: amount,
  inflows: { type: 'object', description: 'wei by source: blockRewards, taskFees', additionalProperties: amount },
  totalInflows: amount,
  outflows: { type: 'object', description: 'wei by use: spends', additionalProperties: amount },
  totalOutflows: amount,
  pendingSpends: {
    type: 'array',
    items: object({ proposalId: int, recipient: str, amount, paid: amount, parts: int, partsPaid: int, nextEpoch: int }),
  },
  pendingSpendsTotal: amount,
  spendsPaid: int,
  blockNumber: int,
});
export type Treasury = FromSchema<typeof treasurySchema>;

export const governanceRouteDefs = routes([
  {
    id: 'listProposals',
    method: 'GET',
    path: '/governance/proposals',
    category: 'Governance',
    summary: 'Governance proposals of every kind, newest first (keyset-paginated), without their descriptions; filter by status and kind.',
    auth: 'public',
    params: [
      ...pageParams,
      {
        name: 'status',
        in: 'query',
        description: 'deposit-period, voting-period, passed, rejected, vetoed, no-quorum or expired',
        schema: { type: 'string', enum: ['deposit-period', 'voting-period', 'passed', 'rejected', 'vetoed', 'no-quorum', 'expired'] },
      },
      {
        name: 'kind',
        in: 'query',
        description: 'parameter-change, model-approval, model-retirement, treasury-spend or text',
        schema: { type: 'string', enum: ['parameter-change', 'model-approval', 'model-retirement', 'treasury-spend', 'text'] },
      },
    ],
    response: pageSchema(proposalSchema),
  },
  {
    id: 'getProposal',
    method: 'GET',
    path: '/governance/proposals/{id}',
    category: 'Governance',
    summary: 'One proposal in full: content (changes with current and new values, model, spend), deposit and voting periods, tally with percentages, rules, what became of the deposits, execution.',
    auth: 'public',
    params: [proposalId],
    response: proposalSchema,
  },
  {
    id: 'getProposalVotes',
    method: 'GET',
    path: '/governance/proposals/{id}/votes',
    category: 'Governance',
    summary: "A proposal's votes (voter, option, block), newest first (keyset-paginated); a voter's last vote counts.",
    auth: 'public',
    params: [proposalId, ...pageParams],
    response: pageSchema(voteSchema),
  },
  {
    id: 'getProposalDeposits',
    method: 'GET',
    path: '/governance/proposals/{id}/deposits',
    category: 'Governance',
    summary: "A proposal's deposits (depositor, amount), largest first (keyset-paginated).",
    auth: 'public',
    params: [proposalId, ...pageParams],
    response: pageSchema(depositSchema),
  },
  {
    id: 'getGovernanceParams',
    method: 'GET',
    path: '/governance/params',
    category: 'Governance',
    summary: 'Every governable parameter: current value, range, unit, and the passed changes waiting for their epoch.',
    auth: 'public',
    response: governanceParamsSchema,
  },
  {
    id: 'getTreasury',
    method: 'GET',
    path: '/treasury',
    category: 'Governance',
    summary: 'The treasury: balance, inflows by source, outflows by use, spends waiting to be paid, spends paid.',
    auth: 'public',
    response: treasurySchema,
  },
]);

export type GovernanceApi = Api<typeof governanceRouteDefs>;
