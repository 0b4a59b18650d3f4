// What the miner needs from the inference addon, behind an interface so the mining loop can be
// driven in tests without libtorch: the approved models, this machine's tier, and loading a
// model (its files downloaded and verified first). servableModels() merges the addon's registry
// with the chain's (svc_getApprovedModels): what the miner registers for and runs.
import { inferenceAddon, type HardwareInfo, type InferenceBackend, type InferenceOutput, type ModelInfo } from '../native/inference.js';
import { ensureModelFiles } from '../inference/model-store.js';
import { loadPinned, TOKENIZER_FILE, WEIGHTS_FILE, withPins, type FilePins } from '../inference/pins.js';
import type { ProgressSink } from '../inference/progress.js';
import { TIERS } from '../modules/compute/wire.js';
import type { ApprovedModelJson } from './rpc-client.js';

/** A loaded model. */
export interface ModelRunner {
  infer(inputs: string[]): Promise<InferenceOutput[]>;
}

export interface InferenceEngine {
  listModels(): ModelInfo[];
  detectHardware(): HardwareInfo;
  /**
   * Downloads (when missing) and verifies the model's files, then loads it: by `pins` when the chain
   * pinned its files (a governance approval), else by the registry's.
   */
  load(model: ModelInfo, pins?: FilePins | null): Promise<ModelRunner>;
}

/** Whether the registry pins a SHA-256 for every file of the model (otherwise it cannot be loaded). */
export function isPinned(model: ModelInfo): boolean {
  return model.files.every((f) => typeof f.sha256 === 'string' && f.sha256.length > 0);
}

/** The files' pins a chain model carries (svc_getApprovedModels), or null where the registry pins them. */
export function pinsOfChainModel(m: ApprovedModelJson): FilePins | null {
  const file = (name: string) => m.files?.find((f) => f.name === name);
  const weights = file(WEIGHTS_FILE);
  const tokenizer = file(TOKENIZER_FILE);
  if (!weights || !tokenizer) return null;
  return { weights: { sha256: weights.sha256.toLowerCase(), size: weights.size }, tokenizer: { sha256: tokenizer.sha256.toLowerCase(), size: tokenizer.size } };
}

export interface Servable {
  /** What the miner registers for, takes tasks of and may load, in the registry's order. */
  models: string[];
  /** The chain's pins of those the chain pinned (loaded with them). */
  pins: Map<string, FilePins>;
  /** Models the chain retired (or whose proofs the next block refuses). */
  retired: string[];
}

/**
 * The models this miner serves. Without the chain's list (`chain` null: a node that does not serve
 * svc_getApprovedModels): `hot` if given, else the registry's pinned models its tier loads. With it:
 * the chain's models that are not retired, that the addon knows (their architecture) and this
 * machine's tier may run, and whose files are pinned by the chain or by the registry; `hot`, if
 * given, is kept, less what the chain does not approve (retired ones included). A retiring model
 * counts as retired once the block after `head` is its refusedFromBlock: a proof now would be late.
 */
export function servableModels(
  all: readonly ModelInfo[],
  hardware: HardwareInfo,
  hot: readonly string[],
  chain: readonly ApprovedModelJson[] | null,
  head = 0,
): Servable {
  const isPinnedOrChain = (m: ModelInfo, pins: FilePins | null) => pins !== null || isPinned(m);
  if (chain === null) {
    const models = hot.length > 0 ? [...hot] : all.filter((m) => hardware.loadableModels.includes(m.id) && isPinned(m)).map((m) => m.id);
    return { models, pins: new Map(), retired: [] };
  }
  const onChain = new Map(chain.map((m) => [m.id, m]));
  const pins = new Map<string, FilePins>();
  const models: string[] = [];
  const isRetired = (c: ApprovedModelJson) => c.status === 'retired' || (c.refusedFromBlock !== null && c.refusedFromBlock <= head + 1);
  const retired = chain.filter(isRetired).map((m) => m.id);
  const tierOk = (c: ApprovedModelJson) => TIERS.indexOf(hardware.tier) >= TIERS.indexOf(c.tier);
  for (const m of all) {
    const c = onChain.get(m.id);
    if (!c || isRetired(c) || !tierOk(c)) continue;
    const p = pinsOfChainModel(c);
    const wanted = hot.length > 0 ? hot.includes(m.id) : hardware.loadableModels.includes(m.id) && isPinnedOrChain(m, p);
    if (!wanted || !isPinnedOrChain(m, p)) continue;
    models.push(m.id);
    if (p) pins.set(m.id, p);
  }
  return { models, pins, retired };
}

/** The engine backed by the svc-infer addon; throws InferenceUnavailableError where it cannot load. */
export function addonEngine(backend: InferenceBackend, modelDir: string, maxMemoryMb: number, progress?: ProgressSink): InferenceEngine {
  const addon = inferenceAddon();
  return {
    listModels: () => addon.listModels(),
    detectHardware: () => addon.detectHardware(backend, maxMemoryMb > 0 ? maxMemoryMb : undefined),
    async load(model, pins) {
      await ensureModelFiles(modelDir, withPins(model, pins), progress ? { progress } : {});
      const loaded = await loadPinned(addon, model.id, modelDir, backend, pins);
      return { infer: (inputs) => loaded.infer(inputs) };
    },
  };
}
