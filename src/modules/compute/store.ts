// The compute module's records: the keys under "compute/" (global, miners, validators, open and
// closed tasks, proofs, per-block activity), values through the kernel's record codec, loading
// them from the chain's head, the changes made since the last take, and plain reads of them.
import type { Chain, RecordWrite } from '../../native/index.js';
import { system, type ComputeParams } from '../../params.js';
import { decodeRecord, RecordChanges } from '../kernel/records.js';
import { genesisGlobal, genesisRegistry } from './genesis.js';
import {
  type Address,
  type ComputeGlobal,
  type MinerRecord,
  type ProofRecord,
  type TaskRecord,
  type ValidatorComputeRecord,
} from './types.js';
import type { Hex } from './wire.js';

const PREFIX = 'compute/';
const GLOBAL_KEY = `${PREFIX}global`;
const MINER = `${PREFIX}miner/`;
const VALIDATOR = `${PREFIX}validator/`;
const OPEN = `${PREFIX}open/`;
const TASK = `${PREFIX}task/`;
const PROOF = `${PREFIX}proof/`;
/** Per block with compute activity: the proofs it accepted and the spot-checks it decided (height as 12 digits, so keys sort by height). */
const BLOCK = `${PREFIX}block/`;
const blockKey = (height: number) => BLOCK + String(height).padStart(12, '0');

/** What a block did in compute, recorded under its height. */
export interface BlockActivity {
  accepted: Hex[];
  decided: Hex[];
}

function newValidator(address: Address): ValidatorComputeRecord {
  return { address, modeSince: 0, tasksCompleted: 0, spotChecksPassed: 0, spotChecksFailed: 0, feeRewards: 0n, sharesAccepted: 0, powWork: 0n, window: [] };
}

/**
 * The records as of the block being built: the global record, miners, validators and open tasks
 * held in memory; closed tasks and proofs read from the chain (proofs the hooks still need are
 * cached). Every save marks its key; takeWrites() encodes the marked records once, in their final state.
 */
export class ComputeStore {
  global: ComputeGlobal;
  readonly miners = new Map<Address, MinerRecord>();
  readonly validators = new Map<Address, ValidatorComputeRecord>();
  readonly open = new Map<Hex, TaskRecord>();
  /** Proofs written since the last commit or still needed by hooks (drawn, pending). */
  private readonly proofCache = new Map<Hex, ProofRecord>();
  /** Records changed since the last takeWrites (null: deleted); encoded once, when taken, in their final state. */
  private readonly changes = new RecordChanges(system.computeAddress);

  constructor(
    private chain: Chain,
    private readonly params: ComputeParams,
  ) {
    this.global = genesisGlobal(params);
    this.loadFrom(chain);
  }

  private loadFrom(chain: Chain): void {
    this.miners.clear();
    this.validators.clear();
    this.open.clear();
    this.proofCache.clear();
    this.changes.clear();
    const g = chain.getAppValue(Buffer.from(GLOBAL_KEY));
    this.global = g ? decodeRecord<ComputeGlobal>(g) : genesisGlobal(this.params);
    this.global.registry ??= genesisRegistry(this.params);
    for (const e of chain.getAppEntries(Buffer.from(MINER))) {
      const m = decodeRecord<MinerRecord>(e.value);
      this.miners.set(m.wallet, m);
    }
    for (const e of chain.getAppEntries(Buffer.from(VALIDATOR))) {
      const v = decodeRecord<ValidatorComputeRecord>(e.value);
      this.validators.set(v.address, v);
    }
    for (const e of chain.getAppEntries(Buffer.from(OPEN))) {
      const t = decodeRecord<TaskRecord>(e.value);
      this.open.set(t.id, t);
    }
  }

  /** Throws away what was changed since the last commit and reads the records at the head again. */
  reload(chain: Chain): void {
    this.chain = chain;
    this.loadFrom(chain);
    this.changes.clear();
  }

  /** Records changed since the last call, as the block's writes (no value: deleted), sorted by key. */
  takeWrites(): RecordWrite[] {
    return this.changes.take();
  }

  /** After a commit: proofs no longer needed by the hooks leave the cache (they are on disk). */
  committed(): void {
    const keep = new Set([...this.global.lastBlockProofs, ...this.global.spotChecksPending]);
    for (const id of this.proofCache.keys()) if (!keep.has(id)) this.proofCache.delete(id);
  }

  // ---- saves ----

  private put(key: string, value: unknown): void {
    this.changes.mark(key, value);
  }

  saveGlobal(): void {
    this.put(GLOBAL_KEY, this.global);
  }

  saveMiner(m: MinerRecord): void {
    this.miners.set(m.wallet, m);
    this.put(MINER + m.wallet, m);
  }

  deleteMiner(wallet: Address): void {
    this.miners.delete(wallet);
    this.changes.mark(MINER + wallet, null);
  }

  /** A validator's compute record, created (unsaved) on first use. */
  validatorRecord(a: Address): ValidatorComputeRecord {
    let v = this.validators.get(a);
    if (!v) {
      v = newValidator(a);
      this.validators.set(a, v);
    }
    return v;
  }

  saveValidator(v: ValidatorComputeRecord): void {
    this.validators.set(v.address, v);
    this.put(VALIDATOR + v.address, v);
  }

  /** Open tasks (pending, assigned) live under "open/", closed ones under "task/". */
  saveTask(t: TaskRecord): void {
    if (t.status === 'pending' || t.status === 'assigned') {
      this.open.set(t.id, t);
      this.put(OPEN + t.id, t);
      this.changes.mark(TASK + t.id, null);
    } else {
      this.open.delete(t.id);
      this.changes.mark(OPEN + t.id, null);
      this.put(TASK + t.id, t);
    }
  }

  saveProof(p: ProofRecord): void {
    this.proofCache.set(p.id, p);
    this.put(PROOF + p.id, p);
  }

  saveBlockActivity(height: number, activity: BlockActivity): void {
    this.put(blockKey(height), activity);
  }

  // ---- reads ----

  isApproved(modelId: string): boolean {
    return this.global.approvedModels.includes(modelId);
  }

  miner(wallet: Address): MinerRecord | undefined {
    return this.miners.get(wallet);
  }

  minerList(): MinerRecord[] {
    return [...this.miners.values()].sort((a, b) => (a.wallet < b.wallet ? -1 : 1));
  }

  validatorCompute(address: Address): ValidatorComputeRecord | undefined {
    return this.validators.get(address);
  }

  openTasks(): TaskRecord[] {
    return [...this.open.values()];
  }

  openTasksOf(wallet: Address): TaskRecord[] {
    return this.openTasks()
      .filter((t) => t.status === 'assigned' && t.assignedTo === wallet)
      .sort((a, b) => (a.createdAt !== b.createdAt ? a.createdAt - b.createdAt : a.id < b.id ? -1 : 1));
  }

  task(id: Hex): TaskRecord | undefined {
    const t = this.open.get(id);
    if (t) return t;
    const v = this.chain.getAppValue(Buffer.from(TASK + id));
    return v ? decodeRecord<TaskRecord>(v) : undefined;
  }

  proof(id: Hex): ProofRecord | undefined {
    const p = this.proofCache.get(id);
    if (p) return p;
    const v = this.chain.getAppValue(Buffer.from(PROOF + id));
    return v ? decodeRecord<ProofRecord>(v) : undefined;
  }

  /** The proofs a block accepted and the spot-checks it decided (empty lists for a block without any). */
  blockActivity(height: number): BlockActivity {
    const v = this.chain.getAppValue(Buffer.from(blockKey(height)));
    return v ? decodeRecord<BlockActivity>(v) : { accepted: [], decided: [] };
  }
}
