// svc_* methods of governance and the treasury: the open proposals (svc_getParameterProposals), one
// proposal in full (svc_getProposal), the governable parameters (svc_getGovernanceParams) and the
// treasury's accounts (svc_getTreasuryInfo). Shapes: docs/rpc.md (Governance); the views are shared
// with the explorer (src/modules/governance/queries.ts).
import { ACTIVE_STATUSES, PROPOSAL_KINDS, proposalEventView, type GovernanceStyle } from '../../modules/governance/queries.js';
import type { ProposalEvent, ProposalKind, ProposalStatus } from '../../modules/governance/types.js';
import { clip, NotFoundError } from '../errors.js';
import { toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable } from '../method.js';
import { InvalidValueError, parseUint64 } from '../validate.js';

/** JSON-RPC's way of writing the shared views' numbers: 0x quantities. */
const RPC_STYLE: GovernanceStyle = { amount: toQuantity, quantity: toQuantity };

/** A governance event as the svcProposals subscription sends it. */
export const rpcProposalEventView = (e: ProposalEvent) => proposalEventView(e, RPC_STYLE);

/** A proposal id: a JSON integer or a 0x quantity, at most 2^64 - 1. */
export function parseProposalId(value: unknown): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new InvalidValueError(`proposal id must be a non-negative integer, got ${value}`);
    return BigInt(value);
  }
  if (typeof value === 'string') return parseUint64(value);
  throw new InvalidValueError(`expected a proposal id (integer or 0x quantity), got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`);
}

interface ProposalFilter {
  status?: ProposalStatus;
  kind?: ProposalKind;
}

/** `{status?, kind?}`: status one of the open ones (finished proposals are listed by the explorer), kind one of the five. */
function parseProposalFilter(value: unknown): ProposalFilter {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidValueError('expected an object such as {"status": "voting-period"}');
  const o = value as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => k !== 'status' && k !== 'kind');
  if (unknown !== undefined) throw new InvalidValueError(`unknown member "${clip(unknown)}" (only "status" and "kind" are accepted)`);
  const filter: ProposalFilter = {};
  if (o.status !== undefined && o.status !== null) {
    if (!(ACTIVE_STATUSES as readonly unknown[]).includes(o.status)) {
      throw new InvalidValueError(`status: must be ${ACTIVE_STATUSES.join(' or ')} (finished proposals: svc_getProposal, or the explorer's /governance/proposals)`);
    }
    filter.status = o.status as ProposalStatus;
  }
  if (o.kind !== undefined && o.kind !== null) {
    if (!(PROPOSAL_KINDS as readonly unknown[]).includes(o.kind)) throw new InvalidValueError(`kind: must be one of ${PROPOSAL_KINDS.join(', ')}`);
    filter.kind = o.kind as ProposalKind;
  }
  return filter;
}

export const governanceMethods: MethodTable = {
  svc_getParameterProposals: method([optional(parseProposalFilter)], (ctx, [filter]) =>
    ctx.services.queries.governance
      .activeProposals()
      .filter((p) => (filter?.status === undefined || p.status === filter.status) && (filter?.kind === undefined || p.content.kind === filter.kind))
      .map((p) => ctx.services.queries.governance.proposalView(p, RPC_STYLE)),
  ),

  svc_getProposal: method([required(parseProposalId)], (ctx, [id]) => {
    const p = id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? ctx.services.queries.governance.proposal(Number(id)) : undefined;
    if (!p) throw new NotFoundError(`proposal ${id} not found`);
    return ctx.services.queries.governance.proposalView(p, RPC_STYLE);
  }),

  svc_getGovernanceParams: method([], (ctx) => ctx.services.queries.governance.paramsView(RPC_STYLE)),

  svc_getTreasuryInfo: method([], (ctx) => ctx.services.queries.governance.treasuryView(RPC_STYLE)),
};
