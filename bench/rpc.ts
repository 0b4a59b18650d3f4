// bench:rpc — svc-node against Hardhat's node in one run, with one load generator: JSON-RPC reads per
// second and sustained mined ERC-20 transfers per second. Prints a table; asserts nothing.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { encodeFunctionData, type Hex } from 'viem';
import { NodeProcess } from '../test/support/node-process.js';
import { compileContract, type CompiledContract } from '../test/support/solc.js';
import { startHardhat, type HardhatPeer } from './support/hardhat-peer.js';
import { buildLoadGenerator, measureRequests, type LoadResult } from './support/load.js';
import { startHttpFloor } from './support/http-floor.js';
import {
  deployAndFund,
  mnemonicAccounts,
  presignTransfers,
  sinkBalances,
  submitAndCount,
  type Submission,
  type TransferFixture,
  type TransferRun,
} from './support/transfers.js';

const RPC_TARGET_RATIO = 3;
const TRANSFER_TARGET_PER_SECOND = 3_000;
const BATCH_SIZE = 100;

const USAGE = `usage: node dist/bench/rpc.js [options]   (npm run bench:rpc -- [options])
  --duration-ms <ms>        measuring time per read metric and server (default 5000)
  --warmup-ms <ms>          unmeasured load before each read metric (default 1000)
  --concurrency <n>         requests in flight for reads and for single-request transfers (default 32)
  --senders <n>             transfer senders, mnemonic accounts 0..n-1, funded by account 0 (default 200)
  --transfers <n>           svc-node transfers per submission mode (default 12000)
  --hardhat-transfers <n>   Hardhat transfers per submission mode (default 2000)
  --block-time-ms <ms>      svc-node block time (default 500)
  --no-hardhat              measure svc-node alone
  --help`;

interface Peer {
  name: string;
  url: string;
  pid: number | undefined;
  fixture?: TransferFixture;
  perSender: number;
  stop(): Promise<void>;
}

interface Row {
  metric: string;
  svc?: number;
  hardhat?: number;
  unit: string;
  target: string;
  pass?: boolean;
}

function intOption(value: string | undefined, name: string, min = 1): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return n;
}

const progress = (line: string) => process.stderr.write(`[bench:rpc] ${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'duration-ms': { type: 'string', default: '5000' },
      'warmup-ms': { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '32' },
      senders: { type: 'string', default: '200' },
      transfers: { type: 'string', default: '12000' },
      'hardhat-transfers': { type: 'string', default: '2000' },
      'block-time-ms': { type: 'string', default: '500' },
      'no-hardhat': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const durationMs = intOption(values['duration-ms'], 'duration-ms');
  const warmupMs = intOption(values['warmup-ms'], 'warmup-ms', 0);
  const concurrency = intOption(values.concurrency, 'concurrency');
  const senderCount = intOption(values.senders, 'senders');
  const svcTransfers = intOption(values.transfers, 'transfers');
  const hardhatTransfers = intOption(values['hardhat-transfers'], 'hardhat-transfers');
  const blockTimeMs = intOption(values['block-time-ms'], 'block-time-ms');

  progress('building the load generator (svc-loadgen)');
  const generator = buildLoadGenerator();
  const token = compileContract('TestToken.sol', 'TestToken');
  const peers: Peer[] = [];
  const stopAll = async () => {
    for (const p of peers.splice(0)) await p.stop().catch(() => undefined);
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));

  try {
    progress(`starting svc-node (devnet, fresh data dir, rate limit off, ${blockTimeMs} ms blocks)`);
    const svc = await NodeProcess.start({ blockTimeMs, extraArgs: ['--rpc-rate-limit', '0'], readyTimeoutMs: 120_000 });
    peers.push({ name: 'svc-node', url: svc.url, pid: svc.pid, perSender: Math.ceil(svcTransfers / senderCount), stop: () => svc.dispose() });
    let hardhat: HardhatPeer | undefined;
    if (!values['no-hardhat']) {
      progress('starting hardhat node (chain id 9000, automine, request logging off)');
      hardhat = await startHardhat();
      peers.push({ name: 'hardhat', url: hardhat.url, pid: hardhat.pid, perSender: Math.ceil(hardhatTransfers / senderCount), stop: () => hardhat!.stop() });
    }
    const senders = mnemonicAccounts(senderCount);
    for (const peer of peers) {
      progress(`${peer.name}: deploying the ERC-20 and funding ${senderCount} senders`);
      peer.fixture = await deployAndFund(peer.url, token, senders);
    }

    const reads: { metric: string; body: (p: Peer) => string }[] = [
      { metric: 'eth_blockNumber', body: () => request('eth_blockNumber', []) },
      { metric: 'eth_getBalance', body: () => request('eth_getBalance', [senders[1]!.address, 'latest']) },
      {
        metric: 'eth_call (ERC-20 balanceOf)',
        body: (p) => request('eth_call', [{ to: p.fixture!.token, data: balanceOfData(token, senders[1]!.address) }, 'latest']),
      },
    ];
    const rows: Row[] = [];
    const details: string[] = [];
    for (const read of reads) {
      const row: Row = { metric: read.metric, unit: 'req/s', target: `>= ${RPC_TARGET_RATIO}x hardhat` };
      for (const peer of peers) {
        const body = read.body(peer);
        if (warmupMs > 0) await measureRequests(generator, peer.url, body, concurrency, warmupMs);
        const r = await measureRequests(generator, peer.url, body, concurrency, durationMs, peer.pid);
        progress(`${peer.name} ${read.metric}: ${r.perSecond.toFixed(0)} req/s (${r.errors} errors)`);
        details.push(describeLoad(peer.name, read.metric, r));
        if (peer.name === 'svc-node') row.svc = r.perSecond;
        else row.hardhat = r.perSecond;
      }
      if (row.svc !== undefined && row.hardhat !== undefined) row.pass = row.svc >= RPC_TARGET_RATIO * row.hardhat;
      rows.push(row);
    }

    // Why the transport is native: the same generator against a node:http server doing no JSON-RPC work.
    const floor = await startHttpFloor();
    try {
      const body = request('eth_blockNumber', []);
      if (warmupMs > 0) await measureRequests(generator, floor.url, body, concurrency, warmupMs);
      const r = await measureRequests(generator, floor.url, body, concurrency, durationMs, floor.pid);
      const hardhatBlockNumber = rows[0]?.hardhat;
      details.push(
        describeLoad('node:http floor (parse the body, send a fixed answer)', 'eth_blockNumber', r) +
          (hardhatBlockNumber ? ` = ${(r.perSecond / hardhatBlockNumber).toFixed(1)}x hardhat's eth_blockNumber` : ''),
      );
    } finally {
      floor.stop();
    }

    const minedPerPeer = new Map<string, number>();
    const modes: { label: string; submission: Submission }[] = [
      { label: 'single requests', submission: { kind: 'single', workers: concurrency } },
      { label: `batches of ${BATCH_SIZE}`, submission: { kind: 'batch', size: BATCH_SIZE } },
    ];
    for (const mode of modes) {
      const row: Row = {
        metric: `ERC-20 transfers mined, ${mode.label}`,
        unit: 'tx/s',
        target: `svc-node >= ${TRANSFER_TARGET_PER_SECOND.toLocaleString('en-US')}`,
      };
      for (const peer of peers) {
        progress(`${peer.name}: signing ${peer.perSender * senderCount} transfers`);
        const signed = await presignTransfers(peer.url, peer.fixture!, token, peer.perSender);
        progress(`${peer.name}: submitting as ${mode.label}`);
        const run = await submitAndCount(peer.url, peer.fixture!, signed, mode.submission);
        progress(`${peer.name} ${mode.label}: ${run.mined}/${run.submitted} mined in ${run.seconds.toFixed(2)} s = ${run.perSecond.toFixed(0)} tx/s`);
        details.push(describeTransfers(peer.name, mode.label, run));
        minedPerPeer.set(peer.name, (minedPerPeer.get(peer.name) ?? 0) + run.mined);
        if (peer.name === 'svc-node') row.svc = run.perSecond;
        else row.hardhat = run.perSecond;
      }
      if (row.svc !== undefined) row.pass = row.svc >= TRANSFER_TARGET_PER_SECOND;
      rows.push(row);
    }

    for (const peer of peers) {
      const balances = await sinkBalances(peer.url, peer.fixture!, token);
      const succeeded = balances.reduce((a, b) => a + b, 0n);
      const mined = minedPerPeer.get(peer.name) ?? 0;
      details.push(
        `${peer.name}: sink token balances say ${succeeded} transfers succeeded of ${mined} mined` +
          (succeeded === BigInt(mined) ? ' (all of them)' : ' (MISMATCH: some mined transfers reverted)'),
      );
    }

    process.stdout.write('\n' + renderTable(rows) + '\n\n');
    process.stdout.write(details.map((d) => `  ${d}`).join('\n') + '\n\n');
    const cpus = os.cpus();
    process.stdout.write(
      [
        `Targets: every JSON-RPC read figure >= ${RPC_TARGET_RATIO}x Hardhat's; >= ${TRANSFER_TARGET_PER_SECOND.toLocaleString('en-US')} mined ERC-20 transfers/s for svc-node.`,
        `Machine: ${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}` +
          (hardhat ? `, hardhat ${hardhat.version}` : ''),
        `Reads: the load generator (svc-loadgen, native, one thread, ${concurrency} kept-alive connections) and both servers share these ${cpus.length} cores,`,
        `so a server whose CPU share stays well under 100% while the generator's is near 100% was limited by the generator, not by itself;`,
        `answers per server CPU-second compare the servers' own cost. The idle server still runs (svc-node makes a block every ${blockTimeMs} ms).`,
        `Reads: ${durationMs} ms measured after ${warmupMs} ms warm-up per metric and server. Transfers: signed before timing, ${senderCount} senders, each in nonce order`,
        `(single: ${concurrency} connections; batches: one transaction per sender per batch, ${Math.ceil(senderCount / BATCH_SIZE)} batch(es) in flight);`,
        `tx/s = mined / (time the last one was seen mined - first submission); inclusion is polled every 10 ms by sender nonces.`,
      ].join('\n') + '\n',
    );
  } finally {
    await stopAll();
  }
}

function request(method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
}

function balanceOfData(token: CompiledContract, owner: Hex): Hex {
  return encodeFunctionData({ abi: token.abi, functionName: 'balanceOf', args: [owner] });
}

function describeLoad(peer: string, metric: string, r: LoadResult): string {
  const perCpu = r.serverCpu ? `, ${Math.round(r.perSecond / r.serverCpu).toLocaleString('en-US')} answers per server CPU-second` : '';
  const share = (x: number | undefined) => (x === undefined ? '?' : `${(100 * x).toFixed(0)}%`);
  const cpu = `CPU: server ${share(r.serverCpu)}, generator ${share(r.generatorCpu)} of a core${perCpu}`;
  const base = `${peer} ${metric}: ${r.requests} answers in ${r.seconds.toFixed(2)} s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms; ${cpu}`;
  return r.errors > 0 ? `${base}, ${r.errors} errors (first: ${r.firstError})` : base;
}

function describeTransfers(peer: string, mode: string, r: TransferRun): string {
  const base = `${peer} transfers (${mode}): ${r.mined}/${r.submitted} mined in ${r.seconds.toFixed(2)} s, submission took ${r.submitSeconds.toFixed(2)} s`;
  return r.rejected > 0 ? `${base}, ${r.rejected} refused (${r.errors.join('; ')})` : base;
}

function renderTable(rows: Row[]): string {
  const fmt = (n: number | undefined) => (n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
  const lines = [['metric', 'unit', 'svc-node', 'hardhat', 'ratio', 'target', 'met']];
  for (const r of rows) {
    const ratio = r.svc !== undefined && r.hardhat !== undefined && r.hardhat > 0 ? `${(r.svc / r.hardhat).toFixed(1)}x` : '-';
    lines.push([r.metric, r.unit, fmt(r.svc), fmt(r.hardhat), ratio, r.target, r.pass === undefined ? '-' : r.pass ? 'yes' : 'NO']);
  }
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  const render = (l: string[]) => '| ' + l.map((cell, c) => (c >= 2 && c <= 4 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join(' | ') + ' |';
  return [render(lines[0]!), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...lines.slice(1).map(render)].join('\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:rpc] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
