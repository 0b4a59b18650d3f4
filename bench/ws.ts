// bench:ws — 1,000 WebSocket connections subscribed to newHeads and 100 to a logs filter, held against
// a svc-node child process while it makes blocks that each carry one marker ERC-20 transfer. Prints the
// notification latency (p50/p99) and how many notifications arrived of those due. Asserts nothing.
//
// Three clocks, one host: the node logs each block when it is committed ("block produced", pino's
// millisecond `time`), the clients stamp each notification on arrival, and the bench stamps each
// marker transaction when it sends it. The load clients run in worker threads of this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseGwei, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { devPrivateKeys, DEV_CHAIN_ID } from '../test/support/dev-accounts.js';
import { NodeProcess } from '../test/support/node-process.js';
import { compileContract } from '../test/support/solc.js';
import { svcDevnet } from '../test/support/viem-chain.js';

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TARGET_P99_MS = 50;
/** Connections opened at once while setting up. */
const OPEN_CHUNK = 100;

const USAGE = `usage: node dist/bench/ws.js [options]   (npm run bench:ws -- [options])
  --heads <n>          connections subscribed to newHeads (default 1000)
  --logs <n>           connections subscribed to logs of the marker token (default 100)
  --blocks <n>         blocks measured (default 100)
  --block-time-ms <ms> block time (default 100)
  --workers <n>        worker threads holding the connections (default: cores - 1, at most 4)
  --node <cli|harness> cli: the svc-node CLI (needs startWsServer wired into src/node.ts);
                       harness: a child that runs startNode + startWsServer from dist/ (default cli)
  --help`;

const progress = (line: string) => process.stderr.write(`[bench:ws] ${line}\n`);
/** Milliseconds since the epoch with sub-millisecond resolution, comparable across threads. */
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface WorkerInput {
  url: string;
  heads: number;
  logs: number;
  token: Address;
}

/** What a worker saw: per connection, the blocks (or marker hashes) in arrival order with their arrival times. */
interface WorkerReport {
  heads: { blocks: number[]; times: number[] }[];
  logs: { hashes: string[]; blocks: number[]; times: number[] }[];
  errors: string[];
}

type WorkerMessage = { type: 'ready' } | { type: 'report'; report: WorkerReport };

// ---- worker side: hold connections, stamp notifications ------------------------------------------

async function runWorker(input: WorkerInput): Promise<void> {
  const report: WorkerReport = { heads: [], logs: [], errors: [] };
  const sockets: WebSocket[] = [];
  const open = async (subscribe: unknown[], record: (text: string, at: number) => void): Promise<void> => {
    const socket = new WebSocket(input.url, { perMessageDeflate: false });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    let subscription: string | undefined;
    const subscribed = new Promise<void>((resolve) => {
      socket.on('message', (data) => {
        const at = now();
        const text = String(data);
        if (subscription === undefined) {
          const answer = JSON.parse(text) as { result?: string; error?: { message: string } };
          if (answer.error) report.errors.push(answer.error.message);
          subscription = answer.result ?? '';
          resolve();
          return;
        }
        record(text, at);
      });
    });
    socket.on('close', (code) => {
      if (code !== 1000 && code !== 1005) report.errors.push(`connection closed with ${code}`);
    });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: subscribe }));
    await subscribed;
  };
  // Cheap field reads: a full JSON.parse per notification would measure this client, not the node.
  const field = (text: string, name: string): string => {
    const at = text.indexOf(`"${name}":"`);
    return at < 0 ? '' : text.slice(at + name.length + 4, text.indexOf('"', at + name.length + 4));
  };
  const tasks: (() => Promise<void>)[] = [];
  for (let i = 0; i < input.heads; i++) {
    const seen = { blocks: [] as number[], times: [] as number[] };
    report.heads.push(seen);
    tasks.push(() =>
      open(['newHeads'], (text, at) => {
        seen.blocks.push(Number(field(text, 'number')));
        seen.times.push(at);
      }),
    );
  }
  for (let i = 0; i < input.logs; i++) {
    const seen = { hashes: [] as string[], blocks: [] as number[], times: [] as number[] };
    report.logs.push(seen);
    tasks.push(() =>
      open(['logs', { address: input.token, topics: [TRANSFER_TOPIC] }], (text, at) => {
        seen.hashes.push(field(text, 'transactionHash'));
        seen.blocks.push(Number(field(text, 'blockNumber')));
        seen.times.push(at);
      }),
    );
  }
  for (let i = 0; i < tasks.length; i += OPEN_CHUNK) await Promise.all(tasks.slice(i, i + OPEN_CHUNK).map((t) => t()));
  parentPort!.postMessage({ type: 'ready' } satisfies WorkerMessage);
  parentPort!.once('message', () => {
    for (const s of sockets) s.close();
    parentPort!.postMessage({ type: 'report', report } satisfies WorkerMessage);
  });
}

// ---- the node under test ------------------------------------------------------------------------

interface NodeUnderTest {
  rpcUrl: string;
  wsUrl: string;
  /** The node's output so far (JSON log lines). */
  logs(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The port of the first pino "ws listening" line in `output`, if there is one. */
function wsPortOf(output: string): number | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('ws listening')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'ws listening' && typeof entry.port === 'number') return entry.port;
    } catch {
      // Not a JSON log line.
    }
  }
  return undefined;
}

async function startCli(blockTimeMs: number): Promise<NodeUnderTest> {
  const port = await freePort();
  const node = await NodeProcess.start({ blockTimeMs, logLevel: 'info', extraArgs: ['--rpc-rate-limit', '0', '--ws-port', String(port)], readyTimeoutMs: 120_000 });
  const deadline = Date.now() + 10_000;
  let wsPort: number | undefined;
  while ((wsPort = wsPortOf(node.logs())) === undefined) {
    if (Date.now() > deadline) {
      await node.dispose();
      throw new Error('svc-node did not log "ws listening": wire startWsServer into src/node.ts, or run with --node harness');
    }
    await sleep(50);
  }
  return { rpcUrl: node.url, wsUrl: `ws://127.0.0.1:${wsPort}`, logs: () => node.logs(), stop: () => node.dispose() };
}

/** A child process running this file with --serve: startNode + startWsServer, logging to stdout. */
async function startHarness(blockTimeMs: number): Promise<NodeUnderTest> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-ws-'));
  const child: ChildProcess = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', dataDir, '--block-time-ms', String(blockTimeMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<{ rpcUrl: string; wsPort: number }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n').find((l) => l.includes('"harness ready"'));
      if (line) resolve(JSON.parse(line) as { rpcUrl: string; wsPort: number });
    });
    child.once('exit', (code) => reject(new Error(`harness exited (${code}) before it was ready`)));
  });
  const { rpcUrl, wsPort } = await ready;
  return {
    rpcUrl,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    logs: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function serve(dataDir: string, blockTimeMs: number): Promise<void> {
  const { startNode } = await import('../src/node.js');
  const { startWsServer } = await import('../src/rpc/ws/server.js');
  const node = await startNode({
    network: 'devnet',
    chainId: DEV_CHAIN_ID,
    dataDir,
    rpcHost: '127.0.0.1',
    rpcPort: 0,
    wsPort: 0,
    explorerPort: 0,
    blockTimeMs,
    logLevel: 'info',
    rpcRateLimit: 0,
    rateLimitExemptLoopback: true,
  });
  const ws = await startWsServer(node.services);
  process.stdout.write(JSON.stringify({ msg: 'harness ready', rpcUrl: node.rpcUrl, wsPort: ws.port }) + '\n');
  process.once('SIGTERM', () => {
    void ws
      .close()
      .then(() => node.stop())
      .then(() => process.exit(0));
  });
}

// ---- the run ------------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

interface Row {
  metric: string;
  samples: number[];
  delivered: string;
  target: string;
}

function renderTable(rows: Row[]): string {
  const ms = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(1));
  const lines = [['measure', 'p50 ms', 'p99 ms', 'max ms', 'delivered', 'target']];
  for (const r of rows) {
    const s = [...r.samples].sort((a, b) => a - b);
    lines.push([r.metric, ms(percentile(s, 0.5)), ms(percentile(s, 0.99)), ms(s[s.length - 1] ?? NaN), r.delivered, r.target]);
  }
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  const render = (l: string[]) => '| ' + l.map((cell, c) => (c >= 1 && c <= 4 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join(' | ') + ' |';
  return [render(lines[0]!), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...lines.slice(1).map(render)].join('\n');
}

function intOption(value: string | undefined, name: string, min = 1): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      heads: { type: 'string', default: '1000' },
      logs: { type: 'string', default: '100' },
      blocks: { type: 'string', default: '100' },
      'block-time-ms': { type: 'string', default: '100' },
      workers: { type: 'string', default: String(Math.max(1, Math.min(4, os.cpus().length - 1))) },
      node: { type: 'string', default: 'cli' },
      serve: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const blockTimeMs = intOption(values['block-time-ms'], 'block-time-ms');
  if (values.serve !== undefined) return serve(values.serve, blockTimeMs);
  const heads = intOption(values.heads, 'heads', 0);
  const logs = intOption(values.logs, 'logs', 0);
  const blocks = intOption(values.blocks, 'blocks');
  const workerCount = intOption(values.workers, 'workers');
  if (values.node !== 'cli' && values.node !== 'harness') throw new Error('--node must be cli or harness');

  progress(`starting svc-node (${values.node}, devnet, ${blockTimeMs} ms blocks, rate limit off)`);
  const node = values.node === 'cli' ? await startCli(blockTimeMs) : await startHarness(blockTimeMs);
  const workers: Worker[] = [];
  try {
    const chain = svcDevnet(node.rpcUrl);
    const pub = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    const [deployerKey, senderKey] = devPrivateKeys(2);
    const deployer = createWalletClient({ account: privateKeyToAccount(deployerKey!), chain, transport: http(node.rpcUrl) });
    const sender = privateKeyToAccount(senderKey!);
    const token = compileContract('TestToken.sol', 'TestToken');
    progress('deploying the marker token');
    const deployHash = await deployer.deployContract({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 30n] });
    const tokenAddress = (await pub.waitForTransactionReceipt({ hash: deployHash })).contractAddress!;
    const fund = await deployer.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [sender.address, 10n ** 24n] } as never);
    await pub.waitForTransactionReceipt({ hash: fund });

    progress(`signing ${blocks + 5} marker transfers`);
    const start = await pub.getTransactionCount({ address: sender.address, blockTag: 'pending' });
    const markers: Hex[] = [];
    for (let i = 0; i < blocks + 5; i++) {
      markers.push(
        await sender.signTransaction({
          type: 'eip1559',
          chainId: DEV_CHAIN_ID,
          nonce: start + i,
          to: tokenAddress,
          data: encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [deployer.account.address, BigInt(i + 1)] } as never),
          gas: 60_000n,
          maxFeePerGas: parseGwei('100'),
          maxPriorityFeePerGas: parseGwei('1'),
        }),
      );
    }

    progress(`opening ${heads} newHeads and ${logs} logs connections in ${workerCount} worker thread(s)`);
    const reports: Promise<WorkerReport>[] = [];
    const readies: Promise<void>[] = [];
    for (let w = 0; w < workerCount; w++) {
      const share = (n: number) => Math.floor(n / workerCount) + (w < n % workerCount ? 1 : 0);
      const worker = new Worker(fileURLToPath(import.meta.url), {
        workerData: { url: node.wsUrl, heads: share(heads), logs: share(logs), token: tokenAddress } satisfies WorkerInput,
      });
      workers.push(worker);
      readies.push(new Promise((resolve, reject) => {
        worker.once('message', (m: WorkerMessage) => (m.type === 'ready' ? resolve() : reject(new Error('unexpected worker message'))));
        worker.once('error', reject);
      }));
      reports.push(new Promise((resolve) => worker.on('message', (m: WorkerMessage) => m.type === 'report' && resolve(m.report))));
    }
    await Promise.all(readies);

    // The pacer: its own newHeads subscription; each head sends the next marker.
    const pacer = new WebSocket(node.wsUrl);
    await new Promise<void>((resolve, reject) => {
      pacer.once('open', () => resolve());
      pacer.once('error', reject);
    });
    const sentAt = new Map<string, number>();
    const measured: number[] = [];
    let sent = 0;
    const done = new Promise<void>((resolve) => {
      pacer.on('message', (data) => {
        const m = JSON.parse(String(data)) as { method?: string; params?: { result: { number: string } } };
        if (m.method !== 'eth_subscription') return;
        measured.push(Number(m.params!.result.number));
        if (measured.length >= blocks + 2) return resolve();
        if (sent >= markers.length) return;
        const raw = markers[sent++]!;
        const at = now();
        void fetch(node.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: sent, method: 'eth_sendRawTransaction', params: [raw] }),
        })
          .then((r) => r.json() as Promise<{ result?: string; error?: { message: string } }>)
          .then((r) => {
            if (r.result) sentAt.set(r.result, at);
            else progress(`marker refused: ${r.error?.message}`);
          });
      });
    });
    pacer.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    progress(`measuring ${blocks} blocks`);
    await done;
    // The first and last heads bracket the run; a further block lets the last markers' logs arrive.
    const first = measured[1]!;
    const last = measured[measured.length - 2]!;
    await sleep(2 * blockTimeMs + 200);
    pacer.close();
    for (const w of workers) w.postMessage('report');
    const all = await Promise.all(reports);

    // Commit times: the node's "block produced" lines (logged when the block is committed, before it is announced).
    const committedAt = new Map<number, number>();
    for (const line of node.logs().split('\n')) {
      if (!line.includes('"block produced"')) continue;
      try {
        const entry = JSON.parse(line) as { number: number; time: number };
        committedAt.set(entry.number, entry.time);
      } catch {
        // A partial line at the end of the output.
      }
    }

    const errors = all.flatMap((r) => r.errors);
    const headConns = all.flatMap((r) => r.heads);
    const logConns = all.flatMap((r) => r.logs);
    const inRun = (n: number) => n >= first && n <= last;
    const runBlocks = last - first + 1;

    // newHeads: per connection, every block of the run exactly once and in order.
    let headsDelivered = 0;
    let headConnsComplete = 0;
    const headCommit: number[] = [];
    const headSpread: number[] = [];
    const byBlock = new Map<number, number[]>();
    for (const c of headConns) {
      const got = c.blocks.filter(inRun);
      headsDelivered += got.length;
      if (got.length === runBlocks && got.every((n, i) => n === first + i)) headConnsComplete++;
      c.blocks.forEach((n, i) => {
        if (!inRun(n)) return;
        const list = byBlock.get(n) ?? [];
        list.push(c.times[i]!);
        byBlock.set(n, list);
        const committed = committedAt.get(n);
        if (committed !== undefined) headCommit.push(c.times[i]! - committed);
      });
    }
    for (const times of byBlock.values()) {
      const t0 = Math.min(...times);
      for (const t of times) headSpread.push(t - t0);
    }

    // logs: every marker mined in the run, on every logs connection.
    const markerBlocks = new Map<string, number>();
    for (const c of logConns) c.hashes.forEach((h, i) => markerBlocks.set(h, c.blocks[i]!));
    const runMarkers = [...sentAt.keys()].filter((h) => inRun(markerBlocks.get(h) ?? -1));
    const expectedLogs = runMarkers.length * logConns.length;
    let logsDelivered = 0;
    const logCommit: number[] = [];
    const logEndToEnd: number[] = [];
    for (const c of logConns) {
      c.hashes.forEach((h, i) => {
        const block = c.blocks[i]!;
        if (!inRun(block) || !sentAt.has(h)) return;
        logsDelivered++;
        const committed = committedAt.get(block);
        if (committed !== undefined) logCommit.push(c.times[i]! - committed);
        logEndToEnd.push(c.times[i]! - sentAt.get(h)!);
      });
    }

    const pass = (samples: number[]) => {
      const p99 = percentile([...samples].sort((a, b) => a - b), 0.99);
      return `p99 < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'yes' : 'NO'}`;
    };
    const rows: Row[] = [
      { metric: `newHeads, commit -> receipt (${headConns.length} conns)`, samples: headCommit, delivered: `${headsDelivered}/${headConns.length * runBlocks}`, target: pass(headCommit) },
      { metric: 'newHeads, spread after the first receipt of a block', samples: headSpread, delivered: `${headConnsComplete}/${headConns.length} conns complete`, target: '-' },
      { metric: `logs, commit -> receipt (${logConns.length} conns)`, samples: logCommit, delivered: `${logsDelivered}/${expectedLogs}`, target: pass(logCommit) },
      { metric: 'logs, eth_sendRawTransaction -> receipt', samples: logEndToEnd, delivered: `${runMarkers.length} markers`, target: `includes the wait for a block (<= ${blockTimeMs} ms)` },
    ];
    const cpus = os.cpus();
    process.stdout.write(
      [
        '',
        renderTable(rows),
        '',
        `  run: blocks ${first}..${last} (${runBlocks}), ${blockTimeMs} ms block time, one marker ERC-20 transfer sent after each head; ${errors.length} client errors${errors.length ? ` (first: ${errors[0]})` : ''}`,
        '  commit -> receipt: arrival time at the client minus the time the node logged the block as committed (pino, 1 ms resolution, same host clock):',
        '    what a subscriber waits after the block exists, including the server fan-out to every connection and the client threads themselves.',
        '  spread: arrival time minus the first arrival of the same block on any connection: how far behind the first client the last one is served.',
        '  send -> receipt: from eth_sendRawTransaction of a marker to its log notification: pool admission, the wait for the next block, execution, commit, fan-out.',
        `  delivered: notifications received in the run of those due (every connection, every block or marker); "complete" = every block once, in order.`,
        `  machine: ${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version};`,
        `    the node and ${workerCount} client worker thread(s) share these cores, so client-side queueing is part of every figure.`,
        '',
      ].join('\n'),
    );
  } finally {
    for (const w of workers) await w.terminate();
    await node.stop();
  }
}

if (isMainThread) {
  main().catch((err: unknown) => {
    process.stderr.write(`[bench:ws] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
} else {
  void runWorker(workerData as WorkerInput);
}
