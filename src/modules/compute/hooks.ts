// The compute module's block hooks: at a block's start the spot-check draw of the parent's proofs,
// overdue checks closed, and at an epoch's first block expiry, forgetting idle miners and the
// epoch's task assignment; at its end validators' signed compute-mode announcements, the proposer's
// mode announcement, registrations, spot-check verdicts, proofs (and the miners' share of the block
// reward split by FLOPs) and proof-of-work shares. Each queued item was verified by the node and is
// checked again here against the records.
import { blake3 } from '@noble/hashes/blake3.js';
import { core, type BalanceMove } from '../../native/index.js';
import { system, type ComputeParams } from '../../params.js';
import { assignTasks, type ModelTiers } from './assign.js';
import { proofRecordProblem } from './proof-rules.js';
import type { QueuedMode, QueuedShare, TakenQueues } from './queues.js';
import { splitByFlops, splitTaskFee } from './rewards.js';
import type { ComputeStore } from './store.js';
import { windowAdd, type Address, type ComputeMode, type PenaltyDue, type PowWindowEntry, type ProofRecord, type TaskRecord } from './types.js';
import type { ComputeViews } from './views.js';
import { hexOf, type Hex } from './wire.js';

const COMPUTE: Address = system.computeAddress;
const TREASURY: Address = system.treasuryAddress;
const addressBuffer = (a: string): Buffer => Buffer.from(a.slice(2), 'hex');

/** Where and when the block runs, as the compute hooks need it. */
export interface ComputeBlockContext {
  height: number;
  now: number;
  /** The block's time, milliseconds. */
  nowMs: number;
  epoch: number;
  /** Epoch length. */
  epochLengthBlocks: number;
  /** Whether the block is its epoch's first. */
  isEpochStart: boolean;
  parentHash: Buffer;
}

export interface ComputeBlockEnd {
  moves: BalanceMove[];
  /** Amount minted into the module (the miners' share of the block reward). */
  minted: bigint;
  /** Penalties this block's failed spot-checks ordered on the validators the proofs came through (applied by the next block). */
  penalties: PenaltyDue[];
  /** Proofs accepted in this block. */
  accepted: ProofRecord[];
  /** Spot-checks decided in this block. */
  decided: ProofRecord[];
}

/** Whether a proof included in a block whose hash is `blockHash` is drawn for a spot-check. */
export function drawnForSpotCheck(blockHash: Uint8Array, proofId: Hex, spotCheckBps: number): boolean {
  const h = blake3(Buffer.concat([Buffer.from('svc/spot-check'), Buffer.from(blockHash), Buffer.from(proofId.slice(2), 'hex')]));
  return Number(Buffer.from(h).readBigUInt64BE(0) % 10_000n) < spotCheckBps;
}

/** A compute-mode announcement signed more than this many blocks before the block that carries it is ignored. */
export const MODE_MAX_AGE_BLOCKS = 100;

/** A validator's consensus key (0x + 64 hex) in its staking record; undefined for none (or no such validator). */
export type ConsensusKeyOf = (validator: Address) => string | undefined;

/** What identifies a counted share in the records: its block, validator and nonce. */
const shareKey = (s: QueuedShare): string => `${s.blockHash}:${s.validator}:${s.nonce}`;

/** The share target for a difficulty: floor((2^256 - 1) / difficulty), 32 bytes big-endian. */
export function shareTarget(difficulty: bigint): Buffer {
  const t = ((1n << 256n) - 1n) / difficulty;
  return Buffer.from(t.toString(16).padStart(64, '0'), 'hex');
}

/** The block hooks' rules over the module's records. */
export class ComputeHooks {
  private readonly target: Buffer;

  constructor(
    private readonly store: ComputeStore,
    private readonly views: ComputeViews,
    private readonly params: ComputeParams,
    private readonly tiers: ModelTiers,
  ) {
    this.target = shareTarget(params.shareDifficulty);
  }

  /**
   * Start of a block: remember the parent's hash for shares, draw the spot-checks of the parent's
   * proofs from its hash (fees of undrawn public tasks are paid), and at an epoch's first block
   * expire overdue tasks and assign the epoch's tasks from the parent's hash.
   */
  openBlock(ctx: ComputeBlockContext): BalanceMove[] {
    const g = this.store.global;
    const moves: BalanceMove[] = [];
    const parentHash = hexOf(ctx.parentHash);
    g.recentHashes = [...g.recentHashes, parentHash].slice(-this.params.shareMaxAgeBlocks);
    const recent = new Set(g.recentHashes);
    g.seenShares = g.seenShares.filter((s) => recent.has(s.slice(0, 66) as Hex));

    for (const id of g.lastBlockProofs) {
      const p = this.store.proof(id);
      if (!p) continue;
      if (drawnForSpotCheck(ctx.parentHash, id, this.params.spotCheckBps)) {
        p.spotCheck = 'pending';
        g.spotChecksPending.push(id);
        g.counters.spotChecksSelected += 1;
      } else {
        p.spotCheck = 'not-selected';
        moves.push(...this.payFee(p));
      }
      this.store.saveProof(p);
    }
    g.lastBlockProofs = [];

    // Checks drawn long ago that no validator decided (none runs the model): closed, the proof stands.
    for (const id of [...g.spotChecksPending]) {
      const p = this.store.proof(id);
      if (p && p.includedAt + this.params.spotCheckTimeoutBlocks > ctx.height) continue;
      g.spotChecksPending = g.spotChecksPending.filter((x) => x !== id);
      if (!p) continue;
      p.spotCheck = 'expired';
      g.counters.spotChecksExpired = (g.counters.spotChecksExpired ?? 0) + 1;
      moves.push(...this.payFee(p));
      this.store.saveProof(p);
    }

    if (ctx.isEpochStart && ctx.epoch > g.assignedEpoch) {
      moves.push(...this.expire(ctx));
      this.forgetIdleMiners(ctx);
      this.assign(ctx);
      g.assignedEpoch = ctx.epoch;
    }
    this.store.saveGlobal();
    return moves;
  }

  private expire(ctx: ComputeBlockContext): BalanceMove[] {
    const moves: BalanceMove[] = [];
    for (const t of this.store.openTasks().sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (t.kind === 'public' && ctx.epoch >= t.createdEpoch + this.params.publicTaskTtlEpochs) {
        t.status = 'expired';
        t.refunded = t.fee;
        this.store.global.counters.tasksExpired += 1;
        this.store.global.counters.feesRefunded += t.fee;
        if (t.fee > 0n && t.submitter) moves.push({ from: addressBuffer(COMPUTE), to: addressBuffer(t.submitter), amount: t.fee });
        this.store.saveTask(t);
      } else if (t.status === 'assigned' && t.deadlineEpoch !== null && t.deadlineEpoch < ctx.epoch) {
        if (t.kind === 'challenge') {
          t.status = 'expired';
          this.store.global.counters.tasksExpired += 1;
        } else {
          this.unassign(t);
        }
        this.store.saveTask(t);
      }
    }
    return moves;
  }

  /** Deletes the records of miners idle for minerRetentionEpochs (no open task, not jailed): they start afresh if they register again. */
  private forgetIdleMiners(ctx: ComputeBlockContext): void {
    const holding = new Set([...this.store.open.values()].map((t) => t.assignedTo).filter((a) => a !== null));
    for (const m of this.store.minerList()) {
      if (m.lastActiveEpoch > ctx.epoch - this.params.minerRetentionEpochs || m.jailedUntil > ctx.now || holding.has(m.wallet)) continue;
      this.store.deleteMiner(m.wallet);
      this.store.global.counters.minersForgotten = (this.store.global.counters.minersForgotten ?? 0) + 1;
    }
  }

  private unassign(t: TaskRecord): void {
    t.status = 'pending';
    t.assignedTo = null;
    t.assignedEpoch = null;
    t.deadlineEpoch = null;
    t.reassignments += 1;
  }

  private assign(ctx: ComputeBlockContext): void {
    const eligible = this.views.activeMiners(ctx.epoch, ctx.now);
    const openCount = new Map<Address, number>();
    for (const t of this.store.open.values()) if (t.status === 'assigned' && t.assignedTo) openCount.set(t.assignedTo, (openCount.get(t.assignedTo) ?? 0) + 1);
    const pending = this.store.openTasks().filter((t) => t.status === 'pending');
    const a = assignTasks({
      epoch: ctx.epoch,
      height: ctx.height,
      seed: ctx.parentHash,
      miners: eligible,
      openCount,
      pending,
      approved: new Set(this.store.global.approvedModels),
      tiers: this.tiers,
      challengeTasksPerMiner: this.params.challengeTasksPerMiner,
      maxOpenTasksPerMiner: this.params.maxOpenTasksPerMiner,
      deadlineEpochs: this.params.deadlineEpochs,
    });
    const count = (modelId: string) => (this.store.global.models[modelId] ??= { assigned: 0, completed: 0 });
    for (const [id, wallet] of a.publicAssigned) {
      const t = this.store.open.get(id)!;
      t.status = 'assigned';
      t.assignedTo = wallet;
      t.assignedEpoch = ctx.epoch;
      t.deadlineEpoch = ctx.epoch + this.params.deadlineEpochs - 1;
      this.store.saveTask(t);
      count(t.modelId).assigned += 1;
      this.store.global.counters.tasksAssigned += 1;
    }
    for (const t of a.challenges) {
      if (this.store.open.has(t.id)) continue;
      this.store.saveTask(t);
      count(t.modelId).assigned += 1;
      this.store.global.counters.tasksAssigned += 1;
      this.store.global.counters.tasksCreated += 1;
      this.store.global.counters.challengeTasks += 1;
    }
  }

  /** Pays a public task's fee parts once its proof is past the spot-check draw or passed the check. */
  private payFee(p: ProofRecord): BalanceMove[] {
    if (p.feePaid || p.feeMiner + p.feeValidator + p.feeTreasury === 0n) return [];
    p.feePaid = true;
    const c = this.store.global.counters;
    c.feesPaidMiners += p.feeMiner;
    c.feesPaidValidators += p.feeValidator;
    c.feesPaidTreasury += p.feeTreasury;
    const m = this.store.miners.get(p.miner);
    if (m) {
      m.feeRewards += p.feeMiner;
      this.store.saveMiner(m);
    }
    const v = this.store.validatorRecord(p.validator);
    v.feeRewards += p.feeValidator;
    this.store.saveValidator(v);
    const from = addressBuffer(COMPUTE);
    const moves: BalanceMove[] = [];
    if (p.feeMiner > 0n) moves.push({ from, to: addressBuffer(p.miner), amount: p.feeMiner });
    if (p.feeValidator > 0n) moves.push({ from, to: addressBuffer(p.validator), amount: p.feeValidator });
    if (p.feeTreasury > 0n) moves.push({ from, to: addressBuffer(TREASURY), amount: p.feeTreasury });
    return moves;
  }

  /**
   * Why a validator's compute-mode announcement would not be recorded by the block at `height`; null
   * when it would. The key that signed it must be the validator's consensus key in its staking
   * record; it must have been signed before this block and at most MODE_MAX_AGE_BLOCKS before it,
   * and not before the validator's mode was last recorded (so an old announcement cannot be
   * replayed over a newer one). The mempool asks it for the next block before it takes one.
   */
  modeProblem(m: QueuedMode, height: number, consensusKeyOf: ConsensusKeyOf): string | null {
    const key = consensusKeyOf(m.validator);
    if (key === undefined) return `${m.validator} is not a validator with a consensus key`;
    if (key.toLowerCase() !== m.publicKey) return `${m.publicKey} is not the consensus key of validator ${m.validator}`;
    if (m.height >= height) return `announced at height ${m.height}, not before block ${height}`;
    if (height - m.height > MODE_MAX_AGE_BLOCKS) return `announced at height ${m.height}, more than ${MODE_MAX_AGE_BLOCKS} blocks before block ${height}`;
    const since = this.store.validatorCompute(m.validator)?.modeSince ?? 0;
    if (m.height < since) return `announced at height ${m.height}, before the validator's mode was last recorded (block ${since})`;
    return null;
  }

  /**
   * End of a block: validators' compute-mode announcements, the proposer's mode announcement,
   * registrations, spot-check verdicts, proofs (the miners' share of this block's reward, plus what
   * earlier blocks left, split by FLOPs among the proofs accepted here) and proof-of-work shares.
   * An announcement that modeProblem() accepts records its mode from this block on (modeSince,
   * which also bars older announcements). `announced` is the compute mode the proposer announced in
   * the block's extra data, recorded for it when it differs.
   */
  closeBlock(
    ctx: ComputeBlockContext,
    q: TakenQueues,
    minersShare: bigint,
    proposer: Address,
    announced: ComputeMode | undefined,
    consensusKeyOf: ConsensusKeyOf,
  ): ComputeBlockEnd {
    const g = this.store.global;
    const moves: BalanceMove[] = [];
    /** By the validator each failed proof came through (spec: "validator is penalized with a 5% stake slash and a 6-hour jail"). */
    const penalties = new Map<Address, PenaltyDue>();

    for (const m of q.modes) {
      if (this.modeProblem(m, ctx.height, consensusKeyOf) !== null) continue;
      const v = this.store.validatorRecord(m.validator);
      v.mode = m.mode;
      v.modeSince = ctx.height;
      this.store.saveValidator(v);
    }

    if (announced !== undefined) {
      const v = this.store.validatorRecord(proposer);
      if (v.mode !== announced) {
        v.mode = announced;
        v.modeSince = ctx.height;
        this.store.saveValidator(v);
      }
    }

    for (const r of q.registrations) {
      const old = this.store.miners.get(r.wallet);
      if (old && old.sequence >= r.sequence) continue;
      const models = r.models.filter((id) => this.store.isApproved(id));
      this.store.saveMiner({
        wallet: r.wallet,
        publicKey: r.publicKey,
        tier: r.tier,
        models,
        sequence: r.sequence,
        registeredAt: old?.registeredAt ?? ctx.height,
        lastActiveEpoch: ctx.epoch,
        jailedUntil: old?.jailedUntil ?? 0,
        tasksCompleted: old?.tasksCompleted ?? 0,
        proofsAccepted: old?.proofsAccepted ?? 0,
        spotChecksPassed: old?.spotChecksPassed ?? 0,
        spotChecksFailed: old?.spotChecksFailed ?? 0,
        flops: old?.flops ?? 0n,
        blockRewards: old?.blockRewards ?? 0n,
        feeRewards: old?.feeRewards ?? 0n,
        window: old?.window ?? [],
      });
    }

    const decided: ProofRecord[] = [];
    for (const v of q.verdicts) {
      if (!g.spotChecksPending.includes(v.proofId)) continue;
      const p = this.store.proof(v.proofId);
      if (!p) continue;
      g.spotChecksPending = g.spotChecksPending.filter((id) => id !== v.proofId);
      p.spotCheck = v.passed ? 'passed' : 'failed';
      p.spotCheckResult = { ...v.result, checkedAt: ctx.height };
      const m = this.store.miners.get(p.miner);
      const val = this.store.validatorRecord(p.validator);
      if (v.passed) {
        g.counters.spotChecksPassed += 1;
        if (m) m.spotChecksPassed += 1;
        val.spotChecksPassed += 1;
        moves.push(...this.payFee(p));
      } else {
        g.counters.spotChecksFailed += 1;
        val.spotChecksFailed += 1;
        if (m) {
          m.spotChecksFailed += 1;
          m.jailedUntil = Math.max(m.jailedUntil, ctx.now + this.params.minerJailSeconds);
          this.releaseTasksOf(m.wallet);
        }
        this.reopenAfterFailure(p);
        const due = penalties.get(p.validator);
        if (due) {
          due.infractionHeight = Math.min(due.infractionHeight, p.includedAt);
          due.proofs.push(p.id);
        } else penalties.set(p.validator, { validator: p.validator, infractionHeight: p.includedAt, proofs: [p.id] });
      }
      if (m) this.store.saveMiner(m);
      this.store.saveValidator(val);
      this.store.saveProof(p);
      decided.push(p);
    }

    const accepted: ProofRecord[] = [];
    for (const qp of q.proofs) {
      const t = this.store.open.get(qp.taskId);
      const m = this.store.miners.get(qp.miner);
      // The intake's predicate (proof-rules.ts), on the records as this block has them.
      const refused = proofRecordProblem(
        qp,
        { task: t, miner: m, modelApproved: this.store.isApproved(qp.modelId), modelRefusedFrom: g.registry?.[qp.modelId]?.refusedFromHeight },
        { height: ctx.height, epoch: ctx.epoch, now: ctx.now },
      );
      if (refused !== null || !t || !m || qp.flops <= 0n || this.store.proof(qp.id) !== undefined) {
        g.counters.proofsDropped += 1;
        continue;
      }
      const fee = t.kind === 'public' ? splitTaskFee(t.fee, this.params) : { miner: 0n, validator: 0n, treasury: 0n };
      const p: ProofRecord = {
        ...qp,
        taskKind: t.kind,
        includedAt: ctx.height,
        blockReward: 0n,
        feeMiner: fee.miner,
        feeValidator: fee.validator,
        feeTreasury: fee.treasury,
        feePaid: false,
        spotCheck: 'undrawn',
        spotCheckResult: null,
      };
      t.status = 'completed';
      t.proofId = p.id;
      t.completedAt = ctx.height;
      this.store.saveTask(t);
      m.tasksCompleted += 1;
      m.proofsAccepted += 1;
      m.flops += p.flops;
      m.lastActiveEpoch = ctx.epoch;
      m.window = windowAdd(m.window, ctx.epoch, p.flops, this.params.scoreWindowEpochs);
      this.store.saveMiner(m);
      const val = this.store.validatorRecord(p.validator);
      val.tasksCompleted += 1;
      val.window = windowAdd(val.window, ctx.epoch, p.flops, this.params.scoreWindowEpochs);
      this.store.saveValidator(val);
      g.counters.proofsAccepted += 1;
      g.counters.tasksCompleted += 1;
      g.counters.flops += p.flops;
      (g.models[p.modelId] ??= { assigned: 0, completed: 0 }).completed += 1;
      accepted.push(p);
    }

    // The miners' share: minted into the module, paid out by FLOPs when this block has proofs.
    if (minersShare > 0n) moves.push({ to: addressBuffer(COMPUTE), amount: minersShare });
    g.minerPool += minersShare;
    if (accepted.length > 0 && g.minerPool > 0n) {
      const amounts = splitByFlops(
        g.minerPool,
        accepted.map((p) => ({ to: p.miner, flops: p.flops, tiebreak: p.id })),
      );
      const byMiner = new Map<Address, bigint>();
      accepted.forEach((p, i) => {
        p.blockReward = amounts[i]!;
        byMiner.set(p.miner, (byMiner.get(p.miner) ?? 0n) + amounts[i]!);
      });
      for (const [wallet, amount] of [...byMiner].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        if (amount === 0n) continue;
        const m = this.store.miners.get(wallet)!;
        m.blockRewards += amount;
        this.store.saveMiner(m);
        moves.push({ from: addressBuffer(COMPUTE), to: addressBuffer(wallet), amount });
      }
      g.counters.blockRewardsPaid += g.minerPool;
      g.minerPool = 0n;
    }
    for (const p of accepted) this.store.saveProof(p);
    g.lastBlockProofs = accepted.map((p) => p.id);
    if (accepted.length > 0 || decided.length > 0) {
      this.store.saveBlockActivity(ctx.height, { accepted: accepted.map((p) => p.id), decided: decided.map((p) => p.id) });
    }

    this.applyShares(ctx, q.shares);
    const ordered = [...penalties.values()].sort((a, b) => (a.validator < b.validator ? -1 : 1));
    g.penaltiesDue = [...(g.penaltiesDue ?? []), ...ordered];
    this.store.saveGlobal();
    return { moves, minted: minersShare, penalties: ordered, accepted, decided };
  }

  /** A miner caught cheating holds no task: public ones wait for another miner, challenge ones expire. */
  private releaseTasksOf(wallet: Address): void {
    for (const t of this.store.openTasks()) {
      if (t.status !== 'assigned' || t.assignedTo !== wallet) continue;
      if (t.kind === 'public') this.unassign(t);
      else {
        t.status = 'expired';
        this.store.global.counters.tasksExpired += 1;
      }
      this.store.saveTask(t);
    }
  }

  /** A failed proof's task does not count as done; a public task goes back to wait for an honest miner (its fee was not paid). */
  private reopenAfterFailure(p: ProofRecord): void {
    const t = this.store.task(p.taskId);
    if (!t) return;
    this.store.global.counters.tasksCompleted -= 1;
    const model = this.store.global.models[p.modelId];
    if (model) model.completed -= 1;
    if (t.kind === 'public') {
      this.unassign(t);
      t.proofId = null;
      t.completedAt = null;
      this.store.saveTask(t);
    }
  }

  /**
   * Why a share would not count in the next block, from the committed records: its block is not
   * one of the recent ones (`head`, the committed head's hash, is the next block's parent), it was
   * counted before, or its hash misses the target. null when it would count. The mempool asks
   * before it takes a share from the network, so that shares without work cannot crowd out real ones.
   */
  shareProblem(s: QueuedShare, head: Hex): string | null {
    const g = this.store.global;
    if (s.blockHash !== head && !g.recentHashes.includes(s.blockHash)) return 'the share\'s block is not a recent one';
    if (g.seenShares.includes(shareKey(s))) return 'the share was counted before';
    return this.meetsTarget(s) ? null : 'the share\'s hash misses the target';
  }

  /** One hash: the share's pre-image is (block hash, validator, nonce) and its hash must meet the target. */
  private meetsTarget(s: QueuedShare): boolean {
    const hash = core.powHash(Buffer.concat([Buffer.from(s.blockHash.slice(2), 'hex'), addressBuffer(s.validator)]), s.nonce);
    return Buffer.compare(hash, this.target) <= 0;
  }

  private applyShares(ctx: ComputeBlockContext, shares: readonly QueuedShare[]): void {
    const g = this.store.global;
    const recent = new Set(g.recentHashes);
    const seen = new Set(g.seenShares);
    const work: Record<Address, bigint> = {};
    for (const s of shares) {
      const key = shareKey(s);
      if (!recent.has(s.blockHash) || seen.has(key)) continue;
      if (!this.meetsTarget(s)) continue;
      seen.add(key);
      g.seenShares.push(key);
      work[s.validator] = (work[s.validator] ?? 0n) + this.params.shareDifficulty;
      const v = this.store.validatorRecord(s.validator);
      v.sharesAccepted += 1;
      v.powWork += this.params.shareDifficulty;
      this.store.saveValidator(v);
      g.counters.sharesAccepted += 1;
    }
    const entry: PowWindowEntry = { height: ctx.height, timeMs: ctx.nowMs, work };
    g.powWindow = [...g.powWindow, entry].slice(-(this.params.hashrateWindowBlocks + 1));
  }
}
