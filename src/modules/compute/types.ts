// The compute module's record and view shapes. Consensus state: integers only (bigint for amounts
// and FLOPs), block heights and block timestamps, never the wall clock.
import { hexOf, inputHash, type GpuTierName, type Hex } from './wire.js';

export type Address = `0x${string}`;
export type ComputeMode = 'pow' | 'inference' | 'none';

/** FLOPs accepted in one epoch (the window of inferenceScore keeps the last few). */
export interface EpochFlops {
  epoch: number;
  flops: bigint;
}

/** A miner, by wallet. The key is Ed25519; the wallet consented to it with its own signature. */
export interface MinerRecord {
  wallet: Address;
  publicKey: Hex;
  tier: GpuTierName;
  models: string[];
  /** Sequence of the registration in force; a newer one must be higher. */
  sequence: number;
  registeredAt: number;
  lastActiveEpoch: number;
  /** Block time (s) until which the miner gets no task and no proof is accepted; 0 when free. */
  jailedUntil: number;
  tasksCompleted: number;
  proofsAccepted: number;
  spotChecksPassed: number;
  spotChecksFailed: number;
  flops: bigint;
  /** Paid from the miners' share of block rewards. */
  blockRewards: bigint;
  /** Paid from public task fees. */
  feeRewards: bigint;
  window: EpochFlops[];
}

/** A validator's compute contribution. */
export interface ValidatorComputeRecord {
  address: Address;
  /** The mode its node announced; absent: never announced (shown as `none`). */
  mode?: ComputeMode;
  modeSince: number;
  /** Proofs accepted through this validator (its miners' tasks completed). */
  tasksCompleted: number;
  spotChecksPassed: number;
  spotChecksFailed: number;
  feeRewards: bigint;
  sharesAccepted: number;
  /** Sum of accepted shares' difficulty (expected hashes). */
  powWork: bigint;
  window: EpochFlops[];
}

export type TaskStatus = 'pending' | 'assigned' | 'completed' | 'expired';

export interface TaskRecord {
  id: Hex;
  kind: 'public' | 'challenge';
  modelId: string;
  input: string;
  inputHash: Hex;
  /** Public tasks: the fee paid with submitTask; challenge tasks: 0. */
  fee: bigint;
  submitter: Address | null;
  createdAt: number;
  createdEpoch: number;
  status: TaskStatus;
  assignedTo: Address | null;
  assignedEpoch: number | null;
  /** Last epoch in which a proof is accepted. */
  deadlineEpoch: number | null;
  proofId: Hex | null;
  completedAt: number | null;
  /** Times the task went back to pending (deadline missed or a failed spot-check). */
  reassignments: number;
  /** Fee returned to the submitter when a public task expired. */
  refunded: bigint;
}

/** A public task as submitTask creates it: paid, waiting for the next epoch's assignment. */
export function newPublicTask(t: Pick<TaskRecord, 'id' | 'modelId' | 'input' | 'fee' | 'createdAt' | 'createdEpoch'> & { submitter: Address }): TaskRecord {
  return {
    ...t,
    kind: 'public',
    inputHash: hexOf(inputHash(t.input)),
    status: 'pending',
    assignedTo: null,
    assignedEpoch: null,
    deadlineEpoch: null,
    proofId: null,
    completedAt: null,
    reassignments: 0,
    refunded: 0n,
  };
}

export type SpotCheckState = 'undrawn' | 'not-selected' | 'pending' | 'passed' | 'failed' | 'expired';

export interface SpotCheckResult {
  /** Cosine of the claimed and recomputed int8 vectors, in millionths (integer). */
  cosinePpm: number;
  maxAbsDiff: number;
  hashMatches: boolean;
  checkedAt: number;
}

export interface ProofRecord {
  id: Hex;
  taskId: Hex;
  taskKind: 'public' | 'challenge';
  validator: Address;
  miner: Address;
  publicKey: Hex;
  modelId: string;
  inputHash: Hex;
  outputHash: Hex;
  quantized: Hex;
  executionTimeMs: number;
  /** FLOPs the node computed from the model and the input's token count. */
  flops: bigint;
  /** FLOPs the miner claimed (signed, informational). */
  claimedFlops: bigint;
  signature: Hex;
  includedAt: number;
  /** Paid to the miner from this block's miner pool. */
  blockReward: bigint;
  /** A public task's fee parts, paid once the proof is past its spot-check draw (or check). */
  feeMiner: bigint;
  feeValidator: bigint;
  feeTreasury: bigint;
  feePaid: boolean;
  spotCheck: SpotCheckState;
  spotCheckResult: SpotCheckResult | null;
}

/** Totals since genesis. */
export interface ComputeCounters {
  tasksCreated: number;
  publicTasks: number;
  challengeTasks: number;
  tasksAssigned: number;
  tasksCompleted: number;
  tasksExpired: number;
  proofsAccepted: number;
  proofsDropped: number;
  spotChecksSelected: number;
  spotChecksPassed: number;
  spotChecksFailed: number;
  /** Drawn checks no validator decided in time (closed, the proof stands). */
  spotChecksExpired: number;
  flops: bigint;
  blockRewardsPaid: bigint;
  feesPaidMiners: bigint;
  feesPaidValidators: bigint;
  feesPaidTreasury: bigint;
  feesRefunded: bigint;
  sharesAccepted: number;
  /** Miner records deleted after minerRetentionEpochs idle. */
  minersForgotten: number;
}

/** One block of the hashrate window. */
export interface PowWindowEntry {
  height: number;
  /** The block's time, milliseconds. */
  timeMs: number;
  work: Record<Address, bigint>;
}

/** The module's small global record. */
export interface ComputeGlobal {
  approvedModels: string[];
  counters: ComputeCounters;
  /** Miner share of block rewards not yet paid (no proof in the blocks since). */
  minerPool: bigint;
  /** Proofs included in the last block; the next block's parent hash draws their spot-checks. */
  lastBlockProofs: Hex[];
  /** Proofs drawn for a spot-check and not yet decided. */
  spotChecksPending: Hex[];
  /** Last epoch whose tasks were assigned. */
  assignedEpoch: number;
  /** The last shareMaxAgeBlocks block hashes, newest last: shares must name one. */
  recentHashes: Hex[];
  /** Shares accepted against the recent hashes (blockHash:validator:nonce), pruned with them. */
  seenShares: string[];
  powWindow: PowWindowEntry[];
  /** Per model: tasks assigned and completed. */
  models: Record<string, { assigned: number; completed: number }>;
  /** Staking penalties ordered by this block's failed spot-checks, applied by the next block (absent in records written before them). */
  penaltiesDue?: PenaltyDue[];
  /** The model registry: every model approved at genesis or by governance, retired ones kept (absent in records written before governance: derived from the genesis list). */
  registry?: Record<string, ApprovedModelRecord>;
}

/** A model the chain approved: what miners and nodes load it by, and since and until when proofs of it are accepted. */
export interface ApprovedModelRecord {
  id: string;
  tier: GpuTierName;
  dims: number;
  /** The files' pins, for models approved by governance; absent for genesis models, whose pins are the inference registry's. */
  files?: { weights: { sha256: string; size: number }; tokenizer: { sha256: string; size: number } };
  /** 0 for genesis models. */
  approvedAtHeight: number;
  /** The governance proposal that approved (or last re-pinned) it. */
  approvedBy?: number;
  /** Set by a retirement: proofs of the model are refused from this height on. */
  refusedFromHeight?: number;
  retiredBy?: number;
}

/** A failed spot-check's penalty on the validator the proof came through: one per validator and verdict block. */
export interface PenaltyDue {
  validator: Address;
  /** The earliest block that included one of the failed proofs. */
  infractionHeight: number;
  /** The failed proofs, in verdict order. */
  proofs: Hex[];
}

/** Compute view of a validator for svc_getValidators and the contribution score. */
export interface ValidatorComputeView {
  computeMode: ComputeMode;
  providesCompute: boolean;
  /** Hashes per second estimated from accepted shares over the window. */
  hashrate: bigint;
  /** FLOPs of proofs accepted through it over the score window. */
  inferenceScore: bigint;
  tasksCompleted: number;
  /** Compute part of the contribution score, 0..10000. */
  computeBps: number;
  /** Spot-checks passed among those decided for proofs through it, 0..10000 (10000 with none). */
  accuracyBps: number;
}

export function emptyCounters(): ComputeCounters {
  return {
    tasksCreated: 0,
    publicTasks: 0,
    challengeTasks: 0,
    tasksAssigned: 0,
    tasksCompleted: 0,
    tasksExpired: 0,
    proofsAccepted: 0,
    proofsDropped: 0,
    spotChecksSelected: 0,
    spotChecksPassed: 0,
    spotChecksFailed: 0,
    spotChecksExpired: 0,
    flops: 0n,
    blockRewardsPaid: 0n,
    feesPaidMiners: 0n,
    feesPaidValidators: 0n,
    feesPaidTreasury: 0n,
    feesRefunded: 0n,
    sharesAccepted: 0,
    minersForgotten: 0,
  };
}

/** Sum of an epoch window's FLOPs for the epochs in (current - size, current]. */
export function windowSum(window: readonly EpochFlops[], current: number, size: number): bigint {
  return window.filter((w) => w.epoch > current - size && w.epoch <= current).reduce((s, w) => s + w.flops, 0n);
}

/** Adds FLOPs to the window at `epoch`, dropping epochs that fell out of it. */
export function windowAdd(window: EpochFlops[], epoch: number, flops: bigint, size: number): EpochFlops[] {
  const kept = window.filter((w) => w.epoch > epoch - size);
  const at = kept.find((w) => w.epoch === epoch);
  if (at) at.flops += flops;
  else kept.push({ epoch, flops });
  return kept;
}
