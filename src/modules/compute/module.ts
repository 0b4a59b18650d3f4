// The compute module: miners and their registrations, inference tasks (public ones paid through
// transactions to params.system.computeAddress, challenge ones drawn by the coordinator), proofs,
// spot-checks, proof-of-work shares, and the rewards of all of it. Consensus state lives in the
// chain's app column family under "compute/" and changes only inside a block: transactions to the
// module, and the block hooks that apply what the node queued (registrations, proofs, shares and
// spot-check verdicts, each verified before it was queued and checked again against the state
// when applied). docs/compute.md describes the rules.
import { readFileSync } from 'node:fs';
import { decodeFunctionData, encodeEventTopics, encodeAbiParameters, encodeFunctionResult, type Abi, type AbiEvent, type Hex as ViemHex } from 'viem';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { core, type BalanceMove, type Chain, type ModuleLog, type RecordWrite } from '../../native/index.js';
import { system, type ComputeParams } from '../../params.js';
import {
  reverter,
  type BlockContext,
  type BlockInfo,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import { decodeRecord, encodeRecord, RecordChanges } from '../kernel/records.js';
import { assignTasks, canRun, type ModelTiers } from './assign.js';
import { splitByFlops, splitTaskFee } from './rewards.js';
import {
  emptyCounters,
  newPublicTask,
  windowAdd,
  windowSum,
  type Address,
  type ComputeGlobal,
  type ComputeMode,
  type MinerRecord,
  type PenaltyDue,
  type PowWindowEntry,
  type ProofRecord,
  type SpotCheckResult,
  type TaskRecord,
  type ValidatorComputeRecord,
} from './types.js';
import { hexOf, type GpuTierName, type Hex } from './wire.js';

export const COMPUTE_ABI = JSON.parse(readFileSync(new URL('../../../../abi/compute.json', import.meta.url), 'utf8')) as Abi;

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

const COMPUTE: Address = system.computeAddress;
const TREASURY: Address = system.treasuryAddress;
const addressBuffer = (a: string): Buffer => Buffer.from(a.slice(2), 'hex');

/** Where and when the block runs, as the compute hooks need it. */
export interface ComputeBlockContext {
  height: number;
  now: number;
  epoch: number;
  /** Epoch length, to tell an epoch's first block. */
  epochLengthBlocks: number;
  parentHash: Buffer;
}

/** A registration verified by the node (both signatures), waiting for a block. */
export interface QueuedRegistration {
  wallet: Address;
  publicKey: Hex;
  tier: GpuTierName;
  models: string[];
  sequence: number;
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

/** What the module's queues held for one block (given back if the block fails). */
export interface TakenQueues {
  registrations: QueuedRegistration[];
  proofs: QueuedProof[];
  shares: QueuedShare[];
  verdicts: QueuedVerdict[];
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

const EVENTS = new Map((COMPUTE_ABI.filter((e) => e.type === 'event') as AbiEvent[]).map((e) => [e.name, e]));

function taskSubmittedLog(taskId: Hex, submitter: Address, modelId: string, fee: bigint): ModuleLog {
  const event = EVENTS.get('TaskSubmitted')!;
  const topics = encodeEventTopics({ abi: [event], eventName: 'TaskSubmitted', args: { taskId, submitter } } as never) as ViemHex[];
  const data = encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], [modelId, fee]);
  return { topics: topics.map((t) => Buffer.from(t.slice(2), 'hex')), data: Buffer.from(data.slice(2), 'hex') };
}

/** The id of the public task a transaction creates: keccak256("svc/public-task" || tx hash). */
export function publicTaskId(txHash: Uint8Array): Hex {
  return hexOf(keccak_256(Buffer.concat([Buffer.from('svc/public-task', 'utf8'), Buffer.from(txHash)])));
}

/** Whether a proof included in a block whose hash is `blockHash` is drawn for a spot-check. */
export function drawnForSpotCheck(blockHash: Uint8Array, proofId: Hex, spotCheckBps: number): boolean {
  const h = blake3(Buffer.concat([Buffer.from('svc/spot-check'), Buffer.from(blockHash), Buffer.from(proofId.slice(2), 'hex')]));
  return Number(Buffer.from(h).readBigUInt64BE(0) % 10_000n) < spotCheckBps;
}

/** The share target for a difficulty: floor((2^256 - 1) / difficulty), 32 bytes big-endian. */
export function shareTarget(difficulty: bigint): Buffer {
  const t = ((1n << 256n) - 1n) / difficulty;
  return Buffer.from(t.toString(16).padStart(64, '0'), 'hex');
}

function emptyGlobal(params: ComputeParams): ComputeGlobal {
  return {
    approvedModels: params.approvedModels.map((m) => m.id),
    counters: emptyCounters(),
    minerPool: 0n,
    lastBlockProofs: [],
    spotChecksPending: [],
    assignedEpoch: 0,
    recentHashes: [],
    seenShares: [],
    powWindow: [],
    models: {},
    penaltiesDue: [],
  };
}

function newValidator(address: Address): ValidatorComputeRecord {
  return { address, modeSince: 0, tasksCompleted: 0, spotChecksPassed: 0, spotChecksFailed: 0, feeRewards: 0n, sharesAccepted: 0, powWork: 0n, window: [] };
}

/** What compute reads of the staking module (its keeper). */
export interface StakingKeeper {
  /** The inference miners' share of block `height`'s reward, decided by staking's endBlock. */
  minersShare(height: number): bigint;
}

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
  /** What the block being built took from the queues (given back if it fails). */
  private taken: TakenQueues | null = null;
  private staking: StakingKeeper | undefined;
  private global: ComputeGlobal;
  private readonly miners = new Map<Address, MinerRecord>();
  private readonly validators = new Map<Address, ValidatorComputeRecord>();
  private readonly open = new Map<Hex, TaskRecord>();
  /** Proofs written since the last commit or still needed by hooks (drawn, pending). */
  private readonly proofCache = new Map<Hex, ProofRecord>();
  /** Records changed since the last takeWrites (null: deleted); encoded once, when taken, in their final state. */
  private readonly dirty = new Map<string, unknown>();
  private readonly changes = new RecordChanges(COMPUTE);
  private readonly tiers: ModelTiers;
  private readonly dims: ReadonlyMap<string, number>;
  private readonly target: Buffer;

  // The node's queues (not consensus state).
  private registrations: QueuedRegistration[] = [];
  private proofs: QueuedProof[] = [];
  /** Task ids of `proofs`, for the replay check at intake. */
  private readonly queuedTasks = new Set<Hex>();
  private shares: QueuedShare[] = [];
  private verdicts: QueuedVerdict[] = [];
  private localMode: { validator: Address; mode: ComputeMode } | null = null;

  private constructor(
    private chain: Chain,
    readonly params: ComputeParams,
  ) {
    this.tiers = new Map(params.approvedModels.map((m) => [m.id, m.tier]));
    this.dims = new Map(params.approvedModels.map((m) => [m.id, m.dims]));
    this.target = shareTarget(params.shareDifficulty);
    this.global = emptyGlobal(params);
    this.loadFrom(chain);
  }

  static load(chain: Chain, params: ComputeParams): ComputeModule {
    return new ComputeModule(chain, params);
  }

  private loadFrom(chain: Chain): void {
    this.miners.clear();
    this.validators.clear();
    this.open.clear();
    this.proofCache.clear();
    this.dirty.clear();
    const g = chain.getAppValue(Buffer.from(GLOBAL_KEY));
    this.global = g ? decodeRecord<ComputeGlobal>(g) : emptyGlobal(this.params);
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

  /** Throws away what was applied since the last commit (a block that failed); what the block took from the queues goes back. */
  reload(chain: Chain): void {
    this.chain = chain;
    this.loadFrom(chain);
    this.changes.clear();
    if (this.taken) this.restoreQueues(this.taken);
    this.taken = null;
    this.building = undefined;
  }

  /** Wires the staking module's keeper (the miners' share of each block's reward). */
  setStakingKeeper(keeper: StakingKeeper): void {
    this.staking = keeper;
  }

  /** Records changed since the last call, as the block's writes (no value: deleted), sorted by key. */
  takeWrites(): RecordWrite[] {
    for (const [k, v] of this.dirty) {
      if (v === null) this.changes.delete(Buffer.from(k));
      else this.changes.put(Buffer.from(k), encodeRecord(v));
    }
    this.dirty.clear();
    return this.changes.take();
  }

  /** After a commit: proofs no longer needed by the hooks leave the cache (they are on disk). */
  committed(): void {
    const keep = new Set([...this.global.lastBlockProofs, ...this.global.spotChecksPending]);
    for (const id of this.proofCache.keys()) if (!keep.has(id)) this.proofCache.delete(id);
    this.taken = null;
    if (this.building) this.lastBlockEvents = this.building;
    this.building = undefined;
  }

  /** Start of a block: see openBlock(); then the block takes its share of the queues. */
  beginBlock(block: BlockInfo): HookResult {
    const moves = this.openBlock(block);
    this.taken = this.takeQueues();
    return { moves, minted: 0n, burned: 0n };
  }

  /** End of a block: see closeBlock(); mints and pays the miners' share staking decided. */
  endBlock(block: BlockInfo): HookResult {
    const taken = this.taken ?? { registrations: [], proofs: [], shares: [], verdicts: [] };
    const share = this.staking?.minersShare(block.height) ?? 0n;
    const end = this.closeBlock(block, taken, share, block.proposer);
    this.building = { height: block.height, accepted: end.accepted, decided: end.decided };
    return { moves: end.moves, minted: end.minted, burned: 0n };
  }

  // ---- records ----

  private put(key: string, value: unknown): void {
    this.dirty.set(key, value);
  }

  private saveGlobal(): void {
    this.put(GLOBAL_KEY, this.global);
  }

  private saveMiner(m: MinerRecord): void {
    this.miners.set(m.wallet, m);
    this.put(MINER + m.wallet, m);
  }

  private validatorRecord(a: Address): ValidatorComputeRecord {
    let v = this.validators.get(a);
    if (!v) {
      v = newValidator(a);
      this.validators.set(a, v);
    }
    return v;
  }

  private saveValidator(v: ValidatorComputeRecord): void {
    this.validators.set(v.address, v);
    this.put(VALIDATOR + v.address, v);
  }

  private saveTask(t: TaskRecord): void {
    if (t.status === 'pending' || t.status === 'assigned') {
      this.open.set(t.id, t);
      this.put(OPEN + t.id, t);
      this.dirty.set(TASK + t.id, null);
    } else {
      this.open.delete(t.id);
      this.dirty.set(OPEN + t.id, null);
      this.put(TASK + t.id, t);
    }
  }

  private saveProof(p: ProofRecord): void {
    this.proofCache.set(p.id, p);
    this.put(PROOF + p.id, p);
  }

  // ---- queries ----

  get approvedModels(): readonly string[] {
    return this.global.approvedModels;
  }

  isApproved(modelId: string): boolean {
    return this.global.approvedModels.includes(modelId);
  }

  modelDims(modelId: string): number | undefined {
    return this.dims.get(modelId);
  }

  modelTier(modelId: string): GpuTierName | undefined {
    return this.tiers.get(modelId);
  }

  get counters(): ComputeGlobal['counters'] {
    return this.global.counters;
  }

  get minerPool(): bigint {
    return this.global.minerPool;
  }

  get spotChecksPending(): readonly Hex[] {
    return this.global.spotChecksPending;
  }

  modelCounts(): Readonly<Record<string, { assigned: number; completed: number }>> {
    return this.global.models;
  }

  miner(wallet: Address): MinerRecord | undefined {
    return this.miners.get(wallet);
  }

  minerList(): MinerRecord[] {
    return [...this.miners.values()].sort((a, b) => (a.wallet < b.wallet ? -1 : 1));
  }

  /**
   * Active miners for the reward split (staking.inferenceMinersShareBps): an accepted proof in the
   * score window (this epoch and the one before) and not jailed at `now`. Counted from state, so
   * every node gets the same number.
   */
  minersWithRecentProofs(epoch: number, now: number): number {
    let n = 0;
    for (const m of this.miners.values()) if (m.jailedUntil <= now && windowSum(m.window, epoch, this.params.scoreWindowEpochs) > 0n) n += 1;
    return n;
  }

  /**
   * The staking penalties the previous block's failed spot-checks ordered, taken for the block being
   * built (it applies them). They are module state: a block that fails leaves them to its retry, and
   * a restart keeps them.
   */
  takePenaltiesDue(): (PenaltyDue & { reason: string })[] {
    const due = this.global.penaltiesDue ?? [];
    if (due.length === 0) return [];
    this.global.penaltiesDue = [];
    this.saveGlobal();
    return due.map((d) => ({
      ...d,
      reason: `spot-check failure: proof ${d.proofs[0]}${d.proofs.length > 1 ? ` and ${d.proofs.length - 1} more` : ''} (block ${d.infractionHeight})`,
    }));
  }

  /** Miners that registered or had a proof accepted within minerActiveEpochs and are not jailed at `now`. */
  activeMiners(epoch: number, now: number): MinerRecord[] {
    return this.minerList().filter((m) => m.lastActiveEpoch > epoch - this.params.minerActiveEpochs && m.jailedUntil <= now);
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
  blockActivity(height: number): { accepted: Hex[]; decided: Hex[] } {
    const v = this.chain.getAppValue(Buffer.from(blockKey(height)));
    return v ? decodeRecord<{ accepted: Hex[]; decided: Hex[] }>(v) : { accepted: [], decided: [] };
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

  /**
   * The hashrate window: the last hashrateWindowBlocks blocks' work, timed from the timestamp of the
   * block before them (the window keeps that one block too, as its start; so a young chain never
   * times from the genesis date).
   */
  private powWindowWork(validator: Address): { work: bigint; seconds: number } {
    const w = this.global.powWindow;
    if (w.length < 2) return { work: 0n, seconds: 0 };
    const work = w.slice(1).reduce((s, e) => s + (e.work[validator] ?? 0n), 0n);
    return { work, seconds: w[w.length - 1]!.timestamp - w[0]!.timestamp };
  }

  /** Hashes per second of a validator over the hashrate window (block time). */
  hashrate(validator: Address): bigint {
    const { work, seconds } = this.powWindowWork(validator);
    return seconds <= 0 ? 0n : work / BigInt(seconds);
  }

  /** The hashrate window's span in block time, seconds. */
  hashrateWindowSeconds(): number {
    return this.powWindowWork(COMPUTE).seconds;
  }

  inferenceScoreOf(window: MinerRecord['window'], epoch: number): bigint {
    return windowSum(window, epoch, this.params.scoreWindowEpochs);
  }

  validatorCompute(address: Address): ValidatorComputeRecord | undefined {
    return this.validators.get(address);
  }

  /** Compute views of validators: mode, hashrate, inference score, and their score parts. */
  computeViews(addresses: readonly Address[], epoch: number): Map<Address, ValidatorComputeView> {
    const raw = addresses.map((a) => {
      const v = this.validators.get(a);
      const { work: powWork, seconds } = this.powWindowWork(a);
      const hashrate = seconds <= 0 ? 0n : powWork / BigInt(seconds);
      const inferenceScore = v ? windowSum(v.window, epoch, this.params.scoreWindowEpochs) : 0n;
      return { a, v, hashrate, powWork, inferenceScore };
    });
    const maxHash = raw.reduce((m, r) => (r.v?.mode === 'pow' && r.hashrate > m ? r.hashrate : m), 0n);
    const maxInf = raw.reduce((m, r) => (r.v?.mode === 'inference' && r.inferenceScore > m ? r.inferenceScore : m), 0n);
    const out = new Map<Address, ValidatorComputeView>();
    for (const { a, v, hashrate, powWork, inferenceScore } of raw) {
      const mode: ComputeMode = v?.mode ?? 'none';
      let computeBps = 0;
      if (mode === 'pow' && maxHash > 0n) computeBps = Number((hashrate * 10_000n) / maxHash);
      if (mode === 'inference' && maxInf > 0n) computeBps = Number((inferenceScore * 10_000n) / maxInf);
      const decided = (v?.spotChecksPassed ?? 0) + (v?.spotChecksFailed ?? 0);
      const accuracyBps = decided === 0 ? 10_000 : Math.floor(((v?.spotChecksPassed ?? 0) * 10_000) / decided);
      out.set(a, {
        computeMode: mode,
        providesCompute: mode === 'pow' ? powWork > 0n : mode === 'inference' ? inferenceScore > 0n : false,
        hashrate,
        inferenceScore,
        tasksCompleted: v?.tasksCompleted ?? 0,
        computeBps,
        accuracyBps,
      });
    }
    return out;
  }

  // ---- the node's queues ----

  /** The mode this node announces for its validator (recorded by the next block it makes if it differs). */
  setLocalMode(validator: Address, mode: ComputeMode): void {
    this.localMode = { validator, mode };
  }

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

  hasVerdictQueued(proofId: Hex): boolean {
    return this.verdicts.some((x) => x.proofId === proofId);
  }

  /** Takes what one block applies; `restore` puts it back when the block fails. */
  private takeQueues(): TakenQueues {
    const take = <T>(q: T[], n: number): [T[], T[]] => [q.slice(0, n), q.slice(n)];
    let registrations, proofs, shares;
    [registrations, this.registrations] = take(this.registrations, this.params.maxRegistrationsPerBlock);
    [proofs, this.proofs] = take(this.proofs, this.params.maxProofsPerBlock);
    for (const p of proofs) this.queuedTasks.delete(p.taskId);
    [shares, this.shares] = take(this.shares, this.params.maxSharesPerBlock);
    const verdicts = this.verdicts;
    this.verdicts = [];
    return { registrations, proofs, shares, verdicts };
  }

  private restoreQueues(q: TakenQueues): void {
    this.registrations = [...q.registrations, ...this.registrations];
    this.proofs = [...q.proofs, ...this.proofs];
    for (const p of q.proofs) this.queuedTasks.add(p.taskId);
    this.shares = [...q.shares, ...this.shares];
    this.verdicts = [...q.verdicts, ...this.verdicts];
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return this.run(tx, ctx, false);
  }

  /** eth_call / eth_estimateGas: the same checks and result, nothing kept. */
  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return this.run({ ...call, txHash: Buffer.alloc(32) }, ctx, true);
  }

  private run(call: ModuleCall & { txHash: Buffer }, ctx: { height: number; epoch: number }, dry: boolean): ModuleOutcome {
    const revert = reverter(call);
    let decoded: { functionName: string; args: readonly unknown[] };
    try {
      if (call.data.length === 0) return revert('compute: plain transfers are refused, call a function', call.intrinsicGas);
      decoded = decodeFunctionData({ abi: COMPUTE_ABI, data: `0x${call.data.toString('hex')}` }) as typeof decoded;
    } catch {
      return revert('compute: unknown function or malformed arguments', call.intrinsicGas);
    }
    const required = call.intrinsicGas + BigInt(decoded.functionName === 'submitTask' ? this.params.gas.submitTask : 5_000);
    if (call.gasLimit < required) return revert('out of gas', call.gasLimit);
    const encode = (result: unknown): Buffer => {
      const h = encodeFunctionResult({ abi: COMPUTE_ABI, functionName: decoded.functionName, result } as never) as string;
      return Buffer.from(h.slice(2), 'hex');
    };
    if (decoded.functionName === 'getTask') {
      if (call.value > 0n) return revert('compute: getTask is not payable', required);
      const id = (decoded.args[0] as string).toLowerCase() as Hex;
      const t = this.task(id);
      if (!t) return revert('compute: task not found', required);
      const p = t.proofId ? this.proof(t.proofId) : undefined;
      const zero = `0x${'00'.repeat(32)}`;
      return { success: true, gasUsed: required, returnData: encode([t.status, t.modelId, t.fee, p?.miner ?? `0x${'00'.repeat(20)}`, p?.outputHash ?? zero]), logs: [], moves: [] };
    }
    // submitTask(modelId, input)
    const [modelId, input] = decoded.args as [string, string];
    if (!this.isApproved(modelId)) return revert(`compute: model ${modelId} is not approved`, required);
    const bytes = Buffer.byteLength(input, 'utf8');
    if (bytes === 0) return revert('compute: input is empty', required);
    if (bytes > this.params.publicTaskMaxInputBytes) {
      return revert(`compute: input is ${bytes} bytes, the limit is ${this.params.publicTaskMaxInputBytes}`, required);
    }
    if (call.value < this.params.publicTaskMinFee) return revert(`compute: fee ${call.value} is below the minimum ${this.params.publicTaskMinFee}`, required);
    const waiting = this.openTasks().filter((t) => t.kind === 'public').length;
    if (waiting >= this.params.maxOpenPublicTasks) return revert('compute: too many public tasks waiting, try later', required);
    const id = publicTaskId(call.txHash);
    const log = taskSubmittedLog(id, call.from, modelId, call.value);
    if (!dry) {
      if (this.open.has(id) || this.task(id)) return revert('compute: task exists', required);
      this.saveTask(newPublicTask({ id, modelId, input, fee: call.value, submitter: call.from, createdAt: ctx.height, createdEpoch: ctx.epoch }));
      this.global.counters.tasksCreated += 1;
      this.global.counters.publicTasks += 1;
      this.saveGlobal();
    }
    return { success: true, gasUsed: required, returnData: encode(id), logs: [log], moves: [] };
  }

  // ---- block hooks ----

  /**
   * Start of a block: remember the parent's hash for shares, draw the spot-checks of the parent's
   * proofs from its hash (fees of undrawn public tasks are paid), and at an epoch's first block
   * expire overdue tasks and assign the epoch's tasks from the parent's hash.
   */
  private openBlock(ctx: ComputeBlockContext): BalanceMove[] {
    const g = this.global;
    const moves: BalanceMove[] = [];
    const parentHash = hexOf(ctx.parentHash);
    g.recentHashes = [...g.recentHashes, parentHash].slice(-this.params.shareMaxAgeBlocks);
    const recent = new Set(g.recentHashes);
    g.seenShares = g.seenShares.filter((s) => recent.has(s.slice(0, 66) as Hex));

    for (const id of g.lastBlockProofs) {
      const p = this.proof(id);
      if (!p) continue;
      if (drawnForSpotCheck(ctx.parentHash, id, this.params.spotCheckBps)) {
        p.spotCheck = 'pending';
        g.spotChecksPending.push(id);
        g.counters.spotChecksSelected += 1;
      } else {
        p.spotCheck = 'not-selected';
        moves.push(...this.payFee(p));
      }
      this.saveProof(p);
    }
    g.lastBlockProofs = [];

    // Checks drawn long ago that no validator decided (none runs the model): closed, the proof stands.
    for (const id of [...g.spotChecksPending]) {
      const p = this.proof(id);
      if (p && p.includedAt + this.params.spotCheckTimeoutBlocks > ctx.height) continue;
      g.spotChecksPending = g.spotChecksPending.filter((x) => x !== id);
      if (!p) continue;
      p.spotCheck = 'expired';
      g.counters.spotChecksExpired = (g.counters.spotChecksExpired ?? 0) + 1;
      moves.push(...this.payFee(p));
      this.saveProof(p);
    }

    if (ctx.height % ctx.epochLengthBlocks === 0 && ctx.epoch > g.assignedEpoch) {
      moves.push(...this.expire(ctx));
      this.forgetIdleMiners(ctx);
      this.assign(ctx);
      g.assignedEpoch = ctx.epoch;
    }
    this.saveGlobal();
    return moves;
  }

  private expire(ctx: ComputeBlockContext): BalanceMove[] {
    const moves: BalanceMove[] = [];
    for (const t of this.openTasks().sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (t.kind === 'public' && ctx.epoch >= t.createdEpoch + this.params.publicTaskTtlEpochs) {
        t.status = 'expired';
        t.refunded = t.fee;
        this.global.counters.tasksExpired += 1;
        this.global.counters.feesRefunded += t.fee;
        if (t.fee > 0n && t.submitter) moves.push({ from: addressBuffer(COMPUTE), to: addressBuffer(t.submitter), amount: t.fee });
        this.saveTask(t);
      } else if (t.status === 'assigned' && t.deadlineEpoch !== null && t.deadlineEpoch < ctx.epoch) {
        if (t.kind === 'challenge') {
          t.status = 'expired';
          this.global.counters.tasksExpired += 1;
        } else {
          this.unassign(t);
        }
        this.saveTask(t);
      }
    }
    return moves;
  }

  /** Deletes the records of miners idle for minerRetentionEpochs (no open task, not jailed): they start afresh if they register again. */
  private forgetIdleMiners(ctx: ComputeBlockContext): void {
    const holding = new Set([...this.open.values()].map((t) => t.assignedTo).filter((a) => a !== null));
    for (const m of this.minerList()) {
      if (m.lastActiveEpoch > ctx.epoch - this.params.minerRetentionEpochs || m.jailedUntil > ctx.now || holding.has(m.wallet)) continue;
      this.miners.delete(m.wallet);
      this.dirty.set(MINER + m.wallet, null);
      this.global.counters.minersForgotten = (this.global.counters.minersForgotten ?? 0) + 1;
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
    const eligible = this.activeMiners(ctx.epoch, ctx.now);
    const openCount = new Map<Address, number>();
    for (const t of this.open.values()) if (t.status === 'assigned' && t.assignedTo) openCount.set(t.assignedTo, (openCount.get(t.assignedTo) ?? 0) + 1);
    const pending = this.openTasks().filter((t) => t.status === 'pending');
    const a = assignTasks({
      epoch: ctx.epoch,
      height: ctx.height,
      seed: ctx.parentHash,
      miners: eligible,
      openCount,
      pending,
      approved: new Set(this.global.approvedModels),
      tiers: this.tiers,
      challengeTasksPerMiner: this.params.challengeTasksPerMiner,
      maxOpenTasksPerMiner: this.params.maxOpenTasksPerMiner,
      deadlineEpochs: this.params.deadlineEpochs,
    });
    const count = (modelId: string) => (this.global.models[modelId] ??= { assigned: 0, completed: 0 });
    for (const [id, wallet] of a.publicAssigned) {
      const t = this.open.get(id)!;
      t.status = 'assigned';
      t.assignedTo = wallet;
      t.assignedEpoch = ctx.epoch;
      t.deadlineEpoch = ctx.epoch + this.params.deadlineEpochs - 1;
      this.saveTask(t);
      count(t.modelId).assigned += 1;
      this.global.counters.tasksAssigned += 1;
    }
    for (const t of a.challenges) {
      if (this.open.has(t.id)) continue;
      this.saveTask(t);
      count(t.modelId).assigned += 1;
      this.global.counters.tasksAssigned += 1;
      this.global.counters.tasksCreated += 1;
      this.global.counters.challengeTasks += 1;
    }
  }

  /** Pays a public task's fee parts once its proof is past the spot-check draw or passed the check. */
  private payFee(p: ProofRecord): BalanceMove[] {
    if (p.feePaid || p.feeMiner + p.feeValidator + p.feeTreasury === 0n) return [];
    p.feePaid = true;
    const c = this.global.counters;
    c.feesPaidMiners += p.feeMiner;
    c.feesPaidValidators += p.feeValidator;
    c.feesPaidTreasury += p.feeTreasury;
    const m = this.miners.get(p.miner);
    if (m) {
      m.feeRewards += p.feeMiner;
      this.saveMiner(m);
    }
    const v = this.validatorRecord(p.validator);
    v.feeRewards += p.feeValidator;
    this.saveValidator(v);
    const from = addressBuffer(COMPUTE);
    const moves: BalanceMove[] = [];
    if (p.feeMiner > 0n) moves.push({ from, to: addressBuffer(p.miner), amount: p.feeMiner });
    if (p.feeValidator > 0n) moves.push({ from, to: addressBuffer(p.validator), amount: p.feeValidator });
    if (p.feeTreasury > 0n) moves.push({ from, to: addressBuffer(TREASURY), amount: p.feeTreasury });
    return moves;
  }

  /**
   * End of a block: the node's mode announcement, registrations, spot-check verdicts, proofs (the
   * miners' share of this block's reward, plus what earlier blocks left, split by FLOPs among the
   * proofs accepted here) and proof-of-work shares.
   */
  private closeBlock(ctx: ComputeBlockContext, q: TakenQueues, minersShare: bigint, proposer: Address): ComputeBlockEnd {
    const g = this.global;
    const moves: BalanceMove[] = [];
    /** By the validator each failed proof came through (spec: "validator is penalized with a 5% stake slash and a 6-hour jail"). */
    const penalties = new Map<Address, PenaltyDue>();

    if (this.localMode && this.localMode.validator === proposer) {
      const v = this.validatorRecord(proposer);
      if (v.mode !== this.localMode.mode) {
        v.mode = this.localMode.mode;
        v.modeSince = ctx.height;
        this.saveValidator(v);
      }
    }

    for (const r of q.registrations) {
      const old = this.miners.get(r.wallet);
      if (old && old.sequence >= r.sequence) continue;
      const models = r.models.filter((id) => this.isApproved(id));
      this.saveMiner({
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
      const p = this.proof(v.proofId);
      if (!p) continue;
      g.spotChecksPending = g.spotChecksPending.filter((id) => id !== v.proofId);
      p.spotCheck = v.passed ? 'passed' : 'failed';
      p.spotCheckResult = { ...v.result, checkedAt: ctx.height };
      const m = this.miners.get(p.miner);
      const val = this.validatorRecord(p.validator);
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
      if (m) this.saveMiner(m);
      this.saveValidator(val);
      this.saveProof(p);
      decided.push(p);
    }

    const accepted: ProofRecord[] = [];
    for (const qp of q.proofs) {
      const t = this.open.get(qp.taskId);
      const m = this.miners.get(qp.miner);
      const ok =
        t !== undefined &&
        t.status === 'assigned' &&
        t.assignedTo === qp.miner &&
        t.inputHash === qp.inputHash &&
        t.modelId === qp.modelId &&
        (t.deadlineEpoch ?? -1) >= ctx.epoch &&
        m !== undefined &&
        m.publicKey === qp.publicKey &&
        m.jailedUntil <= ctx.now &&
        this.isApproved(qp.modelId) &&
        qp.flops > 0n &&
        this.proof(qp.id) === undefined;
      if (!ok) {
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
      this.saveTask(t);
      m.tasksCompleted += 1;
      m.proofsAccepted += 1;
      m.flops += p.flops;
      m.lastActiveEpoch = ctx.epoch;
      m.window = windowAdd(m.window, ctx.epoch, p.flops, this.params.scoreWindowEpochs);
      this.saveMiner(m);
      const val = this.validatorRecord(p.validator);
      val.tasksCompleted += 1;
      val.window = windowAdd(val.window, ctx.epoch, p.flops, this.params.scoreWindowEpochs);
      this.saveValidator(val);
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
        const m = this.miners.get(wallet)!;
        m.blockRewards += amount;
        this.saveMiner(m);
        moves.push({ from: addressBuffer(COMPUTE), to: addressBuffer(wallet), amount });
      }
      g.counters.blockRewardsPaid += g.minerPool;
      g.minerPool = 0n;
    }
    for (const p of accepted) this.saveProof(p);
    g.lastBlockProofs = accepted.map((p) => p.id);
    if (accepted.length > 0 || decided.length > 0) {
      this.put(blockKey(ctx.height), { accepted: accepted.map((p) => p.id), decided: decided.map((p) => p.id) });
    }

    this.applyShares(ctx, q.shares);
    const ordered = [...penalties.values()].sort((a, b) => (a.validator < b.validator ? -1 : 1));
    g.penaltiesDue = [...(g.penaltiesDue ?? []), ...ordered];
    this.saveGlobal();
    return { moves, minted: minersShare, penalties: ordered, accepted, decided };
  }

  /** A miner caught cheating holds no task: public ones wait for another miner, challenge ones expire. */
  private releaseTasksOf(wallet: Address): void {
    for (const t of this.openTasks()) {
      if (t.status !== 'assigned' || t.assignedTo !== wallet) continue;
      if (t.kind === 'public') this.unassign(t);
      else {
        t.status = 'expired';
        this.global.counters.tasksExpired += 1;
      }
      this.saveTask(t);
    }
  }

  /** A failed proof's task does not count as done; a public task goes back to wait for an honest miner (its fee was not paid). */
  private reopenAfterFailure(p: ProofRecord): void {
    const t = this.task(p.taskId);
    if (!t) return;
    this.global.counters.tasksCompleted -= 1;
    const model = this.global.models[p.modelId];
    if (model) model.completed -= 1;
    if (t.kind === 'public') {
      this.unassign(t);
      t.proofId = null;
      t.completedAt = null;
      this.saveTask(t);
    }
  }

  private applyShares(ctx: ComputeBlockContext, shares: readonly QueuedShare[]): void {
    const g = this.global;
    const recent = new Set(g.recentHashes);
    const seen = new Set(g.seenShares);
    const work: Record<Address, bigint> = {};
    for (const s of shares) {
      const key = `${s.blockHash}:${s.validator}:${s.nonce}`;
      if (!recent.has(s.blockHash) || seen.has(key)) continue;
      // One hash: the share's pre-image is (block hash, validator, nonce) and its hash must meet the target.
      const hash = core.powHash(Buffer.concat([Buffer.from(s.blockHash.slice(2), 'hex'), addressBuffer(s.validator)]), s.nonce);
      if (Buffer.compare(hash, this.target) > 0) continue;
      seen.add(key);
      g.seenShares.push(key);
      work[s.validator] = (work[s.validator] ?? 0n) + this.params.shareDifficulty;
      const v = this.validatorRecord(s.validator);
      v.sharesAccepted += 1;
      v.powWork += this.params.shareDifficulty;
      this.saveValidator(v);
      g.counters.sharesAccepted += 1;
    }
    const entry: PowWindowEntry = { height: ctx.height, timestamp: ctx.now, work };
    g.powWindow = [...g.powWindow, entry].slice(-(this.params.hashrateWindowBlocks + 1));
  }
}

/** The models a miner may be registered for: approved ones its tier can run. */
export function runnableModels(models: readonly string[], tier: GpuTierName, tiers: ModelTiers): string[] {
  return models.filter((id) => canRun({ tier, models: [...models] }, id, tiers));
}
