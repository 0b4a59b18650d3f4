// bench:rpc — svc-node against Hardhat's node in one run, with one load generator: JSON-RPC reads per
// second, and ERC-20 transfers counted mined when their receipts can be read: a burst, a sustained
// run at a fixed offered rate for at least a minute, and 100 wallets waiting for their receipts as
// viem does, meanwhile. Every figure of both peers comes from the same run with the same transfers.
// Prints tables; asserts nothing.
import os from 'node:os';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { encodeFunctionData, type Hex } from 'viem';
import { NodeProcess } from '../test/support/node-process.js';
import { compileContract, type CompiledContract } from '../test/support/solc.js';
import { startHardhat, type HardhatPeer } from '../test/support/hardhat.js';
import { cpuSeconds } from './support/cpu.js';
import { buildLoadGenerator, measureRequests, type LoadResult } from './support/load.js';
import { startHttpFloor } from './support/http-floor.js';
import { machineLine, loadLine } from './support/machine.js';
import {
  deployAndFund,
  latencyOf,
  mnemonicAccounts,
  presignTransfers,
  runReceiptPollers,
  sinkBalances,
  submitAndWatch,
  type PollerRun,
  type Submission,
  type TransferFixture,
  type TransferRun,
} from './support/transfers.js';

const RPC_TARGET_RATIO = 3;
/** Sustained transfers: at least this many a second, and this many times Hardhat's, counted by receipts. */
const SUSTAINED_TARGET_PER_SECOND = 5_000;
const SUSTAINED_TARGET_RATIO = 3;
/** p99 from send to receipt, in block times. */
const LATENCY_TARGET_BLOCKS = 2;
/** No block may take longer than this to produce and index while the pollers poll. */
const BLOCK_TARGET_MS = 1_000;
const MIN_SUSTAINED_SECONDS = 60;
const MIN_SUSTAINED_TRANSFERS = 100_000;
const BATCH_SIZE = 100;

const USAGE = `usage: node dist/bench/rpc.js [options]   (npm run bench:rpc -- [options])
  --duration-ms <ms>        measuring time per read metric and server (default 5000)
  --warmup-ms <ms>          unmeasured load before each read metric (default 1000)
  --concurrency <n>         requests in flight for reads and for single-request transfers (default 32)
  --senders <n>             transfer senders, mnemonic accounts 0..n-1, funded by account 0 (default 1000)
  --burst <n>               transfers per burst (sent as fast as answered), the same for both peers (default 12000)
  --rate <tx/s>             offered load of the sustained run (default 5500)
  --sustain-s <s>           length of the sustained run at that rate (default 60)
  --pollers <n>             wallets that wait for their receipts like viem, during a burst in batches (default 100; 0: no such run)
  --poll-ms <ms>            their polling interval (default 10)
  --block-time-ms <ms>      svc-node block time (default 1000, as npm start's devnet)
  --no-hardhat              measure svc-node alone
  --blocks-out <file>       write the sustained run's blocks (number, transfers, ms, native timings) to this file, a JSON line each
  --help`;

interface Peer {
  name: string;
  url: string;
  pid: number | undefined;
  fixture?: TransferFixture;
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
      senders: { type: 'string', default: '1000' },
      burst: { type: 'string', default: '12000' },
      rate: { type: 'string', default: '5500' },
      'sustain-s': { type: 'string', default: '60' },
      pollers: { type: 'string', default: '100' },
      'poll-ms': { type: 'string', default: '10' },
      'block-time-ms': { type: 'string', default: '1000' },
      'no-hardhat': { type: 'boolean', default: false },
      'blocks-out': { type: 'string' },
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
  const senderCount = intOption(values.senders, 'senders', BATCH_SIZE);
  const burst = intOption(values.burst, 'burst');
  const rate = intOption(values.rate, 'rate');
  const sustainSeconds = intOption(values['sustain-s'], 'sustain-s');
  const pollerCount = intOption(values.pollers, 'pollers', 0);
  const pollMs = intOption(values['poll-ms'], 'poll-ms');
  const blockTimeMs = intOption(values['block-time-ms'], 'block-time-ms');
  const sustainPerSender = Math.ceil((rate * sustainSeconds) / senderCount);
  const burstPerSender = Math.ceil(burst / senderCount);

  process.stdout.write(`${machineLine()}\n${loadLine('before')}\n`);
  progress('building the load generator and signer (svc-loadgen)');
  const generator = buildLoadGenerator();
  const token = compileContract('TestToken.sol', 'TestToken');
  const peers: Peer[] = [];
  const stopAll = async () => {
    for (const p of peers.splice(0)) await p.stop().catch(() => undefined);
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));

  // Block production as the node logs it ("block produced": height, transactions, ms).
  type Native = { queued: number; execute: number; root: number; commit: number };
  const produced: { at: number; number: number; txs: number; ms: number; native?: Native }[] = [];
  const onLogLine = (line: string) => {
    if (!line.includes('"block produced"')) return;
    try {
      const entry = JSON.parse(line) as { number: number; txs: number; ms: number; nativeMs?: Native };
      produced.push({ at: performance.now(), number: entry.number, txs: entry.txs, ms: entry.ms, native: entry.nativeMs });
    } catch {
      // Not a JSON line.
    }
  };

  try {
    progress(`starting svc-node (devnet, fresh data dir, rate limit off, ${blockTimeMs} ms blocks)`);
    const svc = await NodeProcess.start({ blockTimeMs, extraArgs: ['--rpc-rate-limit', '0'], readyTimeoutMs: 120_000, onLogLine });
    peers.push({ name: 'svc-node', url: svc.url, pid: svc.pid, stop: () => svc.dispose() });
    let hardhat: HardhatPeer | undefined;
    if (!values['no-hardhat']) {
      progress('starting hardhat node (chain id 9000, automine, request logging off)');
      hardhat = await startHardhat();
      peers.push({ name: 'hardhat', url: hardhat.url, pid: hardhat.pid, stop: () => hardhat!.stop() });
    }
    const accounts = mnemonicAccounts(senderCount + pollerCount);
    for (const peer of peers) {
      progress(`${peer.name}: deploying the ERC-20 and funding ${accounts.length} senders`);
      peer.fixture = await deployAndFund(peer.url, token, accounts);
    }

    const reads: { metric: string; body: (p: Peer) => string }[] = [
      { metric: 'eth_blockNumber', body: () => request('eth_blockNumber', []) },
      { metric: 'eth_getBalance', body: () => request('eth_getBalance', [accounts[1]!.address, 'latest']) },
      {
        metric: 'eth_call (ERC-20 balanceOf)',
        body: (p) => request('eth_call', [{ to: p.fixture!.token, data: balanceOfData(token, accounts[1]!.address) }, 'latest']),
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

    const transferSenders = Array.from({ length: senderCount }, (_, i) => i);
    const pollerSenders = Array.from({ length: pollerCount }, (_, i) => senderCount + i);
    const runs = new Map<
      string,
      {
        burst: Map<string, TransferRun>;
        sustained?: TransferRun;
        sustainedCpu?: { server: number; client: number; serverPerTx: number };
        pollers?: PollerRun;
        polled?: TransferRun;
        blocks?: BlockStats;
        sustainedBlocks?: BlockStats;
      }
    >();
    const modes: { label: string; submission: Submission }[] = [
      { label: `single requests, ${concurrency} connections`, submission: { kind: 'single', workers: concurrency } },
      { label: `batches of ${BATCH_SIZE}`, submission: { kind: 'batch', size: BATCH_SIZE } },
    ];
    for (const peer of peers) {
      const mine = { burst: new Map<string, TransferRun>() } as NonNullable<ReturnType<typeof runs.get>>;
      runs.set(peer.name, mine);
      for (const mode of modes) {
        progress(`${peer.name}: signing ${burstPerSender * senderCount} transfers`);
        const signed = await presignTransfers(peer.url, peer.fixture!, token, burstPerSender, generator, { senders: transferSenders });
        progress(`${peer.name}: burst as ${mode.label}`);
        const run = await submitAndWatch(peer.url, signed, mode.submission);
        progress(`${peer.name} burst, ${mode.label}: ${run.mined}/${run.submitted} receipts in ${run.seconds.toFixed(2)} s = ${run.perSecond.toFixed(0)} tx/s`);
        mine.burst.set(mode.label, run);
      }

      if (pollerCount > 0) {
        // The wallets waiting for receipts, while a burst in batches makes the largest blocks.
        progress(`${peer.name}: ${pollerCount} wallets polling their receipts every ${pollMs} ms during a burst of ${burstPerSender * senderCount} in batches`);
        const pollerTxs = await presignTransfers(peer.url, peer.fixture!, token, 200, generator, { senders: pollerSenders });
        const signed = await presignTransfers(peer.url, peer.fixture!, token, burstPerSender, generator, { senders: transferSenders });
        const firstBlock = produced.length;
        const stopPollers = new AbortController();
        const pollers = runReceiptPollers(peer.url, pollerTxs, 600_000, pollMs, stopPollers.signal);
        mine.polled = await submitAndWatch(peer.url, signed, { kind: 'batch', size: BATCH_SIZE });
        stopPollers.abort();
        mine.pollers = await pollers;
        if (peer.name === 'svc-node') mine.blocks = blockStats(produced.slice(firstBlock));
      }

      progress(`${peer.name}: signing ${sustainPerSender * senderCount} transfers for the sustained run`);
      const signed = await presignTransfers(peer.url, peer.fixture!, token, sustainPerSender, generator, { senders: transferSenders });
      progress(`${peer.name}: sustained run at ${rate} tx/s offered for ${sustainSeconds} s`);
      const firstBlock = produced.length;
      const [serverCpu0, clientCpu0, wall0] = [cpuSeconds(peer.pid), process.cpuUsage(), performance.now()];
      mine.sustained = await submitAndWatch(peer.url, signed, { kind: 'batch', size: BATCH_SIZE }, { ratePerSecond: rate, stallMs: 60_000 });
      const wall = (performance.now() - wall0) / 1000;
      const clientCpu = process.cpuUsage(clientCpu0);
      const serverCpu = (cpuSeconds(peer.pid) ?? NaN) - (serverCpu0 ?? NaN);
      mine.sustainedCpu = { server: serverCpu / wall, client: (clientCpu.user + clientCpu.system) / 1e6 / wall, serverPerTx: (serverCpu / Math.max(1, mine.sustained.mined)) * 1e6 };
      if (peer.name === 'svc-node') {
        mine.sustainedBlocks = blockStats(produced.slice(firstBlock));
        if (values['blocks-out']) writeFileSync(values['blocks-out'], produced.slice(firstBlock).map((b) => JSON.stringify(b)).join('\n') + '\n');
      }
      const s = mine.sustained;
      progress(`${peer.name} sustained: ${s.mined}/${s.submitted} receipts in ${s.seconds.toFixed(2)} s = ${s.perSecond.toFixed(0)} tx/s, p99 ${s.latency.p99.toFixed(0)} ms`);
    }

    const svcRuns = runs.get('svc-node')!;
    const hhRuns = runs.get('hardhat');
    for (const mode of modes) {
      rows.push({
        metric: `ERC-20 transfers, burst of ${burstPerSender * senderCount}, ${mode.label}`,
        unit: 'tx/s',
        svc: svcRuns.burst.get(mode.label)!.perSecond,
        hardhat: hhRuns?.burst.get(mode.label)!.perSecond,
        target: '-',
      });
    }
    const sus = svcRuns.sustained!;
    const hhSus = hhRuns?.sustained;
    rows.push({
      metric: `ERC-20 transfers, sustained (${rate.toLocaleString('en-US')}/s offered, ${sus.submitted.toLocaleString('en-US')})`,
      unit: 'tx/s',
      svc: sus.perSecond,
      hardhat: hhSus?.perSecond,
      target: `>= ${SUSTAINED_TARGET_PER_SECOND.toLocaleString('en-US')} and ${SUSTAINED_TARGET_RATIO}x`,
      pass:
        sus.perSecond >= SUSTAINED_TARGET_PER_SECOND &&
        sus.mined === sus.submitted - sus.rejected &&
        (hhSus === undefined || sus.perSecond >= SUSTAINED_TARGET_RATIO * hhSus.perSecond),
    });
    process.stdout.write('\n' + renderTable(rows) + '\n\n');

    const latencyLimit = LATENCY_TARGET_BLOCKS * blockTimeMs;
    const lat = (l: { p50: number; p99: number; max: number }) => `${fmtMs(l.p50)} | ${fmtMs(l.p99)} | ${fmtMs(l.max)}`;
    const latencyRows = [
      `| run | peer | p50 ms | p99 ms | max ms | receipts |`,
      `|---|---|---|---|---|---|`,
    ];
    for (const [name, r] of runs) {
      for (const [label, run] of r.burst) latencyRows.push(`| burst, ${label} | ${name} | ${lat(run.latency)} | ${run.latency.count} |`);
      latencyRows.push(`| sustained | ${name} | ${lat(r.sustained!.latency)} | ${r.sustained!.latency.count} |`);
      if (r.pollers) latencyRows.push(`| ${r.pollers.clients} wallets polling every ${pollMs} ms, during a burst in batches | ${name} | ${lat(r.pollers.latency)} | ${r.pollers.mined} |`);
      if (r.polled) latencyRows.push(`| that burst | ${name} | ${lat(r.polled.latency)} | ${r.polled.mined} |`);
    }
    process.stdout.write('Send -> receipt read:\n' + latencyRows.join('\n') + '\n\n');

    const b = svcRuns.blocks;
    const sb = svcRuns.sustainedBlocks!;
    const checks = [
      [`sustained run lasted >= ${MIN_SUSTAINED_SECONDS} s with >= ${MIN_SUSTAINED_TRANSFERS.toLocaleString('en-US')} transfers`, sus.seconds >= MIN_SUSTAINED_SECONDS && sus.mined >= MIN_SUSTAINED_TRANSFERS, `${sus.seconds.toFixed(1)} s, ${sus.mined.toLocaleString('en-US')} receipts`],
      [`sustained >= ${SUSTAINED_TARGET_PER_SECOND.toLocaleString('en-US')} tx/s by receipts`, sus.perSecond >= SUSTAINED_TARGET_PER_SECOND, `${sus.perSecond.toFixed(0)} tx/s`],
      ...(hhSus ? [[`sustained >= ${SUSTAINED_TARGET_RATIO}x hardhat`, sus.perSecond >= SUSTAINED_TARGET_RATIO * hhSus.perSecond, `${(sus.perSecond / hhSus.perSecond).toFixed(2)}x`] as const] : []),
      [`p99 send -> receipt <= ${LATENCY_TARGET_BLOCKS} block times (${latencyLimit} ms), sustained`, sus.latency.p99 <= latencyLimit, `${fmtMs(sus.latency.p99)} ms`],
      ...(svcRuns.pollers ? [[`p99 send -> receipt <= ${latencyLimit} ms, receipt pollers`, svcRuns.pollers.latency.p99 <= latencyLimit, `${fmtMs(svcRuns.pollers.latency.p99)} ms`] as const] : []),
      ...(b
        ? [[`no block over ${BLOCK_TARGET_MS} ms to produce and index with ${pollerCount} wallets polling`, b.maxMs <= BLOCK_TARGET_MS, `longest ${b.maxMs.toFixed(0)} ms (${b.maxTxs} transfers in the largest block), p50 ${b.p50Ms.toFixed(0)} ms over ${b.count} blocks`] as const]
        : []),
      [
        `(sustained run's blocks, for reference)`,
        true,
        `longest ${sb.maxMs.toFixed(0)} ms (${sb.maxTxs} transfers in the largest block), p50 ${sb.p50Ms.toFixed(0)} ms for ${sb.p50Txs} transfers over ${sb.count} blocks ` +
          `(native p50: execute ${fmtMs(sb.p50Native.execute)}, roots and index ${fmtMs(sb.p50Native.root)}, write ${fmtMs(sb.p50Native.commit)} ms)`,
      ],
    ] as const;
    process.stdout.write('Targets:\n' + checks.map(([what, met, got]) => `  ${met ? 'met    ' : 'NOT MET'} ${what}: ${got}`).join('\n') + '\n\n');

    for (const peer of peers) {
      const r = runs.get(peer.name)!;
      for (const [label, run] of r.burst) details.push(describeTransfers(peer.name, `burst, ${label}`, run));
      details.push(describeTransfers(peer.name, 'sustained', r.sustained!));
      const c = r.sustainedCpu!;
      details.push(
        `${peer.name} sustained run CPU: server ${(100 * c.server).toFixed(0)}% of a core (${c.serverPerTx.toFixed(0)} µs per transfer), this bench's client ${(100 * c.client).toFixed(0)}%`,
      );
      if (r.polled) details.push(describeTransfers(peer.name, `burst with ${pollerCount} wallets polling`, r.polled));
      if (r.pollers) details.push(`${peer.name} pollers: ${r.pollers.mined} transfers waited for, ${r.pollers.requests.toLocaleString('en-US')} receipt requests`);
      const balances = await sinkBalances(peer.url, peer.fixture!, token);
      const succeeded = balances.reduce((x, y) => x + y, 0n);
      const mined = [...r.burst.values(), r.sustained!, ...(r.polled ? [r.polled] : [])].reduce((n, run) => n + run.succeeded, 0) + (r.pollers?.mined ?? 0);
      details.push(
        `${peer.name}: sink token balances say ${succeeded} transfers succeeded; receipts with status 1: ${mined}` +
          (succeeded === BigInt(mined) ? ' (the same)' : ' (MISMATCH)'),
      );
    }
    process.stdout.write(details.map((d) => `  ${d}`).join('\n') + '\n\n');
    process.stdout.write(
      [
        machineLine() + (hardhat ? `, hardhat ${hardhat.version}` : ''),
        `Reads: the load generator (svc-loadgen, native, one thread, ${concurrency} kept-alive connections) and both servers share these ${os.availableParallelism()} cores,`,
        `so a server whose CPU share stays well under 100% while the generator's is near 100% was limited by the generator, not by itself;`,
        `answers per server CPU-second compare the servers' own cost. The idle server still runs (svc-node makes a block every ${blockTimeMs} ms).`,
        `Transfers: signed before timing (svc-loadgen sign), ${senderCount} senders, each in nonce order (single: ${concurrency} connections; batches: one transaction`,
        `per sender per batch, ${Math.ceil(senderCount / BATCH_SIZE)} batches in flight). A transfer counts when a client following the chain (eth_blockNumber every 10 ms,`,
        `then each new block's transaction hashes and their eth_getTransactionReceipt, which both peers serve) reads its receipt;`,
        `tx/s = receipts / (time the last one was read - first submission).`,
        `The sustained run offers ${rate.toLocaleString('en-US')} transfers/s on an even schedule (a lane waits for its previous answer too). The ${pollerCount} wallets are more`,
        `senders, each sending one transfer and asking eth_getTransactionReceipt every ${pollMs} ms until it is there, then the next, during a burst in batches.`,
        loadLine('after'),
      ].join('\n') + '\n',
    );
  } finally {
    await stopAll();
  }
}

interface BlockStats {
  count: number;
  maxMs: number;
  p50Ms: number;
  maxTxs: number;
  p50Txs: number;
  /** Medians of the native parts, as the node logs them. */
  p50Native: { execute: number; root: number; commit: number };
}

function blockStats(blocks: { txs: number; ms: number; native?: { execute: number; root: number; commit: number } }[]): BlockStats {
  const ms = latencyOf(blocks.map((b) => b.ms));
  const p50 = (f: (b: (typeof blocks)[number]) => number | undefined) => latencyOf(blocks.map(f).filter((x): x is number => x !== undefined)).p50;
  return {
    count: blocks.length,
    maxMs: blocks.length ? ms.max : 0,
    p50Ms: blocks.length ? ms.p50 : 0,
    maxTxs: blocks.reduce((a, b) => Math.max(a, b.txs), 0),
    p50Txs: p50((b) => b.txs),
    p50Native: { execute: p50((b) => b.native?.execute), root: p50((b) => b.native?.root), commit: p50((b) => b.native?.commit) },
  };
}

const fmtMs = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(0) : '-');

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
  const base =
    `${peer} transfers (${mode}): ${r.mined}/${r.submitted} receipts read in ${r.seconds.toFixed(2)} s (${r.succeeded} with status 1), ` +
    `submission took ${r.submitSeconds.toFixed(2)} s, ${r.blocks} blocks, at most ${r.maxPerBlock} in one`;
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
