// svc_getInferenceStats and /compute/stats: the compute module's chain-wide totals beside this
// node's own intake, pre-check and proof-of-work search, each edge with its own way of writing
// numbers (the compute module's ViewStyle). The views of the module's records live in its queries
// (src/modules/compute/queries.ts).
import type { ModuleQueries } from '../chain/queries.js';
import type { ViewStyle } from '../modules/compute/queries.js';
import type { NodeCompute } from './index.js';

/** svc_getInferenceStats and /compute/stats: chain-wide totals, this node's intake and search. */
export function computeStats(services: { queries: ModuleQueries; compute: NodeCompute }, s: ViewStyle) {
  const { queries, compute: node } = services;
  const compute = queries.compute;
  const { head, epoch } = compute.headEpoch();
  const c = compute.counters;
  const served = node.models?.loaded;
  const counts = compute.modelCounts();
  const open = compute.openTasks();
  const miners = compute.minerList();
  const intake = node.intake.counters;
  const pow = node.powStats();
  const recent = compute.minersWithRecentProofs(epoch, head.timestamp);
  return {
    computeMode: node.mode,
    blockNumber: head.number,
    epoch,
    models: compute.approvedModels.map((id) => ({
      id,
      tier: compute.modelTier(id) ?? null,
      dims: compute.modelDims(id) ?? null,
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
    // This node's pre-check (node-local policy): proofs it re-executed before accepting them, and those it refused.
    precheck: { rateBps: node.intake.precheck.rateBps, checked: node.intake.precheck.checked, failed: node.intake.precheck.failed },
    spotChecks: {
      selected: c.spotChecksSelected,
      passed: c.spotChecksPassed,
      failed: c.spotChecksFailed,
      pending: compute.spotChecksPending.length,
      expired: c.spotChecksExpired ?? 0,
    },
    totalFlops: c.flops.toString(),
    rewardsPaid: {
      blockRewards: s.amount(c.blockRewardsPaid),
      taskFeesToMiners: s.amount(c.feesPaidMiners),
      taskFeesToValidators: s.amount(c.feesPaidValidators),
      taskFeesToTreasury: s.amount(c.feesPaidTreasury),
      refunded: s.amount(c.feesRefunded),
      minerPool: s.amount(compute.minerPool),
    },
    miners: {
      registered: miners.length,
      active: compute.activeMiners(epoch, head.timestamp).length,
      withRecentProofs: recent,
      poolShareBps: queries.staking.minersShareBps(recent),
      jailed: miners.filter((m) => m.jailedUntil > head.timestamp).length,
      forgotten: c.minersForgotten ?? 0,
    },
    pow: {
      sharesAccepted: c.sharesAccepted,
      shareDifficulty: compute.params.shareDifficulty.toString(),
      hashrateWindowSeconds: compute.hashrateWindowSeconds(),
      thisNode: pow
        ? { threads: pow.threads, hashes: pow.hashes.toString(), seconds: pow.seconds, hashrate: Math.round(pow.hashrate).toString(), sharesFound: pow.sharesFound }
        : null,
    },
  };
}
