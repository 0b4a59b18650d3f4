#!/usr/bin/env node
// Installs what the build needs (libclang for RocksDB's bindings), builds the core addon with
// napi-rs in release mode, compiles the TypeScript and builds the explorer's web page. Run by
// `npm install` and `npm run build`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ensureCometbft } from './setup-cometbft.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const step = (msg) => process.stdout.write(`\n[svc-node setup] ${msg}\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status ?? r.signal}`);
  }
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function libclangPresent() {
  if (process.env.LIBCLANG_PATH && existsSync(process.env.LIBCLANG_PATH)) return true;
  const dirs = ['/usr/lib', '/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/local/lib'];
  for (const d of dirs) {
    if (!existsSync(d)) continue;
    for (const e of readdirSync(d)) {
      if (/^libclang(-\d+)?\.so/.test(e)) return true;
      if (/^llvm-\d+$/.test(e) && existsSync(path.join(d, e, 'lib'))) {
        if (readdirSync(path.join(d, e, 'lib')).some((f) => /^libclang(-\d+)?\.so/.test(f))) return true;
      }
    }
  }
  return process.platform === 'darwin';
}

function ensureLibclang() {
  if (libclangPresent()) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (has('apt-get')) {
    step('installing libclang-dev (RocksDB bindings are generated with bindgen)');
    const sudo = isRoot ? [] : ['sudo'];
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(isRoot ? [] : ['apt-get']), 'update', '-qq'], { env });
    run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(isRoot ? [] : ['apt-get']), 'install', '-y', '-qq', 'libclang-dev'], { env });
    return;
  }
  throw new Error('libclang is required to build RocksDB bindings: install clang/libclang (e.g. `apt-get install libclang-dev`) and run `npm run build` again');
}

function ensureCargo() {
  if (has('cargo')) return;
  throw new Error('the Rust toolchain (cargo, stable >= 1.91) is required: install it with rustup and run `npm run build` again');
}

try {
  ensureCargo();
  ensureLibclang();
  step('building the core addon (Rust, release profile)');
  execFileSync(process.execPath, [path.join(root, 'scripts/build-native.mjs')], { stdio: 'inherit', cwd: root });
  step('installing libtorch and the test model, building the inference addon');
  execFileSync(process.execPath, [path.join(root, 'scripts/setup-inference.mjs')], { stdio: 'inherit', cwd: root });
  step('installing CometBFT (the consensus engine of multi-validator networks)');
  try {
    process.stdout.write(`[svc-node setup] cometbft: ${ensureCometbft()}\n`);
  } catch (err) {
    // A solo node runs without it; `npm test` and `svc-node testnet` install it again and fail when they cannot.
    process.stdout.write(`[svc-node setup] warning: ${err.message}\n`);
  }
  step('compiling TypeScript');
  run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  step('building the explorer web page (web/ into dist/web)');
  run(process.execPath, [path.join(root, 'scripts/build-web.mjs')]);
  step('done');
} catch (err) {
  process.stderr.write(`\n[svc-node setup] ${err.message}\n`);
  process.exit(1);
}
