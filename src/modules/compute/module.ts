// The compute system module: miners and their registrations, inference tasks (public ones paid
// through transactions to params.system.computeAddress, challenge ones drawn by the coordinator),
// proofs, spot-checks, proof-of-work shares, and the rewards of all of it. This file is the
// SystemModule: it wires the calls (messages.ts: submitTask, getTask, decided through the kernel's
// one call path), the hook entry points, the keepers (keepers.ts) and the reads other code calls.
// Consensus state lives in the chain's app column family under "compute/" (store.ts) and changes
// only inside a block: transactions to the module, and the block
// hooks (hooks.ts) that apply what the node queued (queues.ts: registrations, proofs, shares,
// spot-check verdicts and validators' signed compute-mode announcements, each verified before it was
// queued and checked again against the state when applied). views.ts derives hashrates and scores.
// docs/compute.md describes the rules.
import type { Abi } from 'viem';
import type { Chain, RecordWrite } from '../../native/index.js';
import { system, type ComputeParams } from '../../params.js';
import {
  gasCost,
  runDecided,
  type BlockContext,
  type BlockInfo,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import { ComputeHooks } from './hooks.js';
import { ComputeQueues, emptyTaken, type QueuedProof, type QueuedRegistration, type QueuedShare, type QueuedVerdict, type TakenQueues } from './queues.js';
import { ComputeStore } from './store.js';
import { announceComputeMode, announcedComputeMode } from './announce.js';
import { checkMessages, COMPUTE_ABI, decideComputeCall, messagesOf, takenOf, verifyMessages } from './messages.js';
import { encodeMessage, type ModuleMessage } from '../kernel/messages.js';
import {
  type Address,
  type ApprovedModelRecord,
  type ComputeGlobal,
  type ComputeMode,
  type MinerRecord,
  type PenaltyDue,
  type ProofRecord,
  type TaskRecord,
  type ValidatorComputeRecord,
  type ValidatorComputeView,
} from './types.js';
import { ComputeViews } from './views.js';
import { hexOf, type GpuTierName, type Hex } from './wire.js';

export { COMPUTE_ABI, publicTaskId } from './messages.js';
export type { ComputeKeepers, StakingKeeper } from './keepers.js';
import type { ComputeKeepers } from './keepers.js';

const COMPUTE: Address = system.computeAddress;

/** What the compute module did in a block, for subscribers. */
export interface ComputeBlockEvents {
  height: number;
  accepted: ProofRecord[];
  decided: ProofRecord[];
}

export class ComputeModule implements SystemModule {
  readonly name = 'compute';
  readonly address: Address = COMPUTE;
  readonly abi: Abi = COMPUTE_ABI;
  /** The compute events of the last block committed (proofs accepted, spot-checks decided). */
  lastBlockEvents: ComputeBlockEvents | undefined;
  /** Events of the block being built, published by committed(). */
  private building: ComputeBlockEvents | undefined;
  /** The compute messages of the block being built, by kind: what its hooks apply. */
  private taken: TakenQueues | null = null;
  /** What this node took from its queues for the block it proposed (given back if that block fails). */
  private proposed: TakenQueues | null = null;
  /** What the block being executed removed from the queues (given back by reload() if it fails). */
  private discarded: TakenQueues | null = null;
  /** Where submissions go on a network (see useOutbox). */
  private outbox: ((message: Buffer) => void) | undefined;
  /** The compute mode this node announces in the blocks it proposes (recorded for its validator by the chain). */
  private announcedMode: ComputeMode | undefined;
  private readonly store: ComputeStore;
  private readonly queues = new ComputeQueues();
  private readonly views: ComputeViews;
  private readonly hooks: ComputeHooks;
  /** Tier and output size of every model in the registry (kept in step with it by syncModels()). */
  private readonly tiers = new Map<string, GpuTierName>();
  private readonly dims = new Map<string, number>();

  private constructor(
    private readonly chain: Chain,
    readonly params: ComputeParams,
    private readonly keepers: ComputeKeepers,
  ) {
    this.store = new ComputeStore(chain, params);
    this.views = new ComputeViews(this.store, params);
    this.hooks = new ComputeHooks(this.store, this.views, params, this.tiers);
    this.syncModels();
  }

  /** The tier and dims maps from the registry in the store. */
  private syncModels(): void {
    this.tiers.clear();
    this.dims.clear();
    for (const m of Object.values(this.store.global.registry ?? {})) {
      this.tiers.set(m.id, m.tier);
      this.dims.set(m.id, m.dims);
    }
  }

  static load(chain: Chain, params: ComputeParams, keepers: ComputeKeepers): ComputeModule {
    return new ComputeModule(chain, params, keepers);
  }

  // ---- the kernel's hooks ----

  /** Throws away what was applied since the last commit (a block that failed); what this node proposed from its queues goes back. */
  reload(chain: Chain): void {
    this.store.reload(chain);
    this.syncModels();
    if (this.proposed) this.queues.restore(this.proposed);
    if (this.discarded) this.queues.restore(this.discarded);
    this.proposed = null;
    this.discarded = null;
    this.taken = null;
    this.building = undefined;
  }

  /** The next block's share of the node's queues, as system messages (given back by reload() if the block fails). */
  proposeMessages(): ModuleMessage[] {
    if (this.proposed) this.queues.restore(this.proposed);
    this.proposed = this.queues.take(this.params);
    return messagesOf(this.proposed);
  }

  /**
   * A miner's registration or proof, a share, or a validator's compute-mode announcement, from the
   * network's mempool; verdicts are only ever their proposer's.
   */
  queueMessage(message: ModuleMessage): string | null {
    const taken = takenOf([message]);
    if (taken.verdicts.length > 0) return 'a spot-check verdict is carried by the proposer that decided it, not sent to the mempool';
    if (this.queues.holds(taken)) return 'already queued';
    const head = this.chain.head();
    for (const s of taken.shares) {
      const problem = this.hooks.shareProblem(s, hexOf(head.hash));
      if (problem !== null) return problem;
    }
    for (const m of taken.modes) {
      // As the next block would judge it.
      const problem = this.hooks.modeProblem(m, head.number + 1, this.consensusKeyOf);
      if (problem !== null) return `compute-mode announcement refused: ${problem}`;
      const queued = this.queues.queuedMode(m.validator);
      if (queued && queued.height > m.height) return `compute-mode announcement refused: a newer one of ${m.validator} (height ${queued.height}) is queued`;
    }
    for (const r of taken.registrations) this.queues.queueRegistration(r);
    for (const p of taken.proofs) this.queues.queueProof(p);
    for (const s of taken.shares) this.queues.queueShare(s);
    for (const m of taken.modes) this.queues.queueMode(m);
    return null;
  }

  /** The consensus key of a validator's staking record. */
  private readonly consensusKeyOf = (address: Address): string | undefined => this.keepers.staking.consensusKeyOf(address);

  isQueued(message: ModuleMessage): boolean {
    return this.queues.holds(takenOf([message]));
  }

  checkMessages(messages: readonly ModuleMessage[]): string | null {
    return checkMessages(messages, this.params);
  }

  /** Another proposer's messages: the signatures they carry (see messages.ts). */
  verifyMessages(messages: readonly ModuleMessage[], chainId: number): Promise<string | null> {
    return verifyMessages(messages, chainId);
  }

  /** The block's compute messages: what its hooks apply (registrations, proofs, shares, verdicts, mode announcements). */
  deliverMessages(messages: readonly ModuleMessage[]): void {
    this.taken = takenOf(messages);
    // The block may be another proposer's: what this node proposed goes back, then what the block
    // carries leaves the queues (kept aside until the block commits, in case it fails).
    if (this.proposed) this.queues.restore(this.proposed);
    this.proposed = null;
    this.discarded = this.queues.discard(this.taken);
  }

  /** Records changed since the last call, as the block's writes (no value: deleted), sorted by key. */
  takeWrites(): RecordWrite[] {
    return this.store.takeWrites();
  }

  /** After a commit: proofs no longer needed by the hooks leave the cache (they are on disk). */
  committed(): void {
    this.store.committed();
    this.proposed = null;
    this.discarded = null;
    this.taken = null;
    if (this.building) this.lastBlockEvents = this.building;
    this.building = undefined;
  }

  /** Start of a block: see ComputeHooks.openBlock(). */
  beginBlock(block: BlockInfo): HookResult {
    this.dropRetired(block.height);
    return { moves: this.hooks.openBlock(block), minted: 0n, burned: 0n };
  }

  /** Announce `mode` in the blocks this node proposes from now on. */
  announceComputeMode(mode: ComputeMode): void {
    this.announcedMode = mode;
  }

  /** A block this node proposes announces its compute mode in the header's extra data (announce.ts). */
  proposerExtraData(extraData: Buffer): Buffer {
    return announceComputeMode(extraData, this.announcedMode);
  }

  // ---- the model registry (changed by governance proposals, at block boundaries) ----

  /**
   * Approves a model (or pins other files for one already approved): its proofs are accepted from
   * the next block on, and its files' pins are what nodes and miners load it by. Called by the
   * governance module when an approval proposal passes.
   */
  approveModel(m: { modelId: string; tier: GpuTierName; dims: number; weights: { sha256: string; size: number }; tokenizer: { sha256: string; size: number } }, height: number, proposalId: number): void {
    const g = this.store.global;
    const registry = (g.registry ??= {});
    registry[m.modelId] = {
      id: m.modelId,
      tier: m.tier,
      dims: m.dims,
      files: { weights: { ...m.weights }, tokenizer: { ...m.tokenizer } },
      approvedAtHeight: height,
      approvedBy: proposalId,
    };
    if (!g.approvedModels.includes(m.modelId)) g.approvedModels.push(m.modelId);
    this.store.saveGlobal();
    this.syncModels();
  }

  /** Why the model cannot be retired (not approved, or retiring already); null when it can. */
  retirementProblem(modelId: string): string | null {
    const r = this.store.global.registry?.[modelId];
    if (!r || !this.store.isApproved(modelId)) return `model ${modelId} is not approved`;
    if (r.refusedFromHeight !== undefined) return `model ${modelId} is retiring already (proofs refused from block ${r.refusedFromHeight})`;
    return null;
  }

  /** Retires a model: its proofs are refused from `refusedFromHeight` on (the grace period lets miners finish what they hold). */
  retireModel(modelId: string, refusedFromHeight: number, proposalId: number): void {
    const r = this.store.global.registry?.[modelId];
    if (!r) throw new Error(`retiring ${modelId}, which is not in the registry`);
    r.refusedFromHeight = refusedFromHeight;
    r.retiredBy = proposalId;
    this.store.saveGlobal();
  }

  /** Models whose grace period ended leave the approved list (their proofs and public tasks are refused from here). */
  private dropRetired(height: number): void {
    const g = this.store.global;
    const due = g.approvedModels.filter((id) => {
      const at = g.registry?.[id]?.refusedFromHeight;
      return at !== undefined && at <= height;
    });
    if (due.length === 0) return;
    g.approvedModels = g.approvedModels.filter((id) => !due.includes(id));
    this.store.saveGlobal();
  }

  /** The model registry: approved, retiring and retired models, by id. */
  modelRegistry(): ApprovedModelRecord[] {
    return Object.values(this.store.global.registry ?? {}).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /** End of a block: see ComputeHooks.closeBlock(); mints and pays the miners' share staking decided. */
  endBlock(block: BlockInfo): HookResult {
    const taken = this.taken ?? emptyTaken();
    const share = this.keepers.staking.minersShare(block.height);
    const end = this.hooks.closeBlock(block, taken, share, block.proposer, announcedComputeMode(block.extraData), this.consensusKeyOf);
    this.building = { height: block.height, accepted: end.accepted, decided: end.decided };
    return { moves: end.moves, minted: end.minted, burned: 0n };
  }

  // ---- keepers ----

  /**
   * The staking penalties the previous block's failed spot-checks ordered, taken for the block being
   * built (it applies them). They are module state: a block that fails leaves them to its retry, and
   * a restart keeps them.
   */
  takePenaltiesDue(): (PenaltyDue & { reason: string })[] {
    const g = this.store.global;
    const due = g.penaltiesDue ?? [];
    if (due.length === 0) return [];
    g.penaltiesDue = [];
    this.store.saveGlobal();
    return due.map((d) => ({
      ...d,
      reason: `spot-check failure: proof ${d.proofs[0]}${d.proofs.length > 1 ? ` and ${d.proofs.length - 1} more` : ''} (block ${d.infractionHeight})`,
    }));
  }

  /** Miners with an accepted proof in the score window, not jailed at `now` (see ComputeViews). */
  minersWithRecentProofs(epoch: number, now: number): number {
    return this.views.minersWithRecentProofs(epoch, now);
  }

  /** Compute views of validators: mode, hashrate, inference score, and their score parts. */
  computeViews(addresses: readonly Address[], epoch: number): Map<Address, ValidatorComputeView> {
    return this.views.computeViews(addresses, epoch);
  }

  // ---- reads ----

  get approvedModels(): readonly string[] {
    return this.store.global.approvedModels;
  }

  isApproved(modelId: string): boolean {
    return this.store.isApproved(modelId);
  }

  modelDims(modelId: string): number | undefined {
    return this.dims.get(modelId);
  }

  modelTier(modelId: string): GpuTierName | undefined {
    return this.tiers.get(modelId);
  }

  get counters(): ComputeGlobal['counters'] {
    return this.views.counters;
  }

  get minerPool(): bigint {
    return this.store.global.minerPool;
  }

  get spotChecksPending(): readonly Hex[] {
    return this.store.global.spotChecksPending;
  }

  modelCounts(): Readonly<Record<string, { assigned: number; completed: number }>> {
    return this.views.modelCounts();
  }

  miner(wallet: Address): MinerRecord | undefined {
    return this.store.miner(wallet);
  }

  minerList(): MinerRecord[] {
    return this.store.minerList();
  }

  /** Miners that registered or had a proof accepted within minerActiveEpochs and are not jailed at `now`. */
  activeMiners(epoch: number, now: number): MinerRecord[] {
    return this.views.activeMiners(epoch, now);
  }

  openTasks(): TaskRecord[] {
    return this.store.openTasks();
  }

  openTasksOf(wallet: Address): TaskRecord[] {
    return this.store.openTasksOf(wallet);
  }

  task(id: Hex): TaskRecord | undefined {
    return this.store.task(id);
  }

  proof(id: Hex): ProofRecord | undefined {
    return this.store.proof(id);
  }

  /** The proofs a block accepted and the spot-checks it decided (empty lists for a block without any). */
  blockActivity(height: number): { accepted: Hex[]; decided: Hex[] } {
    return this.store.blockActivity(height);
  }

  validatorCompute(address: Address): ValidatorComputeRecord | undefined {
    return this.store.validatorCompute(address);
  }

  /** Hashes per second of a validator over the hashrate window (block time). */
  hashrate(validator: Address): bigint {
    return this.views.hashrate(validator);
  }

  /** The hashrate window's span in block time, seconds. */
  hashrateWindowSeconds(): number {
    return this.views.hashrateWindowSeconds();
  }

  inferenceScoreOf(window: MinerRecord['window'], epoch: number): bigint {
    return this.views.inferenceScoreOf(window, epoch);
  }

  // ---- the node's queues ----

  /**
   * On a network, what this node's miners and pow search submit goes to the network's mempool
   * (which queues it on every node through queueMessage) instead of this node's queues alone.
   */
  useOutbox(send: (message: Buffer) => void): void {
    this.outbox = send;
  }

  private submit(kind: 'registration' | 'proof' | 'share', body: QueuedRegistration | QueuedProof | QueuedShare): boolean {
    if (!this.outbox) return false;
    this.outbox(encodeMessage({ module: 'compute', kind, body }));
    return true;
  }

  queueRegistration(r: QueuedRegistration): void {
    if (!this.submit('registration', r)) this.queues.queueRegistration(r);
  }

  queueProof(p: QueuedProof): void {
    if (!this.submit('proof', p)) this.queues.queueProof(p);
  }

  queueShare(s: QueuedShare): void {
    if (!this.submit('share', s)) this.queues.queueShare(s);
  }

  queueVerdict(v: QueuedVerdict): void {
    this.queues.queueVerdict(v);
  }

  hasVerdictQueued(proofId: Hex): boolean {
    return this.queues.hasVerdictQueued(proofId);
  }

  isProofQueued(taskId: Hex): boolean {
    return this.queues.isProofQueued(taskId);
  }

  isRegistrationQueued(wallet: Address): boolean {
    return this.queues.isRegistrationQueued(wallet);
  }

  queueSizes(): { registrations: number; proofs: number; shares: number; verdicts: number } {
    return this.queues.queueSizes();
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return this.run(tx, ctx, false);
  }

  /** eth_call / eth_estimateGas: the same checks and result, nothing kept. */
  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return this.run({ ...call, txHash: Buffer.alloc(32) }, ctx, true);
  }

  /** The kernel's call path; the call's change is made when it is executed, not when simulated (`dry`). */
  private run(call: ModuleCall & { txHash: Buffer }, ctx: { height: number; epoch: number }, dry: boolean): ModuleOutcome {
    return runDecided(this.name, COMPUTE_ABI, call, !dry, gasCost(this.params.gas), (name, args) => decideComputeCall(this.store, this.params, call, name, args, ctx, dry));
  }
}
