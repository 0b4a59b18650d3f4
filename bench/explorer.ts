// bench:explorer — fills a fresh devnet with ERC-20 transfers among 1,000 addresses while watching
// how far the explorer's index trails the chain, then measures the address-history, block-list and
// search routes (latency p50/p99 and requests/s, one native load generator) and, as the peer in the
// same run, what a client without the index pays for an address's token history: eth_getLogs over
// the whole chain on the same node. Prints a table; asserts nothing.
import { parseArgs } from 'node:util';
import { pad, type Address } from 'viem';
import { NodeProcess } from '../test/support/node-process.js';
import { compileContract } from '../test/support/solc.js';
import { buildLoadGenerator, measureRequests, type LoadResult } from './support/load.js';
import { deployAndFund, mnemonicAccounts, presignTransfers, submitAndCount } from './support/transfers.js';

/** Transactions submitted at once: below the pool's 50,000. */
const WAVE_TRANSACTIONS = 40_000;
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const USAGE = `usage: node dist/bench/explorer.js [options]   (npm run bench:explorer -- [options])
  --transactions <n>   transfers to fill the chain with (default 100000)
  --senders <n>        sending addresses; three recipients each, so addresses = 4 x senders (default 250)
  --block-time-ms <ms> block time (default 500)
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

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      transactions: { type: 'string', default: '100000' },
      senders: { type: 'string', default: '250' },
      'block-time-ms': { type: 'string', default: '500' },
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
  const senderCount = intOption(values.senders, 'senders');
  const blockTimeMs = intOption(values['block-time-ms'], 'block-time-ms');
  const durationMs = intOption(values['duration-ms'], 'duration-ms');
  const connections = intOption(values.connections, 'connections');
  const latencyConnections = intOption(values['latency-connections'], 'latency-connections');
  const perSender = Math.ceil(total / senderCount);

  progress('building the load generator (svc-loadgen)');
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
    const signed = await presignTransfers(
      node.url,
      fixture,
      token,
      perSender,
      (i, k) => recipients[(i * 3 + (k % 3)) % recipients.length]!,
      (done) => done % 50 === 0 && progress(`signed for ${done}/${senderCount} senders`),
    );

    // Index lag while the chain fills: sampled every 100 ms from the readiness route.
    const lags: number[] = [];
    let filling = true;
    const sampler = (async () => {
      while (filling) {
        try {
          const res = await fetch(`${api}/health/ready`);
          const body = (await res.json()) as { data?: { lag: number }; error?: string };
          const lag = body.data?.lag ?? Number(/(\d+) blocks behind/.exec(body.error ?? '')?.[1] ?? NaN);
          if (Number.isFinite(lag)) lags.push(lag);
        } catch (err) {
          progress(`readiness probe failed: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // In waves that fit the pool (50,000 transactions): each wave is mined before the next goes in.
    const waves = Math.ceil((perSender * senderCount) / WAVE_TRANSACTIONS);
    const perWave = Math.ceil(perSender / waves);
    const run = { mined: 0, submitted: 0, seconds: 0, perSecond: 0 };
    for (let w = 0; w < waves; w++) {
      const slice = signed.map((txs) => txs.slice(w * perWave, (w + 1) * perWave));
      progress(`submitting wave ${w + 1}/${waves} in batches of 100`);
      const r = await submitAndCount(node.url, fixture, slice, { kind: 'batch', size: 100 }, 60_000);
      if (r.rejected > 0) progress(`${r.rejected} refused: ${r.errors.join('; ')}`);
      run.mined += r.mined;
      run.submitted += r.submitted;
      run.seconds += r.seconds;
    }
    run.perSecond = run.seconds > 0 ? run.mined / run.seconds : 0;
    progress(`${run.mined}/${run.submitted} mined in ${run.seconds.toFixed(1)} s`);
    // Keep sampling until the index has caught up with the fill's last block.
    const caughtUpStart = performance.now();
    for (;;) {
      const body = (await (await fetch(`${api}/health/ready`)).json()) as { data?: { lag: number } };
      if (body.data && body.data.lag === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const catchUpSeconds = (performance.now() - caughtUpStart) / 1000;
    filling = false;
    await sampler;
    const stats = (await (await fetch(`${api}/stats`)).json()) as { data: { transactions: number; addresses: number; latestBlock: number } };
    const ready = (await (await fetch(`${api}/health/ready`)).json()) as { data: { maxBlockIndexMs: number } };

    const busy = fixture.senders[1]!.address;
    const routes: { metric: string; url: string; body: string; shape: Parameters<typeof measureRequests>[6] }[] = [
      { metric: 'address history (25 per page)', url: `${api}/addresses/${busy}/transactions?limit=25`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      { metric: 'address token transfers (25 per page)', url: `${api}/addresses/${busy}/token-transfers?limit=25`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      { metric: 'block list (25 per page)', url: `${api}/blocks?limit=25`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      { metric: 'search (token symbol)', url: `${api}/search?q=tst`, body: '', shape: { method: 'GET', expect: '"ok":true', reject: '"ok":false' } },
      {
        metric: 'peer: eth_getLogs of the address token transfers',
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

    const sortedLags = [...lags].sort((a, b) => a - b);
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
        `  chain: ${stats.data.latestBlock + 1} blocks, ${stats.data.transactions} transactions indexed, ${stats.data.addresses} addresses; fill: ${run.mined} transfers mined in ${run.seconds.toFixed(1)} s (${Math.round(run.perSecond)} tx/s)`,
        `  index lag during the fill (blocks behind the head, ${lags.length} samples every 100 ms): p50 ${percentile(sortedLags, 0.5)}, p99 ${percentile(sortedLags, 0.99)}, max ${sortedLags[sortedLags.length - 1] ?? 0}; caught up ${catchUpSeconds.toFixed(1)} s after the last transfer was mined`,
        `  load: svc-loadgen, kept-alive connections, ${durationMs} ms per route and load after 1 s of warm-up: latency at ${latencyConnections} connections, throughput (and its queueing) at ${connections}; the peer line is the same node's JSON-RPC without the index`,
        '',
        `  slowest block to index: ${ready.data.maxBlockIndexMs} ms (block time ${blockTimeMs} ms)`,
        '',
        `Targets: address history p99 < 20 ms (at ${latencyConnections} connections): ${history.p99Ms < 20 ? 'met' : 'NOT met'} (${history.p99Ms.toFixed(2)} ms; ${results[0]!.r.p99Ms.toFixed(2)} ms at ${connections}); ` +
          `index lag under one block (every block indexed before the next one is made): ${ready.data.maxBlockIndexMs < blockTimeMs && (sortedLags[sortedLags.length - 1] ?? 0) <= 1 ? 'met' : 'NOT met'}.`,
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
