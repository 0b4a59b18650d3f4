// geth's limits on calls and a bound on every reply (docs/rpc.md, Limits): the RPC gas cap
// (--rpc-gas-cap) on eth_call and eth_estimateGas and one budget for a whole eth_simulateV1, the
// RPC EVM timeout (--rpc-evm-timeout-ms) on eth_call, eth_estimateGas, eth_createAccessList and
// eth_simulateV1, and the reply limit (--rpc-max-response-bytes) on traces, logs and every other
// answer — over HTTP, in batches and over WebSocket.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, createWalletClient, http, type Hex, type PrivateKeyAccount, type WalletClient, type Transport, type Chain } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import type { NodeConfig } from '../src/config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, postRaw, rpc, type JsonRpcResponse } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { svcDevnet } from './support/viem-chain.js';

/** Init code that never ends: JUMPDEST PUSH1 0 JUMP. */
const ENDLESS = '0x5b600056';
/** Init code that pushes `depth` words and loops until its gas runs out: every struct-log step carries the whole stack. */
function deepStackLoop(depth: number): Hex {
  const dest = 33 + (depth - 1);
  return `0x7f${'ff'.repeat(32)}${'80'.repeat(depth - 1)}5b61${dest.toString(16).padStart(4, '0')}56` as Hex;
}
/** Init code that logs `bytes` zero bytes of memory (LOG0) and stops. */
function bigLog(bytes: number): Hex {
  return `0x62${bytes.toString(16).padStart(6, '0')}6000a000` as Hex;
}

interface Started {
  node: RunningNode;
  dir: string;
  wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
}

async function start(overrides: Partial<NodeConfig>): Promise<Started> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-rpc-limits-'));
  const node = await startNode(devnetConfig(dir, { blockTimeMs: 100, ...overrides }));
  const chain = svcDevnet(node.rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(10)[8]!), chain, transport: http(node.rpcUrl), pollingInterval: 25 });
  return { node, dir, wallet };
}

async function stop(s: Started | undefined): Promise<void> {
  await s?.node.stop();
  if (s) rmSync(s.dir, { recursive: true, force: true });
}

/** The JSON-RPC error a call answers (fails the test when it answers a result). */
async function refusal(url: string, method: string, params: unknown[]): Promise<JsonRpcError> {
  return rpc(url, method, params).then(
    (result) => assert.fail(`${method} answered ${JSON.stringify(result).slice(0, 200)}`),
    (err: unknown) => {
      if (!(err instanceof JsonRpcError)) throw err;
      return err;
    },
  );
}

/** How long `run` takes, with what it gave. */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await run();
  return { value, ms: performance.now() - t0 };
}

describe('the RPC gas cap and the reply limit', { timeout: 180_000 }, () => {
  let s: Started;
  const CAP = 1_000_000;
  const LIMIT = 200_000;

  before(async () => {
    s = await start({ rpcGasCap: CAP, rpcMaxResponseBytes: LIMIT });
  });
  after(() => stop(s));

  it('caps eth_call and eth_estimateGas at --rpc-gas-cap', async () => {
    const url = s.node.rpcUrl;
    const estimate = await refusal(url, 'eth_estimateGas', [{ data: ENDLESS, gas: '0x2faf080' }]);
    assert.equal(estimate.code, -32000);
    assert.equal(estimate.message, `gas required exceeds allowance (${CAP})`);
    // A call naming 50M gas runs with the cap: the endless loop runs out of it.
    const { value: call, ms } = await timed(() => refusal(url, 'eth_call', [{ data: ENDLESS, gas: '0x2faf080' }]));
    assert.equal(call.code, -32000);
    assert.equal(call.message, 'out of gas');
    assert.ok(ms < 1_000, `eth_call took ${ms.toFixed(0)} ms`);
  });

  it('gives a whole eth_simulateV1 one gas budget, and refuses a call beyond its block', async () => {
    const url = s.node.rpcUrl;
    const calls = (n: number) => Array.from({ length: n }, () => ({ data: ENDLESS, gas: '0xc3500' })); // 800,000 each
    const [block] = await rpc<{ calls: { status: Hex; gasUsed: Hex }[] }[]>(url, 'eth_simulateV1', [{ blockStateCalls: [{ calls: calls(2) }] }]);
    assert.deepEqual(
      block!.calls.map((c) => [c.status, BigInt(c.gasUsed)]),
      [
        ['0x0', 800_000n],
        ['0x0', 200_000n],
      ],
      'the second call gets what the first left of the cap',
    );
    const spent = await refusal(url, 'eth_simulateV1', [{ blockStateCalls: [{ calls: calls(2) }, { calls: calls(1) }] }]);
    assert.equal(spent.code, -32000);
    assert.match(spent.message, /used all of the RPC gas cap \(1000000\)/);
    const { value: beyond, ms } = await timed(() => refusal(url, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [{ data: ENDLESS, gas: '0xffffffffffffffff' }] }] }]));
    assert.equal(beyond.code, -38015);
    assert.match(beyond.message, /^block gas limit reached/);
    assert.ok(ms < 1_000, `refused in ${ms.toFixed(0)} ms`);
  });

  it('stops a struct-log trace at the reply limit, counting its stack, and lets a small trace through in a batch and over WebSocket', async () => {
    const url = s.node.rpcUrl;
    const from = s.wallet.account.address;
    // 100 stack words a step: about 7 kB of JSON a step, past 200,000 bytes within 30 steps.
    const { value: big, ms } = await timed(() => refusal(url, 'debug_traceCall', [{ from, data: deepStackLoop(100), gas: '0xf4240' }, 'latest', {}]));
    assert.equal(big.code, -32000);
    assert.match(big.message, /^response too large: the struct log exceeds the reply limit of 200000 bytes/);
    assert.ok(ms < 2_000, `refused in ${ms.toFixed(0)} ms`);
    // Without the stack, and with geth's limit on the steps written, the same loop fits.
    const small = { from, data: deepStackLoop(100), gas: '0x186a0' }; // 100,000 gas: some 10,000 steps
    const trace = await rpc<{ structLogs: { stack?: unknown }[] }>(url, 'debug_traceCall', [small, 'latest', { disableStack: true, limit: 500 }]);
    assert.equal(trace.structLogs.length, 500);
    assert.equal(trace.structLogs[0]!.stack, undefined);
    // Bytes made natively share a batch with answers made in JavaScript.
    const batch = await postRaw(
      url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'debug_traceCall', params: [small, 'latest', { tracer: 'callTracer' }] },
        { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 3, method: 'debug_traceCall', params: [{ from, data: deepStackLoop(100), gas: '0xf4240' }, 'latest', {}] },
      ]),
    );
    const answers = batch.json as JsonRpcResponse[];
    assert.equal(answers.length, 3, batch.text.slice(0, 300));
    assert.equal((answers[0]!.result as { type: string }).type, 'CREATE');
    assert.equal(answers[1]!.result, await rpc(url, 'eth_chainId'));
    assert.equal(answers[2]!.error?.code, -32000);
    // And go out over WebSocket as they are.
    const socket = new WebSocket(s.node.wsUrl);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const reply = new Promise<string>((resolve) => socket.once('message', (data: WebSocket.RawData) => resolve(String(data))));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'debug_traceCall', params: [small, 'latest', { tracer: 'callTracer' }] }));
    const answer = JSON.parse(await reply) as JsonRpcResponse;
    socket.close();
    assert.equal(answer.id, 7);
    assert.equal((answer.result as { type: string }).type, 'CREATE');
  });

  it('refuses eth_getLogs past the reply limit before gathering more, and any answer past it', async () => {
    const url = s.node.rpcUrl;
    const client = createPublicClient({ chain: svcDevnet(url), transport: http(url), pollingInterval: 25 });
    const hash = await s.wallet.sendTransaction({ data: bigLog(120_000), gas: 2_000_000n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.logs.length, 1);
    const at = `0x${receipt.blockNumber.toString(16)}`;
    const logs = await refusal(url, 'eth_getLogs', [{ fromBlock: at, toBlock: at }]);
    assert.equal(logs.code, -32000);
    assert.equal(logs.message, 'response too large: the reply exceeds the limit of 200000 bytes');
    // A log that fits comes back whole.
    const small = await s.wallet.sendTransaction({ data: bigLog(100), gas: 200_000n });
    const smallAt = (await client.waitForTransactionReceipt({ hash: small })).blockNumber;
    const found = await rpc<{ data: Hex }[]>(url, 'eth_getLogs', [{ fromBlock: `0x${smallAt.toString(16)}`, toBlock: `0x${smallAt.toString(16)}` }]);
    assert.equal(found.length, 1);
    assert.equal(found[0]!.data, `0x${'00'.repeat(100)}`);
    // An answer made in JavaScript is held to the same limit: a block whose transaction carries 120 kB.
    const fat = await s.wallet.sendTransaction({ to: s.wallet.account.address, data: `0x${'ab'.repeat(120_000)}`, gas: 5_000_000n });
    const block = (await client.waitForTransactionReceipt({ hash: fat })).blockHash;
    const whole = await refusal(url, 'eth_getBlockByHash', [block, true]);
    assert.equal(whole.code, -32000);
    assert.equal(whole.message, 'response too large: the reply exceeds the limit of 200000 bytes');
    assert.ok(await rpc(url, 'eth_getBlockByHash', [block, false]), 'the block with hashes only fits');
  });
});

describe('the RPC EVM timeout', { timeout: 120_000 }, () => {
  let s: Started;

  before(async () => {
    s = await start({ rpcGasCap: 0, rpcEvmTimeoutMs: 1_000 });
  });
  after(() => stop(s));

  it('stops eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1 at it with geth\'s text', async () => {
    const url = s.node.rpcUrl;
    const unending = '0x4000000000000000';
    const huge = { gasLimit: unending };
    const cases: [string, unknown[]][] = [
      ['eth_call', [{ data: ENDLESS, gas: unending }]],
      ['eth_estimateGas', [{ data: ENDLESS }, 'latest', null, huge]],
      ['eth_createAccessList', [{ data: ENDLESS, gas: unending }]],
      ['eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: huge, calls: [{ data: ENDLESS }] }] }]],
    ];
    for (const [method, params] of cases) {
      const { value: err, ms } = await timed(() => refusal(url, method, params));
      assert.equal(err.code, -32000, `${method}: ${err.message}`);
      assert.equal(err.message, 'execution aborted (timeout = 1s)', method);
      assert.ok(ms >= 1_000 && ms < 3_000, `${method} answered after ${ms.toFixed(0)} ms`);
    }
  });
});

describe('an endless eth_simulateV1 under the default limits', { timeout: 120_000 }, () => {
  let s: Started;

  before(async () => {
    s = await start({});
  });
  after(() => stop(s));

  it('ends within the gas cap and the timeout, and an eth_call sent with it answers within 1 s', async () => {
    const url = s.node.rpcUrl;
    const simulation = timed(() => rpc<{ calls: { status: Hex; gasUsed: Hex }[] }[]>(url, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [{ data: ENDLESS }] }] }]));
    await new Promise((r) => setTimeout(r, 10));
    const call = await timed(() => rpc(url, 'eth_call', [{ to: s.wallet.account.address }]));
    assert.equal(call.value, '0x');
    assert.ok(call.ms < 1_000, `eth_call answered after ${call.ms.toFixed(0)} ms`);
    const { value: blocks, ms } = await simulation;
    assert.ok(ms < 5_000, `eth_simulateV1 answered after ${ms.toFixed(0)} ms`);
    assert.equal(blocks[0]!.calls[0]!.status, '0x0');
    assert.equal(BigInt(blocks[0]!.calls[0]!.gasUsed), 50_000_000n, 'the call ran out of the RPC gas cap');
  });
});
