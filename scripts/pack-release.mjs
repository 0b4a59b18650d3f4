#!/usr/bin/env node
// Packs a release: the main package `svc-node` (compiled TypeScript, ABIs, napi-rs's loaders) and the
// platform packages of the addons (npm/core/<platform>, npm/inference/<platform>: one stripped
// binary each), every one at the version of package.json, written as npm tarballs to dist-release/.
// It builds every target this machine can: the host's (linux-x64-gnu here) and, on a Linux x64 host,
// linux-arm64-gnu of the core with Debian's cross toolchain and rustup's aarch64 standard library
// (installed when missing). `docs/release.md` says how a release is published.
//
//   node scripts/pack-release.mjs [--targets linux-x64-gnu,linux-arm64-gnu] [--out dir] [--skip-build]
//
// --targets     the platforms to pack (default: every one this machine can build)
// --out         where the tarballs go (default: dist-release/)
// --skip-build  pack what native/ and dist/ already hold for the host (the tests' use: `npm install`
//               built them); cross targets are always built
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const step = (msg) => process.stdout.write(`[svc-node release] ${msg}\n`);
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const rootPkg = readJson(path.join(root, 'package.json'));
const { version } = rootPkg;

/** The addons and their platform packages. */
export const ADDONS = [
  { key: 'core', npmDir: 'npm/core', napiConfig: rootPkg.napi, loader: 'core.cjs' },
  { key: 'inference', npmDir: 'npm/inference', napiConfig: readJson(path.join(root, 'crates/svc-infer-napi/napi.json')), loader: 'inference.cjs' },
];

/** What a platform needs to be cross-built here: the Rust target, its C toolchain prefix and the sysroot. */
const CROSS = {
  'linux-arm64-gnu': { rust: 'aarch64-unknown-linux-gnu', gcc: 'aarch64-linux-gnu', debian: ['gcc-aarch64-linux-gnu', 'g++-aarch64-linux-gnu'] },
};

function hostPlatform() {
  if (process.platform === 'linux') return `linux-${process.arch}-gnu`;
  if (process.platform === 'win32') return `win32-${process.arch}-msvc`;
  return `${process.platform}-${process.arch}`;
}

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed with exit code ${r.status ?? r.signal}`);
}

function output(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: root, ...opts });
  return r.status === 0 ? r.stdout : null;
}

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

function parseArgs(argv) {
  const opts = { targets: null, out: path.join(root, 'dist-release'), skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--targets') opts.targets = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--out') opts.out = path.resolve(argv[++i] ?? '');
    else if (a === '--skip-build') opts.skipBuild = true;
    else throw new Error(`unknown option ${a} (expected --targets, --out, --skip-build)`);
  }
  return opts;
}

/** Every platform package's version, description and README follow the main package. */
export function syncPlatformPackages() {
  const changed = [];
  for (const addon of ADDONS) {
    for (const platform of readdirSync(path.join(root, addon.npmDir))) {
      const file = path.join(root, addon.npmDir, platform, 'package.json');
      const pkg = readJson(file);
      const want = {
        ...pkg,
        version,
        description: `The ${addon.napiConfig.binaryName} addon of svc-node (${addon.key}) for ${platform}`,
        license: rootPkg.license,
        engines: rootPkg.engines,
      };
      if (JSON.stringify(want) !== JSON.stringify(pkg)) {
        writeFileSync(file, `${JSON.stringify(want, null, 2)}\n`);
        changed.push(path.relative(root, file));
      }
    }
  }
  return changed;
}

/** The newest glibc symbol version a binary needs: the oldest glibc it runs on. */
function glibcFloor(file, objdump = 'objdump') {
  const text = output(objdump, ['-T', file]);
  if (text === null) return 'unknown';
  const versions = [...text.matchAll(/GLIBC_(\d+)\.(\d+)(?:\.(\d+))?/g)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]);
  versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const top = versions.at(-1);
  return top ? `glibc ${top[0]}.${top[1]}${top[2] ? `.${top[2]}` : ''}` : 'none';
}

function ensureCross(platform) {
  const cross = CROSS[platform];
  if (!has(`${cross.gcc}-gcc`) || !has(`${cross.gcc}-g++`)) {
    if (!has('apt-get')) throw new Error(`${cross.gcc}-gcc is missing: install a ${platform} cross toolchain`);
    step(`installing ${cross.debian.join(', ')} (Debian's cross toolchain)`);
    const sudo = typeof process.getuid === 'function' && process.getuid() === 0 ? [] : ['sudo'];
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'install', '-y', '-qq', ...cross.debian], { env });
  }
  const installed = output('rustup', ['target', 'list', '--installed']) ?? '';
  if (!installed.split('\n').includes(cross.rust)) {
    step(`adding the Rust standard library for ${cross.rust} (rustup)`);
    run('rustup', ['target', 'add', cross.rust]);
  }
}

/** Builds the core addon for a cross target into `dir`; returns the .node file. */
function crossBuildCore(platform, dir) {
  ensureCross(platform);
  const { rust, gcc } = CROSS[platform];
  const envKey = rust.replace(/-/g, '_');
  const env = {
    ...process.env,
    CARGO_TARGET_DIR: process.env.CARGO_TARGET_DIR ?? path.join(process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node'), 'target'),
    [`CARGO_TARGET_${envKey.toUpperCase()}_LINKER`]: `${gcc}-gcc`,
    [`CC_${envKey}`]: `${gcc}-gcc`,
    [`CXX_${envKey}`]: `${gcc}-g++`,
    [`AR_${envKey}`]: `${gcc}-ar`,
    // RocksDB's bindings are generated by bindgen, which must read the target's headers.
    [`BINDGEN_EXTRA_CLANG_ARGS_${envKey}`]: `--sysroot=/usr/${gcc}`,
  };
  step(`cross-building the core addon for ${platform} (${rust})`);
  mkdirSync(dir, { recursive: true });
  run(process.execPath, [
    path.join(root, 'node_modules/@napi-rs/cli/dist/cli.js'), 'build', '--platform', '--release', '--target', rust,
    '--manifest-path', 'crates/svc-napi/Cargo.toml', '--package-json-path', 'package.json', '--output-dir', dir,
    '--no-js', '--dts', 'core.d.ts', '--no-dts-header',
  ], { env });
  return { file: path.join(dir, `svc-core.${platform}.node`), strip: `${gcc}-strip`, objdump: `${gcc}-objdump` };
}

function buildHost(skipBuild) {
  if (skipBuild) return;
  run(process.execPath, [path.join(root, 'scripts/build-native.mjs')]);
  run(process.execPath, [path.join(root, 'scripts/setup-inference.mjs'), '--no-cuda']);
  run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  run(process.execPath, [path.join(root, 'scripts/build-web.mjs')]);
}

function npmPack(dir, out) {
  const text = output('npm', ['pack', dir, '--pack-destination', out, '--json', '--ignore-scripts'], { cwd: out });
  if (text === null) throw new Error(`npm pack ${dir} failed`);
  const [info] = JSON.parse(text);
  return path.join(out, info.filename);
}

/** The main package as published: no build scripts, its platform packages as optional dependencies. */
function releasePackageJson(platformPackages) {
  const pkg = {
    name: rootPkg.name,
    version,
    description: rootPkg.description,
    type: rootPkg.type,
    license: rootPkg.license,
    engines: rootPkg.engines,
    bin: rootPkg.bin,
    files: ['dist/src', 'dist/web', 'abi', 'native/*.cjs', 'README.md'],
    svc: rootPkg.svc,
    dependencies: rootPkg.dependencies,
    optionalDependencies: Object.fromEntries(platformPackages.map((name) => [name, version])),
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function stageMain(stage) {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(path.join(stage, 'native'), { recursive: true });
  cpSync(path.join(root, 'dist', 'src'), path.join(stage, 'dist', 'src'), { recursive: true });
  // The explorer's web page, served from dist/web beside dist/src (src/explorer/web.ts).
  cpSync(path.join(root, 'dist', 'web'), path.join(stage, 'dist', 'web'), { recursive: true });
  cpSync(path.join(root, 'abi'), path.join(stage, 'abi'), { recursive: true });
  copyFileSync(path.join(root, 'README.md'), path.join(stage, 'README.md'));
  for (const { loader } of ADDONS) {
    // The committed loader, which `npm test` checks against a fresh generation.
    copyFileSync(path.join(root, 'src', 'native', 'generated', loader), path.join(stage, 'native', loader));
  }
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const host = hostPlatform();
  const buildable = [host, ...(process.platform === 'linux' && process.arch === 'x64' ? Object.keys(CROSS) : [])];
  const targets = opts.targets ?? buildable;
  for (const t of targets) {
    if (!buildable.includes(t)) throw new Error(`${t} cannot be built on this ${host} machine (buildable here: ${buildable.join(', ')})`);
  }
  const synced = syncPlatformPackages();
  if (synced.length > 0) step(`platform packages moved to version ${version}: ${synced.join(', ')}`);
  buildHost(opts.skipBuild);
  if (!existsSync(path.join(root, 'dist', 'src', 'cli', 'svc-node.js'))) throw new Error('dist/ is not built: run `npm run build` first or drop --skip-build');
  if (!existsSync(path.join(root, 'dist', 'web', 'index.html'))) throw new Error('dist/web is not built: run `node scripts/build-web.mjs` first');

  rmSync(opts.out, { recursive: true, force: true });
  const staging = path.join(opts.out, 'stage');
  mkdirSync(staging, { recursive: true });
  const rows = [];
  const platformPackages = [];
  for (const addon of ADDONS) {
    const prebuilt = rootPkg.svc.prebuilt[addon.napiConfig.packageName] ?? [];
    for (const platform of targets) {
      if (!prebuilt.includes(platform)) continue;
      let built;
      if (platform === host) {
        built = { file: path.join(root, 'native', `${addon.napiConfig.binaryName}.${platform}.node`), strip: 'strip', objdump: 'objdump' };
        if (!existsSync(built.file)) throw new Error(`${path.relative(root, built.file)} is not built: run \`npm run build\``);
      } else if (addon.key === 'core') {
        built = crossBuildCore(platform, path.join(opts.out, 'build', platform));
      } else {
        throw new Error(`the inference addon is not cross-built; remove ${platform} from svc.prebuilt["${addon.napiConfig.packageName}"]`);
      }
      const npmDir = path.join(root, addon.npmDir, platform);
      const stage = path.join(staging, `${addon.napiConfig.packageName}-${platform}`);
      mkdirSync(stage, { recursive: true });
      const pkg = readJson(path.join(npmDir, 'package.json'));
      cpSync(npmDir, stage, { recursive: true });
      const binary = path.join(stage, pkg.main);
      copyFileSync(built.file, binary);
      run(built.strip, ['--strip-unneeded', binary]);
      const tarball = npmPack(stage, opts.out);
      platformPackages.push(pkg.name);
      rows.push({ name: pkg.name, tarball, binary: statSync(binary).size, floor: glibcFloor(binary, built.objdump) });
    }
  }
  const mainStage = path.join(staging, rootPkg.name);
  stageMain(mainStage);
  writeFileSync(path.join(mainStage, 'package.json'), releasePackageJson(platformPackages));
  rows.unshift({ name: rootPkg.name, tarball: npmPack(mainStage, opts.out), binary: 0, floor: '' });

  const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;
  step(`version ${version}, tarballs in ${path.relative(process.cwd(), opts.out) || '.'}:`);
  for (const r of rows) {
    const extra = r.binary ? `, binary ${mb(r.binary)} stripped, needs ${r.floor}` : '';
    process.stdout.write(`  ${path.basename(r.tarball).padEnd(44)} ${mb(statSync(r.tarball).size).padStart(9)}${extra}\n`);
  }
  writeFileSync(path.join(opts.out, 'manifest.json'), `${JSON.stringify({ version, tarballs: rows.map((r) => path.basename(r.tarball)) }, null, 2)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`[svc-node release] ${err.message}\n`);
    process.exit(1);
  }
}
