// bench:explorer — fills a fresh devnet with ERC-20 transfers among 1,000 addresses at a steady
// offered rate while another process samples how far the explorer's index trails the chain every
// 100 ms, then measures the address-history, block-list and search routes (latency p50/p99 and
// requests/s, one native load generator) and, as the peer in the same run, what a client without the
// index pays for the same page of an address's token history: eth_getLogs over the blocks that hold
// that page (and, for scale, over the whole chain). Prints a table; asserts nothing.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pad, type Address } from 'viem';
import { NodeProcess } from '../test/support/node-process.js';
import { compileContract } from '../test/support/solc.js';
import { buildLoadGenerator, measureRequests, type LoadResult } from './support/load.js';
import { loadLine, machineLine } from './support/machine.js';
import { deployAndFund, latencyOf, mnemonicAccounts, presignTransfers, submitAndWatch } from './support/transfers.js';

const SAMPLER = fileURLToPath(new URL('./support/lag-sampler.js', import.meta.url));
/** Targets: index lag p99 at most one block, from at least this many samples. */
const MIN_LAG_SAMPLES = 500;
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const USAGE = `usage: node dist/bench/explorer.js [options]   (npm run bench:explorer -- [options])
  --transactions <n>   transfers to fill the chain with (default 300000: a minute at the rate)
  --rate <tx/s>        offered load of the fill (default 5000)
  --senders <n>        sending addresses; three recipients each, so addresses = 4 x senders (default 250)
  --block-time-ms <ms> block time (default 1000, as npm start's devnet)
  --duration-ms <ms>   measuring time per route (default 5000)
  --connections <n>    connections of the load generator for throughput (default 8)
  --latency-connections <n>  connections for the latency run (default 2)
  --help`;

const progress = (line: string) => process.stderr.write(`[bench:explorer] ${line}\n`);

function intOption(value: string | undefined, name: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      transactions: { type: 'string', default: '300000' },
      rate: { type: 'string', default: '5000' },
      senders: { type: 'string', default: '250' },
      'block-time-ms': { type: 'string', default: '1000' },
      'duration-ms': { type: 'string', default: '5000' },
      connections: { type: 'string', default: '8' },
      'latency-connections': { type: 'string', default: '2' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const total = intOption(values.transactions, 'transactions');
  const rate = intOption(values.rate, 'rate');
  const senderCount = intOption(values.senders, 'senders');
  const blockTimeMs = intOption(values['block-time-ms'], 'block-time-ms');
  const durationMs = intOption(values['duration-ms'], 'duration-ms');
  const connections = intOption(values.connections, 'connections');
  const latencyConnections = intOption(values['latency-connections'], 'latency-connections');
  const perSender = Math.ceil(total / senderCount);

  process.stdout.write(`${machineLine()}\n${loadLine('before')}\n`);
  progress('building the load generator and signer (svc-loadgen)');
  const generator = buildLoadGenerator();
  const token = compileContract('TestToken.sol', 'TestToken');
  progress(`starting svc-node (devnet, ${blockTimeMs} ms blocks, RPC rate limit off, loopback exempt)`);
  const node = await NodeProcess.start({ blockTimeMs, extraArgs: ['--rpc-rate-limit', '0'], readyTimeoutMs: 120_000 });
  try {
    const api = `${node.explorerUrl}/api/v1`;
    const senders = mnemonicAccounts(senderCount);
    progress(`deploying the ERC-20 and funding ${senderCount} senders`);
    const fixture = await deployAndFund(node.url, token, senders);
    const recipients = Array.from({ length: senderCount * 3 }, (_, i) => `0x${(0xbe000000 + i).toString(16).padStart(40, '0')}` as Address);
    progress(`signing ${perSender * senderCount} transfers`);
    // Round-robin over three recipients per sender.
    const signed = await presignTransfers(node.url, fixture, token, perSender, generator, {
      recipient: (i, k) => recipients[(i * 3 + (k % 3)) % recipients.length]!,
      recipientsPerSender: 3,
    });

    // Index lag while the chain fills, sampled every 100 ms by a process of its own.
    const sampler = spawn(process.execPath, [SAMPLER, node.url, api, '100'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const samples: { at: number; lag?: number; internalLag?: number; error?: string }[] = [];
    let filling = false;
    const samplerDone = new Promise<void>((resolve) => sampler.once('exit', () => resolve()));
    createInterface({ input: sampler.stdout! }).on('line', (line) => {
      if (!filling) return;
      try {
        samples.push(JSON.parse(line) as { at: number; lag?: number; internalLag?: number; error?: string });
      } catch {
        // Not a sample.
      }
    });
    filling = true;
    progress(`filling: ${perSender * senderCount} transfers offered at ${rate} tx/s in batches of 100`);
    const run = await submitAndWatch(node.url, signed, { kind: 'batch', size: 100 }, { ratePerSecond: rate, stallMs: 60_000 });
    if (run.rejected > 0) progress(`${run.rejected} refused: ${run.errors.join('; ')}`);
    progress(`${run.mined}/${run.submitted} receipts in ${run.seconds.toFixed(1)} s`);
    filling = false;
    // Then until the index has caught up with the fill's last block.
    const caughtUpStart = performance.now();
    for (;;) {
      const body = (await (await fetch(`${api}/health/ready`)).json()) as { data?: { lag: number; internalLag: number } };
      if (body.data && body.data.lag === 0 && body.data.internalLag === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const catchUpSeconds = (performance.now() - caughtUpStart) / 1000;
    sampler.stdin!.end();
    await samplerDone;
    const lagValues = samples.filter((x) => x.lag !== undefined).map((x) => x.lag!);
    const failedSamples = samples.filter((x) => x.error !== undefined);
    const lag = latencyOf(lagValues);
    const internalLag = latencyOf(samples.filter((x) => x.internalLag !== undefined).map((x) => x.internalLag!));
    const stats = (await (await fetch(`${api}/stats`)).json()) as { data: { transactions: number; addresses: number; latestBlock: number } };
    const ready = (await (await fetch(`${api}/health/ready`)).json()) as { data: { maxBlockIndexMs: number } };

    const busy = fixture.senders[1]!.address;
    // The blocks that hold the page of 25 the explorer serves: what the peer must scan for the same page.
    const page = (await (await fetch(`${api}/addresses/${busy}/token-transfers?limit=25`)).json()) as { data: { items: { blockNumber: number }[] } };
    const pageBlocks = page.data.items.map((t) => t.blockNumber);
    const [pageFrom, pageTo] = [Math.min(...pageBlocks), Math.max(...pageBlocks)];
    const routes: { metric: string; url: string; body: string; shape: Parameters<typeof measureRequests>[6] }[] = [
      { metric: 'address history (25 per page)', url: `${api}/addresses/${busy}/transactions?limit=25`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      { metric: 'address token transfers (25 per page)', url: `${api}/addresses/${busy}/token-transfers?limit=25`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      { metric: 'block list (25 per page)', url: `${api}/blocks?limit=25`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      { metric: 'search (token symbol)', url: `${api}/search?q=tst`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      {
        metric: `peer: eth_getLogs of the same page (blocks ${pageFrom}-${pageTo})`,
        url: node.url,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_getLogs',
          params: [{ address: fixture.token, topics: [TRANSFER_TOPIC, pad(busy)], fromBlock: `0x${pageFrom.toString(16)}`, toBlock: `0x${pageTo.toString(16)}` }],
        }),
        shape: {},
      },
      {
        metric: 'peer: eth_getLogs of the whole history',
        url: node.url,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_getLogs',
          params: [{ address: fixture.token, topics: [TRANSFER_TOPIC, pad(busy)], fromBlock: '0x0', toBlock: 'latest' }],
        }),
        shape: {},
      },
    ];
    // Each route twice: at a light load for latency, then saturating the node for throughput.
    const results: { metric: string; light: LoadResult; r: LoadResult }[] = [];
    for (const route of routes) {
      await measureRequests(generator, route.url, route.body, connections, 1_000, undefined, route.shape);
      const light = await measureRequests(generator, route.url, route.body, latencyConnections, durationMs, node.pid, route.shape);
      const r = await measureRequests(generator, route.url, route.body, connections, durationMs, node.pid, route.shape);
      progress(`${route.metric}: ${r.perSecond.toFixed(0)} req/s, p99 ${light.p99Ms.toFixed(2)} ms at ${latencyConnections} connections, ${r.p99Ms.toFixed(2)} ms at ${connections}`);
      results.push({ metric: route.metric, light, r });
    }

    const lines = [['route', `req/s (${connections} conn)`, `p50 / p99 ms (${latencyConnections} conn)`, `p50 / p99 ms (${connections} conn)`, 'errors']];
    for (const { metric, light, r } of results) {
      lines.push([
        metric,
        Math.round(r.perSecond).toLocaleString('en-US'),
        `${light.p50Ms.toFixed(2)} / ${light.p99Ms.toFixed(2)}`,
        `${r.p50Ms.toFixed(2)} / ${r.p99Ms.toFixed(2)}`,
        String(light.errors + r.errors),
      ]);
    }
    const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
    const render = (l: string[]) => '| ' + l.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ') + ' |';
    const history = results[0]!.light;
    process.stdout.write(
      [
        '',
        render(lines[0]!),
        '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|',
        ...lines.slice(1).map(render),
        '',
        `  chain: ${stats.data.latestBlock + 1} blocks, ${stats.data.transactions} transactions indexed, ${stats.data.addresses} addresses; fill: ${run.mined} transfers (receipts read) in ${run.seconds.toFixed(1)} s at ${rate} tx/s offered (${Math.round(run.perSecond)} tx/s)`,
        `  index lag during the fill (JSON-RPC head - explorer's indexed height, sampled every 100 ms by another process): ${lag.count} samples, p50 ${lag.p50}, p99 ${lag.p99}, max ${lag.max}` +
          (failedSamples.length > 0 ? `; ${failedSamples.length} samples failed (first: ${failedSamples[0]!.error})` : '') +
          `; caught up ${catchUpSeconds.toFixed(1)} s after the last receipt was read`,
        `  internal transactions' index lag (head - the last block re-executed for them): ${internalLag.count} samples, p50 ${internalLag.p50}, p99 ${internalLag.p99}, max ${internalLag.max}`,
        `  fill: send -> receipt p50 ${run.latency.p50.toFixed(0)} ms, p99 ${run.latency.p99.toFixed(0)} ms; ${run.blocks} blocks, at most ${run.maxPerBlock} transfers in one`,
        `  load: svc-loadgen, kept-alive connections, ${durationMs} ms per route and load after 1 s of warm-up: latency at ${latencyConnections} connections, throughput (and its queueing) at ${connections}; the peer line is the same node's JSON-RPC without the index`,
        '',
        `  slowest block to index: ${ready.data.maxBlockIndexMs} ms (block time ${blockTimeMs} ms)`,
        '',
        `Targets: address history p99 < 20 ms (at ${latencyConnections} connections): ${history.p99Ms < 20 ? 'met' : 'NOT met'} (${history.p99Ms.toFixed(2)} ms; ${results[0]!.r.p99Ms.toFixed(2)} ms at ${connections}); ` +
          `index lag p99 <= 1 block from >= ${MIN_LAG_SAMPLES} samples: ${lag.p99 <= 1 && lag.count >= MIN_LAG_SAMPLES ? 'met' : 'NOT met'} (p99 ${lag.p99} from ${lag.count}); ` +
          `internal transactions' lag p99 <= 1 block: ${internalLag.p99 <= 1 && internalLag.count >= MIN_LAG_SAMPLES ? 'met' : 'NOT met'} (p99 ${internalLag.p99}).`,
        loadLine('after'),
        '',
      ].join('\n'),
    );
  } finally {
    await node.dispose();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:explorer] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
