// Proof-of-work mode on a real node (native HTTP server, RocksDB in a temp dir, 1 s blocks on the
// wall clock): the search finds shares and the chain accepts them, the chain's hashrate estimate
// agrees with the miner's own counter over the same window, RPC stays as fast as on an idle node
// and blocks keep their pace while one core mines; the block refuses stale, duplicate and forged
// shares; and a node with --pow-threads 0 is in mode none. docs/compute.md, "Proof-of-work shares".
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetConfig } from './support/node-config.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { rpc } from './support/json-rpc.js';
import { startNode, type RunningNode } from '../src/node.js';
import { compute as defaultCompute, type ComputeParams } from '../src/params.js';
import { core, type ProducedBlock } from '../src/native/index.js';
import { shareTarget } from '../src/modules/compute/hooks.js';
import type { QueuedShare } from '../src/modules/compute/queues.js';
import { toAddress } from '../src/modules/kernel/module.js';
import type { Address } from '../src/modules/compute/types.js';
import type { Hex } from '../src/modules/compute/wire.js';

const BLOCK_TIME_MS = 1000;
const WINDOW_BLOCKS = 15;
/** Shares per second the difficulty is chosen for: a few hundred per window, far below maxSharesPerBlock per block. */
const SHARES_PER_SECOND = 60;
const LATENCY_REQUESTS = 1000;
/** A funded account no block touches (not a validator, sends nothing): its balance never changes. */
const BALANCE_OF = privateKeyToAccount(devPrivateKeys(6)[5]!).address;

/** One search thread's hashes per second on this machine, from the addon the node uses (target 0: nothing wins). */
async function calibrate(): Promise<number> {
  const prefix = randomBytes(52);
  let best = 0;
  for (let i = 0; i < 3; i++) {
    const r = await core.powSearchAll(prefix, 1n << 40n, 1n << 21n, Buffer.alloc(32), 1, 1);
    best = Math.max(best, r.hashed / (r.elapsedMs / 1000));
  }
  return best;
}

/** The power of two nearest (at or above) rate / SHARES_PER_SECOND, kept within 2^14..2^24. */
function difficultyFor(rate: number): bigint {
  let d = 1n << 14n;
  while (d < 1n << 24n && Number(d) < rate / SHARES_PER_SECOND) d <<= 1n;
  return d;
}

interface Latency {
  p50: number;
  p99: number;
  max: number;
}

function percentiles(samples: number[]): Latency {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1]! };
}

const fmt = (l: Latency) => `p50 ${l.p50.toFixed(3)} ms, p99 ${l.p99.toFixed(3)} ms, max ${l.max.toFixed(3)} ms`;

/** Round-trip times of `count` sequential requests of `method`, after a warm-up. */
/** Latency of `count` requests one after another, each answer held to `check`. */
async function latency(url: string, method: string, params: unknown[], check: (answer: unknown) => void, count = LATENCY_REQUESTS): Promise<Latency> {
  for (let i = 0; i < 50; i++) check(await rpc(url, method, params));
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const answer = await rpc(url, method, params);
    samples.push(performance.now() - t0);
    check(answer);
  }
  return percentiles(samples);
}

/** Checks for the two measured reads: the head never goes back, and the untouched balance stays what it was. */
async function answerChecks(url: string): Promise<{ blockNumber: (a: unknown) => void; balance: (a: unknown) => void }> {
  const expected = await rpc<string>(url, 'eth_getBalance', [BALANCE_OF, 'latest']);
  assert.ok(BigInt(expected) > 0n, 'the account is funded');
  let head = 0n;
  return {
    blockNumber: (a) => {
      assert.match(String(a), /^0x(0|[1-9a-f][0-9a-f]*)$/);
      assert.ok(BigInt(a as string) >= head, 'the head never goes back');
      head = BigInt(a as string);
    },
    balance: (a) => assert.equal(a, expected),
  };
}

interface ValidatorEntry {
  address: string;
  computeMode: string;
  providesCompute: boolean;
  hashrate: string;
}

interface PowStatsView {
  sharesAccepted: number;
  shareDifficulty: string;
  hashrateWindowSeconds: number;
  thisNode: { threads: number; hashes: string; seconds: number; hashrate: string; sharesFound: number } | null;
}

interface InferenceStats {
  computeMode: string;
  blockNumber: number;
  pow: PowStatsView;
}

const stats = (url: string) => rpc<InferenceStats>(url, 'svc_getInferenceStats');

async function validatorEntry(url: string, address: Address): Promise<ValidatorEntry> {
  const all = await rpc<ValidatorEntry[]>(url, 'svc_getValidators');
  const v = all.find((x) => x.address.toLowerCase() === address);
  assert.ok(v, `validator ${address} in svc_getValidators`);
  return v;
}

/** The next block the node makes (resolves after it is committed). */
function nextBlock(node: RunningNode): Promise<ProducedBlock> {
  return new Promise((resolve) => node.services.events.once('block', resolve));
}

async function untilBlock(node: RunningNode, number: number): Promise<void> {
  while (node.services.chain.head().number < number) await nextBlock(node);
}

const powParams = (shareDifficulty: bigint): ComputeParams => ({ ...defaultCompute, shareDifficulty, hashrateWindowBlocks: WINDOW_BLOCKS });

let difficulty = 1n << 18n;
let calibratedRate = 0;
/** eth_blockNumber / eth_getBalance latency on a node that does not mine, measured before the mining node starts. */
let idleLatency: { blockNumber: Latency; balance: Latency } | undefined;

before(async () => {
  calibratedRate = await calibrate();
  difficulty = difficultyFor(calibratedRate);
  console.log(
    `# calibration: one search thread ${(calibratedRate / 1e6).toFixed(2)} MH/s; shareDifficulty 2^${difficulty.toString(2).length - 1} ` +
      `(~${(calibratedRate / Number(difficulty)).toFixed(0)} shares/s), hashrateWindowBlocks ${WINDOW_BLOCKS}`,
  );
});

describe('mode none: pow with --pow-threads 0', () => {
  let node: RunningNode;
  let dataDir: string;
  let validator: Address;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-pow-none-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: BLOCK_TIME_MS, computeMode: 'pow', powThreads: 0 }), {
      computeParams: powParams(difficulty),
    });
    validator = toAddress(node.coinbase);
  });

  after(async () => {
    await node?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('announces computeMode none: providesCompute false, hashrate 0, no search, no shares', async () => {
    await untilBlock(node, 2);
    const v = await validatorEntry(node.rpcUrl, validator);
    assert.equal(v.computeMode, 'none');
    assert.equal(v.providesCompute, false);
    assert.equal(v.hashrate, '0');
    const s = await stats(node.rpcUrl);
    assert.equal(s.computeMode, 'none');
    assert.equal(s.pow.thisNode, null);
    assert.equal(s.pow.sharesAccepted, 0);
    assert.equal(node.services.compute.powMiner, null);
    const detail = await rpc<{ scoreBreakdown: { compute: number } }>(node.rpcUrl, 'svc_getValidator', [validator]);
    assert.equal(detail.scoreBreakdown.compute, 0);
  });

  it('answers reads correctly while idle, and measures their latency (the baseline of the mining node)', async () => {
    const checks = await answerChecks(node.rpcUrl);
    const blockNumber = await latency(node.rpcUrl, 'eth_blockNumber', [], checks.blockNumber);
    const balance = await latency(node.rpcUrl, 'eth_getBalance', [BALANCE_OF, 'latest'], checks.balance);
    idleLatency = { blockNumber, balance };
    console.log(`# idle node   eth_blockNumber: ${fmt(blockNumber)}`);
    console.log(`# idle node   eth_getBalance:  ${fmt(balance)}`);
  });
});

describe('pow mode with one search thread', () => {
  let node: RunningNode;
  let dataDir: string;
  let validator: Address;
  /** Every block the node made: number, hash, block timestamp (seconds and milliseconds), and the wall clock when it was committed. */
  const blocks: { number: number; hash: Hex; timestamp: number; timestampMs: number; wallMs: number }[] = [];
  const onBlock = (b: ProducedBlock) =>
    blocks.push({ number: b.head.number, hash: `0x${b.head.hash.toString('hex')}`, timestamp: b.head.timestamp, timestampMs: b.head.timestampMs, wallMs: performance.now() });

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-pow-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: BLOCK_TIME_MS, computeMode: 'pow', powThreads: 1 }), {
      computeParams: powParams(difficulty),
    });
    node.services.events.on('block', onBlock);
    validator = toAddress(node.coinbase);
  });

  after(async () => {
    node?.services.events.off('block', onBlock);
    await node?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('accepts shares: sharesAccepted grows block after block', async () => {
    await untilBlock(node, 2);
    const first = await stats(node.rpcUrl);
    assert.equal(first.computeMode, 'pow');
    assert.equal(first.pow.shareDifficulty, difficulty.toString());
    assert.equal(first.pow.thisNode?.threads, 1);
    await untilBlock(node, first.blockNumber + 2);
    const later = await stats(node.rpcUrl);
    assert.ok(first.pow.sharesAccepted > 0, `shares accepted by block ${first.blockNumber}: ${first.pow.sharesAccepted}`);
    assert.ok(later.pow.sharesAccepted > first.pow.sharesAccepted, `sharesAccepted grows: ${first.pow.sharesAccepted} -> ${later.pow.sharesAccepted}`);
    assert.ok(later.pow.thisNode!.sharesFound >= later.pow.sharesAccepted);
    // The search's own counters on /metrics.
    const metrics = await (await fetch(new URL('/metrics', node.rpcUrl))).text();
    const series = (name: string) => Number(/^(\S+) (\S+)$/m.exec(metrics.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2]);
    assert.ok(series('svc_compute_pow_shares_found') >= later.pow.thisNode!.sharesFound, 'svc_compute_pow_shares_found');
    assert.ok(series('svc_compute_pow_hashrate') > 0, 'svc_compute_pow_hashrate');
    const v = await validatorEntry(node.rpcUrl, validator);
    assert.equal(v.computeMode, 'pow');
    console.log(
      `# block ${later.blockNumber}: sharesAccepted ${later.pow.sharesAccepted}, sharesFound ${later.pow.thisNode!.sharesFound}, ` +
        `chain hashrate ${v.hashrate} H/s over ${later.pow.hashrateWindowSeconds} s of block time, providesCompute ${v.providesCompute}`,
    );
  });

  it('provides compute from its first accepted share: the hashrate window does not reach back to the genesis timestamp', async () => {
    // docs/compute.md: providesCompute (pow) = an accepted share in the hashrate window; hashrate =
    // work of the window's blocks over their span in block time. Block 1's parent is genesis, whose
    // timestamp is a fixed date (params.chain.genesisTimestamp), not when the search started.
    const [s, v] = await Promise.all([stats(node.rpcUrl), validatorEntry(node.rpcUrl, validator)]);
    console.log(
      `# block ${s.blockNumber}: ${s.pow.sharesAccepted} shares accepted, hashrateWindowSeconds ${s.pow.hashrateWindowSeconds}, ` +
        `chain hashrate ${v.hashrate} H/s, own counter ${s.pow.thisNode!.hashrate} H/s, providesCompute ${v.providesCompute}`,
    );
    assert.ok(s.blockNumber < 1 + WINDOW_BLOCKS, 'still in the first window');
    assert.ok(s.pow.sharesAccepted > 0);
    assert.ok(s.pow.hashrateWindowSeconds <= s.blockNumber + 2, `window span ${s.pow.hashrateWindowSeconds} s of block time after ${s.blockNumber} blocks`);
    assert.equal(v.providesCompute, true, `providesCompute with ${s.pow.sharesAccepted} shares in the window (hashrate ${v.hashrate})`);
    assert.ok(BigInt(v.hashrate) * 4n >= BigInt(s.pow.thisNode!.hashrate), `hashrate ${v.hashrate} H/s vs own counter ${s.pow.thisNode!.hashrate} H/s`);
  });

  it('keeps RPC latency normal while mining', async () => {
    assert.ok(idleLatency, 'the idle baseline was measured');
    const before = (await stats(node.rpcUrl)).pow.thisNode!;
    const checks = await answerChecks(node.rpcUrl);
    const blockNumber = await latency(node.rpcUrl, 'eth_blockNumber', [], checks.blockNumber);
    const balance = await latency(node.rpcUrl, 'eth_getBalance', [BALANCE_OF, 'latest'], checks.balance);
    const afterwards = (await stats(node.rpcUrl)).pow.thisNode!;
    const rate = Number(BigInt(afterwards.hashes) - BigInt(before.hashes)) / (afterwards.seconds - before.seconds);
    console.log(`# mining node eth_blockNumber: ${fmt(blockNumber)}`);
    console.log(`# mining node eth_getBalance:  ${fmt(balance)}`);
    console.log(`# search rate during the measurement: ${(rate / 1e6).toFixed(2)} MH/s over ${(afterwards.seconds - before.seconds).toFixed(2)} s`);
    // The search really ran while the requests were served.
    assert.ok(rate > 0.1 * calibratedRate, `search rate ${rate} H/s during the measurement (calibrated ${calibratedRate})`);
    for (const [name, mining, idle] of [
      ['eth_blockNumber', blockNumber, idleLatency.blockNumber],
      ['eth_getBalance', balance, idleLatency.balance],
    ] as const) {
      const bound = Math.max(3 * idle.p99, idle.p99 + 20);
      assert.ok(mining.p99 <= bound, `${name} p99 ${mining.p99.toFixed(3)} ms mining vs ${idle.p99.toFixed(3)} ms idle (bound ${bound.toFixed(3)} ms)`);
    }
  });

  it("reports a hashrate within 20% of the miner's own counter over the same window, and a compute score", async () => {
    // Window start: just after a block; the chain's window at start + WINDOW_BLOCKS covers the blocks after it.
    const start = Math.max(node.services.chain.head().number + 1, 3);
    await untilBlock(node, start);
    const a = await stats(node.rpcUrl);
    assert.equal(a.blockNumber, start, 'sampled right after the window start block');
    await untilBlock(node, start + WINDOW_BLOCKS);
    const [b, v] = await Promise.all([stats(node.rpcUrl), validatorEntry(node.rpcUrl, validator)]);
    assert.equal(b.blockNumber, start + WINDOW_BLOCKS, 'sampled right after the window end block');

    // The window is timed by the blocks' millisecond times.
    const msOf = (n: number) => blocks.find((x) => x.number === n)!.timestampMs;
    const spanBlockTime = (msOf(start + WINDOW_BLOCKS) - msOf(start)) / 1000;
    assert.equal(b.pow.hashrateWindowSeconds, spanBlockTime, 'the window spans the blocks after the start block');
    const hashes = BigInt(b.pow.thisNode!.hashes) - BigInt(a.pow.thisNode!.hashes);
    const seconds = b.pow.thisNode!.seconds - a.pow.thisNode!.seconds;
    const own = Number(hashes) / seconds;
    const chain = Number(BigInt(v.hashrate));
    const shares = b.pow.sharesAccepted - a.pow.sharesAccepted;
    const ratio = chain / own;
    console.log(
      `# window blocks ${start + 1}..${start + WINDOW_BLOCKS}: ${shares} shares accepted, block-time span ${spanBlockTime} s, wall span ${seconds.toFixed(3)} s`,
    );
    console.log(
      `# hashrate: chain ${(chain / 1e6).toFixed(3)} MH/s, own counter ${(own / 1e6).toFixed(3)} MH/s (${hashes} hashes), chain/own ${ratio.toFixed(4)}`,
    );
    assert.ok(shares >= 100, `enough shares for a 20% comparison: ${shares}`);
    assert.equal(v.computeMode, 'pow');
    assert.equal(v.providesCompute, true);
    assert.ok(chain > 0);
    const detail = await rpc<{ computeMode: string; scoreBreakdown: { compute: number } }>(node.rpcUrl, 'svc_getValidator', [validator]);
    assert.equal(detail.computeMode, 'pow');
    // The only pow validator has the highest hashrate: its compute part is full.
    assert.ok(detail.scoreBreakdown.compute > 0, `scoreBreakdown.compute ${detail.scoreBreakdown.compute}`);
    console.log(`# validator: computeMode ${v.computeMode}, providesCompute ${v.providesCompute}, hashrate ${v.hashrate} H/s, scoreBreakdown.compute ${detail.scoreBreakdown.compute}`);
    assert.ok(Math.abs(ratio - 1) <= 0.2, `chain hashrate ${chain} H/s vs own counter ${own} H/s: ratio ${ratio}`);
  });

  it('keeps block production at its pace while mining (block times advance about 1 s a block, no gap)', () => {
    const made = blocks.slice(1); // the first one's interval is from the event subscription
    assert.ok(made.length >= WINDOW_BLOCKS, `blocks seen: ${blocks.length}`);
    let maxWall = 0;
    for (let i = 1; i < blocks.length; i++) {
      const prev = blocks[i - 1]!;
      const cur = blocks[i]!;
      assert.equal(cur.number, prev.number + 1, 'no block missing');
      const dtMs = cur.timestampMs - prev.timestampMs;
      assert.ok(dtMs >= 0.5 * BLOCK_TIME_MS && dtMs < 1.5 * BLOCK_TIME_MS, `block ${cur.number}: block time advanced ${dtMs} ms`);
      maxWall = Math.max(maxWall, cur.wallMs - prev.wallMs);
    }
    const first = blocks[0]!;
    const last = blocks[blocks.length - 1]!;
    const wall = (last.wallMs - first.wallMs) / 1000;
    const blockTime = (last.timestampMs - first.timestampMs) / 1000;
    const perBlock = (wall * 1000) / (last.number - first.number);
    console.log(
      `# blocks ${first.number}..${last.number}: block time ${blockTime} s, wall ${wall.toFixed(3)} s, ${perBlock.toFixed(1)} ms a block, longest interval ${maxWall.toFixed(1)} ms`,
    );
    assert.ok(maxWall < 1.5 * BLOCK_TIME_MS, `longest interval between blocks ${maxWall} ms`);
    assert.ok(perBlock < 1.05 * BLOCK_TIME_MS, `mean interval ${perBlock} ms`);
    assert.ok(Math.abs(blockTime - wall) <= 0.2, `block time ${blockTime} s vs wall ${wall} s`);
  });

  it('refuses a share naming a block older than shareMaxAgeBlocks, a duplicate, one above the target and one renamed to another validator', async () => {
    // Stop the search so that only the crafted shares reach the blocks, and let the last ones drain.
    await node.services.compute.powMiner!.stop();
    await nextBlock(node);
    await nextBlock(node);
    assert.equal(node.app.compute.queueSizes().shares, 0, 'no share of the search left in the queue');

    const compute = node.app.compute;
    const target = shareTarget(difficulty);
    const validatorBytes = Buffer.from(validator.slice(2), 'hex');
    /** A share of `validator` on `blockHash` that meets the target (found with the search the node uses). */
    const craft = async (blockHash: Hex): Promise<QueuedShare> => {
      const prefix = Buffer.concat([Buffer.from(blockHash.slice(2), 'hex'), validatorBytes]);
      const r = await core.powSearchAll(prefix, randomBytes(8).readBigUInt64BE(0) >> 1n, difficulty * 64n, target, 1, 1);
      const nonce = r.nonces[0];
      assert.ok(nonce !== undefined, 'a share found');
      const hash = core.powHash(prefix, nonce);
      assert.ok(Buffer.compare(hash, target) <= 0);
      return { validator, blockHash, nonce, hash: `0x${hash.toString('hex')}` };
    };
    const accepted = async () => (await stats(node.rpcUrl)).pow.sharesAccepted;

    // Block k: one valid share on the head, queued twice (a duplicate in the same block).
    await nextBlock(node);
    const head = blocks[blocks.length - 1]!;
    const valid = await craft(head.hash);
    const count0 = await accepted();
    compute.queueShare(valid);
    compute.queueShare({ ...valid });
    await nextBlock(node);
    const count1 = await accepted();
    assert.equal(count1, count0 + 1, 'the valid share counts once, its duplicate in the same block not at all');

    // Block k+1: the same share again (a duplicate of an accepted one), a valid share on a block 20
    // blocks back (outside the last shareMaxAgeBlocks), a nonce above the target, and the valid
    // share renamed to another validator; and a valid share on a block 10 back (inside the window).
    const tip = blocks[blocks.length - 1]!.number;
    const old = blocks.find((x) => x.number === tip - (defaultCompute.shareMaxAgeBlocks + 4));
    const recent = blocks.find((x) => x.number === tip - 10);
    assert.ok(old && recent, `blocks ${tip - 20} and ${tip - 10} were seen`);
    const stale = await craft(old.hash);
    const inWindow = await craft(recent.hash);
    const prefix = Buffer.concat([Buffer.from(head.hash.slice(2), 'hex'), validatorBytes]);
    let miss = valid.nonce + 1n;
    while (Buffer.compare(core.powHash(prefix, miss), target) <= 0) miss += 1n;
    const other = toAddress(randomBytes(20));
    const queuedBlock = nextBlock(node);
    compute.queueShare({ ...valid });
    compute.queueShare(stale);
    compute.queueShare({ ...valid, nonce: miss }); // the claimed hash is the valid one's: the block hashes again
    compute.queueShare({ ...valid, validator: other });
    compute.queueShare(inWindow);
    await queuedBlock;
    const count2 = await accepted();
    assert.equal(count2, count1 + 1, 'only the share on a block inside the window counts');
    assert.equal(node.app.compute.validatorCompute(other), undefined, 'no work recorded for the renamed share');
    console.log(`# crafted shares: sharesAccepted ${count0} -> ${count1} (valid + duplicate) -> ${count2} (duplicate, stale, above target, renamed, in window)`);
  });
});
