#!/usr/bin/env node
// `npm test`: brings the build up to date, then runs the Rust tests (cargo test) and the
// TypeScript tests (node's built-in runner) and fails if either fails.
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inferenceEnv } from './inference-env.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env };
env.CARGO_TARGET_DIR ??= path.join(env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node'), 'target');

function run(title, cmd, args, runEnv = env) {
  process.stdout.write(`\n== ${title} ==\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: runEnv });
  if (r.status !== 0) {
    process.stderr.write(`\n${title} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(r.status ?? 1);
  }
}

run('build', process.execPath, [path.join(root, 'scripts/setup.mjs')]);
// The committed declarations of the addons (src/native/generated/) must be what the build generated.
run('native declarations', process.execPath, [path.join(root, 'scripts/check-native-dts.mjs')]);
// CometBFT runs the multi-validator tests; its ABCI messages must be what its .proto files generate.
run('cometbft', process.execPath, [path.join(root, 'scripts/setup-cometbft.mjs')]);
run('ABCI messages', process.execPath, [path.join(root, 'scripts/gen-abci-proto.mjs'), '--check']);
// napi-rs builds the addon with an explicit --target; testing with the same one reuses its artifacts.
const host = spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout.match(/^host: (.+)$/m)?.[1];
run('rust tests', 'cargo', ['test', '--release', '--workspace', '--exclude', 'svc-napi', ...(host ? ['--target', host] : [])]);
run('inference rust tests', 'cargo', ['test', '--release', '--manifest-path', 'crates/svc-infer/Cargo.toml'], inferenceEnv(env));

// The explorer's web tests drive Debian's chromium; a fresh machine gets it here (they fail without it).
run('chromium', process.execPath, [path.join(root, 'scripts/setup-chromium.mjs')]);

const testDir = path.join(root, 'dist', 'test');
const only = process.argv.slice(2);
const files = (existsSync(testDir) ? readdirSync(testDir) : [])
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
  .map((f) => path.join('dist', 'test', f));
if (files.length === 0) {
  process.stderr.write('no TypeScript test files found under dist/test\n');
  process.exit(1);
}
run('typescript tests', process.execPath, ['--test', '--test-concurrency=1', '--test-timeout=900000', ...files]);
