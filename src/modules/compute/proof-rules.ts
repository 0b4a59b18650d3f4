// Whether the records accept an inference proof: the one predicate that the node's intake
// (src/compute/intake.ts, before it queues a proof, with the reason it answers) and the block
// (hooks.ts closeBlock, which drops a queued proof the records no longer accept) both ask.
import type { Address, MinerRecord, TaskRecord } from './types.js';
import type { Hex } from './wire.js';

/** The reasons the records give (a subset of the intake's rejection codes). */
export type ProofRecordRejection =
  | 'MODEL_NOT_APPROVED'
  | 'MINER_NOT_REGISTERED'
  | 'KEY_MISMATCH'
  | 'MINER_JAILED'
  | 'UNKNOWN_TASK'
  | 'REPLAYED'
  | 'TASK_EXPIRED'
  | 'NOT_ASSIGNED'
  | 'MODEL_MISMATCH'
  | 'INPUT_HASH_MISMATCH';

/** What a proof claims that the records decide. */
export interface ProofClaim {
  taskId: Hex;
  miner: Address;
  publicKey: Hex;
  modelId: string;
  inputHash: Hex;
}

/** The records a proof is checked against. */
export interface ProofRecords {
  /** The task while it is open (pending or assigned), or its final record; undefined for none. */
  task: TaskRecord | undefined;
  miner: MinerRecord | undefined;
  /** Whether the model is on the approved list. */
  modelApproved: boolean;
  /** The first block that refuses the model's proofs, for a model governance retires. */
  modelRefusedFrom: number | undefined;
}

/** The block the proof would go in: its height, epoch and time (unix seconds). */
export interface ProofAt {
  height: number;
  epoch: number;
  now: number;
}

/**
 * Why the records refuse the proof at `at`; null when they accept it. A task past its deadline (or
 * a public task past its time to live) answers TASK_EXPIRED before the assignment is looked at,
 * since expiry is what took the assignment away; a challenge taken back from a jailed miner before
 * its deadline answers NOT_ASSIGNED.
 */
export function proofRecordProblem(p: ProofClaim, r: ProofRecords, at: ProofAt): { reason: ProofRecordRejection; message: string } | null {
  const no = (reason: ProofRecordRejection, message: string) => ({ reason, message });
  if (!r.modelApproved) return no('MODEL_NOT_APPROVED', `model ${p.modelId} is not approved`);
  if (r.modelRefusedFrom !== undefined && r.modelRefusedFrom <= at.height) {
    return no('MODEL_NOT_APPROVED', `model ${p.modelId} was retired by governance: its proofs are refused from block ${r.modelRefusedFrom}`);
  }
  const m = r.miner;
  if (!m) return no('MINER_NOT_REGISTERED', `miner ${p.miner} is not registered (svc_registerMiner, then wait for the next block)`);
  if (m.publicKey !== p.publicKey) return no('KEY_MISMATCH', `public_key is not the key registered for ${p.miner}`);
  if (m.jailedUntil > at.now) return no('MINER_JAILED', `miner ${p.miner} is jailed until ${m.jailedUntil} (block time, unix seconds) after a failed spot-check`);
  const t = r.task;
  if (!t) return no('UNKNOWN_TASK', `task ${p.taskId} does not exist`);
  if (t.status === 'completed') return no('REPLAYED', `task ${p.taskId} already has a proof`);
  // Past its deadline (assigned, or expired at an epoch start), or a public task past its time to live.
  const pastDeadline = (t.status === 'assigned' || t.status === 'expired') && t.deadlineEpoch !== null && t.deadlineEpoch < at.epoch;
  if (pastDeadline || (t.status === 'expired' && t.kind === 'public')) {
    return no('TASK_EXPIRED', `task ${p.taskId} expired${t.deadlineEpoch !== null ? ` (due by epoch ${t.deadlineEpoch})` : ''}`);
  }
  if (t.status !== 'assigned' || t.assignedTo !== p.miner) return no('NOT_ASSIGNED', `task ${p.taskId} is not assigned to ${p.miner}`);
  if (t.modelId !== p.modelId) return no('MODEL_MISMATCH', `task ${p.taskId} is for ${t.modelId}, not ${p.modelId}`);
  if (t.inputHash !== p.inputHash) return no('INPUT_HASH_MISMATCH', `input_hash is not the hash of task ${p.taskId}'s input (${t.inputHash})`);
  return null;
}
