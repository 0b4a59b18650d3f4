#!/usr/bin/env node
// Installs CometBFT, the consensus engine of multi-validator networks (`svc-node start --consensus
// cometbft`, `svc-node testnet`), with `go install` into the project's cache directory
// ($SVC_CACHE_DIR, default ~/.cache/svc-node): the binary in cometbft/v<version>/bin, Go's module
// and build caches beside it, so a second install on the machine is instant. A `cometbft` already
// on PATH is used as it is. Run by `npm install` (scripts/setup.mjs) and `npm test`; prints the
// binary's path. Without Go it says how to get it and exits 1.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CometBFT release the ABCI messages (src/consensus/cometbft/proto) are generated from. */
export const COMETBFT_VERSION = '0.38.26';
/** gogoproto, whose gogo.proto CometBFT's .proto files import (the version CometBFT's go.mod names). */
export const GOGOPROTO_VERSION = '1.7.0';

export function cacheDir() {
  return process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node');
}

/** Go's environment for the project's installs: its module cache and build cache under the cache dir. */
export function goEnv() {
  const base = path.join(cacheDir(), 'go');
  return { ...process.env, GOPATH: base, GOMODCACHE: path.join(base, 'pkg', 'mod'), GOCACHE: path.join(base, 'build'), GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
}

/** Where the project installs the binary. */
export function cachedBinary() {
  return path.join(cacheDir(), 'cometbft', `v${COMETBFT_VERSION}`, 'bin', process.platform === 'win32' ? 'cometbft.exe' : 'cometbft');
}

function onPath(cmd) {
  const r = spawnSync(process.platform === 'win32' ? 'where' : 'sh', process.platform === 'win32' ? [cmd] : ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : null;
}

function goBinary() {
  const found = onPath('go');
  if (found) return found;
  for (const candidate of ['/usr/local/go/bin/go', '/usr/lib/go/bin/go']) if (existsSync(candidate)) return candidate;
  return null;
}

/** The cometbft binary to run: $SVC_COMETBFT, one on PATH, or the project's install; null when none is there. */
export function findCometbft() {
  if (process.env.SVC_COMETBFT) return process.env.SVC_COMETBFT;
  return onPath('cometbft') ?? (existsSync(cachedBinary()) ? cachedBinary() : null);
}

/** Installs CometBFT when no binary is found; returns its path. */
export function ensureCometbft({ quiet = false } = {}) {
  const found = findCometbft();
  if (found) return found;
  const go = goBinary();
  if (!go) {
    throw new Error(
      `CometBFT v${COMETBFT_VERSION} is built with Go (1.22 or newer), which is not installed: install it (https://go.dev/doc/install, or \`apt-get install golang\`) and run \`npm run setup:cometbft\` again, or put a cometbft v${COMETBFT_VERSION} binary on PATH or in SVC_COMETBFT`,
    );
  }
  const bin = cachedBinary();
  mkdirSync(path.dirname(bin), { recursive: true });
  if (!quiet) process.stdout.write(`[svc-node setup] installing CometBFT v${COMETBFT_VERSION} with go install into ${path.dirname(bin)}\n`);
  const r = spawnSync(go, ['install', `github.com/cometbft/cometbft/cmd/cometbft@v${COMETBFT_VERSION}`], {
    stdio: quiet ? 'pipe' : 'inherit',
    env: { ...goEnv(), GOBIN: path.dirname(bin) },
  });
  if (r.status !== 0) throw new Error(`go install of CometBFT v${COMETBFT_VERSION} failed (exit ${r.status ?? r.signal})${quiet ? `: ${r.stderr}` : ''}`);
  return bin;
}

/** The module directories of CometBFT and gogoproto (downloaded by Go when missing), for the .proto files. */
export function protoSources() {
  const go = goBinary();
  if (!go) throw new Error('Go is needed to download CometBFT\'s .proto files');
  const dirs = {};
  for (const [name, mod] of [
    ['cometbft', `github.com/cometbft/cometbft@v${COMETBFT_VERSION}`],
    ['gogoproto', `github.com/cosmos/gogoproto@v${GOGOPROTO_VERSION}`],
  ]) {
    const r = spawnSync(go, ['mod', 'download', '-json', mod], { encoding: 'utf8', env: goEnv(), cwd: cacheDir() });
    if (r.status !== 0) throw new Error(`go mod download ${mod} failed: ${r.stderr || r.stdout}`);
    dirs[name] = JSON.parse(r.stdout).Dir;
  }
  return dirs;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${ensureCometbft()}\n`);
  } catch (err) {
    process.stderr.write(`[svc-node setup] ${err.message}\n`);
    process.exit(1);
  }
}
