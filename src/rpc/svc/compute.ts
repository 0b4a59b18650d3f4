// svc_* methods of proof-of-contribution compute: miner registration, task polling and proof
// submission (what svc-miner calls), public inference tasks, and the views of tasks, proofs,
// miners and the whole module (svc_getInferenceStats). Shapes: docs/compute.md.
import { decodeFunctionData, parseTransaction as parseTx, type Hex as ViemHex } from 'viem';
import { checksumAddress } from '../../chain/address.js';
import { TxPoolError } from '../../chain/services.js';
import { COMPUTE_ABI, publicTaskId } from '../../modules/compute/module.js';
import { epochOfHeight, epochStartHeight } from '../../modules/staking/epoch.js';
import type { Address, MinerRecord, ProofRecord, TaskRecord } from '../../modules/compute/types.js';
import type { TaskJson } from '../../modules/compute/wire.js';
import { system } from '../../params.js';
import { HeaderNotFoundError, InvalidArgumentError, MethodNotSupportedError, NotFoundError, TransactionRejectedError } from '../errors.js';
import { toData, toQuantity } from '../hex.js';
import { method, required, type MethodTable, type RpcContext } from '../method.js';
import { parseAddress, parseBlockNumberOrTag, parseBytes, parseHash } from '../validate.js';
import { blockNumberOf } from '../block-tags.js';

const COMPUTE = Buffer.from(system.computeAddress.slice(2), 'hex');
const anything = (v: unknown): unknown => v;
const addr = (b: Buffer): Address => `0x${b.toString('hex')}`;
const checksum = (a: string | null): string | null => (a === null ? null : checksumAddress(Buffer.from(a.slice(2), 'hex')));

function epochInfo(ctx: RpcContext) {
  const head = ctx.services.chain.head();
  const params = ctx.services.app.staking.params;
  const epoch = epochOfHeight(head.number + 1, params);
  return { head, epoch, nextEpochBlock: epochStartHeight(epoch + 1, params) };
}

/**
 * `inactive`: registered and free, but without a registration or accepted proof in the last
 * minerActiveEpochs epochs, so the coordinator gives it no task until it registers again.
 */
function minerStatus(ctx: RpcContext, m: MinerRecord | undefined, now: number, epoch: number): 'unregistered' | 'active' | 'jailed' | 'inactive' {
  if (!m) return 'unregistered';
  if (m.jailedUntil > now) return 'jailed';
  return m.lastActiveEpoch > epoch - ctx.services.app.compute.params.minerActiveEpochs ? 'active' : 'inactive';
}

function taskJson(t: TaskRecord): TaskJson {
  return { task_id: t.id, kind: t.kind, model_id: t.modelId, input: t.input, input_hash: t.inputHash };
}

/** A proof as svc_getInferenceProof and the svcInferenceProofs subscription show it. */
export function proofView(p: ProofRecord) {
  return {
    proofId: p.id,
    taskId: p.taskId,
    taskKind: p.taskKind,
    validator: checksum(p.validator),
    miner: checksum(p.miner),
    publicKey: p.publicKey,
    modelId: p.modelId,
    inputHash: p.inputHash,
    outputHash: p.outputHash,
    quantized: p.quantized,
    executionTimeMs: p.executionTimeMs,
    flops: p.flops.toString(),
    claimedFlops: p.claimedFlops.toString(),
    signature: p.signature,
    includedAt: toQuantity(p.includedAt),
    blockReward: toQuantity(p.blockReward),
    fee: { miner: toQuantity(p.feeMiner), validator: toQuantity(p.feeValidator), treasury: toQuantity(p.feeTreasury), paid: p.feePaid },
    spotCheck: p.spotCheck,
    spotCheckResult: p.spotCheckResult
      ? { cosine: p.spotCheckResult.cosinePpm / 1e6, maxAbsDiff: p.spotCheckResult.maxAbsDiff, hashMatches: p.spotCheckResult.hashMatches, checkedAt: toQuantity(p.spotCheckResult.checkedAt) }
      : null,
  };
}

function taskView(ctx: RpcContext, t: TaskRecord) {
  const proof = t.proofId ? ctx.services.app.compute.proof(t.proofId) : undefined;
  return {
    taskId: t.id,
    kind: t.kind,
    modelId: t.modelId,
    input: t.input,
    inputHash: t.inputHash,
    fee: toQuantity(t.fee),
    submitter: checksum(t.submitter),
    status: t.status,
    createdAt: toQuantity(t.createdAt),
    assignedTo: checksum(t.assignedTo),
    assignedEpoch: t.assignedEpoch,
    deadlineEpoch: t.deadlineEpoch,
    completedAt: t.completedAt === null ? null : toQuantity(t.completedAt),
    reassignments: t.reassignments,
    refunded: toQuantity(t.refunded),
    result: proof
      ? { proofId: proof.id, miner: checksum(proof.miner), validator: checksum(proof.validator), outputHash: proof.outputHash, quantized: proof.quantized, spotCheck: proof.spotCheck }
      : null,
  };
}

function minerView(ctx: RpcContext, m: MinerRecord) {
  const { head, epoch } = epochInfo(ctx);
  const compute = ctx.services.app.compute;
  return {
    wallet: checksum(m.wallet),
    registered: true,
    status: minerStatus(ctx, m, head.timestamp, epoch),
    publicKey: m.publicKey,
    tier: m.tier,
    models: m.models,
    registeredAt: toQuantity(m.registeredAt),
    jailedUntil: m.jailedUntil,
    inferenceScore: compute.inferenceScoreOf(m.window, epoch).toString(),
    tasksCompleted: m.tasksCompleted.toString(),
    proofsAccepted: m.proofsAccepted.toString(),
    spotChecksPassed: m.spotChecksPassed,
    spotChecksFailed: m.spotChecksFailed,
    flops: m.flops.toString(),
    blockRewards: toQuantity(m.blockRewards),
    feeRewards: toQuantity(m.feeRewards),
    rewards: toQuantity(m.blockRewards + m.feeRewards),
    openTasks: compute.openTasksOf(m.wallet).length,
  };
}

function inferenceNode(ctx: RpcContext, name: string): void {
  if (ctx.services.compute.mode !== 'inference') {
    throw new MethodNotSupportedError(name, `this node runs compute mode ${ctx.services.compute.mode}; use a validator in inference mode`);
  }
}

export const computeMethods: MethodTable = {
  svc_registerMiner: method([required(anything)], async (ctx, [reg]) => ctx.services.compute.intake.register(reg)),

  svc_submitInferenceProof: method([required(anything)], async (ctx, [proof]) => {
    inferenceNode(ctx, 'svc_submitInferenceProof');
    return ctx.services.compute.intake.submitProof(proof);
  }),

  svc_getInferenceTasks: method([required(anything)], (ctx, [query]) => {
    inferenceNode(ctx, 'svc_getInferenceTasks');
    const q = query as { miner?: unknown };
    if (q === null || typeof q !== 'object' || typeof q.miner !== 'string') throw new InvalidArgumentError(0, 'expected { miner: <wallet address> }');
    const wallet = addr(parseAddress(q.miner));
    const { head, epoch, nextEpochBlock } = epochInfo(ctx);
    const { compute, intake } = { compute: ctx.services.app.compute, intake: ctx.services.compute.intake };
    const m = compute.miner(wallet);
    const status = minerStatus(ctx, m, head.timestamp, epoch);
    return {
      validator: intake.validator,
      chainId: ctx.services.config.chainId,
      blockNumber: head.number,
      epoch,
      nextEpochBlock,
      miner: { status, jailedUntil: m?.jailedUntil ?? 0, tier: m?.tier ?? null, models: m?.models ?? [] },
      // A jailed miner gets no task; tasks past their deadline or already proven are not listed.
      tasks:
        status === 'jailed' || status === 'unregistered'
          ? []
          : compute
              .openTasksOf(wallet)
              .filter((t) => !compute.isProofQueued(t.id) && (t.deadlineEpoch ?? -1) >= epoch)
              .map(taskJson),
    };
  }),

  svc_getInferenceTask: method([required(parseHash)], (ctx, [id]) => {
    const t = ctx.services.app.compute.task(toData(id) as `0x${string}`);
    if (!t) throw new NotFoundError(`task ${toData(id)} not found`);
    return taskView(ctx, t);
  }),

  svc_getInferenceProof: method([required(parseHash)], (ctx, [id]) => {
    const p = ctx.services.app.compute.proof(toData(id) as `0x${string}`);
    if (!p) throw new NotFoundError(`proof ${toData(id)} not found`);
    return proofView(p);
  }),

  svc_getInferenceProofs: method([required(parseBlockNumberOrTag)], (ctx, [block]) => {
    const n = blockNumberOf(ctx.services.chain, block);
    if (n === null) throw new HeaderNotFoundError();
    const compute = ctx.services.app.compute;
    const { accepted, decided } = compute.blockActivity(n);
    const views = (ids: readonly `0x${string}`[]) => ids.map((id) => compute.proof(id)).filter((p) => p !== undefined).map(proofView);
    return { blockNumber: toQuantity(n), accepted: views(accepted), spotChecksDecided: views(decided) };
  }),

  svc_getInferenceMiner: method([required(parseAddress)], (ctx, [wallet]) => {
    const m = ctx.services.app.compute.miner(addr(wallet));
    if (!m) {
      return { wallet: checksumAddress(wallet), registered: false, status: 'unregistered', tasksCompleted: '0', proofsAccepted: '0', rewards: '0x0' };
    }
    return minerView(ctx, m);
  }),

  svc_getInferenceMiners: method([], (ctx) => ctx.services.app.compute.minerList().map((m) => minerView(ctx, m))),

  svc_submitInferenceTask: method([required(parseBytes)], (ctx, [raw]) => {
    if (raw.length === 0) throw new InvalidArgumentError(0, 'empty transaction');
    let tx;
    try {
      tx = ctx.services.chain.decodeTransaction(raw);
    } catch (err) {
      throw new InvalidArgumentError(0, (err as Error).message);
    }
    if (tx.to === null || !tx.to.equals(COMPUTE)) throw new InvalidArgumentError(0, `the transaction must call submitTask on ${system.computeAddress}`);
    try {
      const data = (parseTransactionData(raw) ?? '0x') as ViemHex;
      const d = decodeFunctionData({ abi: COMPUTE_ABI, data });
      if (d.functionName !== 'submitTask') throw new Error('not submitTask');
    } catch {
      throw new InvalidArgumentError(0, 'the transaction data is not a submitTask(string modelId, string input) call');
    }
    try {
      const hash = ctx.services.mempool.add(raw);
      return { transactionHash: toData(hash), taskId: publicTaskId(hash) };
    } catch (err) {
      if (err instanceof TxPoolError) throw new TransactionRejectedError(err.message);
      throw err;
    }
  }),

  svc_getInferenceStats: method([], (ctx) => {
    const { app, compute: node } = ctx.services;
    const compute = app.compute;
    const { head, epoch } = epochInfo(ctx);
    const c = compute.counters;
    const served = node.models?.loaded;
    const counts = compute.modelCounts();
    const open = compute.openTasks();
    const miners = compute.minerList();
    const active = compute.activeMiners(epoch, head.timestamp);
    const intake = node.intake.counters;
    return {
      computeMode: node.mode,
      blockNumber: head.number,
      epoch,
      models: compute.approvedModels.map((id) => ({
        id,
        tier: compute.modelTier(id),
        dims: compute.modelDims(id),
        approved: true,
        servedByThisNode: served?.has(id) ?? false,
        tasksAssigned: counts[id]?.assigned ?? 0,
        tasksCompleted: counts[id]?.completed ?? 0,
      })),
      tasks: {
        created: c.tasksCreated,
        public: c.publicTasks,
        challenge: c.challengeTasks,
        assigned: c.tasksAssigned,
        completed: c.tasksCompleted,
        expired: c.tasksExpired,
        open: open.filter((t) => t.status === 'assigned').length,
        waiting: open.filter((t) => t.status === 'pending').length,
      },
      proofs: {
        submitted: intake.proofsReceived,
        accepted: c.proofsAccepted,
        rejected: intake.proofsRejected + c.spotChecksFailed,
        rejectedAtSubmission: intake.proofsRejected,
        failedSpotCheck: c.spotChecksFailed,
        dropped: c.proofsDropped,
        rejectedByReason: intake.rejectedByReason,
      },
      spotChecks: {
        selected: c.spotChecksSelected,
        passed: c.spotChecksPassed,
        failed: c.spotChecksFailed,
        pending: compute.spotChecksPending.length,
        expired: c.spotChecksExpired ?? 0,
      },
      totalFlops: c.flops.toString(),
      rewardsPaid: {
        blockRewards: toQuantity(c.blockRewardsPaid),
        taskFeesToMiners: toQuantity(c.feesPaidMiners),
        taskFeesToValidators: toQuantity(c.feesPaidValidators),
        taskFeesToTreasury: toQuantity(c.feesPaidTreasury),
        refunded: toQuantity(c.feesRefunded),
        minerPool: toQuantity(compute.minerPool),
      },
      miners: {
        registered: miners.length,
        active: active.length,
        jailed: miners.filter((m) => m.jailedUntil > head.timestamp).length,
        forgotten: c.minersForgotten ?? 0,
      },
      pow: {
        sharesAccepted: c.sharesAccepted,
        shareDifficulty: compute.params.shareDifficulty.toString(),
        hashrateWindowSeconds: compute.hashrateWindowSeconds(),
        thisNode: powView(node.powStats()),
      },
    };
  }),
};

function powView(s: ReturnType<RpcContext['services']['compute']['powStats']>) {
  if (!s) return null;
  return { threads: s.threads, hashes: s.hashes.toString(), seconds: s.seconds, hashrate: Math.round(s.hashrate).toString(), sharesFound: s.sharesFound };
}

/** The data field of a raw transaction (viem parses every type). */
function parseTransactionData(raw: Buffer): string | undefined {
  return parseTx(`0x${raw.toString('hex')}` as ViemHex).data;
}
