// Sub-second blocks keep block time: the header's seconds may repeat, the block's millisecond time
// (timestampMs: the seconds and the milliseconds mixHash carries) strictly increases and follows the
// wall clock, and the network stats, the explorer and the epochs are timed by it. Before the
// millisecond time, a 250 ms block time gave whole seconds raised to parent + 1: avgBlockTimeMs 1000
// and a chain clock running ahead of the wall clock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { explorerClient } from './support/explorer-client.js';
import { rpc } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';

const BLOCK_TIME_MS = 250;
/** Blocks of the devnet's epochs (src/params.ts staking.epochLengthBlocks). */
const EPOCH_BLOCKS = 10;

type RpcBlock = { number: string; timestamp: string; timestampMs: string; mixHash: string };
const n = (hex: string): number => Number(BigInt(hex));

describe(`blocks every ${BLOCK_TIME_MS} ms`, () => {
  let node: NodeProcess;
  const explorer = explorerClient(() => `${node.explorerUrl}/api/v1`);
  /** Wall clock minus the head's time, sampled while the chain runs. */
  const lags: number[] = [];

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: BLOCK_TIME_MS });
    // Four epochs and more: the first epoch is cut by the node's start.
    const until = Date.now() + BLOCK_TIME_MS * EPOCH_BLOCKS * 4.5;
    while (Date.now() < until) {
      const head = await rpc<RpcBlock>(node.url, 'eth_getBlockByNumber', ['latest', false]);
      // Genesis carries the network's fixed date, not when this node started.
      if (n(head.number) > 0) lags.push(Date.now() - n(head.timestampMs));
      await sleep(97);
    }
  });
  after(async () => {
    await node?.dispose();
  });

  it('carries the milliseconds in the header: seconds may repeat, the millisecond time strictly increases', async () => {
    const head = n((await rpc<RpcBlock>(node.url, 'eth_getBlockByNumber', ['latest', false])).number);
    let previous: RpcBlock | undefined;
    let sharedSeconds = 0;
    for (let h = 1; h <= head; h++) {
      const b = await rpc<RpcBlock>(node.url, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false]);
      assert.equal(n(b.timestampMs), n(b.timestamp) * 1000 + Number(BigInt(b.mixHash) & 0xffffn), `block ${h}: seconds and mixHash's milliseconds`);
      if (previous) {
        assert.ok(n(b.timestamp) >= n(previous.timestamp), `block ${h}: seconds do not go back`);
        assert.ok(n(b.timestampMs) > n(previous.timestampMs), `block ${h}: the millisecond time increases`);
        if (b.timestamp === previous.timestamp) sharedSeconds++;
      }
      previous = b;
    }
    assert.ok(sharedSeconds > head / 2, `${sharedSeconds} of ${head} blocks share their parent's second`);
  });

  it('keeps the chain clock within one block time of the wall clock', () => {
    assert.ok(lags.length > 20);
    // The head is at most one slot old (plus the time to seal and answer), never ahead of the clock.
    assert.ok(Math.min(...lags) >= -5, `head ahead of the wall clock: ${Math.min(...lags)} ms`);
    assert.ok(Math.max(...lags) < BLOCK_TIME_MS * 2, `head behind the wall clock by ${Math.max(...lags)} ms`);
  });

  it('times avgBlockTimeMs, tps and the explorer stats by the millisecond time', async () => {
    const stats = await rpc<{ avgBlockTimeMs: number }>(node.url, 'svc_getNetworkStats');
    assert.ok(Math.abs(stats.avgBlockTimeMs - BLOCK_TIME_MS) <= BLOCK_TIME_MS * 0.1, `avgBlockTimeMs ${stats.avgBlockTimeMs}`);
    const explorerStats = await explorer.ok<{ averageBlockTimeMs: number }>('/stats');
    assert.ok(Math.abs(explorerStats.averageBlockTimeMs - BLOCK_TIME_MS) <= BLOCK_TIME_MS * 0.1, `explorer averageBlockTimeMs ${explorerStats.averageBlockTimeMs}`);
    const latest = await explorer.ok<{ items: { timestamp: number; timestampMs: number }[] }>('/blocks?limit=5');
    for (const b of latest.items) assert.equal(Math.floor(b.timestampMs / 1000), b.timestamp);
  });

  it('lasts an epoch its durationMs', async () => {
    const epoch = await rpc<{ number: string; startBlock: string; startTimeMs: string; durationMs: string }>(node.url, 'svc_getEpoch');
    assert.equal(n(epoch.durationMs), EPOCH_BLOCKS * BLOCK_TIME_MS);
    const current = n(epoch.number);
    assert.ok(current >= 3, `epoch ${current}`);
    // Each whole epoch: from its first block to the next epoch's first block.
    const startMs = async (e: number) =>
      n((await rpc<RpcBlock>(node.url, 'eth_getBlockByNumber', [`0x${(e * EPOCH_BLOCKS).toString(16)}`, false])).timestampMs);
    assert.equal(await startMs(current), n(epoch.startTimeMs));
    const lasted: number[] = [];
    for (let e = 1; e < current; e++) lasted.push((await startMs(e + 1)) - (await startMs(e)));
    const mean = lasted.reduce((s, x) => s + x, 0) / lasted.length;
    assert.ok(Math.abs(mean - n(epoch.durationMs)) <= n(epoch.durationMs) * 0.1, `epochs lasted ${lasted.join(', ')} ms`);
    const explorerEpoch = await explorer.ok<{ startTimeMs: number; durationMs: number }>('/network/epoch');
    assert.equal(explorerEpoch.durationMs, n(epoch.durationMs));
    assert.equal(typeof explorerEpoch.startTimeMs, 'number');
  });
});
