// What governance's messages (messages.ts) and block hooks (hooks.ts) share: the module's records,
// the live parameters, its keepers, its proposal kinds and the events of the block being built.
// The module (module.ts) builds it once and hands it to both.
import type { GovernanceKeepers } from './keepers.js';
import type { LiveParams } from './live-params.js';
import type { ProposalEnv, ProposalRouter } from './proposals.js';
import type { GovernanceStore } from './store.js';
import type { ProposalEvent, ProposalRecord } from './types.js';

export interface GovernanceContext {
  readonly store: GovernanceStore;
  readonly live: LiveParams;
  readonly keepers: GovernanceKeepers;
  readonly router: ProposalRouter;
  /** What the proposal kinds' handlers read and change. */
  readonly env: ProposalEnv;
  /** Records an event of the block being built. */
  event(type: ProposalEvent['type'], proposalId: number, height: number, status: ProposalRecord['status'], detail: Record<string, unknown>): void;
}
