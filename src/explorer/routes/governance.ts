// Governance: proposals with their votes and deposits, the governable parameters, and the treasury
// (docs/governance.md for the rules, docs/explorer.md for the shapes).
import type { ParamDef, RouteDef, RouteModule } from '../definition.js';
import { depositSchema, governanceHandlers, governanceParamsSchema, proposalSchema, treasurySchema, voteSchema } from '../handlers/governance.js';
import { pageParams, pageSchema } from '../validate.js';

const proposalId: ParamDef = {
  name: 'id',
  in: 'path',
  description: 'proposal id (1, 2, ...)',
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'a positive proposal id' },
};

const definitions: RouteDef[] = [
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
];

export const governanceRoutes: RouteModule = { definitions, handlers: governanceHandlers };
