#!/usr/bin/env node
// `npm run test:node-versions [-- 22 24 ...]`: runs the TypeScript tests on other Node.js majors
// (default 22 and 24) against the build already made. The Node binaries come from the npm
// registry (the `node-<platform>-<arch>` packages), cached under ~/.cache/svc-node/node/<version>.
// The addon is N-API, so one build serves every major.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node'), 'node');
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
const pkg = `node-${process.platform}-${process.arch}`;

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The newest published version of `pkg` within a major, e.g. 22 -> 22.23.3. */
function newestOf(major) {
  const r = spawnSync('npm', ['view', `${pkg}@${major}`, 'version', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) fail(`npm view ${pkg}@${major} failed: ${r.stderr.trim()}`);
  const parsed = JSON.parse(r.stdout);
  const versions = Array.isArray(parsed) ? parsed : [parsed];
  const newest = versions.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).at(-1);
  if (!newest) fail(`no ${pkg} release for Node ${major}`);
  return newest;
}

/** Path of the node binary for `version`, fetched into the cache when missing. */
function nodeBinary(version) {
  const dir = path.join(cache, version);
  const bin = path.join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  const tmp = `${dir}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const packed = spawnSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', tmp, '--silent'], { encoding: 'utf8' });
  if (packed.status !== 0) fail(`npm pack ${pkg}@${version} failed: ${packed.stderr.trim()}`);
  const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (!tarball) fail(`npm pack ${pkg}@${version} left no tarball`);
  const untar = spawnSync('tar', ['xzf', path.join(tmp, tarball), '-C', tmp], { stdio: 'inherit' });
  if (untar.status !== 0) fail(`could not unpack ${tarball}`);
  rmSync(path.join(tmp, tarball));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir); // only a complete download takes the version's place
  return bin;
}

const testDir = path.join(root, 'dist', 'test');
if (!existsSync(testDir)) fail('no build under dist/: run `npm run build` first');
const files = readdirSync(testDir)
  .filter((f) => f.endsWith('.test.js'))
  .sort()
  .map((f) => path.join('dist', 'test', f));

const results = [];
for (const major of majors) {
  const version = /^\d+$/.test(major) ? newestOf(major) : major;
  const bin = nodeBinary(version);
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
