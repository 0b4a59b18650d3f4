// What a hostile client sent a validator's public RPC, and a watcher of the node meanwhile: the
// gaps between its blocks, /health/live's latency and its resident memory. Shared by the solo
// node's test and the CometBFT network's (test/hostile-readers.test.ts, test/cometbft-hostile.test.ts).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devPrivateKeys } from './dev-accounts.js';
import { postRaw, rpc, type JsonRpcResponse } from './json-rpc.js';
import { svcDevnet } from './viem-chain.js';

/** Runtime code: n = calldata[0..32]; do { n -= 1 } while (n != 0); about 26 gas per turn. */
const LOOP_RUNTIME = '6000355b600190038060035700';
const LOOP_INIT = `0x600d600c600039600d6000f3${LOOP_RUNTIME}` as Hex;
const TURNS_30M = 30_000_000n / 26n;
const word = (n: bigint): Hex => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * Init code that fills the stack with `depth` words of 2^256 - 1 (PUSH32 then DUP1s) and then jumps
 * in a loop (JUMPDEST PUSH2 JUMP) until its gas runs out: every step of the struct log carries the
 * whole stack, about 69 bytes a word.
 */
export function deepStackLoop(depth: number): Hex {
  const dest = 33 + (depth - 1);
  return `0x7f${'ff'.repeat(32)}${'80'.repeat(depth - 1)}5b61${dest.toString(16).padStart(4, '0')}56` as Hex;
}

/** Deploys the 26-gas-a-turn loop with dev account `sender` and returns its address. */
export async function deployLoop(url: string, sender = 1): Promise<Hex> {
  const account = privateKeyToAccount(devPrivateKeys(sender + 1)[sender]!);
  const wallet = createWalletClient({ account, chain: svcDevnet(url), transport: http(url) });
  const hash = await wallet.deployContract({ abi: [], bytecode: LOOP_INIT });
  for (let i = 0; i < 300; i++) {
    const receipt = await rpc<{ contractAddress: Hex; status: Hex } | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt) {
      assert.equal(receipt.status, '0x1');
      return receipt.contractAddress;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the loop contract was not mined');
}

export interface Watch {
  /** Longest time between two heads the poller saw (ms), and the block that ended it. */
  maxGapMs: number;
  gapAt: number;
  blocks: number;
  healthProbes: number;
  maxHealthMs: number;
  maxRssBytes: number;
}

/**
 * Starts a watcher thread (its own event loop, so that the test's work sending the load does not
 * count as the node's latency): eth_blockNumber every 20 ms, /health/live every 100 ms, the node's
 * VmRSS. `stop()` ends it and returns what it saw.
 */
export async function watch(rpcUrl: string, healthUrl: string, pid: number): Promise<{ stop(): Promise<Watch> }> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    const { readFileSync } = require('node:fs');
    const { performance } = require('node:perf_hooks');
    let on = true;
    parentPort.on('message', () => { on = false; });
    const seen = { maxGapMs: 0, gapAt: 0, blocks: 0, healthProbes: 0, maxHealthMs: 0, maxRssBytes: 0 };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
    const head = async () => (await (await fetch(workerData.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).result;
    const rss = () => Number(/VmRSS:\\s+(\\d+) kB/.exec(readFileSync('/proc/' + workerData.pid + '/status', 'utf8'))[1]) * 1024;
    (async () => {
      await head();
      await (await fetch(workerData.healthUrl)).arrayBuffer();
      parentPort.postMessage('ready');
      let last = await head();
      let lastAt = performance.now();
      const polls = (async () => {
        while (on) {
          const h = await head();
          const now = performance.now();
          if (h !== last) {
            seen.blocks += Number(BigInt(h) - BigInt(last));
            if (now - lastAt > seen.maxGapMs) { seen.maxGapMs = now - lastAt; seen.gapAt = Number(BigInt(h)); }
            last = h;
            lastAt = now;
          }
          seen.maxRssBytes = Math.max(seen.maxRssBytes, rss());
          await new Promise((r) => setTimeout(r, 20));
        }
        // A head that stopped moving at the end counts too.
        seen.maxGapMs = Math.max(seen.maxGapMs, performance.now() - lastAt);
      })();
      const probes = (async () => {
        while (on) {
          const t0 = performance.now();
          const res = await fetch(workerData.healthUrl);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error('/health/live answered ' + res.status);
          seen.healthProbes += 1;
          seen.maxHealthMs = Math.max(seen.maxHealthMs, performance.now() - t0);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      await Promise.all([polls, probes]);
      parentPort.postMessage(seen);
    })().catch((err) => parentPort.postMessage({ error: String((err && err.stack) || err) }));`,
    { eval: true, workerData: { rpcUrl, healthUrl, pid } },
  );
  const result = new Promise<Watch>((resolve, reject) => {
    worker.on('message', (m: unknown) => {
      if (m === 'ready') return;
      if (typeof m === 'object' && m !== null && 'error' in m) reject(new Error(String((m as { error: unknown }).error)));
      else resolve(m as Watch);
    });
    worker.once('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const seen = await result;
      await worker.terminate();
      return seen;
    },
  };
}

/** One raw JSON-RPC request; the parsed answer and how long it took. */
async function send(url: string, method: string, params: unknown[]): Promise<{ answer: JsonRpcResponse; ms: number }> {
  const t0 = performance.now();
  const { status, json, text } = await postRaw(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  assert.equal(status, 200, `${method} answered HTTP ${status}: ${text.slice(0, 200)}`);
  return { answer: json as JsonRpcResponse, ms: performance.now() - t0 };
}

function shortError(method: string, answer: JsonRpcResponse, code: number, pattern: RegExp): string {
  assert.ok(answer.error, `${method} answered an error`);
  assert.equal(answer.error.code, code, `${method}: ${answer.error.message.slice(0, 200)}`);
  assert.match(answer.error.message, pattern);
  assert.ok(answer.error.message.length < 200, `${method}'s message is short (${answer.error.message.length} chars)`);
  return answer.error.message;
}

export interface HostileRequest {
  name: string;
  /** Sends it, checks the answer (the clear error, or a bounded result) and says what came back. */
  run: () => Promise<string>;
}

/** The hostile requests, each with the check of its answer. `loop` is deployLoop's contract. */
export function hostileRequests(url: string, loop: Hex): HostileRequest[] {
  const from = privateKeyToAccount(devPrivateKeys(3)[2]!).address;
  const huge = `0x${'f'.repeat(2_400_000)}`;
  const userOperation = {
    sender: from,
    nonce: huge,
    initCode: '0x',
    callData: '0x',
    callGasLimit: '0x10000',
    verificationGasLimit: '0x10000',
    preVerificationGas: '0x10000',
    maxFeePerGas: '0x3b9aca00',
    maxPriorityFeePerGas: '0x3b9aca00',
    paymasterAndData: '0x',
    signature: '0x',
  };
  const tooLarge = /bits|too long|too large|exceeds/;
  return [
    {
      name: 'debug_traceCall, 211k gas over a 100-deep stack (~39k steps)',
      run: async () => {
        const { answer } = await send(url, 'debug_traceCall', [{ from, data: deepStackLoop(100), gas: '0x33838' }, 'latest', {}]);
        return shortError('debug_traceCall', answer, -32000, /exceeds|larger|limit/);
      },
    },
    {
      name: 'debug_traceCall at the step limit over a 1,000-deep stack',
      run: async () => {
        const { answer } = await send(url, 'debug_traceCall', [{ from, data: deepStackLoop(1000), gas: '0x2dc6c0' }, 'latest', {}]);
        return shortError('debug_traceCall', answer, -32000, /exceeds|larger|limit|steps/);
      },
    },
    {
      name: 'eth_simulateV1 with a 2^64 - 1 gas endless loop',
      run: async () => {
        const { answer, ms } = await send(url, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from, data: '0x5b600056', gas: '0xffffffffffffffff' }] }] }, 'latest']);
        assert.ok(ms < 7_000, `eth_simulateV1 answered in ${ms.toFixed(0)} ms`);
        if (answer.error) return `error ${answer.error.code}: ${answer.error.message}`;
        const call = (answer.result as { calls: { status: Hex; gasUsed: Hex; error?: { message: string } }[] }[])[0]!.calls[0]!;
        assert.equal(call.status, '0x0', 'the endless loop fails');
        assert.ok(BigInt(call.gasUsed) <= 50_000_000n, `gas used ${BigInt(call.gasUsed)} is within the RPC gas cap`);
        return `call failed: ${call.error?.message ?? '?'}, gas ${BigInt(call.gasUsed)}`;
      },
    },
    {
      name: 'eth_sendUserOperation with a 2.4 MB nonce',
      run: async () => {
        const { answer } = await send(url, 'eth_sendUserOperation', [userOperation, '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789']);
        return shortError('eth_sendUserOperation', answer, -32602, tooLarge);
      },
    },
    {
      name: 'svc_getBridgeDeposit with a 2.4 MB id',
      run: async () => {
        const { answer } = await send(url, 'svc_getBridgeDeposit', [huge]);
        return shortError('svc_getBridgeDeposit', answer, -32602, tooLarge);
      },
    },
    {
      name: 'eth_feeHistory with a 5,000,000-digit count',
      run: async () => {
        const { answer } = await send(url, 'eth_feeHistory', ['9'.repeat(5_000_000), 'latest', []]);
        return shortError('eth_feeHistory', answer, -32602, tooLarge);
      },
    },
    {
      name: '32 concurrent eth_estimateGas of a 30M-gas loop',
      run: async () => {
        const answers = await Promise.all(Array.from({ length: 32 }, () => send(url, 'eth_estimateGas', [{ to: loop, data: word(TURNS_30M) }])));
        let estimated = 0;
        for (const { answer } of answers) {
          if (answer.error) assert.ok([-32000, -32005].includes(answer.error.code), `estimate answered ${answer.error.code} ${answer.error.message}`);
          else {
            assert.ok(BigInt(answer.result as Hex) > 29_000_000n);
            estimated += 1;
          }
        }
        return `${estimated} estimated, ${answers.length - estimated} refused`;
      },
    },
  ];
}

/**
 * The node's longest event-loop delay since the last call (prom-client's monitorEventLoopDelay
 * gauges, reset at each scrape of /metrics), in milliseconds.
 */
export async function eventLoopLagMaxMs(rpcUrl: string): Promise<number> {
  const text = await (await fetch(`${rpcUrl.replace(/\/$/, '')}/metrics`)).text();
  const line = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  assert.ok(line, 'the node reports nodejs_eventloop_lag_max_seconds');
  return Number(line[1]) * 1000;
}

/** Runs the requests one after another (or all at once) and returns a line for each. */
export async function sendHostile(requests: HostileRequest[], together: boolean): Promise<string[]> {
  const line = async ({ name, run }: HostileRequest): Promise<string> => {
    const t0 = performance.now();
    const outcome = await run();
    return `${name}: ${(performance.now() - t0).toFixed(0)} ms, ${outcome.slice(0, 160)}`;
  };
  if (together) return Promise.all(requests.map(line));
  const lines: string[] = [];
  for (const r of requests) lines.push(await line(r));
  return lines;
}
