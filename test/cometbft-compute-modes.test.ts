// Every node reports every validator's compute mode from the chain's records, not from whether the
// validator has proposed: four validators behind CometBFT, in-process, two in mode pow and two in
// mode none (--pow-threads 0). Each signs its mode with its consensus key and sends it through the
// network's mempool at start. By the first height H at which the chain's records give every validator
// the mode its own node runs, some validator's mode was recorded at a block s although it proposed
// none of blocks 1..s: it reached every node from its announcement (before this, a mode was
// recorded only from the extra data of the validator's own blocks). All nodes agree on the
// validators' compute fields and on every root.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startNode, type RunningNode } from '../src/node.js';
import { readManifest } from '../src/consensus/cometbft/testnet.js';
import { SVC_NODE } from './support/cli-process.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { basePortFor } from './support/testnet.js';

interface ValidatorEntry {
  address: string;
  computeMode: string;
  providesCompute: boolean;
  hashrate: string;
  inferenceScore: string;
  tasksCompleted: string;
}

let dir: string;
let nodes: RunningNode[] = [];
const address = (n: RunningNode) => `0x${n.coinbase.toString('hex')}` as `0x${string}`;

describe('compute modes on a network of four validators', () => {
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-net-modes-'));
    const init = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', '4', '--base-port', String(basePortFor(29)), '--block-time-ms', '200'], { encoding: 'utf8' });
    assert.equal(init.status, 0, init.stderr);
    const manifest = readManifest(dir);
    nodes = await Promise.all(
      manifest.nodes.map((n, i) =>
        startNode(devnetConfig(path.join(dir, n.dataDir), { consensus: 'cometbft', cometbftHome: path.join(dir, n.cometbftHome), powThreads: i < 2 ? 1 : 0 })),
      ),
    );
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('records each validator\'s own mode on every node before every validator has proposed, and every node agrees', { timeout: 120_000 }, async (t) => {
    const own = new Map(nodes.map((n) => [address(n), n.services.compute.mode]));
    assert.deepEqual([...own.values()].sort(), ['none', 'none', 'pow', 'pow']);

    // Every node's records give every validator its node's mode (in committed blocks: the records
    // may be read while a block runs).
    await waitFor('every validator\'s own mode on every node', async () => {
      for (const n of nodes) {
        for (const [a, mode] of own) {
          const r = n.app.compute.validatorCompute(a);
          if (r?.mode !== mode || r.modeSince > n.services.chain.head().number) return undefined;
        }
      }
      return true;
    }, 60_000, 50);

    // The height from which each validator's mode stands, the same on every node.
    const since = new Map([...own.keys()].map((a) => [a, nodes[0]!.app.compute.validatorCompute(a)!.modeSince]));
    for (const n of nodes) for (const [a, s] of since) assert.equal(n.app.compute.validatorCompute(a)!.modeSince, s, `${a}'s mode recorded at the same block everywhere`);
    // H: the first height at which the records give every validator its node's mode.
    const H = Math.max(...since.values());
    assert.ok(H >= 1);
    const proposerOf: string[] = [];
    for (let h = 1; h <= H; h++) proposerOf[h] = (await rpc<{ miner: string }>(nodes[0]!.rpcUrl, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).miner.toLowerCase();
    // A validator whose mode every node recorded at block s, though it proposed none of blocks 1..s:
    // its mode came from its announcement (a proposer's extra data only speaks for the proposer).
    const announced = [...since].filter(([a, s]) => !proposerOf.slice(1, s + 1).includes(a));
    t.diagnostic(`modes recorded at ${JSON.stringify([...since])}; proposers of 1..${H}: ${proposerOf.slice(1).join(', ')}`);
    // Pigeonhole: fewer distinct proposers than validators by H, so some mode came from an announcement.
    assert.ok(new Set(proposerOf.slice(1)).size < own.size, `all four validators proposed by block ${H}`);
    assert.ok(
      announced.length > 0,
      `every mode was recorded at a block its validator proposed: recorded at ${JSON.stringify([...since])}, proposers of 1..${H}: ${proposerOf.slice(1).join(', ')}`,
    );

    // Every node answers the same compute fields for every validator (asked until all four answer at one head).
    const answers = await waitFor('svc_getValidators at one head', async () => {
      const all = await Promise.all(nodes.map((n) => rpc<ValidatorEntry[]>(n.rpcUrl, 'svc_getValidators', [])));
      return all.every((x) => isDeepStrictEqual(x, all[0])) ? all[0] : undefined;
    }, 30_000, 10);
    assert.deepEqual(new Map(answers.map((v) => [v.address.toLowerCase(), v.computeMode])), own);
    for (const [a] of own) {
      const one = await rpc<{ computeMode: string }>(nodes[3]!.rpcUrl, 'svc_getValidator', [a]);
      assert.equal(one.computeMode, own.get(a));
    }

    // The same root at every height on every node.
    const head = Math.min(...nodes.map((n) => n.services.chain.head().number));
    for (let h = 1; h <= head; h++) {
      const roots = await Promise.all(nodes.map(async (n) => (await rpc<{ stateRoot: string }>(n.rpcUrl, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).stateRoot));
      assert.ok(roots.every((r) => r === roots[0]), `block ${h}: roots ${roots.join(', ')}`);
    }
  });
});
