// Four validators as separate hosts (network namespaces, test/support/netns.ts) with 50 ± 10 ms of
// latency on every p2p link (a delaying proxy per direction) and 1% of TCP packets dropped (nftables),
// under a transfer load sent to all four: they make blocks for FAULTS_LOAD_S seconds (300 by
// default); then a partition {0} | {1,2,3} (the three go on), then {0,1} | {2,3} (no blocks, no
// fork), then healed (all four resume and agree). Checked throughout and at the end: no two hashes
// at one height on any node, every acknowledged transaction mined exactly once, equal roots.
// Run by `npm run test:network-faults` (root: namespaces, veths, nftables), not by `npm test`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/dev-accounts.js';
import { initTestnet, setToml, type TestnetManifest } from '../../src/consensus/cometbft/testnet.js';
import { createHosts, ensureNftables, type Hosts } from '../support/netns.js';
import { DelayProxy } from '../support/delay-proxy.js';
import { NodeProcess } from '../support/node-process.js';
import { rpc, waitFor } from '../support/json-rpc.js';

const LOAD_S = Number(process.env.FAULTS_LOAD_S ?? 300);
const PARTITION_S = Number(process.env.FAULTS_PARTITION_S ?? 30);
const LATENCY_MS = 50;
const JITTER_MS = 10;
const LOSS_PERCENT = 1;
const BLOCK_TIME_MS = 500;
const GWEI = 10n ** 9n;
/** Dev accounts that send the load, one per node (each keeps its nonces in order on its node). */
const SENDERS = [4, 5, 6, 7];
/** Where the load's transfers go. */
const SINK = '0x000000000000000000000000000000000000fa17';

interface Block { number: string; hash: string; stateRoot: string; transactions: string[] }

let hosts: Hosts;
let dir: string;
let manifest: TestnetManifest;
const nodes: NodeProcess[] = [];
/** The transfer load while it runs (stopped by the test, or by after() when the test failed). */
let running: { stop(): Promise<unknown> } | undefined;
/** proxies[i][j]: node i's link to node j. */
const proxies: DelayProxy[][] = [];

const height = async (n: NodeProcess): Promise<number> => Number(await rpc<string>(n.url, 'eth_blockNumber'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

before(async () => {
  ensureNftables();
  hosts = createHosts(4, 1 + (process.pid % 200));
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-faults-'));
  manifest = initTestnet({ output: path.join(dir, 'net'), validators: 4, basePort: 26600, blockTimeMs: BLOCK_TIME_MS, hosts: hosts.hosts.map((h) => h.address) });
  const net = path.join(dir, 'net');
  for (const [i, n] of manifest.nodes.entries()) {
    proxies[i] = [];
    for (const [j, peer] of manifest.nodes.entries()) {
      if (i === j) continue;
      const proxy = new DelayProxy({ listenHost: hosts.gateway, targetHost: peer.host!, targetPort: peer.p2pPort, latencyMs: LATENCY_MS, jitterMs: JITTER_MS });
      await proxy.start();
      proxies[i]![j] = proxy;
    }
    // Node i reaches each peer through its own link's proxy; no peer exchange dials around them.
    const peers = manifest.nodes.flatMap((p, j) => (j === i ? [] : [`${p.nodeId}@${hosts.gateway}:${proxies[i]![j]!.port}`])).join(',');
    const file = path.join(net, n.cometbftHome, 'config', 'config.toml');
    let toml = setToml(readFileSync(file, 'utf8'), 'p2p', 'persistent_peers', `"${peers}"`);
    toml = setToml(toml, 'p2p', 'pex', 'false');
    // Every link arrives from the bridge's address, where the proxies are.
    toml = setToml(toml, 'p2p', 'allow_duplicate_ip', 'true');
    // Timeouts for links of 50 ms and lost packets, not loopback's.
    toml = setToml(toml, 'consensus', 'timeout_propose', '"3s"');
    toml = setToml(toml, 'consensus', 'timeout_prevote', '"1s"');
    toml = setToml(toml, 'consensus', 'timeout_precommit', '"1s"');
    writeFileSync(file, toml);
  }
  hosts.setLoss(LOSS_PERCENT);
  for (const [i, n] of manifest.nodes.entries()) {
    nodes.push(
      await NodeProcess.start({
        dataDir: path.join(net, n.dataDir),
        netns: { name: hosts.hosts[i]!.ns, address: hosts.hosts[i]!.address },
        extraArgs: ['--consensus', 'cometbft', '--cometbft-home', path.join(net, n.cometbftHome), '--rpc-port', String(n.rpcPort), '--ws-port', String(n.wsPort), '--explorer-port', String(n.explorerPort), '--block-time-ms', String(BLOCK_TIME_MS), '--rpc-rate-limit', '0'],
        readyTimeoutMs: 120_000,
      }),
    );
  }
  await waitFor('the first blocks on every node', async () => ((await Promise.all(nodes.map(height))).every((h) => h >= 3) ? true : undefined), 120_000, 500);
});

after(async () => {
  await running?.stop();
  await Promise.all(nodes.map((n) => n.dispose()));
  for (const row of proxies) for (const p of row ?? []) await p?.close();
  hosts?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Sends transfers round-robin to the four nodes until stopped; returns the acknowledged hashes per sender. */
function startLoad(perSecond: number): { stop(): Promise<Map<number, string[]>>; errors: () => number } {
  const acked = new Map<number, string[]>(SENDERS.map((s) => [s, []]));
  let running = true;
  let errors = 0;
  const loops = SENDERS.map(async (sender, i) => {
    const account = privateKeyToAccount(devAccounts()[sender]!.privateKey);
    let nonce = Number(await rpc<string>(nodes[i]!.url, 'eth_getTransactionCount', [account.address, 'pending']));
    while (running) {
      const raw = await account.signTransaction({
        chainId: 9000, type: 'eip1559', nonce, to: SINK, value: GWEI, gas: 21_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI,
      });
      try {
        const hash = await rpc<string>(nodes[i]!.url, 'eth_sendRawTransaction', [raw]);
        acked.get(sender)!.push(hash);
        nonce += 1;
      } catch {
        errors += 1;
      }
      await sleep((1000 * SENDERS.length) / perSecond);
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return acked;
    },
    errors: () => errors,
  };
}

function cut(groupA: number[], groupB: number[]): void {
  for (const a of groupA) for (const b of groupB) {
    proxies[a]![b]!.partition();
    proxies[b]![a]!.partition();
  }
}
function healAll(): void {
  for (const row of proxies) for (const p of row ?? []) p?.heal();
}

/** Every node's block hash at each height up to `top`: asserts one hash per height across nodes. */
async function assertNoFork(top: number): Promise<void> {
  for (let h = 1; h <= top; h++) {
    const hashes = new Set<string>();
    for (const n of nodes) {
      const b = await rpc<Block | null>(n.url, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false]);
      if (b) hashes.add(b.hash);
    }
    assert.ok(hashes.size <= 1, `two hashes at height ${h}: ${[...hashes].join(', ')}`);
  }
}

describe(`four validators on separate hosts, ${LATENCY_MS} ± ${JITTER_MS} ms and ${LOSS_PERCENT}% loss between them`, { timeout: (LOAD_S + 8 * PARTITION_S + 600) * 1000 }, () => {
  it('make blocks under load, survive {0}|{1,2,3}, halt without a fork at {0,1}|{2,3}, resume when healed, and agree', async () => {
    const load = startLoad(20);
    running = load;
    const start = await Promise.all(nodes.map(height));
    await sleep(LOAD_S * 1000);
    const loaded = await Promise.all(nodes.map(height));
    const made = loaded[0]! - start[0]!;
    log(`${LOAD_S} s under load: node heights ${start.join('/')} -> ${loaded.join('/')} (${((LOAD_S * 1000) / Math.max(1, made)).toFixed(0)} ms a block), ${load.errors()} send errors`);
    assert.ok(made >= LOAD_S / 5, `only ${made} blocks in ${LOAD_S} s`);

    cut([0], [1, 2, 3]);
    const a0 = await Promise.all(nodes.map(height));
    await sleep(PARTITION_S * 1000);
    const a1 = await Promise.all(nodes.map(height));
    log(`{0} | {1,2,3} for ${PARTITION_S} s: ${a0.join('/')} -> ${a1.join('/')}`);
    assert.ok(a1[1]! - a0[1]! >= 3, 'the three validators go on');
    assert.ok(a1[0]! - a0[0]! <= 1, 'the one alone makes no blocks');
    healAll();
    await waitFor('node 0 back with the others', async () => {
      const hs = await Promise.all(nodes.map(height));
      return hs[0]! >= hs[1]! - 1 ? true : undefined;
    }, 120_000, 500);
    // Every node at one height before the next cut, so that catching up is not taken for a new block.
    await waitFor('all four at one height', async () => {
      const hs = await Promise.all(nodes.map(height));
      return hs.every((h) => h === hs[0]) ? true : undefined;
    }, 60_000, 50);

    cut([0, 1], [2, 3]);
    await sleep(3_000); // a height decided just before the cut may still commit
    const b0 = await Promise.all(nodes.map(height));
    await sleep(PARTITION_S * 1000);
    const b1 = await Promise.all(nodes.map(height));
    log(`{0,1} | {2,3} for ${PARTITION_S} s: ${b0.join('/')} -> ${b1.join('/')}`);
    // No block is decided: no node goes past the highest height any node had when the cut settled.
    for (let i = 0; i < 4; i++) assert.ok(b1[i]! <= Math.max(...b0), `node ${i} reached ${b1[i]} past ${Math.max(...b0)} without two thirds`);
    healAll();
    const healedAt = Date.now();
    await waitFor('all four resume', async () => {
      const hs = await Promise.all(nodes.map(height));
      return hs.every((h) => h >= Math.max(...b1) + 3) ? hs : undefined;
    }, 180_000, 500);
    log(`healed: all four past ${Math.max(...b1) + 3} after ${((Date.now() - healedAt) / 1000).toFixed(1)} s`);

    const acked = await load.stop();
    const total = [...acked.values()].reduce((s, l) => s + l.length, 0);
    // Every acknowledged transfer is mined, once: its receipt is on every node and each sender's
    // nonce is exactly the count of its acknowledged transfers beyond where it started.
    await waitFor('every acknowledged transfer mined', async () => {
      for (const [sender, hashes] of acked) {
        const last = hashes[hashes.length - 1];
        if (last && (await rpc(nodes[SENDERS.indexOf(sender)]!.url, 'eth_getTransactionReceipt', [last])) === null) return undefined;
      }
      return true;
    }, 180_000, 1000);
    const top = Math.min(...(await Promise.all(nodes.map(height))));
    let mined = 0;
    for (const [sender, hashes] of acked) {
      for (const hash of hashes) {
        const receipts = await Promise.all(nodes.map((n) => rpc<{ blockHash: string; status: string } | null>(n.url, 'eth_getTransactionReceipt', [hash])));
        assert.ok(receipts.every((r) => r !== null && r.status === '0x1'), `transfer ${hash} is mined on every node`);
        assert.equal(new Set(receipts.map((r) => r!.blockHash)).size, 1, `transfer ${hash} is in one block`);
        mined += 1;
      }
      const nonce = Number(await rpc<string>(nodes[0]!.url, 'eth_getTransactionCount', [devAccounts()[sender]!.address, 'latest']));
      assert.equal(nonce, hashes.length, `sender ${sender}: nonce ${nonce} = ${hashes.length} acknowledged transfers`);
    }
    log(`${total} transfers acknowledged, ${mined} mined once each on every node`);
    await assertNoFork(top);
    const roots = await Promise.all(nodes.map((n) => rpc<Block>(n.url, 'eth_getBlockByNumber', [`0x${top.toString(16)}`, false])));
    assert.equal(new Set(roots.map((b) => b.stateRoot)).size, 1, `state roots at ${top} agree`);
    log(`no fork at any of ${top} heights; roots equal at ${top}`);
  });
});
