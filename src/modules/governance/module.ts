// The governance system module (Cosmos SDK x/gov v1 semantics; docs/governance.md). Transactions
// to params.system.governanceAddress submit proposals with a deposit, add deposits and vote
// (abi/governance.json; each an EVM log). At block boundaries, driven only by block time and
// height: proposals whose deposit period ended without the minimum deposit expire; proposals whose
// voting period ended are tallied by bonded stake (tally.ts) and, when passed, executed: parameter
// changes are queued for the next epoch and applied at its first block (live-params.ts), models are
// approved or retired in the compute module's registry, treasury spends are paid from the treasury
// account (at once or in parts over epochs). The module also keeps the treasury's accounts: every
// move into or out of the treasury account, by the module that made it.
// Records live under "governance/" in the module account's storage (store.ts).
import { readFileSync } from 'node:fs';
import { encodeFunctionResult, type Abi, type Hex } from 'viem';
import type { BalanceMove, Chain, ModuleLog, RecordWrite } from '../../native/index.js';
import { isModuleAccount, system, type GovernanceParams } from '../../params.js';
import {
  abiEvents,
  addressBuffer,
  moduleLog,
  runDecided,
  type BlockContext,
  type BlockInfo,
  type Decision,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import type { LiveParams } from './live-params.js';
import { GovernanceStore } from './store.js';
import { decide, tallyVotes, type TallyStake } from './tally.js';
import {
  VOTE_OPTIONS,
  type Address,
  type DepositRecord,
  type GovernanceGlobal,
  type ModelApproval,
  type ModelTierName,
  type ParamChange,
  type PendingSpend,
  type ProposalContent,
  type ProposalEvent,
  type ProposalRecord,
  type TallyResult,
  type VoteRecord,
} from './types.js';

export const GOVERNANCE_ABI = JSON.parse(readFileSync(new URL('../../../../abi/governance.json', import.meta.url), 'utf8')) as Abi;

const GOVERNANCE: Address = system.governanceAddress as Address;
const TREASURY: Address = system.treasuryAddress as Address;

/**
 * Why a treasury spend cannot pay `recipient` (lower case); null when it can. Asked when the
 * proposal is submitted and again when it is carried out: the zero address, the treasury itself
 * and every other system module's account (params.moduleAccounts: each balance is what its
 * module's records owe) are refused.
 */
export function spendRecipientProblem(recipient: string): string | null {
  const to = recipient.toLowerCase();
  if (/^0x0{40}$/.test(to)) return 'the recipient is the zero address';
  if (to === TREASURY) return 'the recipient is the treasury itself';
  if (isModuleAccount(to)) return `the recipient ${to} is a system module's account`;
  return null;
}
const EVENTS = abiEvents(GOVERNANCE_ABI);
const hexToBuffer = (h: Hex): Buffer => Buffer.from(h.slice(2), 'hex');
const MODEL_ID = /^[a-z0-9][a-z0-9-]{0,62}@v[0-9]{1,4}\.[0-9]{1,4}$/;
const TIERS: readonly ModelTierName[] = ['Hot', 'Warm', 'Cold'];
/** Largest model file a proposal may pin (16 GiB). */
const MAX_FILE_BYTES = 16 * 1024 ** 3;

const log = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);

/** What governance reads of and does to the compute module's model registry. */
export interface ModelsKeeper {
  approveModel(m: ModelApproval, height: number, proposalId: number): void;
  retirementProblem(modelId: string): string | null;
  retireModel(modelId: string, refusedFromHeight: number, proposalId: number): void;
}

/** Where a treasury inflow came from, by the module that moved it. */
function inflowSource(module: string): string {
  if (module === 'staking') return 'blockRewards';
  if (module === 'compute') return 'taskFees';
  return module;
}


export class GovernanceModule implements SystemModule {
  readonly name = 'governance';
  readonly address: Address = GOVERNANCE;
  readonly abi: Abi = GOVERNANCE_ABI;
  /** The governance events of the last block committed. */
  lastBlockEvents: ProposalEvent[] = [];
  private building: ProposalEvent[] = [];
  private readonly store: GovernanceStore;
  private stake: TallyStake | undefined;
  private models: ModelsKeeper | undefined;

  constructor(
    chain: Chain,
    private readonly live: LiveParams,
  ) {
    this.store = new GovernanceStore(chain);
    this.live.reset(this.store.global.params, this.store.global.epochAnchor);
  }

  private get rules(): GovernanceParams {
    return this.live.governance;
  }

  /** Wires the keepers: bonded stake for tallies, the compute module's model registry. */
  setKeepers(stake: TallyStake, models: ModelsKeeper): void {
    this.stake = stake;
    this.models = models;
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
    const treasury = addressBuffer(TREASURY);
    const t = this.store.global.treasury;
    let changed = false;
    for (const m of moves) {
      if (m.amount <= 0n) continue;
      if (m.to?.equals(treasury)) {
        const source = inflowSource(module);
        t.inflows[source] = (t.inflows[source] ?? 0n) + m.amount;
        changed = true;
      }
      if (m.from?.equals(treasury)) {
        t.outflows[module] = (t.outflows[module] ?? 0n) + m.amount;
        changed = true;
      }
    }
    if (changed) this.store.saveGlobal();
  }

  /** Start of a block: parameter changes due from this epoch apply (before any other module's hook reads them). */
  beginBlock(block: BlockInfo): HookResult {
    const g = this.store.global;
    const due = g.pendingChanges.filter((c) => c.appliesAtEpoch <= block.epoch);
    if (due.length === 0) return { moves: [], minted: 0n, burned: 0n };
    g.pendingChanges = g.pendingChanges.filter((c) => c.appliesAtEpoch > block.epoch);
    for (const change of due) {
      const problem = this.live.check(change.changes);
      const p = this.store.proposal(change.proposalId);
      if (problem !== null) {
        if (p) {
          p.execution = { height: block.height, result: 'failed', detail: `not applied at epoch ${block.epoch}: ${problem}`, appliesAtEpoch: change.appliesAtEpoch };
          this.store.saveProposal(p);
        }
        this.event('executed', change.proposalId, block.height, p?.status ?? 'passed', { result: 'failed', reason: problem });
        continue;
      }
      for (const c of change.changes) {
        const old = this.live.value(c.name);
        g.params[c.name] = c.value;
        if (c.name === 'staking.epochLengthBlocks') g.epochAnchor = { height: block.height, epoch: block.epoch };
        this.live.reset(g.params, g.epochAnchor);
        this.event('param-changed', change.proposalId, block.height, p?.status ?? 'passed', { name: c.name, oldValue: old, newValue: c.value, epoch: block.epoch });
      }
    }
    this.store.saveGlobal();
    return { moves: [], minted: 0n, burned: 0n };
  }

  /** End of a block: deposit periods and voting periods that ended, then the treasury spends due. */
  endBlock(block: BlockInfo): HookResult {
    const result: HookResult = { moves: [], minted: 0n, burned: 0n };
    const g = this.store.global;
    for (const id of [...g.active].sort((a, b) => a - b)) {
      const p = this.store.proposals.get(id)!;
      if (p.status === 'deposit-period' && block.now >= p.depositEndTime) {
        this.finish(p, 'expired', this.rules.burnDepositsOnExpiry === 1, block, result);
      } else if (p.status === 'voting-period' && block.now >= p.votingEndTime!) {
        const t = decide(tallyVotes(this.store.votesOf(id), this.tallyStake()), this.rules);
        p.tally = t.result;
        p.bondedAtTally = t.bonded;
        this.finish(p, t.outcome, t.burn, block, result);
        if (t.outcome === 'passed') this.carryOut(p, block);
      }
    }
    this.paySpends(block, result);
    return result;
  }

  /** A proposal leaves its deposit or voting period: its deposits are refunded or burned. */
  private finish(p: ProposalRecord, status: ProposalRecord['status'], burn: boolean, block: BlockInfo, result: HookResult): void {
    const g = this.store.global;
    const deposits = this.store.depositsOf(p.id);
    const total = deposits.reduce((a, d) => a + d.amount, 0n);
    if (total !== p.totalDeposit) throw new Error(`governance: proposal ${p.id} holds ${total} in deposits, its record says ${p.totalDeposit}`);
    if (burn) {
      if (total > 0n) result.moves.push({ from: addressBuffer(GOVERNANCE), amount: total });
      result.burned += total;
      g.depositsBurned += total;
    } else {
      for (const d of deposits) if (d.amount > 0n) result.moves.push({ from: addressBuffer(GOVERNANCE), to: addressBuffer(d.depositor), amount: d.amount });
      g.depositsRefunded += total;
    }
    g.depositsHeld -= total;
    g.active = g.active.filter((x) => x !== p.id);
    p.status = status;
    p.deposits = burn ? 'burned' : 'refunded';
    p.finalHeight = block.height;
    p.finalTime = block.now;
    this.store.saveProposal(p);
    this.store.saveGlobal();
    this.event(status === 'expired' ? 'expired' : 'finished', p.id, block.height, status, {
      deposits: p.deposits,
      depositTotal: total,
      ...(p.tally ? { tally: p.tally, bonded: p.bondedAtTally } : {}),
    });
  }

  /** A passed proposal's content is carried out (or, where the state no longer allows it, recorded as failed). */
  private carryOut(p: ProposalRecord, block: BlockInfo): void {
    const g = this.store.global;
    const c = p.content;
    let detail: string;
    let failed: string | null = null;
    let appliesAtEpoch: number | undefined;
    switch (c.kind) {
      case 'parameter-change': {
        failed = this.live.check(c.changes, g.pendingChanges.flatMap((x) => x.changes));
        appliesAtEpoch = block.epoch + 1;
        if (failed === null) g.pendingChanges.push({ proposalId: p.id, appliesAtEpoch, changes: c.changes });
        detail = `${c.changes.map((x) => `${x.name} = ${x.value}`).join(', ')} from epoch ${appliesAtEpoch}`;
        break;
      }
      case 'model-approval':
        this.models!.approveModel(c.model, block.height, p.id);
        detail = `${c.model.modelId} approved (tier ${c.model.tier}, ${c.model.dims} dims)`;
        break;
      case 'model-retirement': {
        failed = this.models!.retirementProblem(c.modelId);
        const from = block.height + this.rules.modelRetirementGraceBlocks + 1;
        if (failed === null) this.models!.retireModel(c.modelId, from, p.id);
        detail = `${c.modelId} retired: proofs refused from block ${from}`;
        break;
      }
      case 'treasury-spend': {
        const s = c.spend;
        const parts = Math.max(1, s.vestingEpochs);
        failed = spendRecipientProblem(s.recipient);
        if (failed === null) g.pendingSpends.push({ proposalId: p.id, recipient: s.recipient, amount: s.amount, paid: 0n, parts, partsPaid: 0, nextEpoch: s.vestingEpochs === 0 ? block.epoch : block.epoch + 1 });
        detail = s.vestingEpochs === 0 ? `${s.amount} wei to ${s.recipient}` : `${s.amount} wei to ${s.recipient} in ${parts} parts, one per epoch from epoch ${block.epoch + 1}`;
        break;
      }
      case 'text':
        detail = 'signalling only';
        break;
    }
    p.execution = failed === null
      ? { height: block.height, result: 'applied', detail, ...(appliesAtEpoch !== undefined ? { appliesAtEpoch } : {}) }
      : { height: block.height, result: 'failed', detail: failed };
    this.store.saveProposal(p);
    this.store.saveGlobal();
    this.event('executed', p.id, block.height, p.status, { result: p.execution.result, detail: p.execution.detail });
  }

  /** Parts of treasury spends due at this block's epoch, paid while the treasury holds them (a part it cannot pay waits). */
  private paySpends(block: BlockInfo, result: HookResult): void {
    const g = this.store.global;
    if (g.pendingSpends.length === 0) return;
    const left: PendingSpend[] = [];
    for (const s of g.pendingSpends) {
      if (s.nextEpoch > block.epoch) {
        left.push(s);
        continue;
      }
      const part = s.partsPaid === s.parts - 1 ? s.amount - s.paid : s.amount / BigInt(s.parts);
      if (part > this.treasuryBalance()) {
        left.push(s);
        continue;
      }
      if (part > 0n) result.moves.push({ from: addressBuffer(TREASURY), to: addressBuffer(s.recipient), amount: part });
      g.treasury.outflows.spends = (g.treasury.outflows.spends ?? 0n) + part;
      s.paid += part;
      s.partsPaid += 1;
      s.nextEpoch = block.epoch + 1;
      const p = this.store.proposal(s.proposalId);
      this.event('spend-paid', s.proposalId, block.height, p?.status ?? 'passed', { recipient: s.recipient, amount: part, paid: s.paid, total: s.amount, part: s.partsPaid, parts: s.parts });
      if (s.partsPaid < s.parts) left.push(s);
      else g.treasury.spendsPaid += 1;
    }
    g.pendingSpends = left;
    this.store.saveGlobal();
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return this.run(tx, ctx, true);
  }

  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return this.run(call, ctx, false);
  }

  private run(call: ModuleCall, ctx: BlockContext, apply: boolean): ModuleOutcome {
    const gas = this.rules.gas;
    return runDecided(
      this.name,
      GOVERNANCE_ABI,
      call,
      apply,
      (name, isView) => (isView ? gas.view : name === 'deposit' ? gas.deposit : name === 'vote' ? gas.vote : gas.submit),
      (name, args) => this.decide(call, name, args, ctx),
    );
  }

  private decide(call: ModuleCall, name: string, args: readonly unknown[], ctx: BlockContext): Decision {
    const encode = (result: unknown): Buffer => hexToBuffer(encodeFunctionResult({ abi: GOVERNANCE_ABI, functionName: name, result } as never));
    const view = (result: unknown): Decision => ({ ok: true, returnData: encode(result), logs: [], apply: () => {} });
    const from = call.from;
    switch (name) {
      case 'submitParameterChange': {
        const [title, description, names, values] = args as [string, string, readonly string[], readonly bigint[]];
        if (names.length !== values.length) return { ok: false, reason: `${names.length} names and ${values.length} values` };
        if (names.length === 0) return { ok: false, reason: 'a parameter change needs at least one change' };
        if (names.length > this.rules.maxChangesPerProposal) return { ok: false, reason: `${names.length} changes, limit ${this.rules.maxChangesPerProposal}` };
        const changes: ParamChange[] = names.map((n, i) => ({ name: n, value: values[i]! }));
        const problem = this.live.check(changes, this.store.global.pendingChanges.flatMap((x) => x.changes));
        if (problem !== null) return { ok: false, reason: problem };
        return this.submit(from, call.value, title, description, { kind: 'parameter-change', changes }, ctx, encode);
      }
      case 'submitModelApproval': {
        const [title, description, modelId, tier, dims, weightsSha256, weightsSize, tokenizerSha256, tokenizerSize] = args as [
          string, string, string, string, number, Hex, bigint, Hex, bigint,
        ];
        if (!MODEL_ID.test(modelId)) return { ok: false, reason: `model id ${JSON.stringify(modelId)} is not <name>@v<major>.<minor> (lower-case name)` };
        if (!TIERS.includes(tier as ModelTierName)) return { ok: false, reason: `tier must be Hot, Warm or Cold, got ${JSON.stringify(tier)}` };
        if (dims < 1 || dims > 4096) return { ok: false, reason: `dims must lie in [1, 4096], got ${dims}` };
        const zero = /^0x0{64}$/;
        if (zero.test(weightsSha256) || zero.test(tokenizerSha256)) return { ok: false, reason: 'a file digest of zero pins nothing' };
        for (const [what, size] of [['weights', weightsSize], ['tokenizer', tokenizerSize]] as const) {
          if (size < 1n || size > BigInt(MAX_FILE_BYTES)) return { ok: false, reason: `${what} size must lie in [1, ${MAX_FILE_BYTES}] bytes, got ${size}` };
        }
        const model: ModelApproval = {
          modelId,
          tier: tier as ModelTierName,
          dims,
          weights: { sha256: weightsSha256.slice(2).toLowerCase(), size: Number(weightsSize) },
          tokenizer: { sha256: tokenizerSha256.slice(2).toLowerCase(), size: Number(tokenizerSize) },
        };
        return this.submit(from, call.value, title, description, { kind: 'model-approval', model }, ctx, encode);
      }
      case 'submitModelRetirement': {
        const [title, description, modelId] = args as [string, string, string];
        const problem = this.models?.retirementProblem(modelId) ?? null;
        if (problem !== null) return { ok: false, reason: problem };
        return this.submit(from, call.value, title, description, { kind: 'model-retirement', modelId }, ctx, encode);
      }
      case 'submitTreasurySpend': {
        const [title, description, recipient, amount, vestingEpochs] = args as [string, string, string, bigint, number];
        if (amount === 0n) return { ok: false, reason: 'a spend of zero' };
        if (vestingEpochs > this.rules.maxVestingEpochs) return { ok: false, reason: `vesting over ${vestingEpochs} epochs, limit ${this.rules.maxVestingEpochs}` };
        const to = recipient.toLowerCase() as Address;
        const refused = spendRecipientProblem(to);
        if (refused !== null) return { ok: false, reason: refused };
        return this.submit(from, call.value, title, description, { kind: 'treasury-spend', spend: { recipient: to, amount, vestingEpochs } }, ctx, encode);
      }
      case 'submitText': {
        const [title, description] = args as [string, string];
        return this.submit(from, call.value, title, description, { kind: 'text' }, ctx, encode);
      }
      case 'deposit': {
        const p = this.activeProposal(args[0] as bigint);
        if (typeof p === 'string') return { ok: false, reason: p };
        if (call.value === 0n) return { ok: false, reason: 'a deposit of zero' };
        return {
          ok: true,
          returnData: Buffer.alloc(0),
          logs: this.depositLogs(p, from, call.value, ctx),
          apply: () => this.addDeposit(p, from, call.value, ctx),
        };
      }
      case 'vote': {
        const id = args[0] as bigint;
        const option = args[1] as number;
        const p = this.activeProposal(id);
        if (typeof p === 'string') return { ok: false, reason: p };
        if (p.status !== 'voting-period') return { ok: false, reason: `proposal ${p.id} is in its deposit period: votes open once it holds the minimum deposit` };
        if (option < 1 || option > 4) return { ok: false, reason: `option must be 1 (yes), 2 (abstain), 3 (no) or 4 (no with veto), got ${option}` };
        return {
          ok: true,
          returnData: Buffer.alloc(0),
          logs: [log('Voted', { proposalId: BigInt(p.id), voter: from }, [{ type: 'uint8', value: option }])],
          apply: () => {
            const votes = this.store.votes.get(p.id)!;
            if (!votes.has(from)) p.voters += 1;
            const v: VoteRecord = { proposalId: p.id, voter: from, option: VOTE_OPTIONS[option - 1]!, height: ctx.height };
            this.store.saveVote(v);
            this.store.saveProposal(p);
            this.event('vote', p.id, ctx.height, p.status, { voter: from, option: v.option });
          },
        };
      }
      case 'getProposal': {
        const p = this.proposalById(args[0] as bigint);
        if (!p) return { ok: false, reason: 'proposal not found' };
        return view([p.content.kind, p.status, p.proposer, p.totalDeposit, BigInt(p.submitTime), BigInt(p.depositEndTime), BigInt(p.votingStartTime ?? 0), BigInt(p.votingEndTime ?? 0)]);
      }
      case 'getTally': {
        const p = this.proposalById(args[0] as bigint);
        if (!p) return { ok: false, reason: 'proposal not found' };
        const t = this.tallyOf(p);
        return view([t.yes, t.abstain, t.no, t.noWithVeto]);
      }
      case 'getVote': {
        const p = this.proposalById(args[0] as bigint);
        if (!p) return { ok: false, reason: 'proposal not found' };
        const voter = (args[1] as string).toLowerCase();
        const v = this.store.votesOf(p.id).find((x) => x.voter === voter);
        return view(v ? VOTE_OPTIONS.indexOf(v.option) + 1 : 0);
      }
      case 'getTreasury': {
        const t = this.treasury();
        return view([t.balance, t.totalInflows, t.totalOutflows, t.pendingSpendsTotal]);
      }
      default:
        return { ok: false, reason: `unknown function ${name}` };
    }
  }

  private submit(
    from: Address,
    value: bigint,
    title: string,
    description: string,
    content: ProposalContent,
    ctx: BlockContext,
    encode: (r: unknown) => Buffer,
  ): Decision {
    const rules = this.rules;
    const g = this.store.global;
    if (title.trim().length === 0) return { ok: false, reason: 'the title is empty' };
    if ([...title].length > rules.maxTitleChars) return { ok: false, reason: `title of ${[...title].length} characters, limit ${rules.maxTitleChars}` };
    if ([...description].length > rules.maxDescriptionChars) return { ok: false, reason: `description of ${[...description].length} characters, limit ${rules.maxDescriptionChars}` };
    if (g.active.length >= rules.maxActiveProposals) return { ok: false, reason: `${g.active.length} proposals are open, limit ${rules.maxActiveProposals}` };
    const id = g.nextProposalId;
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
    if (value > 0n) logs.push(...this.depositLogs(p, from, value, ctx));
    return {
      ok: true,
      returnData: encode(BigInt(id)),
      logs,
      apply: () => {
        g.nextProposalId += 1;
        g.active.push(id);
        this.store.saveProposal(p);
        this.store.saveGlobal();
        this.event('submitted', id, ctx.height, p.status, { proposer: from, kind: content.kind, title });
        if (value > 0n) this.addDeposit(p, from, value, ctx);
      },
    };
  }

  private depositLogs(p: ProposalRecord, from: Address, value: bigint, ctx: BlockContext): ModuleLog[] {
    const total = p.totalDeposit + value;
    const logs = [log('ProposalDeposit', { proposalId: BigInt(p.id), depositor: from }, [{ type: 'uint256', value }, { type: 'uint256', value: total }])];
    if (p.status === 'deposit-period' && total >= this.rules.minDeposit) {
      logs.push(log('VotingPeriodStarted', { proposalId: BigInt(p.id) }, [{ type: 'uint64', value: BigInt(ctx.now + this.rules.votingPeriodSeconds) }]));
    }
    return logs;
  }

  private addDeposit(p: ProposalRecord, from: Address, value: bigint, ctx: BlockContext): void {
    const g = this.store.global;
    const existing = this.store.deposits.get(p.id)?.get(from);
    const d: DepositRecord = { proposalId: p.id, depositor: from, amount: (existing?.amount ?? 0n) + value };
    if (!existing) p.depositors += 1;
    p.totalDeposit += value;
    g.depositsHeld += value;
    this.store.saveDeposit(d);
    this.event('deposit', p.id, ctx.height, p.status, { depositor: from, amount: value, totalDeposit: p.totalDeposit });
    if (p.status === 'deposit-period' && p.totalDeposit >= this.rules.minDeposit) {
      p.status = 'voting-period';
      p.votingStartHeight = ctx.height;
      p.votingStartTime = ctx.now;
      p.votingEndTime = ctx.now + this.rules.votingPeriodSeconds;
      this.event('voting-started', p.id, ctx.height, p.status, { votingEndTime: p.votingEndTime });
    }
    this.store.saveProposal(p);
    this.store.saveGlobal();
  }

  private activeProposal(id: bigint): ProposalRecord | string {
    const p = this.proposalById(id);
    if (!p) return `proposal ${id} not found`;
    if (p.status !== 'deposit-period' && p.status !== 'voting-period') return `proposal ${id} is ${p.status}`;
    return this.store.proposals.get(p.id)!;
  }

  private proposalById(id: bigint): ProposalRecord | undefined {
    return id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? this.store.proposal(Number(id)) : undefined;
  }

  private event(type: ProposalEvent['type'], proposalId: number, height: number, status: ProposalRecord['status'], detail: Record<string, unknown>): void {
    this.building.push({ type, proposalId, height, status, detail });
  }

  private tallyStake(): TallyStake {
    if (!this.stake) throw new Error('governance: the staking keeper is not wired');
    return this.stake;
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
    if (p.tally) return p.tally;
    if (p.status !== 'voting-period' || !this.stake) return { yes: 0n, abstain: 0n, no: 0n, noWithVeto: 0n };
    return tallyVotes(this.store.votesOf(p.id), this.stake).result;
  }

  /** The running tally with the stake bonded now (what the quorum would be measured against). */
  runningTally(p: ProposalRecord): { result: TallyResult; voted: bigint; bonded: bigint } | undefined {
    if (p.status !== 'voting-period' || !this.stake) return undefined;
    return tallyVotes(this.store.votesOf(p.id), this.stake);
  }

  /** Governance's own global record (parameters changed, pending changes and spends, deposit totals). */
  get global(): Readonly<GovernanceGlobal> {
    return this.store.global;
  }

  /** The treasury's accounts: balance = inflows - outflows. */
  treasury(): {
    balance: bigint;
    inflows: Record<string, bigint>;
    outflows: Record<string, bigint>;
    totalInflows: bigint;
    totalOutflows: bigint;
    pendingSpends: PendingSpend[];
    pendingSpendsTotal: bigint;
    spendsPaid: number;
  } {
    const t = this.store.global.treasury;
    const totalInflows = Object.values(t.inflows).reduce((a, b) => a + b, 0n);
    const totalOutflows = Object.values(t.outflows).reduce((a, b) => a + b, 0n);
    const pendingSpends = this.store.global.pendingSpends;
    return {
      balance: totalInflows - totalOutflows,
      inflows: { ...t.inflows },
      outflows: { ...t.outflows },
      totalInflows,
      totalOutflows,
      pendingSpends: pendingSpends.map((s) => ({ ...s })),
      pendingSpendsTotal: pendingSpends.reduce((a, s) => a + (s.amount - s.paid), 0n),
      spendsPaid: t.spendsPaid,
    };
  }

  /** inflows - outflows, without the copies treasury() makes for readers. */
  private treasuryBalance(): bigint {
    const t = this.store.global.treasury;
    let balance = 0n;
    for (const v of Object.values(t.inflows)) balance += v;
    for (const v of Object.values(t.outflows)) balance -= v;
    return balance;
  }

  /** The live parameters (what every rule reads now). */
  get params(): LiveParams {
    return this.live;
  }
}
