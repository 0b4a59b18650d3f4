// What the miner needs from the inference addon, behind an interface so the mining loop can be
// driven in tests without libtorch: the approved models, this machine's tier, and loading a
// model (its files downloaded and verified first).
import { inferenceAddon, type HardwareInfo, type InferenceBackend, type InferenceOutput, type ModelInfo } from '../native/inference.js';
import { ensureModelFiles } from '../inference/model-store.js';
import type { ProgressSink } from '../inference/progress.js';

/** A loaded model. */
export interface ModelRunner {
  infer(inputs: string[]): Promise<InferenceOutput[]>;
}

export interface InferenceEngine {
  listModels(): ModelInfo[];
  detectHardware(): HardwareInfo;
  /** Downloads (when missing) and verifies the model's files, then loads it. */
  load(model: ModelInfo): Promise<ModelRunner>;
}

/** Whether the registry pins a SHA-256 for every file of the model (otherwise it cannot be loaded). */
export function isPinned(model: ModelInfo): boolean {
  return model.files.every((f) => typeof f.sha256 === 'string' && f.sha256.length > 0);
}

/** The engine backed by the svc-infer addon; throws InferenceUnavailableError where it cannot load. */
export function addonEngine(backend: InferenceBackend, modelDir: string, maxMemoryMb: number, progress?: ProgressSink): InferenceEngine {
  const addon = inferenceAddon();
  return {
    listModels: () => addon.listModels(),
    detectHardware: () => addon.detectHardware(backend, maxMemoryMb > 0 ? maxMemoryMb : undefined),
    async load(model) {
      await ensureModelFiles(modelDir, model, progress ? { progress } : {});
      const loaded = await addon.loadModel(model.id, modelDir, backend);
      return { infer: (inputs) => loaded.infer(inputs) };
    },
  };
}
