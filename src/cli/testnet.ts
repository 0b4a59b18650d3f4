// svc-node testnet init | start: a local network of CometBFT validators (src/consensus/cometbft/testnet.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, Option } from 'commander';
import { DEFAULT_REMOTE_DIR, initTestnet, nodeStartArgs, readManifest } from '../consensus/cometbft/testnet.js';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import { devnetBridgeGenesis } from '../bridge/node-config.js';
import { CHAIN_ID, staking } from '../params.js';
import { UsageError } from './start-options.js';

const SVC_NODE = fileURLToPath(new URL('./svc-node.js', import.meta.url));

function integer(min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) throw new UsageError(`expected an integer ${min}..${max}, got "${v}"`);
    return n;
  };
}

export function addTestnetCommands(program: Command): void {
  const testnet = program.command('testnet').description('a local network of CometBFT validators on this machine');
  testnet
    .command('init')
    .description('write the shared genesis and one home per validator, with distinct loopback ports, into a new directory')
    .requiredOption('--output <dir>', 'directory to create (absent or empty)')
    .addOption(new Option('--validators <n>', 'number of validators').argParser(integer(1, 20)).default(4))
    .addOption(new Option('--base-port <port>', 'node i listens on base + 10 i + (0 p2p, 1 CometBFT RPC, 2 JSON-RPC, 3 WebSocket, 4 explorer)').argParser(integer(1024, 65_000)).default(26_600))
    .addOption(new Option('--block-time-ms <ms>', "CometBFT's pause after each commit (timeout_commit)").argParser(integer(1, 60_000)).default(1_000))
    .addOption(
      new Option('--hosts <list>', 'a network across machines: comma-separated host names or IPs, one per validator; each home gets its peers at those hosts and a systemd unit')
        .argParser((v: string) => v.split(',').map((h) => h.trim())),
    )
    .addOption(new Option('--remote-dir <dir>', "with --hosts: where each node's folder is copied on its machine (the units' paths)").default(DEFAULT_REMOTE_DIR))
    .addOption(new Option('--signed-blocks-window <n>', 'the genesis downtime window in blocks (governable later)').argParser(integer(10, 10_000)).default(staking.signedBlocksWindow))
    .addOption(new Option('--min-signed-per-window-bps <bps>', 'the share of the window a validator must sign, basis points (governable later)').argParser(integer(0, 10_000)).default(staking.minSignedPerWindowBps))
    .addOption(new Option('--bridge-rpc <url>', "a bridge in the genesis: the external chain's JSON-RPC (its chain id is recorded; each node is then started with --bridge-rpc)"))
    .addOption(new Option('--bridge-contract <address>', "the bridge's SvcBridge on that chain, deployed with the testnet's validators (dev accounts 0..n-1, ascending) at 1000 tokens each"))
    .addOption(new Option('--bridge-confirmations <n>', 'external blocks before a deposit is attested').argParser(integer(1, 10_000)))
    .addOption(new Option('--bridge-from-block <n>', "the contract's deployment block").argParser(integer(0, Number.MAX_SAFE_INTEGER)))
    .action(async (flags: { output: string; validators: number; basePort: number; blockTimeMs: number; signedBlocksWindow: number; minSignedPerWindowBps: number; hosts?: string[]; remoteDir: string; bridgeRpc?: string; bridgeContract?: string; bridgeConfirmations?: number; bridgeFromBlock?: number }) => {
      if ((flags.bridgeRpc === undefined) !== (flags.bridgeContract === undefined)) throw new UsageError('--bridge-rpc and --bridge-contract go together');
      const bridge =
        flags.bridgeContract === undefined
          ? undefined
          : await devnetBridgeGenesis({
              chainId: CHAIN_ID.devnet,
              bridgeRpc: flags.bridgeRpc!,
              bridgeContract: flags.bridgeContract,
              ...(flags.bridgeConfirmations !== undefined ? { bridgeConfirmations: flags.bridgeConfirmations } : {}),
              ...(flags.bridgeFromBlock !== undefined ? { bridgeFromBlock: flags.bridgeFromBlock } : {}),
            });
      const manifest = initTestnet({
        output: flags.output,
        validators: flags.validators,
        basePort: flags.basePort,
        blockTimeMs: flags.blockTimeMs,
        staking: { signedBlocksWindow: flags.signedBlocksWindow, minSignedPerWindowBps: flags.minSignedPerWindowBps },
        ...(flags.hosts ? { hosts: flags.hosts, remoteDir: flags.remoteDir } : {}),
        ...(bridge ? { bridge } : {}),
      });
      const lines = [`testnet of ${manifest.nodes.length} validators in ${path.resolve(flags.output)} (chain id ${manifest.chainId}, CometBFT chain ${manifest.cometChainId})`];
      for (const n of manifest.nodes) lines.push(`  ${n.name}: validator ${n.operator}, ${n.host === undefined ? '' : `host ${n.host}, `}JSON-RPC port ${n.rpcPort}, p2p ${n.p2pPort}`);
      if (flags.hosts) {
        lines.push(`on each host: copy ${flags.output}/<node>/ to ${flags.remoteDir}/, install its svc-node.service as /etc/systemd/system/svc-node.service, then: systemctl enable --now svc-node`);
        lines.push(`open TCP ${[...new Set(manifest.nodes.map((n) => n.p2pPort))].join(', ')} (p2p) between the hosts`);
      } else {
        lines.push(`start it with: svc-node testnet start ${flags.output}`);
      }
      process.stdout.write(lines.join('\n') + '\n');
    });
  testnet
    .command('start')
    .description('run every validator of a testnet directory; Ctrl-C stops them all')
    .argument('<dir>', 'directory written by testnet init')
    .addOption(new Option('--log-level <level>', 'log level of each node').choices([...LOG_LEVELS]).default('info'))
    .action((dir: string, flags: { logLevel: LogLevel }) => startTestnet(dir, flags.logLevel));
}

async function startTestnet(dir: string, logLevel: LogLevel): Promise<void> {
  const manifest = readManifest(dir);
  const children: ChildProcess[] = [];
  for (const n of manifest.nodes) {
    const log = createWriteStream(path.join(path.resolve(dir), n.name, 'svc-node.log'), { flags: 'a' });
    const child = spawn(process.execPath, [SVC_NODE, ...nodeStartArgs(dir, n, ['--log-level', logLevel])], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    child.on('exit', (code, signal) => process.stdout.write(`${n.name} exited (${signal ?? `code ${code}`}); its log: ${path.join(dir, n.name, 'svc-node.log')}\n`));
    children.push(child);
  }
  const lines = [`${manifest.nodes.length} validators of chain ${manifest.chainId} starting:`];
  for (const n of manifest.nodes) {
    lines.push(`  ${n.name}: JSON-RPC http://127.0.0.1:${n.rpcPort}  WS ws://127.0.0.1:${n.wsPort}  explorer http://127.0.0.1:${n.explorerPort}/api/v1  CometBFT RPC http://127.0.0.1:${n.cometRpcPort}`);
  }
  lines.push('logs: <dir>/<node>/svc-node.log and <dir>/<node>/cometbft/cometbft.log; Ctrl-C stops them all');
  process.stdout.write(lines.join('\n') + '\n');
  const stop = (): void => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await Promise.all(children.map((c) => new Promise<void>((resolve) => (c.exitCode !== null ? resolve() : c.once('exit', () => resolve())))));
}
