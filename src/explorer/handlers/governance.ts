// Governance: proposals (every one, newest first, filtered by status and kind), one proposal in
// full, its votes and deposits, the governable parameters, and the treasury. The same facts as the
// svc_* governance methods (src/rpc/svc/governance.ts), in the explorer's style: amounts and
// parameter values as decimal strings, heights, times and epochs as integers, addresses checksummed.
import { depositView, proposalEventView, voteView, type GovernanceStyle } from '../../modules/governance/queries.js';
import type { ProposalEvent, ProposalRecord } from '../../modules/governance/types.js';
import { routeModule, type ExplorerServices, type Handlers } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { decodeCursor, listPage, PAGE } from '../pagination.js';
import { be } from '../store.js';
import { governanceRouteDefs, type GovernanceParams, type Proposal, type ProposalDeposit, type ProposalVote, type Treasury } from '../routes/governance.js';

/** The explorer's way of writing the shared views' numbers: decimal strings for amounts, integers otherwise. */
const EXPLORER_STYLE: GovernanceStyle = { amount: (v) => v.toString(), quantity: (n) => n };

/** A governance event as the proposals room of the live feed sends it. */
export const explorerProposalEventView = (e: ProposalEvent): Record<string, unknown> => proposalEventView(e, EXPLORER_STYLE);

function proposalOrThrow(services: ExplorerServices, id: number): ProposalRecord {
  const p = id > 0 ? services.node.queries.governance.proposal(id) : undefined;
  if (!p) throw new NotFoundError(`proposal ${id} not found`);
  return p;
}

const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;

/**
 * The module's views written in EXPLORER_STYLE (quantities as integers) have the route's types; the
 * shared views type a quantity as either style's, so the explorer names the one its style gives.
 */
const inExplorerStyle = <T>(view: unknown): T => view as T;

export const governanceHandlers: Handlers<typeof governanceRouteDefs> = {
  listProposals: ({ query }, services) => {
    const gov = services.node.queries.governance;
    const list = gov
      .proposals()
      .filter((p) => (query.status === undefined || p.status === query.status) && (query.kind === undefined || p.content.kind === query.kind))
      .map((p) => ({ key: be(p.id, 8), value: p }));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 8, (e) => inExplorerStyle<Proposal>(gov.proposalSummary(e.value, EXPLORER_STYLE)));
  },

  getProposal: ({ params }, services) => inExplorerStyle<Proposal>(services.node.queries.governance.proposalView(proposalOrThrow(services, params.id as number), EXPLORER_STYLE)),

  getProposalVotes: ({ params, query }, services) => {
    const p = proposalOrThrow(services, params.id as number);
    // Newest first: by block, then by voter.
    const list = services.node.queries.governance
      .votesOf(p.id)
      .map((v) => ({ key: Buffer.concat([be(v.height, 8), Buffer.from(v.voter.slice(2), 'hex')]), value: v }))
      .sort((a, b) => b.key.compare(a.key));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 28, (e) => inExplorerStyle<ProposalVote>(voteView(e.value, EXPLORER_STYLE)));
  },

  getProposalDeposits: ({ params, query }, services) => {
    const p = proposalOrThrow(services, params.id as number);
    // Largest first, then by depositor.
    const list = services.node.queries.governance
      .depositsOf(p.id)
      .map((d) => ({ key: Buffer.concat([be(d.amount, 32), Buffer.from(d.depositor.slice(2), 'hex')]), value: d }))
      .sort((a, b) => b.key.compare(a.key));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 52, (e) => inExplorerStyle<ProposalDeposit>(depositView(e.value, EXPLORER_STYLE)));
  },

  getGovernanceParams: (_input, services) => inExplorerStyle<GovernanceParams>(services.node.queries.governance.paramsView(EXPLORER_STYLE)),

  getTreasury: (_input, services) => inExplorerStyle<Treasury>(services.node.queries.governance.treasuryView(EXPLORER_STYLE)),
};

export const governanceRoutes = routeModule(governanceRouteDefs, governanceHandlers);
