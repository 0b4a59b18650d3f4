// bench:network — ERC-20 transfers mined per second, the CPU each transfer costs and the block time
// of a 4-validator CometBFT network on this machine, on loopback and with a latency between the
// validators, beside a solo node's, in the same run with the same load: the same senders, the same
// pre-signed transfers (per peer), offered at a sustained rate long enough to reach steady state,
// submitted in JSON-RPC batches and counted mined when their receipts can be read. On the network
// the senders are spread round-robin over the nodes (each node gossips what it gets) and each
// node's share is watched for receipts on that node. CPU is read from /proc for each svc-node and
// its CometBFT over the run. Every process of every peer shares this machine's cores (the network
// runs 4 svc-nodes and 4 CometBFTs). Prints tables; asserts nothing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NodeProcess } from '../test/support/node-process.js';
import { compileContract, type CompiledContract } from '../test/support/solc.js';
import { SVC_NODE } from '../test/support/cli-process.js';
import { readManifest, setToml } from '../src/consensus/cometbft/testnet.js';
import { childPids, cpuSeconds, machineBusySeconds, threadCpuSeconds } from './support/cpu.js';
import { buildLoadGenerator } from './support/load.js';
import { loadLine, machineLine } from './support/machine.js';
import { deployAndFund, mnemonicAccounts, presignTransfers, submitAndWatch, type SenderTxs, type TransferRun } from './support/transfers.js';

const USAGE = `usage: node dist/bench/network.js [options]   (npm run bench:network -- [options])
  --senders <n>         transfer senders, mnemonic accounts 0..n-1, funded by account 0 (default 200)
  --rate <tx/s>         offered load, all nodes together, sustained (default 2000; 0: each node's lane
                        sends its next batch as soon as the last one is answered)
  --sustain-s <s>       length of the offered load (default 30): rate x sustain-s transfers in all
  --per-sender <n>      transfers each sender makes (default: rate x sustain-s / senders)
  --block-time-ms <ms>  the solo node's block time and the network's timeout_commit (default 1000, npm start's)
  --validators <n>      validators of the network (default 4)
  --latency-ms <ms>     also run the network with this one-way latency on every p2p link (default 50; 0: not)
  --base-port <port>    first port of the network (default 27600)
  --cpu-prof <dir>      write V8 CPU profiles of the solo node and node 0 of each network there
  --skip-solo           leave the solo node out
  --help`;

const BATCH_SIZE = 100;

interface NodeCpu {
  /** svc-node process (all threads) and its JS main thread, and its CometBFT, in CPU seconds. */
  svc: number;
  svcMain: number;
  comet: number;
}

interface PeerRun {
  name: string;
  run: TransferRun;
  /** Mean block time while idle (before the load) and under the load, from the blocks' millisecond times. */
  idleBlockMs: number;
  loadBlockMs: number;
  blocks: number;
  txsPerBlock: number[];
  /** CPU seconds each node used over the run. */
  cpu: NodeCpu[];
  /** Share of the machine's cores that were busy over the run (every process). */
  machineBusy: number;
  wallSeconds: number;
  /** Means over the blocks of the run, from node 0's "block produced" lines. */
  blockMs: { total: number; queued: number; execute: number; root: number; commit: number; count: number };
}

function progress(msg: string): void {
  process.stderr.write(`[bench:network] ${msg}\n`);
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function head(url: string): Promise<{ number: number; timeMs: number }> {
  const b = await rpc<{ number: string; timestampMs: string }>(url, 'eth_getBlockByNumber', ['latest', false]);
  return { number: Number(b.number), timeMs: Number(b.timestampMs) };
}

/** Mean milliseconds between the blocks from `from` to `to`, by their header times. */
function meanBlockMs(from: { number: number; timeMs: number }, to: { number: number; timeMs: number }): number {
  return to.number > from.number ? (to.timeMs - from.timeMs) / (to.number - from.number) : NaN;
}

async function idleBlockTime(url: string, ms: number): Promise<number> {
  const a = await head(url);
  await new Promise((r) => setTimeout(r, ms));
  return meanBlockMs(a, await head(url));
}

/** The "block produced" lines of a node's log: its blocks' timings. */
class BlockLog {
  readonly lines: { number: number; txs: number; ms: number; nativeMs: { queued: number; execute: number; root: number; commit: number } }[] = [];
  readonly onLine = (line: string): void => {
    if (!line.includes('"block produced"')) return;
    try {
      const e = JSON.parse(line) as BlockLog['lines'][number];
      if (e.nativeMs) this.lines.push(e);
    } catch {
      // Not a JSON line.
    }
  };
}

interface Peer {
  name: string;
  nodes: NodeProcess[];
  blockLog: BlockLog;
}

function nodeCpu(node: NodeProcess): NodeCpu {
  const pid = node.pid!;
  const comet = childPids(pid).reduce((s, c) => s + (cpuSeconds(c) ?? 0), 0);
  return { svc: cpuSeconds(pid) ?? NaN, svcMain: threadCpuSeconds(pid).get('main') ?? NaN, comet };
}

async function measure(peer: Peer, token: CompiledContract, senders: number, perSender: number, rate: number, generator: string): Promise<PeerRun> {
  const urls = peer.nodes.map((n) => n.url);
  const accounts = mnemonicAccounts(senders);
  progress(`${peer.name}: deploying the ERC-20 and funding ${senders} senders`);
  const fixture = await deployAndFund(urls[0]!, token, accounts);
  progress(`${peer.name}: idle block time`);
  const idleBlockMs = await idleBlockTime(urls[0]!, 10_000);
  progress(`${peer.name}: signing ${senders * perSender} transfers`);
  const signed: SenderTxs[] = await presignTransfers(urls[0]!, fixture, token, perSender, generator);
  // Sender i goes to node i mod n: each node gets its share, as a network's users would spread.
  const groups = urls.map((_, k) => signed.filter((_, i) => i % urls.length === k));
  progress(`${peer.name}: submitting in batches of ${BATCH_SIZE} to ${urls.length} node(s)${rate > 0 ? ` at ${rate} tx/s offered` : ''}`);
  const start = await head(urls[0]!);
  const firstLogged = peer.blockLog.lines.length;
  const cpu0 = peer.nodes.map(nodeCpu);
  const [busy0, wall0] = [machineBusySeconds(), performance.now()];
  const runs = await Promise.all(
    groups.map((g, k) => submitAndWatch(urls[k]!, g, { kind: 'batch', size: BATCH_SIZE }, { stallMs: 120_000, ...(rate > 0 ? { ratePerSecond: rate / urls.length } : {}) })),
  );
  const wallSeconds = (performance.now() - wall0) / 1000;
  const busy = (machineBusySeconds() ?? NaN) - (busy0 ?? NaN);
  const cpu = peer.nodes.map((n, i) => {
    const [a, b] = [cpu0[i]!, nodeCpu(n)];
    return { svc: b.svc - a.svc, svcMain: b.svcMain - a.svcMain, comet: b.comet - a.comet };
  });
  const end = await head(urls[0]!);
  const mined = runs.reduce((n, r) => n + r.mined, 0);
  const seconds = Math.max(...runs.map((r) => r.seconds));
  const run: TransferRun = {
    submitted: runs.reduce((n, r) => n + r.submitted, 0),
    rejected: runs.reduce((n, r) => n + r.rejected, 0),
    errors: runs.flatMap((r) => r.errors),
    mined,
    succeeded: runs.reduce((n, r) => n + r.succeeded, 0),
    submitSeconds: Math.max(...runs.map((r) => r.submitSeconds)),
    seconds,
    perSecond: mined / seconds,
    // The groups' quantiles cannot be merged exactly: the worst group's are shown.
    latency: runs.map((r) => r.latency).reduce((a, b) => (b.p99 > a.p99 ? b : a)),
    blocks: end.number - start.number,
    maxPerBlock: Math.max(...runs.map((r) => r.maxPerBlock)),
  };
  progress(`${peer.name}: ${run.mined}/${run.submitted} receipts in ${seconds.toFixed(2)} s = ${run.perSecond.toFixed(0)} tx/s, p50 ${run.latency.p50.toFixed(0)} ms`);
  const txsPerBlock: number[] = [];
  for (let n = start.number + 1; n <= end.number; n++) {
    const b = await rpc<{ transactions: unknown[] }>(urls[0]!, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    txsPerBlock.push(b.transactions.length);
  }
  progress(`${peer.name}: transactions per block during the run: ${txsPerBlock.join(' ')}`);
  const logged = peer.blockLog.lines.slice(firstLogged).filter((l) => l.number > start.number && l.number <= end.number);
  const mean = (f: (l: (typeof logged)[number]) => number) => logged.reduce((s, l) => s + f(l), 0) / Math.max(1, logged.length);
  const blockMs = {
    total: mean((l) => l.ms),
    queued: mean((l) => l.nativeMs.queued),
    execute: mean((l) => l.nativeMs.execute),
    root: mean((l) => l.nativeMs.root),
    commit: mean((l) => l.nativeMs.commit),
    count: logged.length,
  };
  return { name: peer.name, run, idleBlockMs, loadBlockMs: meanBlockMs(start, end), blocks: end.number - start.number, txsPerBlock, cpu, machineBusy: busy / wallSeconds, wallSeconds, blockMs };
}

/** The environment that makes a node process write a V8 CPU profile into `dir` (./support/cpu-profile.ts). */
function profileEnv(dir: string): Record<string, string> {
  return { NODE_OPTIONS: `--import ${fileURLToPath(new URL('./support/cpu-profile.js', import.meta.url))}`, SVC_CPU_PROFILE_DIR: dir };
}

/** The p2p link proxies (./support/link-proxies.ts) of a network with latency. */
async function startLinkProxies(targets: number[], latencyMs: number): Promise<{ ports: number[]; child: ChildProcess }> {
  const script = fileURLToPath(new URL('./support/link-proxies.js', import.meta.url));
  const child = spawn(process.execPath, [script, JSON.stringify(targets.map((targetPort) => ({ targetPort, latencyMs, jitterMs: 0 })))], { stdio: ['pipe', 'pipe', 'inherit'] });
  const ports = await new Promise<number[]>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
    });
    child.once('exit', (code) => reject(new Error(`the link proxies exited (${code})`)));
  });
  return { ports, child };
}

async function startNetwork(
  dir: string,
  o: { validators: number; basePort: string; blockTimeMs: number; latencyMs: number; cpuProfDir?: string },
  cleanups: (() => Promise<void>)[],
): Promise<Peer> {
  const init = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', String(o.validators), '--base-port', o.basePort, '--block-time-ms', String(o.blockTimeMs)], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`testnet init failed: ${init.stderr}`);
  const manifest = readManifest(dir);
  if (o.latencyMs > 0) {
    // Node i reaches node j through the proxy of link (i, j): every p2p byte waits latencyMs each way.
    const links = manifest.nodes.flatMap((_, i) => manifest.nodes.flatMap((p, j) => (i === j ? [] : [{ i, j, port: p.p2pPort }])));
    const proxies = await startLinkProxies(links.map((l) => l.port), o.latencyMs);
    cleanups.push(async () => {
      proxies.child.stdin!.end();
      await new Promise((r) => (proxies.child.exitCode === null ? proxies.child.once('exit', r) : r(undefined)));
    });
    for (const [i, n] of manifest.nodes.entries()) {
      const peers = links.flatMap((l, k) => (l.i === i ? [`${manifest.nodes[l.j]!.nodeId}@127.0.0.1:${proxies.ports[k]}`] : [])).join(',');
      const file = path.join(dir, n.cometbftHome, 'config', 'config.toml');
      writeFileSync(file, setToml(readFileSync(file, 'utf8'), 'p2p', 'persistent_peers', `"${peers}"`));
    }
  }
  const blockLog = new BlockLog();
  const nodes = await Promise.all(
    manifest.nodes.map((n, i) =>
      NodeProcess.start({
        dataDir: path.join(dir, n.dataDir),
        readyTimeoutMs: 120_000,
        ...(i === 0 ? { onLogLine: blockLog.onLine } : {}),
        ...(i === 0 && o.cpuProfDir ? { env: profileEnv(path.join(o.cpuProfDir, `network-${o.latencyMs}ms`)) } : {}),
        extraArgs: ['--consensus', 'cometbft', '--cometbft-home', path.join(dir, n.cometbftHome), '--rpc-port', String(n.rpcPort), '--ws-port', String(n.wsPort), '--explorer-port', String(n.explorerPort), '--rpc-rate-limit', '0'],
      }),
    ),
  );
  cleanups.push(async () => {
    await Promise.all(nodes.map((n) => n.dispose()));
  });
  return { name: `${o.validators}-validator network, ${o.latencyMs > 0 ? `${o.latencyMs} ms links` : 'loopback'}`, nodes, blockLog };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      senders: { type: 'string', default: '200' },
      rate: { type: 'string', default: '2000' },
      'sustain-s': { type: 'string', default: '30' },
      'per-sender': { type: 'string' },
      'block-time-ms': { type: 'string', default: '1000' },
      validators: { type: 'string', default: '4' },
      'latency-ms': { type: 'string', default: '50' },
      'base-port': { type: 'string', default: '27600' },
      'cpu-prof': { type: 'string' },
      'skip-solo': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const senders = Number(values.senders);
  const rate = Number(values.rate);
  const sustainSeconds = Number(values['sustain-s']);
  const perSender = values['per-sender'] !== undefined ? Number(values['per-sender']) : Math.ceil((rate * sustainSeconds) / senders);
  const blockTimeMs = Number(values['block-time-ms']);
  const validators = Number(values.validators);
  const latencyMs = Number(values['latency-ms']);
  for (const [name, v] of [['senders', senders], ['rate', rate], ['sustain-s', sustainSeconds], ['per-sender', perSender], ['block-time-ms', blockTimeMs], ['validators', validators], ['latency-ms', latencyMs]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} must be a non-negative integer (got ${v})`);
  }
  const cpuProfDir = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined;
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  process.stdout.write(`${machineLine()}\n${loadLine('before')}\n`);
  progress('building the load generator and signer (svc-loadgen)');
  const generator = buildLoadGenerator();
  const token = compileContract('TestToken.sol', 'TestToken');
  const results: PeerRun[] = [];
  // -1: the solo node; then the network on loopback and with the latency.
  const plan = [...(values['skip-solo'] ? [] : [-1]), 0, ...(latencyMs > 0 ? [latencyMs] : [])];
  for (const latency of plan) {
    const cleanups: (() => Promise<void>)[] = [];
    try {
      let peer: Peer;
      if (latency < 0) {
        progress(`solo node at --block-time-ms ${blockTimeMs}`);
        const blockLog = new BlockLog();
        const solo = await NodeProcess.start({
          blockTimeMs,
          extraArgs: ['--rpc-rate-limit', '0'],
          readyTimeoutMs: 120_000,
          onLogLine: blockLog.onLine,
          ...(cpuProfDir ? { env: profileEnv(path.join(cpuProfDir, 'solo')) } : {}),
        });
        cleanups.push(() => solo.dispose());
        peer = { name: 'solo node', nodes: [solo], blockLog };
      } else {
        const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-net-'));
        cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
        progress(`${validators}-validator CometBFT network (timeout_commit ${blockTimeMs} ms)${latency > 0 ? `, ${latency} ms on every p2p link` : ''}`);
        peer = await startNetwork(dir, { validators, basePort: values['base-port'], blockTimeMs, latencyMs: latency, ...(cpuProfDir ? { cpuProfDir } : {}) }, cleanups);
      }
      results.push(await measure(peer, token, senders, perSender, rate, generator));
    } finally {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
    }
  }

  const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');
  const table = (rows: string[][]) => {
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    for (const r of rows) process.stdout.write(`  ${r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}\n`);
  };
  const median = (xs: number[]) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  /** CPU milliseconds per mined transfer of one node: svc-node and its CometBFT. */
  const perTx = (r: PeerRun, c: NodeCpu) => ({ svc: (c.svc / r.run.mined) * 1000, main: (c.svcMain / r.run.mined) * 1000, comet: (c.comet / r.run.mined) * 1000 });
  const nodeMean = (r: PeerRun) => r.cpu.reduce((s, c) => s + perTx(r, c).svc + perTx(r, c).comet, 0) / r.cpu.length;

  process.stdout.write(`\nERC-20 transfers, ${senders} senders x ${perSender}, batches of ${BATCH_SIZE}, ${rate > 0 ? `${fmt(rate)} tx/s offered` : 'as fast as answered'}, same run:\n`);
  table([
    ['peer', 'transfers mined', 'seconds', 'tx/s (receipts)', 'p50 ms', 'p99 ms', 'blocks', 'txs/block median (max)', 'block time idle ms', 'block time under load ms', 'CPU ms/transfer per node', 'machine busy'],
    ...results.map((r) => [
      r.name,
      `${fmt(r.run.mined)}/${fmt(r.run.submitted)}`,
      fmt(r.run.seconds, 2),
      fmt(r.run.perSecond),
      fmt(r.run.latency.p50),
      fmt(r.run.latency.p99),
      String(r.blocks),
      `${fmt(median(r.txsPerBlock))} (${fmt(Math.max(...r.txsPerBlock))})`,
      fmt(r.idleBlockMs),
      fmt(r.loadBlockMs),
      fmt(nodeMean(r), 3),
      `${fmt(r.machineBusy * 100)}%`,
    ]),
  ]);
  process.stdout.write('\nCPU ms per mined transfer, each node over the run (svc-node: all threads, its JS main thread; its CometBFT):\n');
  table([
    ['peer', 'node', 'svc-node', 'of which JS main', 'CometBFT', 'node total', 'x solo'],
    ...results.flatMap((r) =>
      r.cpu.map((c, i) => {
        const p = perTx(r, c);
        const solo = results.find((x) => x.name === 'solo node');
        return [r.name, String(i), fmt(p.svc, 3), fmt(p.main, 3), r.name === 'solo node' ? '-' : fmt(p.comet, 3), fmt(p.svc + p.comet, 3), solo ? fmt((p.svc + p.comet) / nodeMean(solo), 2) : 'n/a'];
      }),
    ),
  ]);
  process.stdout.write('\nBlocks of the run on node 0 (means; FinalizeBlock to Commit, and its native part):\n');
  table([
    ['peer', 'blocks', 'ms', 'queued', 'execute', 'roots', 'commit'],
    ...results.map((r) => [r.name, String(r.blockMs.count), fmt(r.blockMs.total, 1), fmt(r.blockMs.queued, 1), fmt(r.blockMs.execute, 1), fmt(r.blockMs.root, 1), fmt(r.blockMs.commit, 1)]),
  ]);
  const solo = results.find((r) => r.name === 'solo node');
  for (const r of results) {
    if (r === solo || !solo) continue;
    process.stdout.write(`\n${r.name} / solo: ${(r.run.perSecond / solo.run.perSecond).toFixed(2)}x the transfers per second; CPU per transfer per node ${(nodeMean(r) / nodeMean(solo)).toFixed(2)}x; block time under load ${fmt(r.loadBlockMs)} ms vs ${fmt(solo.loadBlockMs)} ms`);
  }
  process.stdout.write('\n');
  for (const r of results) if (r.run.errors.length > 0) process.stdout.write(`${r.name} errors (${r.run.rejected} refused): ${r.run.errors.join('; ')}\n`);
  process.stdout.write(`${loadLine('after')}\n`);
}

await main();
