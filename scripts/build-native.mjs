#!/usr/bin/env node
// Builds crates/svc-napi with napi-rs (release profile) into native/. Cargo's target dir lives
// outside the clone (~/.cache/svc-node/target) so that every checkout shares one build cache.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const cacheDir = process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node');
const env = { ...process.env };
env.CARGO_TARGET_DIR ??= path.join(cacheDir, 'target');
mkdirSync(env.CARGO_TARGET_DIR, { recursive: true });
mkdirSync(path.join(root, 'native'), { recursive: true });

const napi = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');
const args = [
  napi, 'build', '--platform', '--release',
  '--manifest-path', 'crates/svc-napi/Cargo.toml',
  '--package-json-path', 'package.json',
  '--output-dir', 'native',
  '--no-js', '--no-dts-header',
];
const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env });
process.exit(r.status ?? 1);
