// The node's side of compute mode: which mode it runs in, and the models it holds for checking
// proofs (FLOPs, spot-checks). `inference` needs at least one approved model loaded; `auto` tries
// the models whose files are already on disk and falls back to `pow`, saying why. The approved set
// is the chain's (genesis, then governance): after each committed block the node loads the models
// governance approved since (by the files the approval pins) and drops the retired ones, in the
// background (NodeModelSet.observe).
import type { Logger } from 'pino';
import {
  inferenceAddon,
  InferenceUnavailableError,
  type InferenceAddon,
  type InferenceBackend,
  type LoadedModel,
  type ModelInfo,
} from '../native/inference.js';
import { cacheState, ensureModelFiles } from '../inference/model-store.js';
import { loadPinned, pinsKey, withPins, type FilePins } from '../inference/pins.js';
import type { ApprovedModelRecord } from '../modules/compute/types.js';
import type { ComputeModeSetting, ComputeParams } from '../params.js';

export interface NodeModels {
  /** Loaded models by id. */
  loaded: Map<string, LoadedModel>;
  /** FLOPs of one run of `modelId` on `input`, computed from the model's shape and the input's tokens. */
  flops(modelId: string, input: string): bigint;
}

/** What the chain says about models: the ids whose proofs are accepted, and the registry (governance's pins). */
export interface ChainModels {
  approved: readonly string[];
  registry: readonly ApprovedModelRecord[];
}

/** The chain's models as the compute module holds them at its last commit. */
export function chainModelsOf(compute: { approvedModels: readonly string[]; modelRegistry(): ApprovedModelRecord[] }): ChainModels {
  return { approved: [...compute.approvedModels], registry: compute.modelRegistry() };
}

/** The files' pins a governance approval gave the model; null where the inference registry pins them (genesis models). */
export function chainPins(record: ApprovedModelRecord | undefined): FilePins | null {
  return record?.files ? { weights: { ...record.files.weights }, tokenizer: { ...record.files.tokenizer } } : null;
}

/** Whether every file of the model has a pin. */
const pinned = (m: ModelInfo) => m.files.every((f) => f.sha256 !== undefined);

/** One string per approved model and its pins: it changes exactly when the node may have to load or drop a model. */
function chainKey(chain: ChainModels): string {
  const records = new Map(chain.registry.map((r) => [r.id, r]));
  return [...chain.approved].sort().map((id) => `${id}=${pinsKey(chainPins(records.get(id)))}`).join(',');
}

export interface ModelSetOptions {
  modelDir: string;
  backend: InferenceBackend;
  /** --models: only these are ever loaded; otherwise every approved model this machine can run. */
  explicit?: readonly string[];
  /** Whether missing files are downloaded (`inference`), or only files already on disk are used (`auto`). */
  download: boolean;
  log: Logger;
}

/**
 * The models a node in inference mode holds, kept in step with the chain. `loaded` is the one map
 * the intake and the spot-checker read, changed in place: a model governance approves is added
 * once it has loaded, a retired one is removed at the block that stops accepting its proofs, and a
 * model whose pins changed is loaded again from its new files.
 */
export class NodeModelSet implements NodeModels {
  readonly loaded = new Map<string, LoadedModel>();
  /** The pins (pinsKey) each loaded model was loaded with. */
  private readonly loadedPins = new Map<string, string>();
  /** The chain's models as last seen (chainKey), and the newest ones a sync is owed for. */
  private seen = '';
  private latest: ChainModels | null = null;
  private syncing: Promise<void> | null = null;
  private closed = false;
  /** Called after the loaded set changed (the spot-checker retries checks it could not run). */
  onChange: () => void = () => {};

  constructor(
    private readonly addon: InferenceAddon,
    private readonly o: ModelSetOptions,
  ) {}

  flops(modelId: string, input: string): bigint {
    const m = this.loaded.get(modelId);
    if (!m) throw new Error(`model ${modelId} is not loaded`);
    const [tokens] = m.tokenCounts([input]);
    return BigInt(this.addon.modelFlops(modelId, tokens!));
  }

  /** Loads a model (its files checked against the chain's pins, or the registry's), then serves it. */
  async load(info: ModelInfo, pins: FilePins | null): Promise<LoadedModel> {
    const files = withPins(info, pins);
    if (!this.o.download && (await cacheState(this.o.modelDir, files)) !== 'cached') throw new Error(`files not in ${this.o.modelDir}`);
    await ensureModelFiles(this.o.modelDir, files);
    const model = await loadPinned(this.addon, info.id, this.o.modelDir, this.o.backend, pins);
    this.loaded.set(info.id, model);
    this.loadedPins.set(info.id, pinsKey(pins));
    return model;
  }

  /** Marks the chain's models as those the node started with (no sync owed for them). */
  started(chain: ChainModels): void {
    this.seen = chainKey(chain);
  }

  /**
   * After a committed block: when the approved set or the pins changed since the last look, the
   * models are loaded and dropped in the background (block production never waits for a load).
   */
  observe(chain: ChainModels): void {
    const key = chainKey(chain);
    if (key === this.seen || this.closed) return;
    this.seen = key;
    this.latest = chain;
    this.syncing ??= (async () => {
      while (this.latest && !this.closed) {
        const next = this.latest;
        this.latest = null;
        await this.sync(next).catch((err: unknown) => this.o.log.error({ err }, 'following the chain\'s models failed; tried again at its next change'));
      }
    })().finally(() => {
      this.syncing = null;
    });
  }

  /** Resolves when no sync is running (tests). */
  async idle(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  /** Stops following the chain (shutdown): a load under way finishes, nothing more starts; a download is not waited for. */
  close(): void {
    this.closed = true;
    this.latest = null;
  }

  /** Drops the models no longer approved, loads the approved ones it can run and lacks (or holds with other pins). */
  async sync(chain: ChainModels): Promise<void> {
    const log = this.o.log;
    const approved = new Set(chain.approved);
    const records = new Map(chain.registry.map((r) => [r.id, r]));
    let changed = false;
    for (const id of [...this.loaded.keys()]) {
      if (approved.has(id)) continue;
      this.loaded.delete(id);
      this.loadedPins.delete(id);
      changed = true;
      const r = records.get(id);
      log.info({ model: id, refusedFromBlock: r?.refusedFromHeight ?? null, proposal: r?.retiredBy ?? null }, 'model retired: no longer served');
    }
    let registry: ModelInfo[];
    let loadable: Set<string>;
    try {
      registry = this.addon.listModels();
      loadable = new Set(this.addon.detectHardware(this.o.backend).loadableModels);
    } catch (err) {
      log.error({ err }, 'the inference addon cannot list models; approved models are not loaded');
      if (changed) this.onChange();
      return;
    }
    for (const id of [...approved].sort()) {
      if (this.closed) break;
      const record = records.get(id);
      const pins = chainPins(record);
      if (this.loaded.has(id) && this.loadedPins.get(id) === pinsKey(pins)) continue;
      const info = registry.find((m) => m.id === id);
      const reloading = this.loaded.has(id);
      if (reloading) {
        // Re-pinned: outputs of the old files would fail honest miners' proofs, so they stop at once.
        this.loaded.delete(id);
        this.loadedPins.delete(id);
        changed = true;
      } else if (this.o.explicit ? !this.o.explicit.includes(id) : !loadable.has(id)) {
        continue;
      }
      if (!info || (!pins && !pinned(info))) {
        log.warn({ model: id }, info ? 'approved model has no pinned files; not served' : 'approved model is unknown to the inference addon (no architecture); not served');
        continue;
      }
      const started = Date.now();
      try {
        await this.load(info, pins);
        changed = true;
        log.info(
          { model: id, pinnedBy: pins ? 'governance' : 'registry', proposal: record?.approvedBy ?? null, approvedAtBlock: record?.approvedAtHeight ?? 0, ms: Date.now() - started },
          reloading ? 'model loaded again with the files its approval pins now' : 'approved model loaded',
        );
      } catch (err) {
        log.warn({ model: id, err: (err as Error).message }, 'approved model could not be loaded; not served');
      }
    }
    if (changed) this.onChange();
  }
}

export interface ResolvedMode {
  mode: 'pow' | 'inference';
  models: NodeModelSet | null;
  /** Why the mode is what it is (logged at start). */
  reason: string;
}

export interface ModeOptions {
  setting: ComputeModeSetting;
  backend: InferenceBackend;
  modelDir: string;
  /** Models asked for; default: every approved model whose files are pinned (by the registry or by governance). */
  models?: readonly string[];
  params: ComputeParams;
  /** The chain's approved models and pins at start; default: the genesis list of `params`. */
  chain?: ChainModels;
  log: Logger;
}

/** Resolves the compute mode at start; throws when `inference` was asked for and no model loads. */
export async function resolveComputeMode(o: ModeOptions): Promise<ResolvedMode> {
  if (o.setting === 'pow') return { mode: 'pow', models: null, reason: 'compute mode pow was configured' };
  const strict = o.setting === 'inference';
  const fail = (why: string): ResolvedMode => {
    if (strict) throw new Error(`compute mode inference: ${why}`);
    return { mode: 'pow', models: null, reason: `auto: ${why}; running pow` };
  };
  let addon;
  try {
    addon = inferenceAddon();
  } catch (err) {
    if (err instanceof InferenceUnavailableError) return fail(err.reason);
    throw err;
  }
  const chain = o.chain ?? { approved: o.params.approvedModels.map((m) => m.id), registry: [] };
  const approved = new Set(chain.approved);
  const records = new Map(chain.registry.map((r) => [r.id, r]));
  const registry = addon.listModels();
  const loadable = new Set(addon.detectHardware(o.backend).loadableModels);
  // Genesis models pinned by the registry (as before governance), and models governance pinned that this machine's tier runs.
  const wanted = o.models ?? registry.filter((m) => approved.has(m.id) && (records.get(m.id)?.files ? loadable.has(m.id) : pinned(m))).map((m) => m.id);
  const models = new NodeModelSet(addon, {
    modelDir: o.modelDir,
    backend: o.backend,
    ...(o.models ? { explicit: o.models } : {}),
    download: strict,
    log: o.log,
  });
  const problems: string[] = [];
  for (const id of wanted) {
    const info = registry.find((m) => m.id === id);
    if (!info || !approved.has(id)) {
      problems.push(`${id}: not an approved model`);
      continue;
    }
    const pins = chainPins(records.get(id));
    try {
      await models.load(info, pins);
      o.log.info({ model: id, modelDir: o.modelDir, pinnedBy: pins ? 'governance' : 'registry' }, 'model loaded');
    } catch (err) {
      problems.push(`${id}: ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) o.log.warn({ problems }, 'some models were not loaded');
  if (models.loaded.size === 0) return fail(`no supported model could be loaded (${problems.join('; ') || 'none asked for'})`);
  models.started(chain);
  return { mode: 'inference', models, reason: `${o.setting}: loaded ${[...models.loaded.keys()].join(', ')}` };
}
