// No reader can make a validator miss blocks. Four CometBFT validators with 500 ms blocks; the
// hostile requests of test/support/hostile.ts are aimed at validator 0 for a window, then the
// network runs as long again without them. The validator's misses are counted as CometBFT records
// them (its absent flags in each block's last commit) in both windows, and printed: it misses no
// more blocks under the hostile reads than without them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import type { Hex } from 'viem';
import { waitFor } from './support/json-rpc.js';
import { basePortFor, startLocalNetwork, type LocalNetwork } from './support/testnet.js';
import { deployLoop, hostileRequests, sendHostile, watch } from './support/hostile.js';

const BLOCK_TIME_MS = 500;
const WINDOW_MS = 30_000;

interface CometCommit {
  result: { block: { header: { height: string }; last_commit: { height: string; signatures: { block_id_flag: number; validator_address: string }[] } } };
}

async function cometJson<T>(cometRpc: string, path: string): Promise<T> {
  const res = await fetch(`${cometRpc}${path}`);
  assert.equal(res.status, 200, `${path} answered ${res.status}`);
  return (await res.json()) as T;
}

async function cometHeight(cometRpc: string): Promise<number> {
  const status = await cometJson<{ result: { sync_info: { latest_block_height: string } } }>(cometRpc, '/status');
  return Number(status.result.sync_info.latest_block_height);
}

/**
 * Heights in [from, to) at which `address` is absent from the commit (read from the last commit of
 * the block after each), and how many heights were read.
 */
async function misses(cometRpc: string, address: string, from: number, to: number): Promise<{ missed: number[]; heights: number }> {
  const missed: number[] = [];
  for (let h = from; h < to; h++) {
    const block = await cometJson<CometCommit>(cometRpc, `/block?height=${h + 1}`);
    const signature = block.result.block.last_commit.signatures.find((s) => s.validator_address === address);
    if (signature === undefined || signature.block_id_flag === 1) missed.push(h);
  }
  return { missed, heights: to - from };
}

describe('hostile readers aimed at one validator of a CometBFT network', { timeout: 600_000 }, () => {
  let net: LocalNetwork;
  let loop: Hex;
  let cometRpc: string;
  let address: string;

  before(async () => {
    net = await startLocalNetwork({ validators: 4, blockTimeMs: BLOCK_TIME_MS, basePort: basePortFor(7) });
    cometRpc = `http://127.0.0.1:${net.manifest.nodes[0]!.cometRpcPort}`;
    const status = await cometJson<{ result: { validator_info: { address: string } } }>(cometRpc, '/status');
    address = status.result.validator_info.address;
    loop = await deployLoop(net.nodes[0]!.url);
    await waitFor('a few blocks', async () => ((await cometHeight(cometRpc)) >= 5 ? true : undefined), 60_000, 250);
  });

  after(async () => {
    await net?.dispose();
  });

  it('misses no more blocks under the hostile reads than in as long a window without them', async (t) => {
    const node = net.nodes[0]!;
    const watcher = await watch(node.url, `${node.explorerUrl}/api/v1/health/live`, node.pid!);
    const hostileFrom = await cometHeight(cometRpc);
    const t0 = performance.now();
    const lines: string[] = [];
    let rounds = 0;
    while (performance.now() - t0 < WINDOW_MS) {
      lines.push(...(await sendHostile(hostileRequests(node.url, loop), rounds % 2 === 1)));
      rounds += 1;
    }
    const hostileMs = performance.now() - t0;
    const hostileTo = await cometHeight(cometRpc);
    const seen = await watcher.stop();

    const quietFrom = hostileTo;
    await new Promise((r) => setTimeout(r, hostileMs));
    const quietTo = await cometHeight(cometRpc);

    const underLoad = await misses(cometRpc, address, hostileFrom, hostileTo);
    const quiet = await misses(cometRpc, address, quietFrom, quietTo);
    t.diagnostic(`hostile reads for ${(hostileMs / 1000).toFixed(1)} s (${rounds} rounds): validator 0 missed ${underLoad.missed.length} of ${underLoad.heights} blocks [${underLoad.missed.join(', ')}]`);
    t.diagnostic(`as long without them: missed ${quiet.missed.length} of ${quiet.heights} blocks [${quiet.missed.join(', ')}]`);
    t.diagnostic(
      `validator 0 under the reads: longest gap between its heads ${seen.maxGapMs.toFixed(0)} ms, /health/live slowest ${seen.maxHealthMs.toFixed(0)} ms, RSS at most ${(seen.maxRssBytes / 1024 ** 2).toFixed(0)} MiB`,
    );
    for (const line of lines.slice(0, 14)) t.diagnostic(`  ${line}`);
    assert.ok(underLoad.heights > 10 && quiet.heights > 10, 'both windows saw blocks');
    assert.ok(underLoad.missed.length <= quiet.missed.length, `missed ${underLoad.missed.length} under the hostile reads against ${quiet.missed.length} without`);
  });
});
