// The door to the inference addon (crates/svc-infer-napi: native/svc-infer.<platform>.node in a clone,
// the svc-node-infer-<platform> package in a prebuilt install). It needs libtorch, which
// ./libtorch.ts finds and loads first, so it is loaded lazily and only by what needs it (compute mode inference/auto, svc-miner):
// importing this module never fails; calling `inferenceAddon()` where the addon is absent throws
// InferenceUnavailableError, which `auto` compute mode turns into a fall back to pow.
import { SvcError } from '../errors.js';
import { parseCodedError } from './coded-error.js';
import { loadLibtorch } from './libtorch.js';
import { loadAddon } from './loader.js';

// Every type of the addon comes from its generated declarations (src/native/generated/inference.d.ts,
// written by napi-rs from the Rust signatures when the addon is built, committed, and checked for
// staleness by the test run), never from a hand-written mirror.
import type * as Generated from './generated/inference.js';

export type { HardwareInfo, InferenceOutput, ModelFile, ModelInfo, Tolerance, Verdict } from './generated/inference.js';
/** A quantised output as a proof carries it. */
export type OutputClaim = Generated.OutputClaimInput;
/** What `backend` may name: a device, or auto (the best one here). */
export type InferenceBackend = Generated.HardwareInfo['backend'] | 'auto';
export type GpuTier = Generated.HardwareInfo['tier'];

/** A model loaded on a device (the addon's InferenceModel, with its errors coded). */
export interface LoadedModel {
  readonly id: string;
  readonly backend: Generated.InferenceModel['backend'];
  readonly dims: number;
  infer(inputs: string[], batchSize?: number): Promise<Generated.InferenceOutput[]>;
  tokenCounts(inputs: string[]): number[];
}

/** The addon as its generated declarations describe it. */
type RawAddon = typeof Generated;

export type InferenceErrorCode =
  | 'UNKNOWN_MODEL' | 'UNKNOWN_BACKEND' | 'BACKEND_UNAVAILABLE' | 'MISSING_FILE' | 'HASH_MISMATCH' | 'NOT_PINNED'
  | 'BAD_WEIGHTS' | 'BAD_TOKENIZER' | 'TOKENIZE_FAILED' | 'TORCH_ERROR' | 'IO_ERROR' | 'INVALID_ARGUMENT';

/** An error raised by the inference addon, with its stable code. */
export class InferenceError extends SvcError {
  override name = 'InferenceError';
  constructor(override readonly code: InferenceErrorCode, message: string) {
    super(message);
  }
}

/** The inference addon cannot be loaded here (not built, or libtorch missing). */
export class InferenceUnavailableError extends SvcError {
  override name = 'InferenceUnavailableError';
  override readonly code = 'INFERENCE_UNAVAILABLE';
  constructor(readonly reason: string) {
    super(`inference is not available: ${reason}`);
  }
}

function translate(err: unknown): unknown {
  const coded = parseCodedError(err);
  return coded ? new InferenceError(coded.code as InferenceErrorCode, coded.message) : err;
}

function guarded<A extends unknown[], R>(f: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    try {
      const r = f(...args);
      return (r instanceof Promise ? r.catch((e: unknown) => Promise.reject(translate(e))) : r) as R;
    } catch (e) {
      throw translate(e);
    }
  };
}

function wrapModel(m: LoadedModel): LoadedModel {
  return {
    get id() { return m.id; },
    get backend() { return m.backend; },
    get dims() { return m.dims; },
    infer: guarded((inputs: string[], batchSize?: number) => m.infer(inputs, batchSize)),
    tokenCounts: guarded((inputs: string[]) => m.tokenCounts(inputs)),
  };
}

export type InferenceAddon = Omit<RawAddon, 'loadModel' | 'loadModelWithPins' | 'InferenceModel' | '__napiBindingTarget'> & {
  loadModel(id: string, modelDir: string, backend: InferenceBackend): Promise<LoadedModel>;
  /** Loads a model of an approved shape from files pinned by the caller (random-weight benchmarks). */
  loadModelWithPins(id: string, modelDir: string, backend: InferenceBackend, weightsSha256: string, tokenizerSha256: string): Promise<LoadedModel>;
};

let cached: InferenceAddon | InferenceUnavailableError | undefined;

/** The inference addon, loaded on first use; throws InferenceUnavailableError when it can't be. */
export function inferenceAddon(): InferenceAddon {
  cached ??= load();
  if (cached instanceof InferenceUnavailableError) throw cached;
  return cached;
}

/** Whether the inference addon loads here, and why not when it doesn't. */
export function inferenceAvailability(): { available: true } | { available: false; reason: string } {
  try {
    inferenceAddon();
    return { available: true };
  } catch (e) {
    if (e instanceof InferenceUnavailableError) return { available: false, reason: e.reason };
    throw e;
  }
}

function load(): InferenceAddon | InferenceUnavailableError {
  try {
    loadLibtorch();
  } catch (e) {
    return new InferenceUnavailableError((e as Error).message);
  }
  let raw: RawAddon;
  try {
    raw = loadAddon<RawAddon>({
      loader: 'inference.cjs',
      packageName: 'svc-node-infer',
      buildCommand: 'run `node scripts/setup-inference.mjs` in a clone',
    });
  } catch (e) {
    return new InferenceUnavailableError((e as Error).message);
  }
  return {
    listModels: guarded(() => raw.listModels()),
    detectHardware: guarded((backend: string, maxMemoryMb?: number | null) => raw.detectHardware(backend, maxMemoryMb)),
    loadModel: guarded(async (id: string, modelDir: string, backend: InferenceBackend) =>
      wrapModel(await raw.loadModel(id, modelDir, backend))),
    loadModelWithPins: guarded(async (id: string, modelDir: string, backend: InferenceBackend, w: string, t: string) =>
      wrapModel(await raw.loadModelWithPins(id, modelDir, backend, w, t))),
    writeRandomCheckpoint: guarded((id: string, modelDir: string, seed: number) => raw.writeRandomCheckpoint(id, modelDir, seed)),
    inputHash: guarded((input: string) => raw.inputHash(input)),
    outputHash: guarded((modelId: string, inputHash: Buffer, quantized: Int8Array) => raw.outputHash(modelId, inputHash, quantized)),
    verifyOutput: guarded((claimed: OutputClaim, recomputed: OutputClaim) => raw.verifyOutput(claimed, recomputed)),
    tolerance: guarded(() => raw.tolerance()),
    modelFlops: guarded((modelId: string, tokens: number) => raw.modelFlops(modelId, tokens)),
    setThreads: guarded((threads: number) => raw.setThreads(threads)),
    threads: guarded(() => raw.threads()),
    cpuKernel: guarded(() => raw.cpuKernel()),
  };
}
