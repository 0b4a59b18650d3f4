// The compiled CLIs, spawned as users run them: help, version, flag and SVC_* validation, and a
// real `svc-node start` on a free port.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { proofPrecheckRate, resolveStartConfig, type StartFlags } from '../src/cli/start-options.js';
import { SVC_MINER, SVC_NODE, cleanEnv } from './support/cli-process.js';

const RUN_TIMEOUT_MS = 30_000;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCli(script: string, args: string[], env: Record<string, string>, cwd?: string): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [script, ...args], { env: cleanEnv(env), cwd: cwd ?? process.cwd() });
}

/** Run a CLI to completion. */
function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(script, args, env);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(script)} ${args.join(' ')} did not exit within ${RUN_TIMEOUT_MS} ms\n${stdout}\n${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('svc-node --help', () => {
  it('lists the commands and exits 0', async () => {
    const out = await run(SVC_NODE, ['--help']);
    assert.equal(out.code, 0);
    assert.match(out.stdout, /Usage: svc-node/);
    assert.match(out.stdout, /\bstart\b/);
    assert.match(out.stdout, /\bversion\b/);
  });

  it('prints the same help when run without a command', async () => {
    const out = await run(SVC_NODE, []);
    assert.equal(out.code, 0);
    assert.match(out.stdout, /Usage: svc-node/);
  });

  it('rejects an unknown command with exit code 2', async () => {
    const out = await run(SVC_NODE, ['strat']);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /unknown command 'strat'/);
  });

  it('lists every start flag with its SVC_* variable and default', async () => {
    const out = await run(SVC_NODE, ['start', '--help']);
    assert.equal(out.code, 0);
    // Help wraps at the terminal width; compare with whitespace collapsed.
    const help = out.stdout.replace(/\s+/g, ' ');
    const expected: [string, string][] = [
      ['--network', 'SVC_NETWORK'],
      ['--data-dir', 'SVC_DATA_DIR'],
      ['--genesis', 'SVC_GENESIS'],
      ['--rpc-host', 'SVC_RPC_HOST'],
      ['--rpc-port', 'SVC_RPC_PORT'],
      ['--ws-port', 'SVC_WS_PORT'],
      ['--explorer-port', 'SVC_EXPLORER_PORT'],
      ['--block-time-ms', 'SVC_BLOCK_TIME_MS'],
      ['--log-level', 'SVC_LOG_LEVEL'],
      ['--rpc-rate-limit', 'SVC_RPC_RATE_LIMIT'],
      ['--rate-limit-loopback-exempt', 'SVC_RATE_LIMIT_LOOPBACK_EXEMPT'],
      ['--validator-address', 'SVC_VALIDATOR_ADDRESS'],
      ['--http-read-timeout-ms', 'SVC_HTTP_READ_TIMEOUT_MS'],
      ['--http-write-timeout-ms', 'SVC_HTTP_WRITE_TIMEOUT_MS'],
      ['--http-idle-timeout-ms', 'SVC_HTTP_IDLE_TIMEOUT_MS'],
      ['--max-connections-per-ip', 'SVC_MAX_CONNECTIONS_PER_IP'],
    ];
    for (const [flag, env] of expected) {
      assert.ok(help.includes(flag), `${flag} missing from help`);
      assert.ok(help.includes(env), `${env} missing from help`);
    }
    assert.match(help, /--no-rate-limit-loopback-exempt/);
    assert.match(help, /--rpc-port <port> JSON-RPC port \(0 = any free port\) \(default: 8545, env: SVC_RPC_PORT\)/);
    assert.match(help, /--block-time-ms <ms> solo block time in milliseconds \(default: 1000, env: SVC_BLOCK_TIME_MS\)/);
    assert.match(help, /default: "devnet", env: SVC_NETWORK/);
    assert.match(help, /--proof-precheck-rate <rate>[\s\S]*?\(default:\s+0\.25, env: SVC_PROOF_PRECHECK_RATE\)/);
  });
});

describe('svc-node version', () => {
  it('prints the package version', async () => {
    const out = await run(SVC_NODE, ['version']);
    assert.equal(out.code, 0);
    assert.match(out.stdout, /^svc-node 0\.1\.0$/m);
    assert.match(out.stdout, /^node v\d+/m);
  });

  it('answers --version', async () => {
    const out = await run(SVC_NODE, ['--version']);
    assert.equal(out.code, 0);
    assert.equal(out.stdout.trim(), '0.1.0');
  });
});

describe('svc-node start: bad flags and environment exit 2 with a clear message', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['a non-numeric port flag', ['--rpc-port', 'abc'], {}, /option '--rpc-port <port>' argument 'abc' is invalid\. expected an integer from 0 to 65535/],
    ['a port over 65535', ['--rpc-port', '70000'], {}, /--rpc-port/],
    ['a negative rate limit', ['--rpc-rate-limit', '-1'], {}, /--rpc-rate-limit/],
    ['a zero block time from the environment', [], { SVC_BLOCK_TIME_MS: '0' }, /value '0' from env 'SVC_BLOCK_TIME_MS' is invalid/],
    ['a non-numeric port from the environment', [], { SVC_RPC_PORT: '85x' }, /from env 'SVC_RPC_PORT' is invalid/],
    ['an unknown network', ['--network', 'moonnet'], {}, /argument 'moonnet' is invalid\. Allowed choices are devnet, testnet, mainnet/],
    ['an unknown log level from the environment', [], { SVC_LOG_LEVEL: 'loud' }, /SVC_LOG_LEVEL/],
    ['a non-boolean loopback exemption', [], { SVC_RATE_LIMIT_LOOPBACK_EXEMPT: 'maybe' }, /SVC_RATE_LIMIT_LOOPBACK_EXEMPT="maybe" is invalid: expected true or false/],
    ['a malformed validator address', ['--validator-address', '0x1234'], {}, /--validator-address: invalid address "0x1234"/],
    ['an unknown flag', ['--rpc-prot', '1'], {}, /unknown option '--rpc-prot'/],
    ['mainnet without a genesis file', ['--network', 'mainnet'], {}, /mainnet has no built-in genesis: pass its genesis file with --genesis <file>/],
    ['a genesis file that does not exist', ['--genesis', 'no-such-genesis.json'], {}, /genesis file .*no-such-genesis\.json: cannot read it \(ENOENT\)/],
    ['a pre-check rate above 1', ['--proof-precheck-rate', '1.5'], {}, /option '--proof-precheck-rate <rate>' argument '1\.5' is invalid\. expected a fraction from 0 to 1/],
    ['a pre-check rate from the environment that is not a number', [], { SVC_PROOF_PRECHECK_RATE: 'often' }, /SVC_PROOF_PRECHECK_RATE/],
    ['an unknown consensus engine', ['--consensus', 'pbft'], {}, /argument 'pbft' is invalid\. Allowed choices are solo, cometbft/],
    ['a gas cap that is not a number', ['--rpc-gas-cap', 'lots'], {}, /option '--rpc-gas-cap <gas>' argument 'lots' is invalid/],
    ['an EVM timeout from the environment that is not a number', [], { SVC_RPC_EVM_TIMEOUT_MS: '5s' }, /SVC_RPC_EVM_TIMEOUT_MS/],
    ['CometBFT flags on a solo node', ['--abci-addr', 'tcp://127.0.0.1:26658'], {}, /--cometbft-home and --abci-addr are for --consensus cometbft/],
    ['a malformed ABCI address', ['--consensus', 'cometbft', '--abci-addr', 'localhost'], {}, /--abci-addr must be tcp:\/\/host:port or unix:\/\/path/],
    ['a CometBFT home without a genesis', ['--consensus', 'cometbft', '--cometbft-home', 'no-such-home'], {}, /CometBFT genesis .*no-such-home\/config\/genesis\.json: missing \(svc-node testnet init writes one\)/],
  ];
  for (const [what, args, env, message] of cases) {
    it(`rejects ${what}`, async () => {
      const out = await run(SVC_NODE, ['start', ...args], env);
      assert.equal(out.code, 2, `exit code ${out.code}\n${out.stderr}`);
      assert.match(out.stderr, message);
      assert.equal(out.stdout.includes('rpc listening'), false);
    });
  }

  it('lets a valid flag win over an invalid environment value', async () => {
    // The invalid SVC_NETWORK is ignored because --network is given; the run then stops at mainnet's genesis check.
    const out = await run(SVC_NODE, ['start', '--network', 'mainnet'], { SVC_NETWORK: 'moonnet' });
    assert.equal(out.code, 2);
    assert.match(out.stderr, /mainnet has no built-in genesis/);
  });
});

describe('svc-node start: the loopback rate-limit exemption follows the network unless set', () => {
  const flags = (over: Partial<StartFlags> = {}): StartFlags => ({
    network: 'devnet',
    rpcHost: '127.0.0.1',
    rpcPort: 8545,
    wsPort: 8546,
    explorerPort: 8080,
    blockTimeMs: 1000,
    logLevel: 'info',
    rpcRateLimit: 100,
    httpReadTimeoutMs: 30_000,
    httpWriteTimeoutMs: 30_000,
    httpIdleTimeoutMs: 120_000,
    maxConnectionsPerIp: 64,
    computeMode: 'pow',
    inferenceBackend: 'auto',
    modelDir: '/models',
    powThreads: 1,
    proofPrecheckRate: 2_500,
    ...over,
  });

  it('exempts loopback on devnet and not on testnet or mainnet by default', () => {
    assert.equal(resolveStartConfig(flags(), {}, '/').rateLimitExemptLoopback, true);
    assert.equal(resolveStartConfig(flags({ network: 'testnet' }), {}, '/').rateLimitExemptLoopback, false);
    assert.equal(resolveStartConfig(flags({ network: 'mainnet' }), {}, '/').rateLimitExemptLoopback, false);
  });

  it('reads SVC_RATE_LIMIT_LOOPBACK_EXEMPT, and the flag wins over it', () => {
    assert.equal(resolveStartConfig(flags(), { SVC_RATE_LIMIT_LOOPBACK_EXEMPT: 'false' }, '/').rateLimitExemptLoopback, false);
    assert.equal(resolveStartConfig(flags({ network: 'testnet' }), { SVC_RATE_LIMIT_LOOPBACK_EXEMPT: '1' }, '/').rateLimitExemptLoopback, true);
    assert.equal(
      resolveStartConfig(flags({ rateLimitLoopbackExempt: true }), { SVC_RATE_LIMIT_LOOPBACK_EXEMPT: 'false' }, '/').rateLimitExemptLoopback,
      true,
    );
  });

  it('reads --proof-precheck-rate as a fraction or a percentage, in basis points', () => {
    const ok: [string, number][] = [['0', 0], ['0.25', 2_500], ['1', 10_000], ['1.0000', 10_000], ['0.0001', 1], [' 0.1 ', 1_000], ['25%', 2_500], ['100%', 10_000], ['0.5%', 50], ['5%', 500]];
    for (const [text, bps] of ok) assert.equal(proofPrecheckRate(text), bps, text);
    for (const bad of ['1.5', '101%', '-0.1', '.5', '0.00001', '0.001%', 'often', '', '1e-2', '0x10']) assert.throws(() => proofPrecheckRate(bad), /expected a fraction from 0 to 1/, bad);
    assert.equal(resolveStartConfig(flags({ proofPrecheckRate: 1_000 }), {}, '/').proofPrecheckBps, 1_000);
  });

  it('puts the data directory under ./.svc-data/<network> of the working directory by default', () => {
    const cwd = path.resolve('/srv/svc');
    assert.equal(resolveStartConfig(flags({ network: 'testnet' }), {}, cwd).dataDir, path.join(cwd, '.svc-data', 'testnet'));
    assert.equal(resolveStartConfig(flags({ dataDir: 'db' }), {}, cwd).dataDir, path.join(cwd, 'db'));
    assert.equal(resolveStartConfig(flags(), {}, cwd).chainId, 9000);
    assert.equal(resolveStartConfig(flags({ network: 'mainnet' }), {}, cwd).chainId, 9001);
  });
});

describe('svc-miner', () => {
  it('lists the spec\'s miner flags and their SVC_MINER_* variables', async () => {
    const out = await run(SVC_MINER, ['--help']);
    assert.equal(out.code, 0);
    for (const flag of ['--wallet', '--private-key', '--validator-rpc', '--backend', '--model-dir', '--max-memory', '--hot-models', '--generate-wallet', '--verbose']) {
      assert.ok(out.stdout.includes(flag), `${flag} missing`);
    }
    assert.match(out.stdout, /SVC_MINER_RPC_URL/);
    assert.match(out.stdout, /SVC_MINER_WALLET/);
    assert.match(out.stdout, /--generate-wallet/);
  });

  it('prints help and exits 0 when run without arguments', async () => {
    const out = await run(SVC_MINER, []);
    assert.equal(out.code, 0);
    assert.match(out.stdout, /Usage: svc-miner/);
  });

  it('asks for the miner key when only a wallet is given', async () => {
    const out = await run(SVC_MINER, ['--wallet', '0x0000000000000000000000000000000000000001']);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /--private-key/);
  });

  it('rejects a bad --max-memory with exit code 2', async () => {
    const out = await run(SVC_MINER, ['--max-memory', 'lots']);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /--max-memory/);
  });
});

/** A node started by the CLI, with its readiness line parsed. */
interface StartedNode {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout(): string;
  exit: Promise<number | null>;
}

function startCli(args: string[], env: Record<string, string>, cwd: string): Promise<StartedNode> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(SVC_NODE, ['start', ...args], env, cwd);
    let stdout = '';
    let stderr = '';
    const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc-node start did not get ready within ${RUN_TIMEOUT_MS} ms\n${stdout}\n${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // Only whole lines: the last element is a line still being written.
      for (const line of stdout.split('\n').slice(0, -1)) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'rpc listening' && entry.url) {
          clearTimeout(timer);
          resolve({ child, url: entry.url, stdout: () => stdout, exit });
          return;
        }
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`svc-node start exited with ${code} before it was ready\n${stdout}\n${stderr}`));
    });
  });
}

async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

describe('svc-node start: a real devnet node', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('reads SVC_* variables, lets flags win, prints the banner and the actual port, and stops on SIGTERM', async () => {
    const flagDir = path.join(work, 'from-flag');
    const node = await startCli(
      ['--rpc-port', '0', '--data-dir', flagDir],
      { SVC_DATA_DIR: path.join(work, 'from-env'), SVC_BLOCK_TIME_MS: '100', SVC_RPC_PORT: '1' },
      work,
    );
    try {
      const port = Number(new URL(node.url).port);
      assert.ok(port > 0 && port !== 1, `expected a free port, got ${node.url}`);
      const banner = node.stdout();
      assert.match(banner, new RegExp(`Data directory +${flagDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.match(banner, /Block time +100 ms/);
      assert.match(banner, /Chain ID +9000 \(0x2328\)/);
      assert.match(banner, /\(0\) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 \(10000 ether\)/);
      assert.match(banner, /\(0\) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80/);
      assert.match(banner, new RegExp(`JSON-RPC +${node.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

      assert.equal(await rpcCall(node.url, 'eth_chainId'), '0x2328');
      const first = Number(await rpcCall(node.url, 'eth_blockNumber'));
      await new Promise((resolve) => setTimeout(resolve, 400));
      const later = Number(await rpcCall(node.url, 'eth_blockNumber'));
      assert.ok(later > first, `no blocks produced: ${first} -> ${later}`);
    } finally {
      node.child.kill('SIGTERM');
    }
    assert.equal(await node.exit, 0);
  });

  it('reopens the same data directory with the same genesis and keeps its blocks', async () => {
    const dir = path.join(work, 'reopen');
    const first = await startCli(['--rpc-port', '0', '--data-dir', dir, '--block-time-ms', '50'], {}, work);
    let genesis: unknown;
    let reached: number;
    try {
      genesis = ((await rpcCall(first.url, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash;
      await new Promise((resolve) => setTimeout(resolve, 300));
      reached = Number(await rpcCall(first.url, 'eth_blockNumber'));
    } finally {
      first.child.kill('SIGTERM');
    }
    assert.equal(await first.exit, 0);
    const second = await startCli(['--rpc-port', '0', '--data-dir', dir, '--block-time-ms', '50'], {}, work);
    try {
      const again = ((await rpcCall(second.url, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash;
      assert.equal(again, genesis);
      assert.ok(Number(await rpcCall(second.url, 'eth_blockNumber')) >= reached);
    } finally {
      second.child.kill('SIGTERM');
    }
    assert.equal(await second.exit, 0);
  });
});
