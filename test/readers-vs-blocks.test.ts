// Heavy readers cannot stall block production: block execution runs on a native thread of its own,
// eth_call/eth_estimateGas and eth_getLogs on bounded lanes, argon2 behind a bounded gate, and log
// filters are capped. A real node process is loaded with 4 concurrent eth_getLogs of the largest
// filter it accepts, 32 concurrent eth_estimateGas of a 30M-gas loop and 40 logins, while the test
// counts its blocks and times /health/live.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpc as rpcParams } from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { svcDevnet } from './support/viem-chain.js';

const BLOCK_TIME_MS = 500;
/** Runtime code: n = calldata[0..32]; do { n -= 1 } while (n != 0); about 26 gas per turn. */
const LOOP_RUNTIME = '6000355b600190038060035700';
/** Init code that returns LOOP_RUNTIME (13 bytes). */
const LOOP_INIT = `0x600d600c600039600d6000f3${LOOP_RUNTIME}` as Hex;
/** Turns of the loop that burn about 30M gas. */
const TURNS_30M = 30_000_000n / 26n;

const word = (n: bigint): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const address = (i: number): Hex => `0x${(0x10_0000 + i).toString(16).padStart(40, '0')}`;
const topic = (i: number): Hex => `0x${(0x20_0000 + i).toString(16).padStart(64, '0')}`;

async function head(url: string): Promise<number> {
  return Number(BigInt(await rpc<string>(url, 'eth_blockNumber')));
}

/** Blocks per second over `ms`, counted from the head before and after. */
async function blockRate(url: string, ms: number): Promise<number> {
  const start = await head(url);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const end = await head(url);
  return (end - start) / ((performance.now() - t0) / 1000);
}

describe('block production while heavy readers load the node', { timeout: 300_000 }, () => {
  let node: NodeProcess;
  let loop: Hex;
  const email = 'reader-load@example.org';
  const password = 'a long enough password for argon2';

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: BLOCK_TIME_MS });
    const account = privateKeyToAccount(devPrivateKeys(2)[1]!);
    const wallet = createWalletClient({ account, chain: svcDevnet(node.url), transport: http(node.url) });
    const hash = await wallet.deployContract({ abi: [], bytecode: LOOP_INIT });
    for (let i = 0; i < 100; i++) {
      const receipt = await rpc<{ contractAddress: Hex; status: Hex } | null>(node.url, 'eth_getTransactionReceipt', [hash]);
      if (receipt) {
        assert.equal(receipt.status, '0x1');
        loop = receipt.contractAddress;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(loop, 'the loop contract was deployed');
    const res = await fetch(`${node.explorerUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    assert.ok(res.status === 201 || res.status === 200, `register answered ${res.status}`);
  });

  after(async () => {
    await node?.dispose();
  });

  it('refuses a log filter past the caps with -32602, over HTTP as over WebSocket', async () => {
    const tooMany = Array.from({ length: rpcParams.maxLogFilterAddresses + 1 }, (_, i) => address(i));
    await assert.rejects(rpc(node.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: tooMany }]), (err: unknown) => {
      assert.ok(err instanceof JsonRpcError);
      assert.equal(err.code, -32602);
      assert.match(err.message, /exceed max addresses/);
      return true;
    });
    const topics = Array.from({ length: rpcParams.maxLogFilterTopicsPerPosition + 1 }, (_, i) => topic(i));
    await assert.rejects(rpc(node.url, 'eth_newFilter', [{ topics: [topics] }]), /exceed max topics/);
  });

  it('estimates a 30M-gas loop', async () => {
    const gas = BigInt(await rpc<Hex>(node.url, 'eth_estimateGas', [{ to: loop, data: word(TURNS_30M) }]));
    assert.ok(gas > 29_000_000n && gas < 32_000_000n, `estimate ${gas}`);
  });

  it('keeps at least 90% of its block rate and answers /health/live within 100 ms', async (t) => {
    const baseline = await blockRate(node.url, 5_000);
    t.diagnostic(`baseline: ${baseline.toFixed(2)} blocks/s`);
    assert.ok(baseline > (1000 / BLOCK_TIME_MS) * 0.8, `the idle node makes blocks at its block time (${baseline})`);

    const addresses = Array.from({ length: rpcParams.maxLogFilterAddresses }, (_, i) => address(i));
    const topics = Array.from({ length: 4 }, (_, p) =>
      Array.from({ length: rpcParams.maxLogFilterTopicsPerPosition }, (_, i) => topic(p * 10_000 + i)),
    );
    const outcomes = { logs: 0, estimates: 0, logins: 0, busy: 0 };
    const count = async (kind: 'logs' | 'estimates' | 'logins', work: Promise<unknown>): Promise<void> => {
      try {
        await work;
        outcomes[kind] += 1;
      } catch (err) {
        // A full lane answers -32005 (or 503) at once: the node refused, it did not stall.
        if (err instanceof JsonRpcError && err.code === -32005) outcomes.busy += 1;
        else throw err;
      }
    };
    const login = async (): Promise<void> => {
      const res = await fetch(`${node.explorerUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      if (res.status === 503) throw new JsonRpcError(-32005, 'explorer busy');
      assert.equal(res.status, 200, `login answered ${res.status}`);
    };

    // /health/live is timed from a worker thread, so that this process's own work sending the load
    // does not count as the node's latency.
    const prober = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      const { performance } = require('node:perf_hooks');
      const probes = [];
      let loading = true;
      parentPort.on('message', () => { loading = false; });
      (async () => {
        // The worker's first fetch loads the HTTP client and opens its connection: a warm-up, not a probe.
        await (await fetch(workerData.url)).arrayBuffer();
        parentPort.postMessage('ready');
        while (loading) {
          const t0 = performance.now();
          const res = await fetch(workerData.url);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error('/health/live answered ' + res.status);
          probes.push([performance.timeOrigin + t0, performance.now() - t0]);
          await new Promise((r) => setTimeout(r, 100));
        }
        parentPort.postMessage(probes);
      })();`,
      { eval: true, workerData: { url: `${node.explorerUrl}/api/v1/health/live` } },
    );
    /** Each probe: when it was sent (ms since the epoch) and how long the answer took. */
    const probed = new Promise<[number, number][]>((resolve, reject) => {
      prober.on('message', (m: unknown) => {
        if (m !== 'ready') resolve(m as [number, number][]);
      });
      prober.once('error', reject);
    });
    await new Promise<void>((resolve) => prober.once('message', () => resolve()));
    await new Promise((r) => setTimeout(r, 300));

    const startHead = await head(node.url);
    const t0 = performance.now();
    const loadStartEpoch = performance.timeOrigin + t0;
    const load = Promise.all([
      ...Array.from({ length: 4 }, () =>
        count('logs', rpc(node.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: addresses, topics }])),
      ),
      ...Array.from({ length: 32 }, () => count('estimates', rpc(node.url, 'eth_estimateGas', [{ to: loop, data: word(TURNS_30M) }]))),
      ...Array.from({ length: 40 }, () => count('logins', login())),
    ]);
    // The window is at least 10 s, and as long as the load lasts.
    await Promise.all([load, new Promise((r) => setTimeout(r, 10_000))]);
    const seconds = (performance.now() - t0) / 1000;
    const loaded = ((await head(node.url)) - startHead) / seconds;
    prober.postMessage('stop');
    const probes = await probed;
    await prober.terminate();

    const latencies = probes.map(([, ms]) => ms);
    const worst = Math.max(...latencies);
    const slowest = [...probes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([at, ms]) => `${ms.toFixed(1)} ms at +${(at - loadStartEpoch).toFixed(0)} ms`);
    t.diagnostic(
      `under load for ${seconds.toFixed(1)} s: ${loaded.toFixed(2)} blocks/s (${((loaded / baseline) * 100).toFixed(0)}% of baseline); ` +
        `done: ${outcomes.logs} getLogs, ${outcomes.estimates} estimates, ${outcomes.logins} logins, ${outcomes.busy} refused busy; ` +
        `/health/live: ${probes.length} probes, slowest ${slowest.join(', ')}; median ${latencies.sort((a, b) => a - b)[latencies.length >> 1]!.toFixed(1)} ms`,
    );
    assert.equal(outcomes.logs + outcomes.estimates + outcomes.logins + outcomes.busy, 76);
    assert.ok(outcomes.estimates > 0 && outcomes.logs > 0 && outcomes.logins > 0, 'each kind of reader was served');
    assert.ok(loaded >= baseline * 0.9, `block rate under load ${loaded.toFixed(2)}/s is below 90% of ${baseline.toFixed(2)}/s`);
    assert.ok(probes.length > 0 && worst < 100, `/health/live took up to ${worst.toFixed(1)} ms`);
  });
});
