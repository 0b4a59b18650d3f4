// bench:network — ERC-20 transfers mined per second and the block time of a 4-validator CometBFT
// network on this machine, beside a solo node's, in the same run with the same load: the same
// senders, the same pre-signed transfers (per peer), submitted in JSON-RPC batches and counted mined
// when their receipts can be read. On the network the senders are spread round-robin over the four
// nodes (each node gossips what it gets) and receipts are read from node 0. Every process of both
// peers shares this machine's cores (the network runs 4 svc-nodes and 4 CometBFTs). Prints a
// table; asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { NodeProcess } from '../test/support/node-process.js';
import { compileContract } from '../test/support/solc.js';
import { SVC_NODE } from '../test/support/cli-process.js';
import { readManifest } from '../src/consensus/cometbft/testnet.js';
import { buildLoadGenerator } from './support/load.js';
import { loadLine, machineLine } from './support/machine.js';
import { deployAndFund, mnemonicAccounts, presignTransfers, submitAndWatch, type SenderTxs, type TransferRun } from './support/transfers.js';

const USAGE = `usage: node dist/bench/network.js [options]   (npm run bench:network -- [options])
  --senders <n>         transfer senders, mnemonic accounts 0..n-1, funded by account 0 (default 200)
  --per-sender <n>      transfers each sender makes (default 30)
  --block-time-ms <ms>  the solo node's block time and the network's timeout_commit (default 1000, npm start's)
  --validators <n>      validators of the network (default 4)
  --base-port <port>    first port of the network (default 27600)
  --help`;

const BATCH_SIZE = 100;

interface PeerRun {
  name: string;
  run: TransferRun;
  /** Mean block time while idle (before the load) and under the load, from the blocks' millisecond times. */
  idleBlockMs: number;
  loadBlockMs: number;
  blocks: number;
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

async function measure(name: string, urls: string[], senders: number, perSender: number, generator: string): Promise<PeerRun> {
  const token = compileContract('TestToken.sol', 'TestToken');
  const accounts = mnemonicAccounts(senders);
  progress(`${name}: deploying the ERC-20 and funding ${senders} senders`);
  const fixture = await deployAndFund(urls[0]!, token, accounts);
  progress(`${name}: idle block time`);
  const idleBlockMs = await idleBlockTime(urls[0]!, 10_000);
  progress(`${name}: signing ${senders * perSender} transfers`);
  const signed: SenderTxs[] = await presignTransfers(urls[0]!, fixture, token, perSender, generator);
  // Sender i goes to node i mod n: each node gets its share, as a network's users would spread.
  const groups = urls.map((_, k) => signed.filter((_, i) => i % urls.length === k));
  progress(`${name}: submitting in batches of ${BATCH_SIZE} to ${urls.length} node(s)`);
  const start = await head(urls[0]!);
  const runs = await Promise.all(groups.map((g, k) => submitAndWatch(urls[k]!, g, { kind: 'batch', size: BATCH_SIZE }, { stallMs: 120_000 })));
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
  progress(`${name}: ${run.mined}/${run.submitted} receipts in ${seconds.toFixed(2)} s = ${run.perSecond.toFixed(0)} tx/s`);
  const sizes: string[] = [];
  for (let n = start.number + 1; n <= end.number; n++) {
    const b = await rpc<{ transactions: unknown[]; timestampMs: string }>(urls[0]!, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    sizes.push(`${b.transactions.length}`);
  }
  progress(`${name}: transactions per block during the run: ${sizes.join(' ')}`);
  return { name, run, idleBlockMs, loadBlockMs: meanBlockMs(start, end), blocks: end.number - start.number };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      senders: { type: 'string', default: '200' },
      'per-sender': { type: 'string', default: '30' },
      'block-time-ms': { type: 'string', default: '1000' },
      validators: { type: 'string', default: '4' },
      'base-port': { type: 'string', default: '27600' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const senders = Number(values.senders);
  const perSender = Number(values['per-sender']);
  const blockTimeMs = Number(values['block-time-ms']);
  const validators = Number(values.validators);
  process.stdout.write(`${machineLine()}\n${loadLine('before')}\n`);
  progress('building the load generator and signer (svc-loadgen)');
  const generator = buildLoadGenerator();
  const results: PeerRun[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  try {
    progress(`solo node at --block-time-ms ${blockTimeMs}`);
    const solo = await NodeProcess.start({ blockTimeMs, extraArgs: ['--rpc-rate-limit', '0'], readyTimeoutMs: 120_000 });
    cleanups.push(() => solo.dispose());
    results.push(await measure('solo node', [solo.url], senders, perSender, generator));
    await solo.dispose();
    cleanups.pop();

    const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-net-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const init = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', String(validators), '--base-port', values['base-port'], '--block-time-ms', String(blockTimeMs)], { encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`testnet init failed: ${init.stderr}`);
    const manifest = readManifest(dir);
    progress(`${validators}-validator CometBFT network (timeout_commit ${blockTimeMs} ms)`);
    const nodes = await Promise.all(
      manifest.nodes.map((n) =>
        NodeProcess.start({
          dataDir: path.join(dir, n.dataDir),
          readyTimeoutMs: 120_000,
          extraArgs: ['--consensus', 'cometbft', '--cometbft-home', path.join(dir, n.cometbftHome), '--rpc-port', String(n.rpcPort), '--ws-port', String(n.wsPort), '--explorer-port', String(n.explorerPort), '--rpc-rate-limit', '0'],
        }),
      ),
    );
    cleanups.push(async () => {
      await Promise.all(nodes.map((n) => n.dispose()));
    });
    results.push(await measure(`${validators}-validator network`, nodes.map((n) => n.url), senders, perSender, generator));
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }

  const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');
  const rows = [
    ['peer', 'transfers mined', 'seconds', 'tx/s (receipts)', 'p50 ms', 'p99 ms', 'blocks', 'block time idle ms', 'block time under load ms'],
    ...results.map((r) => [r.name, `${r.run.mined}/${r.run.submitted}`, fmt(r.run.seconds, 2), fmt(r.run.perSecond), fmt(r.run.latency.p50), fmt(r.run.latency.p99), String(r.blocks), fmt(r.idleBlockMs), fmt(r.loadBlockMs)]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  process.stdout.write(`\nERC-20 transfers, ${senders} senders x ${perSender}, batches of ${BATCH_SIZE}, same run:\n`);
  for (const r of rows) process.stdout.write(`  ${r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}\n`);
  const [solo, network] = results;
  if (solo && network) {
    process.stdout.write(`\nnetwork / solo: ${(network.run.perSecond / solo.run.perSecond).toFixed(2)}x the transfers per second; block time under load ${fmt(network.loadBlockMs)} ms vs ${fmt(solo.loadBlockMs)} ms\n`);
  }
  for (const r of results) if (r.run.errors.length > 0) process.stdout.write(`${r.name} errors: ${r.run.errors.join('; ')}\n`);
  process.stdout.write(`${loadLine('after')}\n`);
}

await main();
