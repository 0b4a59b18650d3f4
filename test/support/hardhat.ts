// Hardhat 2's node (`hardhat node`): the benchmarks' comparison peer (chain id 9000) and the bridge
// tests' external chain (its own chain id, blocks mined on demand); automine on, request logging off.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './repo.js';

const require = createRequire(import.meta.url);

export interface HardhatPeer {
  url: string;
  version: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Start `hardhat node` on a free port from a throwaway config (chain id 9000 unless given); resolves once it listens. */
export async function startHardhat(options: { chainId?: number; keepRevertedTransactions?: boolean } = {}): Promise<HardhatPeer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-hardhat-'));
  const config = path.join(dir, 'hardhat.config.cjs');
  // Per-request console logging would slow Hardhat down for reasons no user of it has, so it is off.
  // keepRevertedTransactions: a transaction that reverts is mined (as a chain does) instead of refused at sending.
  const keep = options.keepRevertedTransactions ? ', throwOnTransactionFailures: false' : '';
  writeFileSync(config, `module.exports = { networks: { hardhat: { chainId: ${options.chainId ?? 9000}, loggingEnabled: false${keep} } } };\n`);
  const pkg = require.resolve('hardhat/package.json', { paths: [repoRoot()] });
  const version = (require(pkg) as { version: string }).version;
  const cli = path.join(path.dirname(pkg), 'internal', 'cli', 'cli.js');
  const child: ChildProcess = spawn(process.execPath, [cli, 'node', '--hostname', '127.0.0.1', '--port', '0', '--config', config], {
    cwd: repoRoot(),
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`hardhat node did not start within 60 s\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const m = /JSON-RPC server at (http:\/\/[\d.]+:\d+)\//.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`hardhat node exited (${code})\n${output}`));
      });
    });
    // Keep draining its output so that a full pipe never blocks it.
    child.stdout!.removeAllListeners('data');
    child.stderr!.removeAllListeners('data');
    child.stdout!.resume();
    child.stderr!.resume();
    return { url, version, pid: child.pid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
