// State sync: four validators with short blocks take a snapshot every SNAPSHOT_INTERVAL blocks; a
// node started empty with --state-sync-rpc joins from a snapshot (verified against the app hash
// CometBFT's light client trusts) instead of executing every block since genesis. The test prints
// the state sync join time beside a block-sync join's (estimated from a block-syncing node's
// measured rate), checks the joined node's roots at later heights, its balances at the head and the
// clear error for state below its snapshot.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readdirSync } from 'node:fs';
import { devAccounts } from '../../src/chain/dev-accounts.js';
import { addTestnetNode } from '../../src/consensus/cometbft/testnet.js';
import { JsonRpcError, rpc, waitFor } from '../support/json-rpc.js';
import { NodeProcess } from '../support/node-process.js';
import { basePortFor, blockNumber, startLocalNetwork, waitForHeight, type LocalNetwork } from '../support/testnet.js';

/** The height the network reaches before the node joins (2,000 by default; SVC_STATE_SYNC_HEIGHT overrides). */
const TARGET_HEIGHT = Number(process.env.SVC_STATE_SYNC_HEIGHT ?? 2000);
const SNAPSHOT_INTERVAL = 100;
const BLOCK_TIME_MS = 50;

let net: LocalNetwork;
const extra: NodeProcess[] = [];
const cometRpcOf = (i: number): string => `http://127.0.0.1:${net.manifest.nodes[i]!.cometRpcPort}`;

before(async () => {
  net = await startLocalNetwork({
    validators: 4,
    blockTimeMs: BLOCK_TIME_MS,
    basePort: basePortFor(35),
    extraArgs: ['--snapshot-interval', String(SNAPSHOT_INTERVAL), '--snapshot-keep', '2'],
  });
});

after(async () => {
  await Promise.all(extra.map((n) => n.dispose()));
  await net?.dispose();
});

async function startJoiner(args: string[]): Promise<{ node: NodeProcess; cometRpc: string }> {
  const n = addTestnetNode(net.dir);
  const node = await NodeProcess.start({
    dataDir: path.join(net.dir, n.dataDir),
    readyTimeoutMs: 120_000,
    extraArgs: [
      '--consensus', 'cometbft',
      '--cometbft-home', path.join(net.dir, n.cometbftHome),
      '--rpc-port', String(n.rpcPort), '--ws-port', String(n.wsPort), '--explorer-port', String(n.explorerPort),
      '--snapshot-interval', '0',
      ...args,
    ],
  });
  extra.push(node);
  return { node, cometRpc: `http://127.0.0.1:${n.cometRpcPort}` };
}

describe('state sync', () => {
  it(`an empty node joins a network at height ≥ ${TARGET_HEIGHT} from a snapshot, far faster than block sync`, { timeout: 600_000 }, async () => {
    const urls = net.nodes.map((n) => n.url);
    const started = performance.now();
    await waitForHeight(urls, TARGET_HEIGHT, 400_000);
    const networkHeight = await blockNumber(urls[0]!);
    console.log(`# network at height ${networkHeight} after ${Math.round((performance.now() - started) / 1000)} s (${BLOCK_TIME_MS} ms blocks)`);
    // Every validator holds its last snapshots (keep 2).
    const held = readdirSync(path.join(net.nodes[0]!.dataDir, 'snapshots')).filter((d) => /^\d+$/.test(d)).map(Number);
    assert.ok(held.length >= 1 && held.length <= 2, `snapshots held: ${held.join(', ')}`);

    // Join by state sync.
    const joinStart = performance.now();
    const joiner = await startJoiner(['--state-sync-rpc', `${cometRpcOf(0)},${cometRpcOf(1)}`]);
    const joinedAt = await waitFor('the state-synced node at the network height', async () => {
      const h = await blockNumber(joiner.node.url).catch(() => 0);
      return h >= networkHeight ? h : undefined;
    }, 300_000, 200);
    const stateSyncMs = performance.now() - joinStart;
    const from = Number(((await (await fetch(`${joiner.cometRpc}/block?height=1`)).json()) as { error?: unknown }).error ? -1 : 1);
    assert.equal(from, -1, "the joined node's CometBFT holds no block 1: it did not block-sync from genesis");
    const snapshotHeight = Math.max(...held.filter((h) => h <= joinedAt));
    console.log(`# state sync join: ${(stateSyncMs / 1000).toFixed(1)} s to height ${networkHeight} (snapshot at or below ${snapshotHeight})`);

    // Its roots equal the validators' at later heights.
    const later = joinedAt + 5;
    await waitForHeight([joiner.node.url, urls[0]!], later + 10, 60_000);
    for (const h of [joinedAt, later, later + 10]) {
      const tag = `0x${h.toString(16)}`;
      const [mine, theirs] = await Promise.all([joiner.node.url, urls[0]!].map((u) => rpc<{ stateRoot: string; hash: string }>(u, 'eth_getBlockByNumber', [tag, false])));
      assert.equal(mine!.stateRoot, theirs!.stateRoot, `state root at ${h}`);
      assert.equal(mine!.hash, theirs!.hash, `hash at ${h}`);
    }
    // Reads at the head are served; state below the snapshot is refused with a clear error.
    const dev = devAccounts()[0]!.address;
    const head = `0x${(await blockNumber(joiner.node.url)).toString(16)}`;
    const balance = await rpc<string>(joiner.node.url, 'eth_getBalance', [dev, head]);
    assert.ok(BigInt(balance) > 0n);
    assert.equal(balance, await rpc<string>(urls[0]!, 'eth_getBalance', [dev, head]));
    await assert.rejects(rpc(joiner.node.url, 'eth_getBalance', [dev, '0x1']), (err: unknown) => {
      assert.ok(err instanceof JsonRpcError);
      assert.equal(err.code, -32002);
      assert.match(err.message, /historical state not available/);
      return true;
    });
    // CometBFT's Info handshake: the app's restored height.
    const info = (await (await fetch(`${joiner.cometRpc}/abci_info`)).json()) as { result: { response: { last_block_height: string } } };
    assert.ok(Number(info.result.response.last_block_height) >= snapshotHeight);

    // Block sync of the same chain: an empty node without state sync, its rate measured for a while.
    const blockSyncStart = performance.now();
    const syncer = await startJoiner([]);
    const measureMs = 20_000;
    await new Promise((r) => setTimeout(r, measureMs));
    const reached = await blockNumber(syncer.node.url);
    const elapsed = performance.now() - blockSyncStart;
    const caughtUp = reached >= networkHeight;
    const blockSyncMs = caughtUp ? elapsed : (elapsed * networkHeight) / Math.max(1, reached);
    console.log(
      `# block sync join: ${caughtUp ? 'measured' : `estimated from ${reached} blocks in ${(elapsed / 1000).toFixed(1)} s`}: ${(blockSyncMs / 1000).toFixed(1)} s to height ${networkHeight}` +
        ` (state sync ${(stateSyncMs / 1000).toFixed(1)} s, ${(blockSyncMs / stateSyncMs).toFixed(1)}x faster)`,
    );
    assert.ok(blockSyncMs > stateSyncMs, 'state sync is faster than block sync');
  });
});
