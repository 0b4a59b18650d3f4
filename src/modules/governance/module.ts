// The governance system module (Cosmos SDK x/gov v1 semantics; docs/governance.md). Transactions
// to params.system.governanceAddress submit proposals with a deposit, add deposits and vote
// (abi/governance.json; each an EVM log). At block boundaries, driven only by block time and
// height: proposals whose deposit period ended without the minimum deposit expire; proposals whose
// voting period ended are tallied by bonded stake and, when passed, executed: parameter changes
// are queued for the next epoch and applied at its first block (live-params.ts), models are
// approved or retired in the compute module's registry, treasury spends are paid from the treasury
// account (at once or in parts over epochs). The module also keeps the treasury's accounts.
//
// The folder: messages.ts (its calls), hooks.ts (begin and end block), proposals.ts (the proposal
// kinds, each a registered handler), treasury.ts (the treasury's books), keepers.ts (what it reads
// of staking and compute), store.ts, types.ts, genesis.ts, params.ts, queries.ts; this file wires
// them into the SystemModule. Records live under "governance/" in the module account's storage.
import type { Abi } from 'viem';
import type { BalanceMove, Chain, RecordWrite } from '../../native/index.js';
import { system, type GovernanceParams } from '../../params.js';
import type { BlockContext, BlockInfo, HookResult, ModuleCall, ModuleOutcome, ModuleTx, SystemModule } from '../kernel/module.js';
import type { GovernanceContext } from './context.js';
import { governanceBeginBlock, governanceEndBlock } from './hooks.js';
import type { GovernanceKeepers } from './keepers.js';
import type { LiveParams } from './live-params.js';
import { GOVERNANCE_ABI, runGovernanceCall } from './messages.js';
import { governanceProposals, type ProposalEnv, type ProposalRouter } from './proposals.js';
import { GovernanceStore } from './store.js';
import { currentTally, tallyVotes } from './tally.js';
import { recordTreasuryMoves, treasuryAccounts, type TreasuryStatement } from './treasury.js';
import type { Address, DepositRecord, GovernanceGlobal, ProposalEvent, ProposalRecord, TallyResult, VoteRecord } from './types.js';

export { GOVERNANCE_ABI } from './messages.js';
export { spendRecipientProblem } from './treasury.js';
export type { GovernanceKeepers, ModelsKeeper } from './keepers.js';

const GOVERNANCE: Address = system.governanceAddress as Address;

export class GovernanceModule implements SystemModule {
  readonly name = 'governance';
  readonly address: Address = GOVERNANCE;
  readonly abi: Abi = GOVERNANCE_ABI;
  /** The governance events of the last block committed. */
  lastBlockEvents: ProposalEvent[] = [];
  private building: ProposalEvent[] = [];
  private readonly store: GovernanceStore;
  private readonly ctx: GovernanceContext;

  constructor(
    chain: Chain,
    private readonly live: LiveParams,
    private readonly keepers: GovernanceKeepers,
    /** The proposal kinds it takes (every kind governance has, unless given). */
    router: ProposalRouter = governanceProposals(),
  ) {
    const store = new GovernanceStore(chain);
    this.store = store;
    this.live.reset(store.global.params, store.global.epochAnchor);
    const env: ProposalEnv = {
      live,
      get rules(): GovernanceParams {
        return live.governance;
      },
      get global(): GovernanceGlobal {
        return store.global;
      },
      models: () => keepers.models(),
    };
    this.ctx = {
      store,
      live,
      keepers,
      router,
      env,
      event: (type, proposalId, height, status, detail) => this.building.push({ type, proposalId, height, status, detail }),
    };
  }

  // ---- the kernel's hooks ----

  reload(chain: Chain): void {
    this.store.reload(chain);
    this.live.reset(this.store.global.params, this.store.global.epochAnchor);
    this.building = [];
  }

  takeWrites(): RecordWrite[] {
    return this.store.takeWrites();
  }

  committed(): void {
    this.lastBlockEvents = this.building;
    this.building = [];
  }

  /**
   * Every balance move a module made (its hooks and its transactions), as the kernel hands them
   * over: moves into or out of the treasury account are the treasury's inflows and outflows.
   * Governance's own spends are counted where it pays them.
   */
  observeMoves(module: string, moves: readonly BalanceMove[]): void {
    if (module === this.name) return;
    recordTreasuryMoves(this.store, module, moves);
  }

  beginBlock(block: BlockInfo): HookResult {
    return governanceBeginBlock(this.ctx, block);
  }

  endBlock(block: BlockInfo): HookResult {
    return governanceEndBlock(this.ctx, block);
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return runGovernanceCall(this.ctx, tx, ctx, true);
  }

  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return runGovernanceCall(this.ctx, call, ctx, false);
  }

  // ---- reads ----

  /** A proposal by id. */
  proposal(id: number): ProposalRecord | undefined {
    return this.store.proposal(id);
  }

  /** Every proposal, newest first. */
  proposals(): ProposalRecord[] {
    return this.store.allProposals();
  }

  /** Proposals in their deposit or voting period, oldest first. */
  activeProposals(): ProposalRecord[] {
    return [...this.store.proposals.values()].sort((a, b) => a.id - b.id);
  }

  depositsOf(id: number): DepositRecord[] {
    return this.store.depositsOf(id);
  }

  votesOf(id: number): VoteRecord[] {
    return this.store.votesOf(id);
  }

  /** The final tally of a finished proposal, the running tally of one being voted, zeros before the vote. */
  tallyOf(p: ProposalRecord): TallyResult {
    return currentTally(p, (id) => this.store.votesOf(id), this.keepers.stake);
  }

  /** The running tally with the stake bonded now (what the quorum would be measured against). */
  runningTally(p: ProposalRecord): { result: TallyResult; voted: bigint; bonded: bigint } | undefined {
    if (p.status !== 'voting-period') return undefined;
    return tallyVotes(this.store.votesOf(p.id), this.keepers.stake);
  }

  /** Governance's own global record (parameters changed, pending changes and spends, deposit totals). */
  get global(): Readonly<GovernanceGlobal> {
    return this.store.global;
  }

  /** The treasury's accounts: balance = inflows - outflows. */
  treasury(): TreasuryStatement {
    return treasuryAccounts(this.store.global);
  }

  /** The live parameters (what every rule reads now). */
  get params(): LiveParams {
    return this.live;
  }
}
