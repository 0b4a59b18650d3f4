// A full disk: a node whose data dir is on a small tmpfs stops producing when the disk fills
// ("No space left on device"); readiness and /health fail within 3 block times of the stop,
// svc_getNodeInfo and /metrics give the reason, the stall is logged once, and when space returns
// production resumes by itself (same process) with no block lost.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import type { Hex } from 'viem';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { fill, MIB, mountTmpfs, unmountTmpfs } from './support/tmpfs.js';

const BLOCK_TIME_MS = 1000;
/**
 * RocksDB preallocates a WAL (1.1 × its 64 MiB write buffer) when the disk has room for it, and
 * lifts a no-space error by itself once one write buffer (64 MiB) is free again, checking every
 * 5 s. The tmpfs is sized for both to show: the node starts with less than a WAL's preallocation
 * free (so its writes need new space at once), and removing the filler frees far more than 64 MiB.
 */
const TMPFS_MIB = 128;
const BALLAST_MIB = 72;
const STALL_LINE = 'block production stalled; retrying with backoff';
const RESUMED_LINE = 'block production resumed';

interface NodeInfo {
  currentBlock: number;
  blockProduction: { status: 'ok' | 'stalled'; reason: string | null; since: string | null; attempts: number; headAgeMs: number; staleAfterMs: number };
}
interface HealthBody {
  status: string;
  reason?: string;
  blockNumber: Hex;
  headAgeMs: number;
  blockProduction: string;
}
interface LogLine {
  level: number;
  msg: string;
  attempts?: number;
  stalledMs?: number;
}

const mount = mountTmpfs(TMPFS_MIB);

describe('a full disk stops block production; health says so; production resumes by itself', { timeout: 180_000, ...('skip' in mount ? { skip: mount.skip } : {}) }, () => {
  const dir = 'dir' in mount ? mount.dir : '';
  const ballast = path.join(dir, 'ballast');
  const filler = path.join(dir, 'filler');
  let node: NodeProcess | undefined;
  let stalledAt = 0;
  let stalledHead = 0;

  const explorer = async (route: string): Promise<{ status: number; body: { ok: boolean; data?: { ready: boolean; headAgeMs: number }; error?: string } }> => {
    const res = await fetch(`${node!.explorerUrl}/api/v1${route}`);
    return { status: res.status, body: (await res.json()) as { ok: boolean; error?: string } };
  };
  const health = async (): Promise<{ status: number; body: HealthBody }> => {
    const res = await fetch(new URL('/health', node!.url));
    return { status: res.status, body: (await res.json()) as HealthBody };
  };
  const metrics = async (): Promise<string> => (await fetch(new URL('/metrics', node!.url))).text();
  const head = async (): Promise<number> => Number(await rpc<Hex>(node!.url, 'eth_blockNumber'));
  const logLines = (): LogLine[] =>
    node!
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);

  afterEach((t) => dumpLogsOnFailure(t, node));

  after(async () => {
    await node?.dispose();
    if (dir !== '') unmountTmpfs(dir);
  });

  it('produces blocks on the tmpfs, then stalls once the disk is full', async () => {
    fill(ballast, BALLAST_MIB * MIB);
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    node = await NodeProcess.start({ dataDir, blockTimeMs: BLOCK_TIME_MS });
    await waitFor('two blocks on the tmpfs', async () => ((await head()) >= 2 ? true : undefined), 20_000);
    const ready = await explorer('/health/ready');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.equal((await health()).body.status, 'ok');

    assert.ok(fill(filler) > 0, 'the filler took the rest of the disk');
    const info = await waitFor(
      'block production to fail on the full disk',
      async () => {
        const i = await rpc<NodeInfo>(node!.url, 'svc_getNodeInfo');
        return i.blockProduction.attempts > 0 ? i : undefined;
      },
      60_000,
      100,
    );
    assert.equal(info.blockProduction.status, 'stalled');
    assert.match(info.blockProduction.reason ?? '', /No space left on device/);
    stalledAt = Date.parse(info.blockProduction.since!);
    assert.ok(Number.isFinite(stalledAt), `since is a date: ${info.blockProduction.since}`);
    stalledHead = info.currentBlock;
  });

  it('fails readiness and /health within 3 block times of the stop, with the reason', async () => {
    assert.ok(stalledAt > 0, 'the disk filled up');
    const deadline = stalledAt + 3 * BLOCK_TIME_MS;
    const readyFailed = await waitFor('readiness to fail', async () => {
      const r = await explorer('/health/ready');
      return r.status === 503 ? { at: Date.now(), ...r } : undefined;
    }, 10_000, 50);
    const healthFailed = await waitFor('/health to fail', async () => {
      const h = await health();
      return h.status === 503 ? { at: Date.now(), ...h } : undefined;
    }, 10_000, 50);
    assert.ok(readyFailed.at <= deadline + 250, `readiness failed ${readyFailed.at - stalledAt} ms after the stop`);
    assert.ok(healthFailed.at <= deadline + 250, `/health failed ${healthFailed.at - stalledAt} ms after the stop`);

    assert.equal(readyFailed.body.ok, false);
    assert.match(readyFailed.body.error ?? '', /^not ready: the head \(block \d+\) is stale: no block committed for \d+ ms \(limit 3000 ms\); block production stalled after \d+ failed attempts: .*No space left on device/);
    assert.equal(healthFailed.body.status, 'stalled');
    assert.equal(healthFailed.body.blockProduction, 'stalled');
    assert.ok(healthFailed.body.headAgeMs > 3 * BLOCK_TIME_MS);
    assert.match(healthFailed.body.reason ?? '', /No space left on device/);
    assert.equal(Number(healthFailed.body.blockNumber), stalledHead, 'the head did not move');

    const live = await fetch(`${node!.explorerUrl}/api/v1/health/live`);
    assert.equal(live.status, 200, 'liveness stays a pure liveness check');

    const info = await rpc<NodeInfo>(node!.url, 'svc_getNodeInfo');
    assert.equal(info.blockProduction.status, 'stalled');
    assert.ok(info.blockProduction.headAgeMs > 3 * BLOCK_TIME_MS);
    assert.equal(info.blockProduction.staleAfterMs, 3 * BLOCK_TIME_MS);
    const text = await metrics();
    assert.match(text, /^svc_block_production_stalled\{reason="[^"]*No space left on device[^"]*"\} 1$/m);
    const age = Number(/^svc_head_age_seconds ([\d.]+)$/m.exec(text)?.[1]);
    assert.ok(age > 3, `svc_head_age_seconds is ${age}`);
  });

  it('resumes by itself when space returns, with every block in place and the stall logged once', async () => {
    assert.ok(stalledAt > 0, 'the disk filled up');
    // Stay full long enough for several attempts, so that logging per attempt would show.
    await waitFor('three failed attempts', async () => {
      const i = await rpc<NodeInfo>(node!.url, 'svc_getNodeInfo');
      return i.blockProduction.attempts >= 3 ? true : undefined;
    }, 20_000, 100);
    const pid = node!.pid;
    rmSync(filler);
    rmSync(ballast);

    const resumedHead = await waitFor('production to resume', async () => {
      const h = await head();
      return h >= stalledHead + 3 ? h : undefined;
    }, 60_000, 200);
    assert.equal(node!.pid, pid, 'the same process resumed: no restart');
    const ready = await explorer('/health/ready');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    const h = await health();
    assert.equal(h.status, 200);
    assert.equal(h.body.status, 'ok');
    const info = await rpc<NodeInfo>(node!.url, 'svc_getNodeInfo');
    assert.deepEqual({ ...info.blockProduction, headAgeMs: 0 }, { status: 'ok', reason: null, since: null, attempts: 0, headAgeMs: 0, staleAfterMs: 3000 });
    assert.match(await metrics(), /^svc_block_production_stalled\{reason=""\} 0$/m);

    // No block lost: every number from genesis to the head, each the child of the one before.
    let parent: Hex | undefined;
    for (let n = 0; n <= resumedHead; n++) {
      const block = await rpc<{ number: Hex; hash: Hex; parentHash: Hex } | null>(node!.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
      assert.ok(block, `block ${n} exists`);
      assert.equal(Number(block.number), n);
      if (parent !== undefined) assert.equal(block.parentHash, parent, `block ${n} extends block ${n - 1}`);
      parent = block.hash;
    }

    const lines = logLines();
    const stalls = lines.filter((l) => l.msg === STALL_LINE);
    const resumes = lines.filter((l) => l.msg === RESUMED_LINE);
    assert.equal(stalls.length, 1, 'the stall is logged once');
    assert.equal(stalls[0]!.level, 50, 'at error level');
    assert.equal(resumes.length, 1, 'the resumption is logged once');
    assert.ok((resumes[0]!.attempts ?? 0) >= 3, `the resumption counts the failed attempts (${resumes[0]!.attempts})`);
    assert.ok((resumes[0]!.stalledMs ?? 0) >= 3 * BLOCK_TIME_MS, `the resumption says how long the stall lasted (${resumes[0]!.stalledMs} ms)`);
    const errors = new Map<string, number>();
    for (const l of lines) if (l.level >= 50) errors.set(l.msg, (errors.get(l.msg) ?? 0) + 1);
    for (const [msg, count] of errors) assert.equal(count, 1, `error "${msg}" logged ${count} times: once per state change, not per attempt`);
  });
});
