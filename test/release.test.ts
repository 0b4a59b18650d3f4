// The prebuilt release as a user installs it: `scripts/pack-release.mjs` packs the main package and
// the host's platform packages from this build; a clean prefix (an empty HOME, a PATH that holds
// node and npm but no cargo, rustc, go or python) installs the tarballs with `npm install -g`; the
// installed `svc-node start` answers eth_chainId, the README's viem snippet sends a transfer and
// reads its receipt, `svc-miner --generate-wallet` prints a wallet; and with PyTorch installed in a
// Python of that prefix, `svc-miner infer` loads libtorch from it and gives the same output_hash as
// the source build. The install's duration is printed (the release's target: under 60 s here).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cacheDir = process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node');
const rootPkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  svc: { libtorch: string; prebuilt: Record<string, string[]> };
};
const host = `${process.platform}-${process.arch}${process.platform === 'linux' ? '-gnu' : ''}`;
const MODEL = 'svc-embed-small@v1.0';
const modelDir = path.join(cacheDir, 'models');

function sh(cmd: string, args: string[], opts: SpawnSyncOptions = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 300_000, ...opts });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} exited with ${r.status}\n${String(r.stdout).slice(-3000)}\n${String(r.stderr).slice(-3000)}`);
  return String(r.stdout);
}

/** The README's fenced block after `<!-- snippet: name -->`. */
function readmeSnippet(name: string): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const m = new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``).exec(readme);
  assert.ok(m?.[1], `README.md has no block marked <!-- snippet: ${name} -->`);
  return m[1];
}

/** npm's entry point: beside this node (an installed Node.js), else the npm on PATH. */
function npmCli(): string {
  const beside = path.resolve(path.dirname(process.execPath), '../lib/node_modules/npm/bin/npm-cli.js');
  if (existsSync(beside)) return beside;
  const onPath = spawnSync('/bin/sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(onPath, 'npm is not on PATH');
  return realpathSync(onPath);
}

interface Prefix {
  work: string;
  prefix: string;
  /** The clean environment: empty HOME, node and npm (and sh) on PATH, nothing else. */
  env: NodeJS.ProcessEnv;
  installSeconds: number;
}

function cleanPrefix(tarballs: string[]): Prefix {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-release-'));
  const home = path.join(work, 'home');
  const tools = path.join(work, 'tools');
  const prefix = path.join(work, 'prefix');
  for (const d of [home, tools, prefix]) mkdirSync(d, { recursive: true });
  symlinkSync(process.execPath, path.join(tools, 'node'));
  symlinkSync(npmCli(), path.join(tools, 'npm'));
  symlinkSync('/bin/sh', path.join(tools, 'sh'));
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    PATH: `${path.join(prefix, 'bin')}:${tools}`,
    TMPDIR: work,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    // How this machine reaches the registry (its certificate authorities and proxies) is the
    // machine's, not a tool's: a user here has it too.
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|https?_proxy|no_proxy)$/i.test(k))),
  };
  for (const tool of ['cargo', 'rustc', 'go', 'python', 'python3', 'cc', 'gcc']) {
    assert.notEqual(spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env }).status, 0, `${tool} is reachable from the clean PATH`);
  }
  const started = performance.now();
  sh('npm', ['install', '--global', '--prefix', prefix, ...tarballs], { env, cwd: work });
  return { work, prefix, env, installSeconds: (performance.now() - started) / 1000 };
}

interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  readySeconds: number;
  stop(): Promise<void>;
}

/** `svc-node start` of the prefix; resolves when eth_chainId answers (at most 10 s after the spawn). */
async function startNode(p: Prefix): Promise<Started> {
  const dataDir = path.join(p.work, 'data');
  const started = performance.now();
  const child = spawn(path.join(p.prefix, 'bin', 'svc-node'),
    ['start', '--network', 'devnet', '--data-dir', dataDir, '--rpc-port', '0', '--ws-port', '0', '--explorer-port', '0', '--block-time-ms', '200'],
    { env: p.env, cwd: p.work });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = started + 10_000;
  while (performance.now() < deadline) {
    const m = /"msg":"rpc listening"[^\n]*"url":"([^"]+)"|"url":"([^"]+)"[^\n]*"msg":"rpc listening"/.exec(out);
    const url = m?.[1] ?? m?.[2];
    if (url) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      }).then((r) => r.json() as Promise<{ result?: string }>, () => null);
      if (res?.result) {
        assert.equal(res.result, '0x2328');
        return { child, url, readySeconds: (performance.now() - started) / 1000, stop };
      }
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  assert.fail(`the installed svc-node did not answer eth_chainId within 10 s of its start\n${out.slice(-4000)}`);
}

describe(`the packed release installed in a clean prefix (${host})`, () => {
  let release: string;
  let p: Prefix;
  let node: Started;

  before(() => {
    release = mkdtempSync(path.join(tmpdir(), 'svc-pack-'));
    sh(process.execPath, [path.join(root, 'scripts', 'pack-release.mjs'), '--targets', host, '--skip-build', '--out', release], { cwd: root });
    const tarballs = readdirSync(release).filter((f) => f.endsWith('.tgz')).map((f) => path.join(release, f));
    const names = tarballs.map((t) => path.basename(t)).sort();
    const v = rootPkg.version;
    assert.deepEqual(names, [`svc-node-${v}.tgz`, `svc-node-core-${host}-${v}.tgz`, `svc-node-infer-${host}-${v}.tgz`].sort());
    p = cleanPrefix(tarballs);
  });

  after(async () => {
    await node?.stop();
    if (p) rmSync(p.work, { recursive: true, force: true });
    if (release) rmSync(release, { recursive: true, force: true });
  });

  it('installs without a Rust toolchain, Go or Python, and svc-node start answers eth_chainId within 10 s', async (t) => {
    t.diagnostic(`npm install -g of the packed tarballs: ${p.installSeconds.toFixed(1)} s`);
    const installed = path.join(p.prefix, 'lib', 'node_modules');
    assert.ok(existsSync(path.join(installed, 'svc-node', 'dist', 'src', 'cli', 'svc-node.js')));
    assert.ok(existsSync(path.join(installed, 'svc-node', 'dist', 'web', 'index.html')), "the explorer's web page ships in the package");
    assert.ok(!existsSync(path.join(installed, 'svc-node', 'native', `svc-core.${host}.node`)), 'the main package carries no binary');
    node = await startNode(p);
    t.diagnostic(`eth_chainId answered ${node.readySeconds.toFixed(2)} s after svc-node start`);
  });

  it("runs the README's viem snippet against the installed node", () => {
    assert.ok(node, 'the node started');
    const app = path.join(p.work, 'app');
    mkdirSync(app);
    const viemVersion = (JSON.parse(readFileSync(path.join(root, 'node_modules', 'viem', 'package.json'), 'utf8')) as { version: string }).version;
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    sh('npm', ['install', `viem@${viemVersion}`], { env: p.env, cwd: app });
    const snippet = readmeSnippet('viem').replaceAll('http://127.0.0.1:8545', node.url);
    writeFileSync(path.join(app, 'snippet.mjs'), snippet);
    const out = sh('node', ['snippet.mjs'], { env: p.env, cwd: app, timeout: 60_000 });
    assert.match(out, /^chain 9000, block \d+, status success$/m);
  });

  it('says which platforms ship prebuilt and how to build from source when the core cannot be loaded', () => {
    // The generated loader tries only NAPI_RS_NATIVE_LIBRARY_PATH when it is set: as if no build fit.
    const r = spawnSync(path.join(p.prefix, 'bin', 'svc-node'), ['start', '--data-dir', path.join(p.work, 'unused'), '--rpc-port', '0', '--ws-port', '0', '--explorer-port', '0'],
      { env: { ...p.env, NAPI_RS_NATIVE_LIBRARY_PATH: path.join(p.work, 'no-such-addon.node') }, cwd: p.work, encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, new RegExp(`svc-node-core could not be loaded on ${host}\\.`));
    assert.match(r.stderr, new RegExp(`ships prebuilt as the npm package svc-node-core-${host}`));
    assert.match(r.stderr, /Tried:\n {2}- Cannot find module '.*no-such-addon\.node'\n/);
    assert.doesNotMatch(r.stderr, /wasi/i);
  });

  it('svc-miner --generate-wallet prints a wallet', () => {
    const out = sh(path.join(p.prefix, 'bin', 'svc-miner'), ['--generate-wallet'], { env: p.env, cwd: p.work });
    const wallet = JSON.parse(out) as { address: string; privateKey: string; publicKey: string };
    assert.match(wallet.address, /^0x[0-9a-fA-F]{40}$/);
    assert.match(wallet.privateKey, /^0x[0-9a-f]{64}$/);
  });

  it("svc-miner infer says how to get libtorch where Python has no torch", () => {
    const r = spawnSync(path.join(p.prefix, 'bin', 'svc-miner'), ['infer', '--model', MODEL, '--input', 'hello', '--backend', 'cpu', '--model-dir', modelDir],
      { env: p.env, cwd: p.work, encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, new RegExp(`libtorch ${rootPkg.svc.libtorch.replaceAll('.', '\\.')} was not found`));
    assert.match(r.stderr, /pip install torch==/);
    assert.match(r.stderr, /LIBTORCH/);
  });

  it("with torch installed by pip in the prefix's Python, svc-miner infer gives the source build's output_hash", (t) => {
    // The source build, as `npm install` in this clone made it (libtorch from the project's cache).
    const reference = JSON.parse(sh(process.execPath, [path.join(root, 'dist', 'src', 'miner', 'cli.js'), 'infer', '--model', MODEL, '--input', 'hello', '--backend', 'cpu', '--model-dir', modelDir], { cwd: root })) as { output_hash: string };
    // PyPI's Linux torch wheel (its CPU code needs only the CUDA runtime and CUPTI wheels to load),
    // installed from the wheels `npm install` fetched: the machine reaches PyPI, the test need not.
    const venv = path.join(p.work, 'py');
    sh('python3', ['-m', 'venv', venv]);
    const wheels = path.join(cacheDir, 'wheels');
    const started = performance.now();
    sh(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-index', '--no-deps', '--find-links', wheels,
      `torch==${rootPkg.svc.libtorch}`, 'nvidia-cuda-runtime', 'nvidia-cuda-cupti'], { env: { ...p.env, PATH: `${path.join(venv, 'bin')}:${p.env.PATH}` } });
    t.diagnostic(`pip install torch: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const env = { ...p.env, PATH: `${path.join(venv, 'bin')}:${p.env.PATH}` };
    const out = sh(path.join(p.prefix, 'bin', 'svc-miner'), ['infer', '--model', MODEL, '--input', 'hello', '--backend', 'cpu', '--model-dir', modelDir], { env, cwd: p.work });
    const report = JSON.parse(out) as { output_hash: string; backend: string };
    assert.equal(report.backend, 'cpu');
    assert.equal(report.output_hash, reference.output_hash);
    t.diagnostic(`output_hash ${report.output_hash} from both builds`);
  });
});
