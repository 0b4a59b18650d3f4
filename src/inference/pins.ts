// Files pinned by the chain: a model approved by governance carries the SHA-256 and size of its
// weights and tokenizer, and nodes and miners load it by those pins instead of the inference
// registry's (which knows the model's architecture by its id, and pins only the genesis models'
// files). One shape for both sides: the compute module's registry record and svc_getApprovedModels.
import type { InferenceAddon, InferenceBackend, LoadedModel, ModelInfo } from '../native/inference.js';

/** The two files of a model. */
export const WEIGHTS_FILE = 'model.safetensors';
export const TOKENIZER_FILE = 'tokenizer.json';

export interface FilePin {
  /** Lower-case hex SHA-256, without 0x. */
  sha256: string;
  size: number;
}

/** The pins a governance approval gives a model's files. */
export interface FilePins {
  weights: FilePin;
  tokenizer: FilePin;
}

/** A short key of the pins (null: the registry's), to tell when a model must be loaded again. */
export function pinsKey(pins: FilePins | null | undefined): string {
  return pins ? `${pins.weights.sha256}:${pins.weights.size}/${pins.tokenizer.sha256}:${pins.tokenizer.size}` : 'registry';
}

/** The registry's description of the model with the chain's pins on its files (a chain-pinned model counts as pinned). */
export function withPins(info: ModelInfo, pins: FilePins | null | undefined): ModelInfo {
  if (!pins) return info;
  const pinOf = (name: string): FilePin | undefined => (name === WEIGHTS_FILE ? pins.weights : name === TOKENIZER_FILE ? pins.tokenizer : undefined);
  return {
    ...info,
    files: info.files.map((f) => {
      const p = pinOf(f.name);
      return p ? { ...f, sha256: p.sha256, size: p.size } : f;
    }),
  };
}

/** Loads a model from `<modelDir>/<id>/`: by the chain's pins when it gives some, else by the registry's. */
export function loadPinned(addon: InferenceAddon, id: string, modelDir: string, backend: InferenceBackend, pins: FilePins | null | undefined): Promise<LoadedModel> {
  return pins
    ? addon.loadModelWithPins(id, modelDir, backend, pins.weights.sha256, pins.tokenizer.sha256)
    : addon.loadModel(id, modelDir, backend);
}
