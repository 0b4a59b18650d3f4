// What the node queued for its next block (not consensus state): miner registrations, proofs,
// proof-of-work shares, spot-check verdicts and validators' signed compute-mode announcements, each
// verified by the node before it was queued. A block takes its share and gives it back if it fails.
import type { ComputeParams } from '../../params.js';
import type { Address, ComputeMode, ProofRecord, SpotCheckResult } from './types.js';
import type { GpuTierName, Hex } from './wire.js';

/** At most this many compute-mode announcements in one block (the rest wait for the next). */
export const MAX_MODES_PER_BLOCK = 8;

/** A registration verified by the node (both signatures, which it carries so other nodes verify them too), waiting for a block. */
export interface QueuedRegistration {
  wallet: Address;
  publicKey: Hex;
  tier: GpuTierName;
  models: string[];
  sequence: number;
  /** Ed25519 signature of the miner's key over registrationMessage(). */
  signature: Hex;
  /** The wallet's EIP-191 signature over the same bytes. */
  walletSignature: Hex;
}

/** A proof verified by the node (signature, assignment, hashes, FLOPs computed), waiting for a block. */
export type QueuedProof = Omit<ProofRecord, 'includedAt' | 'blockReward' | 'feeMiner' | 'feeValidator' | 'feeTreasury' | 'feePaid' | 'spotCheck' | 'spotCheckResult' | 'taskKind'>;

/** A proof-of-work share verified by the node (one hash), waiting for a block. */
export interface QueuedShare {
  validator: Address;
  blockHash: Hex;
  nonce: bigint;
  hash: Hex;
}

export interface QueuedVerdict {
  proofId: Hex;
  passed: boolean;
  result: Omit<SpotCheckResult, 'checkedAt'>;
}

/**
 * A validator's compute mode, signed by its consensus key (Ed25519) over modeMessage(): how every
 * node learns the mode of a validator that has not proposed a block.
 */
export interface QueuedMode {
  /** The validator's operator address. */
  validator: Address;
  mode: ComputeMode;
  /** The signer's committed head when it signed. */
  height: number;
  /** The validator's consensus key (its staking record's consensusKey). */
  publicKey: Hex;
  signature: Hex;
}

/** What the module's queues held for one block (given back if the block fails). */
export interface TakenQueues {
  registrations: QueuedRegistration[];
  proofs: QueuedProof[];
  shares: QueuedShare[];
  verdicts: QueuedVerdict[];
  modes: QueuedMode[];
}

export const emptyTaken = (): TakenQueues => ({ registrations: [], proofs: [], shares: [], verdicts: [], modes: [] });

/** What identifies a mode announcement in the queues. */
const modeKey = (m: QueuedMode): string => `${m.validator}/${m.height}/${m.mode}/${m.signature}`;

/** The per-block limits the queues are taken with. */
export type QueueLimits = Pick<ComputeParams, 'maxRegistrationsPerBlock' | 'maxProofsPerBlock' | 'maxSharesPerBlock'>;

export class ComputeQueues {
  private registrations: QueuedRegistration[] = [];
  private proofs: QueuedProof[] = [];
  /** Task ids of `proofs`, for the replay check at intake. */
  private readonly queuedTasks = new Set<Hex>();
  private shares: QueuedShare[] = [];
  private verdicts: QueuedVerdict[] = [];
  /** At most one per validator: a newer announcement replaces the one queued. */
  private modes: QueuedMode[] = [];

  queueRegistration(r: QueuedRegistration): void {
    this.registrations = this.registrations.filter((x) => x.wallet !== r.wallet);
    this.registrations.push(r);
  }

  queueProof(p: QueuedProof): void {
    this.proofs.push(p);
    this.queuedTasks.add(p.taskId);
  }

  queueShare(s: QueuedShare): void {
    this.shares.push(s);
  }

  queueVerdict(v: QueuedVerdict): void {
    if (!this.verdicts.some((x) => x.proofId === v.proofId)) this.verdicts.push(v);
  }

  queueMode(m: QueuedMode): void {
    this.modes = this.modes.filter((x) => x.validator !== m.validator);
    this.modes.push(m);
  }

  /** The announcement queued for a validator, if any. */
  queuedMode(validator: Address): QueuedMode | undefined {
    return this.modes.find((x) => x.validator === validator);
  }

  hasVerdictQueued(proofId: Hex): boolean {
    return this.verdicts.some((x) => x.proofId === proofId);
  }

  isProofQueued(taskId: Hex): boolean {
    return this.queuedTasks.has(taskId);
  }

  isRegistrationQueued(wallet: Address): boolean {
    return this.registrations.some((r) => r.wallet === wallet);
  }

  queueSizes(): { registrations: number; proofs: number; shares: number; verdicts: number } {
    return { registrations: this.registrations.length, proofs: this.proofs.length, shares: this.shares.length, verdicts: this.verdicts.length };
  }

  /** Takes what one block applies; `restore` puts it back when the block fails. */
  take(limits: QueueLimits): TakenQueues {
    const take = <T>(q: T[], n: number): [T[], T[]] => [q.slice(0, n), q.slice(n)];
    let registrations, proofs, shares, modes;
    [registrations, this.registrations] = take(this.registrations, limits.maxRegistrationsPerBlock);
    [proofs, this.proofs] = take(this.proofs, limits.maxProofsPerBlock);
    for (const p of proofs) this.queuedTasks.delete(p.taskId);
    [shares, this.shares] = take(this.shares, limits.maxSharesPerBlock);
    [modes, this.modes] = take(this.modes, MAX_MODES_PER_BLOCK);
    const verdicts = this.verdicts;
    this.verdicts = [];
    return { registrations, proofs, shares, verdicts, modes };
  }

  /** Whether the queues hold everything in `q` (registrations by wallet and sequence, proofs by id, shares by hash, verdicts by proof, modes by content). */
  holds(q: TakenQueues): boolean {
    return (
      q.registrations.every((r) => this.registrations.some((x) => x.wallet === r.wallet && x.sequence === r.sequence)) &&
      q.proofs.every((p) => this.proofs.some((x) => x.id === p.id)) &&
      q.shares.every((s) => this.shares.some((x) => x.hash === s.hash)) &&
      q.verdicts.every((v) => this.verdicts.some((x) => x.proofId === v.proofId)) &&
      q.modes.every((m) => this.modes.some((x) => modeKey(x) === modeKey(m)))
    );
  }

  /**
   * Removes what a block carried from the queues (another proposer's block may carry what this node
   * also queued: messages travel the network's mempool) and returns what was removed, for restore().
   */
  discard(block: TakenQueues): TakenQueues {
    const regs = new Set(block.registrations.map((r) => `${r.wallet}/${r.sequence}`));
    const proofs = new Set(block.proofs.map((p) => p.id));
    const shares = new Set(block.shares.map((x) => x.hash));
    const verdicts = new Set(block.verdicts.map((v) => v.proofId));
    const modes = new Set(block.modes.map(modeKey));
    const removed = emptyTaken();
    const split = <T>(q: T[], hit: (x: T) => boolean, out: T[]): T[] => q.filter((x) => (hit(x) ? (out.push(x), false) : true));
    this.registrations = split(this.registrations, (r) => regs.has(`${r.wallet}/${r.sequence}`), removed.registrations);
    this.proofs = split(this.proofs, (p) => proofs.has(p.id), removed.proofs);
    for (const p of removed.proofs) this.queuedTasks.delete(p.taskId);
    this.shares = split(this.shares, (x) => shares.has(x.hash), removed.shares);
    this.verdicts = split(this.verdicts, (v) => verdicts.has(v.proofId), removed.verdicts);
    this.modes = split(this.modes, (m) => modes.has(modeKey(m)), removed.modes);
    return removed;
  }

  restore(q: TakenQueues): void {
    this.registrations = [...q.registrations, ...this.registrations];
    this.proofs = [...q.proofs, ...this.proofs];
    for (const p of q.proofs) this.queuedTasks.add(p.taskId);
    this.shares = [...q.shares, ...this.shares];
    this.verdicts = [...q.verdicts, ...this.verdicts];
    // A newer announcement queued meanwhile wins over the one given back.
    this.modes = [...q.modes.filter((m) => !this.modes.some((x) => x.validator === m.validator)), ...this.modes];
  }
}
