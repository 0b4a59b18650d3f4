// The node's side of compute mode: which mode it runs in, and the models it holds for checking
// proofs (FLOPs, spot-checks). `inference` needs at least one approved model loaded; `auto` tries
// the models whose files are already on disk and falls back to `pow`, saying why.
import type { Logger } from 'pino';
import { inferenceAddon, InferenceUnavailableError, type InferenceBackend, type LoadedModel, type ModelInfo } from '../native/inference.js';
import { cacheState, ensureModelFiles } from '../inference/model-store.js';
import type { ComputeModeSetting, ComputeParams } from '../params.js';

export interface NodeModels {
  /** Loaded models by id. */
  loaded: Map<string, LoadedModel>;
  /** FLOPs of one run of `modelId` on `input`, computed from the model's shape and the input's tokens. */
  flops(modelId: string, input: string): bigint;
}

export interface ResolvedMode {
  mode: 'pow' | 'inference';
  models: NodeModels | null;
  /** Why the mode is what it is (logged at start). */
  reason: string;
}

export interface ModeOptions {
  setting: ComputeModeSetting;
  backend: InferenceBackend;
  modelDir: string;
  /** Models asked for; default: every approved model whose files are pinned. */
  models?: readonly string[];
  params: ComputeParams;
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
  const approved = new Set(o.params.approvedModels.map((m) => m.id));
  const registry = addon.listModels();
  const pinned = (m: ModelInfo) => m.files.every((f) => f.sha256 !== undefined);
  const wanted = o.models ?? registry.filter((m) => approved.has(m.id) && pinned(m)).map((m) => m.id);
  const loaded = new Map<string, LoadedModel>();
  const problems: string[] = [];
  for (const id of wanted) {
    const info = registry.find((m) => m.id === id);
    if (!info || !approved.has(id)) {
      problems.push(`${id}: not an approved model`);
      continue;
    }
    try {
      if (!strict && (await cacheState(o.modelDir, info)) !== 'cached') {
        problems.push(`${id}: files not in ${o.modelDir}`);
        continue;
      }
      await ensureModelFiles(o.modelDir, info);
      loaded.set(id, await addon.loadModel(id, o.modelDir, o.backend));
      o.log.info({ model: id, modelDir: o.modelDir }, 'model loaded');
    } catch (err) {
      problems.push(`${id}: ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) o.log.warn({ problems }, 'some models were not loaded');
  if (loaded.size === 0) return fail(`no supported model could be loaded (${problems.join('; ') || 'none asked for'})`);
  const models: NodeModels = {
    loaded,
    flops(modelId, input) {
      const m = loaded.get(modelId);
      if (!m) throw new Error(`model ${modelId} is not loaded`);
      const [tokens] = m.tokenCounts([input]);
      return BigInt(addon.modelFlops(modelId, tokens!));
    },
  };
  return { mode: 'inference', models, reason: `${o.setting}: loaded ${[...loaded.keys()].join(', ')}` };
}
