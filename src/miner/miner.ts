// The mining loop: register with the validator, poll svc_getInferenceTasks every poll interval,
// run each task's model (the tasks of one model in one batch), sign the proof with the miner's
// Ed25519 key and submit it. A task id is submitted once; a rejected proof (-32003) is logged and
// not retried; an unreachable validator is retried with exponential backoff. The validator hides a
// task once it holds an accepted proof for it, so a task listed again after its proof was accepted
// was lost by the validator (it restarted before a block took the proof): it is proven again, up to
// MAX_PROOFS_PER_TASK times. The models it serves follow the chain (svc_getApprovedModels, read at
// start, at each new epoch and at least every MODELS_REFRESH_MS): a model governance approves is
// registered for and loaded by the files its approval pins, a retired one is dropped, and the miner
// registers again (higher sequence) whenever that set changes.
import { SvcError } from '../errors.js';
import type { GpuTierName, TaskJson } from '../modules/compute/wire.js';
import type { HardwareInfo, InferenceOutput, ModelInfo } from '../native/inference.js';
import { pinsKey, type FilePins } from '../inference/pins.js';
import { isPinned, servableModels, type InferenceEngine } from './engine.js';
import { ModelCache } from './model-cache.js';
import { METHOD_NOT_FOUND, REJECTED, RpcError, ValidatorUnreachableError, type ApprovedModelJson, type InferenceTasks, type MinerRpc } from './rpc-client.js';
import { formatRewards, type MinerReporter } from './status.js';
import { signProof, signRegistration, type MinerKeys, type ProofResult } from './wallet.js';

export const DEFAULT_POLL_INTERVAL_MS = 10_000;
/** Proofs the miner sends for one task at most, counting those the validator lost. */
export const MAX_PROOFS_PER_TASK = 3;
/** Longest time between two reads of the chain's models (they are read at each new epoch too). */
export const MODELS_REFRESH_MS = 30_000;

/** A configuration the miner cannot work with (the CLI exits 2). */
export class MinerConfigError extends SvcError {
  override name = 'MinerConfigError';
  override readonly code = 'MINER_CONFIG';
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Uniform in [0, 1); jitter of ±25 % around each delay. */
  random: () => number;
}

export interface MinerOptions {
  keys: MinerKeys;
  rpc: MinerRpc;
  engine: InferenceEngine;
  reporter: MinerReporter;
  /** --hot-models: registered, loaded at start and kept loaded. */
  hotModels?: readonly string[];
  /** --max-memory in MB; 0 = no cap beyond the tier. */
  maxMemoryMb?: number;
  pollIntervalMs?: number;
  /** Longest time between two reads of svc_getApprovedModels (default MODELS_REFRESH_MS). */
  modelsRefreshMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** Attempts for a proof the validator answers with an error other than a rejection. */
  maxSubmitAttempts?: number;
}

/** What a model run gave for a task, before it is signed for a validator. */
type Outcome = Omit<ProofResult, 'chainId' | 'validator'>;

/** Where a step of the loop was interrupted by stop(). */
class Stopped extends SvcError {
  override readonly code = 'MINER_STOPPED';
}

const short = (h: string) => (h.length > 14 ? `${h.slice(0, 10)}…` : h);

function describeError(e: unknown): string {
  if (e instanceof RpcError) return `${e.method}: ${e.reason ?? e.message} (${e.code})`;
  return (e as Error)?.message ?? String(e);
}

export class Miner {
  readonly tier: GpuTierName;
  /** The backend the models run on (`auto` resolved). */
  readonly backend: string;
  /** --hot-models as given (the chain's retired ones are dropped from what is served). */
  readonly hotModels: readonly string[];

  private readonly keys: MinerKeys;
  private readonly rpc: MinerRpc;
  private readonly reporter: MinerReporter;
  private readonly cache: ModelCache;
  private readonly pollIntervalMs: number;
  private readonly modelsRefreshMs: number;
  private readonly backoff: BackoffOptions;
  /** The addon's registry and this machine's hardware. */
  private readonly all: ModelInfo[];
  private readonly hardware: HardwareInfo;
  /** The models served now, and their key (ids and pins) to tell a change. */
  private served: readonly string[];
  private servedKey: string;
  /** When the chain's models were last read, and at which epoch; the latest epoch the validator said. */
  private modelsReadAt = 0;
  private modelsEpoch = -1;
  private epoch = -1;
  /** Whether the validator serves svc_getApprovedModels (an older node does not: the registry's list is used). */
  private chainModels = true;
  /** The chain's models as last read (null: not served), and the head the validator last reported. */
  private lastChain: ApprovedModelJson[] | null = null;
  private head = 0;
  private retired = new Set<string>();
  private readonly maxSubmitAttempts: number;
  private readonly abort = new AbortController();

  private chainId: number | undefined;
  private registration: { appliesAtBlock: number } | undefined;
  private lastSequence = 0;
  private failures = 0;
  private stopping = false;
  private started = 0;
  private running: Promise<void> | undefined;
  private inFlight: Promise<unknown> | undefined;

  /** Task ids (lower case) submitted, or given up on: never submitted again. */
  private readonly done = new Set<string>();
  /** Model runs whose proof has not reached the validator yet (it was unreachable). */
  private readonly unsent = new Map<string, Outcome>();
  private readonly attempts = new Map<string, number>();
  /** Task ids (lower case) with proofs the validator accepted and still lists: how many it accepted. */
  private readonly accepted = new Map<string, number>();

  constructor(opts: MinerOptions) {
    this.keys = opts.keys;
    this.rpc = opts.rpc;
    this.reporter = opts.reporter;
    this.pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.modelsRefreshMs = opts.modelsRefreshMs ?? MODELS_REFRESH_MS;
    this.backoff = { initialMs: 1000, maxMs: 60_000, random: Math.random, ...opts.backoff };
    this.maxSubmitAttempts = opts.maxSubmitAttempts ?? 3;

    const all = opts.engine.listModels();
    const hardware = opts.engine.detectHardware();
    this.all = all;
    this.hardware = hardware;
    this.tier = hardware.tier;
    this.backend = hardware.backend;
    const byId = new Map(all.map((m) => [m.id, m]));
    const hot = [...new Set((opts.hotModels ?? []).map((s) => s.trim()).filter((s) => s.length > 0))];
    for (const id of hot) {
      const m = byId.get(id);
      if (!m) throw new MinerConfigError(`--hot-models: unknown model ${JSON.stringify(id)} (approved: ${all.map((x) => x.id).join(', ')})`);
      if (!isPinned(m)) throw new MinerConfigError(`--hot-models: ${id} cannot be loaded: the registry pins no SHA-256 for its files yet`);
      if (!hardware.loadableModels.includes(id)) {
        throw new MinerConfigError(
          `--hot-models: ${id} needs tier ${m.tier}; this machine is tier ${hardware.tier} (loadable: ${hardware.loadableModels.join(', ') || 'none'})`,
        );
      }
    }
    this.hotModels = hot;
    // Until the chain's list is read: the registry's (the chain's may add models it pins, and retire some).
    const initial = servableModels(all, hardware, hot, null);
    this.served = initial.models;
    this.servedKey = this.keyOf(initial.models, initial.pins);
    if (this.models.length === 0) {
      throw new MinerConfigError(`this machine (tier ${hardware.tier}) can load no approved model whose files are pinned`);
    }
    const budget = opts.maxMemoryMb && opts.maxMemoryMb > 0 ? opts.maxMemoryMb : Number.POSITIVE_INFINITY;
    const hotMb = hot.reduce((sum, id) => sum + byId.get(id)!.minMemoryMb, 0);
    if (hotMb > budget) this.reporter.info(`warning: the hot models need ${hotMb} MB, more than --max-memory ${budget} MB`);
    this.cache = new ModelCache(opts.engine, all, this.models, hot, budget, (m) => this.reporter.debug(m));
  }

  /** The models this miner registers for, takes tasks for, and may load (they follow the chain's). */
  get models(): readonly string[] {
    return this.served;
  }

  private keyOf(models: readonly string[], pins: ReadonlyMap<string, FilePins>): string {
    return models.map((id) => `${id}=${pinsKey(pins.get(id))}`).join(',');
  }

  /** Runs until stop(); rejects only on a failure at start (a hot model that cannot be loaded). */
  run(): Promise<void> {
    this.running ??= this.loop();
    return this.running;
  }

  /** Stops polling; an in-flight submission finishes. Resolves when run() has returned. */
  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.reporter.update({ state: 'stopping', detail: '' });
      this.abort.abort(new Stopped('stopped'));
    }
    await this.running?.catch(() => {});
  }

  /** One line: how long it ran and what it did. */
  summary(): string {
    const s = this.reporter.stats();
    const secs = this.started ? Math.round((Date.now() - this.started) / 1000) : 0;
    const time = secs >= 3600 ? `${Math.floor(secs / 3600)}h ${Math.floor((secs % 3600) / 60)}m` : secs >= 60 ? `${Math.floor(secs / 60)}m ${secs % 60}s` : `${secs}s`;
    return `mined for ${time}: ${s.tasksDone} tasks done, ${s.proofsAccepted} proofs accepted, ${s.proofsRejected} rejected, earned ${formatRewards(s.rewardsWei)} SVC`;
  }

  private async loop(): Promise<void> {
    this.started = Date.now();
    this.reporter.debug(`wallet ${this.keys.address}, key ${this.keys.publicKey}, tier ${this.tier}, models ${this.models.join(', ')}`);
    if (this.hotModels.length > 0) {
      this.reporter.update({ state: 'loading models', detail: this.hotModels.join(', ') });
      for (const id of this.hotModels) {
        if (this.stopping) break;
        await this.cache.get(id);
      }
    }
    while (!this.stopping) {
      try {
        await this.pollOnce();
        this.failures = 0;
        await this.sleep(this.pollIntervalMs);
      } catch (e) {
        if (this.stopping || e instanceof Stopped) break;
        if (e instanceof ValidatorUnreachableError) {
          const delay = this.nextBackoff();
          this.reporter.update({
            state: 'retrying',
            detail: `validator unreachable, retrying in ${(delay / 1000).toFixed(1)} s`,
            lastError: e.message,
          });
          this.reporter.debug(`${e.message}; attempt ${this.failures}, next in ${delay} ms`);
          await this.sleep(delay);
        } else {
          this.reporter.update({ lastError: describeError(e) });
          this.reporter.debug(`poll failed: ${(e as Error)?.stack ?? String(e)}`);
          await this.sleep(this.pollIntervalMs);
        }
      }
    }
    await this.inFlight?.catch(() => {});
    this.reporter.update({ state: 'stopped', detail: '' });
  }

  private nextBackoff(): number {
    const base = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.failures);
    this.failures += 1;
    return Math.round(Math.min(this.backoff.maxMs, base * (0.75 + 0.5 * this.backoff.random())));
  }

  /** Resolves after `ms`, or at once when stopping. */
  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.abort.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }

  private async pollOnce(): Promise<void> {
    const signal = this.abort.signal;
    if (this.chainId === undefined) {
      this.chainId = await this.rpc.chainId(signal);
      this.reporter.debug(`validator ${this.describeRpc()} is on chain ${this.chainId}`);
    }
    if (this.modelsDue()) await this.refreshModels();
    if (!this.registration) await this.register();
    const t = await this.rpc.getInferenceTasks(this.keys.address, signal);
    this.epoch = t.epoch;
    this.head = t.blockNumber;
    // A retiring model whose proofs the next block refuses is dropped now, not at the next read.
    if (this.lastChain?.some((m) => m.refusedFromBlock !== null && m.refusedFromBlock <= this.head + 1 && this.models.includes(m.id))) {
      this.applyModels(this.lastChain);
    }
    this.reporter.debug(
      `block ${t.blockNumber}, epoch ${t.epoch} (next at block ${t.nextEpochBlock}), miner ${t.miner?.status}, ${t.tasks?.length ?? 0} open tasks`,
    );
    const status = t.miner?.status ?? 'unregistered';
    if (status === 'unregistered' || status === 'inactive') {
      // A registration takes effect with the next block; register again once that block passed.
      // `inactive`: registered, but no registration or accepted proof for a few epochs (after a jail,
      // or while the validator was unreachable), so no task is given until the miner registers again.
      if (this.registration && t.blockNumber < this.registration.appliesAtBlock) {
        this.reporter.update({ state: 'registering', detail: `takes effect at block ${this.registration.appliesAtBlock}` });
      } else {
        this.reporter.debug(status === 'inactive' ? 'the miner is inactive on chain; registering again' : 'the validator does not know this miner; registering');
        await this.register();
      }
    } else if (status === 'jailed') {
      const until = t.miner.jailedUntil > 0 ? `until ${new Date(t.miner.jailedUntil * 1000).toISOString()}` : '';
      this.reporter.update({ state: 'jailed', detail: until });
    } else {
      this.reporter.update({ state: 'mining', detail: '' });
      await this.work(t);
    }
    await this.refreshEarnings();
  }

  /** Whether the chain's models should be read again: never read, a new epoch, or MODELS_REFRESH_MS passed. */
  private modelsDue(): boolean {
    if (this.modelsReadAt === 0 || Date.now() - this.modelsReadAt >= this.modelsRefreshMs) return true;
    return this.chainModels && this.epoch > this.modelsEpoch;
  }

  /** Reads svc_getApprovedModels and applies it: a changed set is registered again (next step of the poll). */
  private async refreshModels(): Promise<void> {
    let chain: ApprovedModelJson[] | null;
    try {
      const answer = await this.rpc.getApprovedModels(this.abort.signal);
      if (!Array.isArray(answer)) throw new ValidatorUnreachableError(`svc_getApprovedModels answered ${JSON.stringify(answer).slice(0, 80)}, not a list`);
      chain = answer;
      this.chainModels = true;
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      if (e.code !== METHOD_NOT_FOUND) {
        this.reporter.debug(`svc_getApprovedModels: ${describeError(e)}; the models stay as they are`);
        this.modelsReadAt = Date.now();
        return;
      }
      if (this.chainModels) this.reporter.debug('the validator does not serve svc_getApprovedModels: serving the registry\'s models');
      this.chainModels = false;
      chain = null;
    }
    this.modelsReadAt = Date.now();
    this.modelsEpoch = this.epoch;
    this.lastChain = chain;
    this.applyModels(chain);
  }

  private applyModels(chain: ApprovedModelJson[] | null): void {
    const next = servableModels(this.all, this.hardware, this.hotModels, chain, this.head);
    this.retired = new Set(next.retired);
    const key = this.keyOf(next.models, next.pins);
    if (key === this.servedKey) return;
    const before = new Set(this.served);
    const added = next.models.filter((id) => !before.has(id));
    const dropped = [...before].filter((id) => !next.models.includes(id));
    this.served = next.models;
    this.servedKey = key;
    // Outcomes of dropped models that never reached the validator are given up.
    for (const [id, o] of this.unsent) {
      if (dropped.includes(o.modelId)) {
        this.unsent.delete(id);
        this.done.add(id);
      }
    }
    this.cache.update(this.all, next.models, this.hotModels.filter((id) => next.models.includes(id)), next.pins);
    const parts = [
      added.length > 0 ? `added ${added.map((id) => `${id}${next.pins.has(id) ? ' (files pinned by governance)' : ''}`).join(', ')}` : '',
      dropped.length > 0 ? `dropped ${dropped.map((id) => `${id}${this.retired.has(id) ? ' (retired)' : ''}`).join(', ')}` : '',
      added.length === 0 && dropped.length === 0 ? 'pins changed' : '',
    ].filter(Boolean);
    this.reporter.info(`the chain's models changed: ${parts.join('; ')}; serving ${next.models.join(', ') || 'none'}`);
    // Registered again in this poll (higher sequence) with the new set.
    if (this.registration) this.registration = undefined;
  }

  private describeRpc(): string {
    return (this.rpc as { url?: string }).url ?? '';
  }

  private async register(): Promise<void> {
    if (this.models.length === 0) {
      // Nothing approved that this machine can run (all retired): no registration until the chain approves one.
      this.registration = { appliesAtBlock: 0 };
      this.reporter.update({ state: 'registering', detail: 'no approved model this machine can run', lastError: 'no approved model this machine can run' });
      return;
    }
    this.reporter.update({ state: 'registering', detail: '' });
    const sequence = Math.max(Date.now(), this.lastSequence + 1);
    this.lastSequence = sequence;
    const reg = await signRegistration(this.keys, this.chainId!, this.tier, this.models, sequence);
    try {
      const res = await this.rpc.registerMiner(reg, this.abort.signal);
      this.registration = { appliesAtBlock: Number(res.appliesAtBlock ?? 0) };
      this.reporter.update({ detail: `takes effect at block ${this.registration.appliesAtBlock}` });
      this.reporter.debug(`registered (tier ${this.tier}, models ${this.models.join(', ')}): ${res.status}, applies at block ${res.appliesAtBlock}`);
    } catch (e) {
      if (e instanceof RpcError) {
        // Shown, and tried again at the next poll (the validator keeps saying "unregistered").
        this.registration = { appliesAtBlock: 0 };
        this.reporter.update({ lastError: `registration refused: ${e.reason ?? e.message}` });
        this.reporter.info(`the validator refused the registration: ${e.reason ?? e.message} (${e.code})`);
        return;
      }
      throw e;
    }
  }

  private async refreshEarnings(): Promise<void> {
    try {
      const info = await this.rpc.getInferenceMiner(this.keys.address, this.abort.signal);
      const change: { proofsAccepted?: bigint; rewardsWei?: bigint } = {};
      if (info.proofsAccepted !== undefined) change.proofsAccepted = BigInt(info.proofsAccepted);
      if (info.rewards !== undefined) change.rewardsWei = BigInt(info.rewards);
      this.reporter.update(change);
    } catch (e) {
      if (!(e instanceof RpcError) && !(e instanceof SyntaxError) && !(e instanceof TypeError)) throw e;
      this.reporter.debug(`svc_getInferenceMiner: ${describeError(e)}`);
    }
  }

  /** Runs and proves the open tasks not submitted yet, one batch per model. */
  private async work(t: InferenceTasks): Promise<void> {
    const byModel = new Map<string, TaskJson[]>();
    const listed = new Set((t.tasks ?? []).map((task) => task.task_id.toLowerCase()));
    // A task no longer listed had its proof taken by a block (or is gone): nothing to watch.
    for (const id of this.accepted.keys()) if (!listed.has(id)) this.accepted.delete(id);
    for (const task of t.tasks ?? []) {
      const id = task.task_id.toLowerCase();
      const proofs = this.accepted.get(id);
      if (proofs !== undefined && proofs < MAX_PROOFS_PER_TASK) {
        this.done.delete(id);
        this.reporter.info(`task ${task.task_id} is listed again after the validator accepted its proof (it lost it, e.g. in a restart): proving it again`);
      }
      if (this.done.has(id)) continue;
      if (!this.models.includes(task.model_id)) {
        this.done.add(id);
        const why = this.retired.has(task.model_id) ? 'which governance retired' : 'which this miner did not register';
        this.reporter.update({ lastError: `task ${short(task.task_id)} is for ${task.model_id}, ${why}` });
        continue;
      }
      const list = byModel.get(task.model_id) ?? [];
      list.push(task);
      byModel.set(task.model_id, list);
    }
    for (const [modelId, tasks] of byModel) {
      if (this.stopping) return;
      if (!this.models.includes(modelId)) continue;
      const toRun = tasks.filter((task) => !this.unsent.has(task.task_id.toLowerCase()));
      if (toRun.length > 0) {
        const runner = await this.cache.get(modelId);
        if (this.stopping) return;
        const started = performance.now();
        const outs = await runner.infer(toRun.map((task) => task.input));
        const elapsed = performance.now() - started;
        this.reporter.debug(`${modelId}: ${toRun.length} inputs in ${elapsed.toFixed(1)} ms`);
        // The batch's time, shared by its tasks.
        const perTask = Math.max(1, Math.round(elapsed / toRun.length));
        toRun.forEach((task, i) => this.unsent.set(task.task_id.toLowerCase(), this.outcome(task, outs[i]!, perTask)));
      }
      for (const task of tasks) {
        if (this.stopping) return;
        // Retired while its batch ran (a proof was refused MODEL_NOT_APPROVED and the chain read again).
        if (!this.models.includes(modelId)) break;
        const outcome = this.unsent.get(task.task_id.toLowerCase());
        if (outcome) await this.submit(t, outcome);
        if (this.modelsReadAt === 0) await this.refreshModels();
      }
    }
  }

  private outcome(task: TaskJson, out: InferenceOutput, executionTimeMs: number): Outcome {
    const inputHash = `0x${Buffer.from(out.inputHash).toString('hex')}`;
    if (inputHash !== task.input_hash.toLowerCase()) {
      this.reporter.debug(`task ${task.task_id}: its input hashes to ${inputHash}, the task says ${task.input_hash}`);
    }
    return {
      taskId: task.task_id,
      modelId: task.model_id,
      inputHash: out.inputHash,
      outputHash: out.outputHash,
      quantized: out.quantized,
      executionTimeMs,
      flops: Math.round(out.flops),
    };
  }

  private async submit(t: InferenceTasks, outcome: Outcome): Promise<void> {
    const id = outcome.taskId.toLowerCase();
    const proof = signProof(this.keys, { ...outcome, chainId: this.chainId!, validator: t.validator });
    // Not tied to the stop signal: a submission under way is let finish.
    const call = this.rpc.submitInferenceProof(proof);
    this.inFlight = call;
    try {
      const res = await call;
      this.done.add(id);
      this.unsent.delete(id);
      const proofs = (this.accepted.get(id) ?? 0) + 1;
      this.accepted.set(id, proofs);
      if (proofs === 1) this.reporter.update({ tasksDone: this.reporter.stats().tasksDone + 1 });
      this.reporter.debug(`proof ${res.proof_id} for task ${outcome.taskId} (${outcome.modelId}): ${res.status}, ${res.flops} FLOPs`);
    } catch (e) {
      if (e instanceof RpcError) {
        const attempts = (this.attempts.get(id) ?? 0) + 1;
        this.attempts.set(id, attempts);
        const rejected = e.code === REJECTED;
        if (rejected || attempts >= this.maxSubmitAttempts) {
          this.done.add(id);
          this.unsent.delete(id);
          this.attempts.delete(id);
          this.accepted.delete(id); // given up on, even if listed again
        }
        const reason = e.reason ?? e.message;
        // The model left the approved list (retired): the chain's models are read again before the next proof.
        if (rejected && e.reason === 'MODEL_NOT_APPROVED') this.modelsReadAt = 0;
        if (rejected) {
          this.reporter.update({ proofsRejected: this.reporter.stats().proofsRejected + 1, lastError: `proof rejected: ${reason}` });
          this.reporter.info(`proof for task ${outcome.taskId} rejected: ${reason}`);
        } else {
          this.reporter.update({ lastError: `svc_submitInferenceProof: ${reason} (${e.code})` });
          this.reporter.debug(`task ${outcome.taskId}: svc_submitInferenceProof error ${e.code} ${e.message}, attempt ${attempts}`);
        }
        return;
      }
      throw e;
    } finally {
      this.inFlight = undefined;
    }
  }
}
