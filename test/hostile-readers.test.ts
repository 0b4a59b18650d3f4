// No reader can delay a block. A node with 500 ms blocks is sent what a hostile client sent a
// validator (test/support/hostile.ts): struct-log traces far past the reply cap (a ~39,000-step one
// over a 100-deep stack, one at the step limit over a 1,000-deep stack), eth_simulateV1 with a
// 2^64 - 1 gas call, a 2.4 MB quantity to eth_sendUserOperation and to svc_getBridgeDeposit,
// eth_feeHistory with a 5,000,000-digit count and 32 concurrent eth_estimateGas of a 30M-gas loop:
// first one after another, then all at once. Throughout, no gap between blocks is over two block
// times, /health/live answers within 250 ms and the node's RSS stays under 1.5 GiB; every oversized
// request gets its clear error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hex } from 'viem';
import { NodeProcess } from './support/node-process.js';
import { deployLoop, eventLoopLagMaxMs, hostileRequests, sendHostile, watch, type Watch } from './support/hostile.js';

const BLOCK_TIME_MS = 500;
const MAX_GAP_MS = 2 * BLOCK_TIME_MS;
const MAX_HEALTH_MS = 250;
const MAX_RSS_BYTES = 1.5 * 1024 ** 3;

describe('hostile readers against a node with 500 ms blocks', { timeout: 600_000 }, () => {
  let node: NodeProcess;
  let loop: Hex;

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: BLOCK_TIME_MS });
    loop = await deployLoop(node.url);
  });

  after(async () => {
    await node?.dispose();
  });

  const judge = (t: { diagnostic(m: string): void }, phase: string, seen: Watch, lagMs: number, outcomes: string[]): void => {
    t.diagnostic(
      `${phase}: ${seen.blocks} blocks, longest gap ${seen.maxGapMs.toFixed(0)} ms (before block ${seen.gapAt}); ` +
        `the node's longest event-loop delay ${lagMs.toFixed(0)} ms; ` +
        `/health/live ${seen.healthProbes} probes, slowest ${seen.maxHealthMs.toFixed(0)} ms; ` +
        `RSS at most ${(seen.maxRssBytes / 1024 ** 2).toFixed(0)} MiB`,
    );
    for (const o of outcomes) t.diagnostic(`  ${o}`);
    assert.ok(seen.maxGapMs <= MAX_GAP_MS, `a gap of ${seen.maxGapMs.toFixed(0)} ms between blocks (at most ${MAX_GAP_MS})`);
    assert.ok(seen.healthProbes > 0 && seen.maxHealthMs <= MAX_HEALTH_MS, `/health/live took ${seen.maxHealthMs.toFixed(0)} ms`);
    assert.ok(seen.maxRssBytes < MAX_RSS_BYTES, `RSS reached ${(seen.maxRssBytes / 1024 ** 2).toFixed(0)} MiB`);
  };

  for (const together of [false, true]) {
    it(`keeps its block time, health and memory while the hostile requests run ${together ? 'all at once' : 'one after another'}`, async (t) => {
      await eventLoopLagMaxMs(node.url);
      const watcher = await watch(node.url, `${node.explorerUrl}/api/v1/health/live`, node.pid!);
      const outcomes = await sendHostile(hostileRequests(node.url, loop), together);
      const seen = await watcher.stop();
      judge(t, together ? 'together' : 'one after another', seen, await eventLoopLagMaxMs(node.url), outcomes);
    });
  }
});
