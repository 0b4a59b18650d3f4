// Governance's part of the genesis: no proposal, no parameter changed (every rule starts at its
// genesis value: params.ts, or what the node was started with), an empty treasury. The genesis file
// sets nothing of governance's; its global record is written by the first block that changes it.
import type { GovernanceGlobal } from './types.js';

/** Governance's global record at genesis. */
export function emptyGlobal(): GovernanceGlobal {
  return {
    nextProposalId: 1,
    active: [],
    params: {},
    pendingChanges: [],
    pendingSpends: [],
    treasury: { inflows: {}, outflows: {}, spendsPaid: 0 },
    depositsHeld: 0n,
    depositsBurned: 0n,
    depositsRefunded: 0n,
  };
}
