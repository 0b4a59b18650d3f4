#!/usr/bin/env node
// `npm run test:node-versions [-- 22 24 ...]`: runs the TypeScript tests on other Node.js majors
// (default 22 and 24) against the build already made. The Node binaries come from the npm
// registry (the `node-<platform>-<arch>` packages), cached under ~/.cache/svc-node/node/<version>.
// The addon is N-API, so one build serves every major.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestOf, nodeBinary, nodePackage } from './node-binaries.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
const pkg = nodePackage();

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const testDir = path.join(root, 'dist', 'test');
if (!existsSync(testDir)) fail('no build under dist/: run `npm run build` first');
const files = readdirSync(testDir)
  .filter((f) => f.endsWith('.test.js'))
  .sort()
  .map((f) => path.join('dist', 'test', f));

const results = [];
for (const major of majors) {
  let version;
  let bin;
  try {
    version = /^\d+$/.test(major) ? newestOf(pkg, major) : major;
    bin = nodeBinary(pkg, version);
  } catch (err) {
    fail(err.message);
  }
  process.stdout.write(`\n== typescript tests on Node ${version} ==\n`);
  const env = { ...process.env, PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ''}` };
  const r = spawnSync(bin, ['--test', '--test-concurrency=1', '--test-timeout=900000', ...files], {
    stdio: 'inherit',
    cwd: root,
    env,
  });
  results.push({ version, ok: r.status === 0 });
}
process.stdout.write('\n');
for (const { version, ok } of results) process.stdout.write(`Node ${version}: ${ok ? 'passed' : 'FAILED'}\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
