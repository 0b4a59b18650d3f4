// How the addons are found: the error of a platform without a build, and where libtorch is looked for
// (LIBTORCH, the project's cache, Python's torch package) with the release it must be.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addonLoadMessage, packageFacts, platformName } from '../src/native/loader.js';
import { findLibtorch, sameRelease } from '../src/native/libtorch.js';
import { repoRoot } from './support/repo.js';

const CORE = { loader: 'core.cjs', packageName: 'svc-node-core', buildCommand: 'run `npm run build:native` in a clone' };

describe('addon load errors', () => {
  it('names the platform of this process as napi-rs does', () => {
    const name = platformName();
    assert.match(name, /^(linux-(x64|arm64|arm|riscv64|ppc64|s390x)-(gnu|musl)|darwin-(x64|arm64)|win32-(x64|arm64|ia32)-msvc|\w+-\w+)$/);
    if (process.platform === 'linux' && process.arch === 'x64') assert.equal(name, 'linux-x64-gnu');
  });

  it('on a platform without a prebuilt package, lists the prebuilt ones and how to build from source', () => {
    const msg = addonLoadMessage(CORE, 'darwin-arm64', ['linux-x64-gnu', 'linux-arm64-gnu'], [
      "Cannot find module './svc-core.darwin-arm64.node'",
      "Cannot find module 'svc-node-core-darwin-arm64'",
    ]);
    assert.match(msg, /^svc-node-core could not be loaded on darwin-arm64\./);
    assert.match(msg, /Prebuilt packages exist for linux-x64-gnu, linux-arm64-gnu; on darwin-arm64 build from source: clone the repository and run `npm install`/);
    assert.match(msg, /Rust stable >= 1\.91/);
    assert.match(msg, /Tried:\n {2}- Cannot find module '\.\/svc-core\.darwin-arm64\.node'\n {2}- Cannot find module 'svc-node-core-darwin-arm64'/);
  });

  it('on a prebuilt platform, names the package to install', () => {
    const msg = addonLoadMessage(CORE, 'linux-x64-gnu', ['linux-x64-gnu'], ["Cannot find module 'svc-node-core-linux-x64-gnu'"]);
    assert.match(msg, /ships prebuilt as the npm package svc-node-core-linux-x64-gnu/);
  });

  it('package.json declares what ships prebuilt for both addons and the libtorch release', () => {
    const facts = packageFacts();
    assert.deepEqual(Object.keys(facts.prebuilt).sort(), ['svc-node-core', 'svc-node-infer']);
    assert.ok(facts.prebuilt['svc-node-core']?.includes('linux-x64-gnu'));
    assert.match(facts.libtorch, /^\d+\.\d+\.\d+$/);
  });
});

describe('platform packages', () => {
  const root = repoRoot();
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; napi: { packageName: string; binaryName: string } };
  const infer = JSON.parse(readFileSync(path.join(root, 'crates', 'svc-infer-napi', 'napi.json'), 'utf8')) as { packageName: string; binaryName: string };

  it("are laid out as napi-rs lays them out, one per target, at the main package's version", () => {
    for (const [dir, config] of [['core', pkg.napi], ['inference', infer]] as const) {
      const platforms = readdirSync(path.join(root, 'npm', dir)).sort();
      assert.ok(platforms.includes('linux-x64-gnu') && platforms.includes('linux-arm64-gnu') && platforms.includes('darwin-arm64'), platforms.join());
      for (const platform of platforms) {
        const sub = JSON.parse(readFileSync(path.join(root, 'npm', dir, platform, 'package.json'), 'utf8')) as { name: string; version: string; main: string; os: string[]; cpu: string[] };
        assert.equal(sub.name, `${config.packageName}-${platform}`);
        assert.equal(sub.version, pkg.version, `${sub.name} is at ${sub.version}, svc-node at ${pkg.version}: run npm run pack:release`);
        assert.equal(sub.main, `${config.binaryName}.${platform}.node`);
        assert.deepEqual(sub.os, [platform.split('-')[0]]);
      }
    }
  });

  it('ship prebuilt only for targets that have a package directory', () => {
    for (const [name, platforms] of Object.entries(packageFacts().prebuilt)) {
      const dir = name === pkg.napi.packageName ? 'core' : 'inference';
      for (const platform of platforms) assert.ok(readdirSync(path.join(root, 'npm', dir)).includes(platform), `${name}: npm/${dir}/${platform}`);
    }
  });
});

describe('finding libtorch', () => {
  const want = packageFacts().libtorch;

  /** A directory laid out as libtorch or a torch package, with empty library files. */
  function fakeLibtorch(dir: string, opts: { version?: string; versionPy?: string; lib?: boolean } = {}): string {
    const libDir = opts.lib === false ? dir : path.join(dir, 'lib');
    mkdirSync(libDir, { recursive: true });
    for (const f of ['libc10.so', 'libtorch_cpu.so']) writeFileSync(path.join(libDir, f), '');
    if (opts.version) writeFileSync(path.join(dir, 'build-version'), `${opts.version}\n`);
    if (opts.versionPy) writeFileSync(path.join(dir, 'version.py'), `__version__ = '${opts.versionPy}'\ngit_version = 'x'\n`);
    return dir;
  }

  /** A stand-in for python3 that prints the given torch directory (or nothing). */
  function fakePython(dir: string, torchDir: string): string {
    const file = path.join(dir, 'python3');
    writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' '${torchDir}'\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('compares releases up to the local label', () => {
    assert.ok(sameRelease('2.13.0+cu130', '2.13.0'));
    assert.ok(sameRelease('2.13.0', '2.13.0'));
    assert.ok(!sameRelease('2.12.1+cpu', '2.13.0'));
  });

  it('takes LIBTORCH when it holds the libraries of the right release, and nothing else when it does not', (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-libtorch-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const good = fakeLibtorch(path.join(dir, 'libtorch'), { version: `${want}+cpu` });
    const found = findLibtorch({ LIBTORCH: good, SVC_CACHE_DIR: path.join(dir, 'no-cache') });
    assert.ok('found' in found);
    assert.equal(found.found.libDir, path.join(good, 'lib'));
    assert.equal(found.found.source, 'LIBTORCH');

    const old = fakeLibtorch(path.join(dir, 'old'), { version: '2.1.0' });
    const python = fakePython(dir, good);
    const refused = findLibtorch({ LIBTORCH: old, SVC_CACHE_DIR: path.join(dir, 'no-cache'), SVC_PYTHON: python });
    assert.ok('looked' in refused);
    assert.deepEqual(refused.looked, [`LIBTORCH: ${old} is libtorch 2.1.0, the addon needs ${want}`]);

    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    const missing = findLibtorch({ LIBTORCH: empty });
    assert.ok('looked' in missing);
    assert.match(missing.looked[0] ?? '', /^LIBTORCH: no libtorch_cpu\.so in .*empty or its lib\//);
  });

  it("prefers the project's cache, then Python's torch of the right release", (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-libtorch-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const cache = path.join(dir, 'cache');
    const torchPkg = fakeLibtorch(path.join(dir, 'site-packages', 'torch'), { versionPy: `${want}+cu130` });
    const python = fakePython(dir, torchPkg);

    const fromPython = findLibtorch({ SVC_CACHE_DIR: cache, SVC_PYTHON: python });
    assert.ok('found' in fromPython, JSON.stringify(fromPython));
    assert.equal(fromPython.found.libDir, path.join(torchPkg, 'lib'));
    assert.equal(fromPython.found.version, `${want}+cu130`);
    assert.match(fromPython.found.source, /^Python's torch/);

    fakeLibtorch(path.join(cache, 'libtorch', want, 'torch-cpu'));
    const fromCache = findLibtorch({ SVC_CACHE_DIR: cache, SVC_PYTHON: python });
    assert.ok('found' in fromCache);
    assert.equal(fromCache.found.source, 'the project cache');
    assert.equal(fromCache.found.libDir, path.join(cache, 'libtorch', want, 'torch-cpu', 'lib'));
  });

  it("passes over Python's torch of another release, and says when Python has none", (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-libtorch-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const torchPkg = fakeLibtorch(path.join(dir, 'torch'), { versionPy: '2.5.1+cpu' });
    const wrong = findLibtorch({ SVC_CACHE_DIR: path.join(dir, 'none'), SVC_PYTHON: fakePython(dir, torchPkg) });
    assert.ok('looked' in wrong);
    assert.match(wrong.looked.join('\n'), new RegExp(`is libtorch 2\\.5\\.1\\+cpu, the addon needs ${want.replaceAll('.', '\\.')}`));

    const none = findLibtorch({ SVC_CACHE_DIR: path.join(dir, 'none'), SVC_PYTHON: fakePython(dir, '') });
    assert.ok('looked' in none);
    assert.match(none.looked.join('\n'), /has no torch package/);

    const absent = findLibtorch({ SVC_CACHE_DIR: path.join(dir, 'none'), SVC_PYTHON: path.join(dir, 'no-such-python') });
    assert.ok('looked' in absent);
    assert.match(absent.looked.join('\n'), /no-such-python: spawnSync .* ENOENT/);
  });
});
