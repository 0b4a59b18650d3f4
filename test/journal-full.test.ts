// A disk too full for the transaction journal (docs/architecture.md, "The pool journal"): a
// transaction answered with the journal's error is not kept, so it is never mined and a wallet's
// retry is mined once; /health and readiness say degraded (with the reason) while no transaction
// can be journaled, and ok again once a write succeeds, with no restart. The data dir is a small
// tmpfs filled up under the running node, as in test/disk-full.test.ts, but with room left for
// the chain database's write-ahead log (RocksDB preallocates it while it can): blocks go on, only
// new files and file growth fail, which is the journal's case.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { keccak256, parseGwei, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { decodeJournal, PoolJournal, PoolJournalError } from '../src/chain/pool-journal.js';
import { mempool as poolParams } from '../src/params.js';
import { capturingLogger } from './support/captured-log.js';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc, waitFor } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { fill, mountTmpfs, unmountTmpfs } from './support/tmpfs.js';

const BLOCK_TIME_MS = 500;
/** Room for the database's preallocated write-ahead log (about 70 MiB) before the disk is filled. */
const TMPFS_MIB = 256;
const JOURNAL_FAILED_LINE = 'transaction journal: append failed; transactions are refused until a write succeeds';
const JOURNAL_RECOVERED_LINE = 'transaction journal: writes succeed again';

interface Receipt {
  status: Hex;
  blockNumber: Hex;
}
interface LogLine {
  level: number;
  msg: string;
}

const mount = mountTmpfs(TMPFS_MIB, 'svc-journal-full-');
const skip = 'skip' in mount ? { skip: mount.skip } : {};
const tmpfsDir = 'dir' in mount ? mount.dir : '';
after(() => {
  if (tmpfsDir !== '') unmountTmpfs(tmpfsDir);
});

describe('the journal file on a full disk', { timeout: 60_000, ...skip }, () => {
  it('a failed append rejects with ENOSPC and is cut back; the journal reports failing until a write succeeds, which a rewrite after a block tries', async () => {
    const dir = path.join(tmpfsDir, 'unit');
    mkdirSync(dir);
    const filler = path.join(dir, 'filler');
    const { log, lines } = capturingLogger('debug');
    let clock = 1_000_000;
    const journal = await PoolJournal.open(dir, 0, log, (records) => records, () => clock);
    const file = path.join(dir, poolParams.journalFile);
    try {
      const record = (i: number): Buffer => Buffer.alloc(1000, i + 1);
      await journal.append(record(0));
      assert.deepEqual(journal.health(), { status: 'ok', reason: null, since: null, failures: 0 });
      assert.equal(journal.problem(), null);

      assert.ok(fill(filler) > 0);
      // The file's last page still takes a few records; the first that needs a new page fails.
      const acked = [record(0)];
      let failure: unknown;
      for (let i = 1; i < 20 && failure === undefined; i++) {
        try {
          await journal.append(record(i));
          acked.push(record(i));
        } catch (err) {
          failure = err;
        }
      }
      assert.ok(failure instanceof PoolJournalError, `an append failed: ${String(failure)}`);
      assert.match(failure.message, /^transaction journal write failed: ENOSPC: no space left on device/);
      const onDisk = decodeJournal(readFileSync(file));
      assert.deepEqual({ records: onDisk.records.length, tornTail: onDisk.tornTail, corrupt: onDisk.corrupt }, { records: acked.length, tornTail: false, corrupt: undefined }, 'the failed record was cut back');
      assert.equal(statSync(file).size, 8 + acked.length * 1008);

      const failing = journal.health();
      assert.equal(failing.status, 'failing');
      assert.match(failing.reason ?? '', /^ENOSPC: no space left on device/);
      assert.deepEqual([failing.since, failing.failures], [clock, 1]);
      assert.match(journal.problem() ?? '', /^transaction journal: ENOSPC: no space left on device.* \(transactions are refused until a write succeeds\)$/);
      await assert.rejects(journal.append(record(99)), PoolJournalError);
      assert.equal(journal.health().failures, 2);

      // A rewrite after a block is the probe: still full, still failing.
      clock += poolParams.journalProbeMs;
      await journal.compactIfDue(1, () => acked);
      assert.equal(journal.health().status, 'failing');

      rmSync(filler);
      // At most one probe per journalProbeMs...
      await journal.compactIfDue(2, () => acked);
      assert.equal(journal.health().status, 'failing');
      // ...and the next one succeeds: ok again with no transaction waiting on it.
      clock += poolParams.journalProbeMs;
      await journal.compactIfDue(3, () => acked);
      assert.deepEqual(journal.health(), { status: 'ok', reason: null, since: null, failures: 0 });
      assert.equal(decodeJournal(readFileSync(file)).records.length, acked.length);
      await journal.append(record(42));
      assert.equal(decodeJournal(readFileSync(file)).records.length, acked.length + 1);

      const said = lines().filter((l) => /^transaction journal/.test(l.msg));
      assert.equal(said.filter((l) => l.level >= 50).length, 1, 'the failure is logged at error once, not per append');
      assert.equal(said.filter((l) => l.msg === JOURNAL_FAILED_LINE).length, 1);
      assert.equal(said.filter((l) => l.msg === JOURNAL_RECOVERED_LINE).length, 1);
    } finally {
      await journal.close();
      rmSync(filler, { force: true });
    }
  });
});

describe('a node whose disk is too full for the transaction journal: an error answer means never mined; health says degraded until a write succeeds', { timeout: 240_000, ...skip }, () => {
  let node: NodeProcess | undefined;
  const wallet = privateKeyToAccount(devPrivateKeys(8)[7]!);
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const VALUE = 123_456_789n;

  afterEach((t) => dumpLogsOnFailure(t, node));
  after(() => node?.dispose());

  const transfer = (nonce: number, to: Hex, value: bigint, tip = parseGwei('1')): Promise<Hex> =>
    wallet.signTransaction({ type: 'eip1559', chainId: DEV_CHAIN_ID, nonce, to, value, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: tip });
  const head = async (): Promise<number> => Number(await rpc<Hex>(node!.url, 'eth_blockNumber'));
  const nonceAt = async (tag: 'latest' | 'pending'): Promise<number> => Number(await rpc<Hex>(node!.url, 'eth_getTransactionCount', [wallet.address, tag]));
  const receipt = (hash: Hex): Promise<Receipt | null> => rpc<Receipt | null>(node!.url, 'eth_getTransactionReceipt', [hash]);
  const health = async (): Promise<{ status: number; retryAfter: string | null; body: { status: string; reason?: string; blockProduction: string; transactionJournal: string } }> => {
    const res = await fetch(new URL('/health', node!.url));
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as never };
  };
  const explorer = async (route: string): Promise<{ status: number; body: { ok: boolean; error?: string; data?: { transactionJournal?: string } } }> => {
    const res = await fetch(`${node!.explorerUrl}/api/v1${route}`);
    return { status: res.status, body: (await res.json()) as never };
  };
  const send = async (raw: Hex): Promise<{ hash: Hex } | { error: JsonRpcError }> => {
    try {
      return { hash: await rpc<Hex>(node!.url, 'eth_sendRawTransaction', [raw]) };
    } catch (err) {
      if (err instanceof JsonRpcError) return { error: err };
      throw err;
    }
  };

  it('refuses with the journal error, never mines what it refused, reports degraded, recovers, and mines the retry once', async () => {
    const dataDir = path.join(tmpfsDir, 'node');
    mkdirSync(dataDir);
    const filler = path.join(tmpfsDir, 'filler');
    node = await NodeProcess.start({ dataDir, blockTimeMs: BLOCK_TIME_MS, extraArgs: ['--rpc-rate-limit', '0'] });
    await waitFor('two blocks on the tmpfs', async () => ((await head()) >= 2 ? true : undefined), 20_000);
    const before = await health();
    assert.deepEqual([before.status, before.body.status, before.body.transactionJournal], [200, 'ok', 'ok']);
    assert.equal((await explorer('/health/ready')).status, 200);

    assert.ok(fill(filler) > 0, 'the filler took the rest of the disk');
    // The journal file's last page still takes a few transactions (they are answered and mined);
    // the first that needs a new page gets the error.
    let refused: { raw: Hex; nonce: number; error: JsonRpcError } | undefined;
    for (let i = 0; i < 300 && refused === undefined; i++) {
      const nonce = await nonceAt('pending');
      const raw = await transfer(nonce, '0x000000000000000000000000000000000000bEEF', 1n);
      const answer = await send(raw);
      if ('error' in answer) refused = { raw, nonce, error: answer.error };
    }
    assert.ok(refused, 'a transaction was refused once the journal could not grow');
    assert.equal(refused.error.code, -32000);
    assert.match(refused.error.message, /^transaction journal write failed: ENOSPC: no space left on device/);
    const refusedHash = keccak256(refused.raw);
    const headAtRefusal = await head();

    // Not kept: not in the pool, and the pending nonce is the refused one again.
    assert.equal(await rpc(node.url, 'eth_getTransactionByHash', [refusedHash]), null);
    assert.equal(await nonceAt('pending'), refused.nonce);
    // A wallet that goes on with the next nonce is refused too while the journal fails.
    const next = await transfer(refused.nonce + 1, payee, VALUE);
    const nextAnswer = await send(next);
    assert.ok('error' in nextAnswer && /^transaction journal write failed: ENOSPC/.test(nextAnswer.error.message), JSON.stringify(nextAnswer));

    // Degraded on both health endpoints, with the reason; liveness stays a liveness answer.
    const degraded = await health();
    assert.equal(degraded.status, 503);
    assert.equal(degraded.retryAfter, '1');
    assert.equal(degraded.body.status, 'degraded');
    assert.equal(degraded.body.blockProduction, 'ok', 'blocks are still produced: the journal is what fails');
    assert.equal(degraded.body.transactionJournal, 'failing');
    assert.match(degraded.body.reason ?? '', /^transaction journal: ENOSPC: no space left on device/);
    const notReady = await explorer('/health/ready');
    assert.equal(notReady.status, 503);
    assert.match(notReady.body.error ?? '', /^not ready: transaction journal: ENOSPC: no space left on device/);
    assert.equal((await fetch(`${node.explorerUrl}/api/v1/health/live`)).status, 200);
    const info = await rpc<{ transactionJournal: { status: string; reason: string; since: string; failures: number } }>(node.url, 'svc_getNodeInfo');
    assert.equal(info.transactionJournal.status, 'failing');
    assert.match(info.transactionJournal.reason, /^ENOSPC/);
    assert.ok(Number.isFinite(Date.parse(info.transactionJournal.since)));
    assert.ok(info.transactionJournal.failures >= 2);
    const metrics = await (await fetch(new URL('/metrics', node.url))).text();
    assert.match(metrics, /^svc_transaction_journal_failing\{reason="ENOSPC: no space left on device[^"]*"\} 1$/m);

    // Several blocks later neither refused transaction was mined.
    await waitFor('four more blocks', async () => ((await head()) >= headAtRefusal + 4 ? true : undefined), 30_000, 100);
    assert.equal(await receipt(refusedHash), null);
    assert.equal(await receipt(keccak256(next)), null);
    assert.equal(await nonceAt('latest'), refused.nonce, 'the nonce did not move');
    assert.equal(await rpc<Hex>(node.url, 'eth_getBalance', [payee, 'latest']), '0x0');

    // Space comes back: health is ok again by itself (a rewrite after a block succeeds), same process.
    const pid = node.pid;
    rmSync(filler);
    await waitFor('/health to be ok again', async () => ((await health()).status === 200 ? true : undefined), 30_000, 100);
    const healthy = await health();
    assert.deepEqual([healthy.body.status, healthy.body.transactionJournal, healthy.body.reason], ['ok', 'ok', undefined]);
    await waitFor('readiness to be ok again', async () => ((await explorer('/health/ready')).status === 200 ? true : undefined), 10_000, 100);
    assert.equal((await explorer('/health/ready')).body.data?.transactionJournal, 'ok');
    assert.equal((await rpc<{ transactionJournal: { status: string } }>(node.url, 'svc_getNodeInfo')).transactionJournal.status, 'ok');
    assert.equal(node.pid, pid, 'no restart');

    // The wallet's retry of the refused transfer (same nonce, re-signed with a higher tip) is mined, once.
    const retry = await transfer(refused.nonce, payee, VALUE, parseGwei('2'));
    const retried = await send(retry);
    assert.ok('hash' in retried, JSON.stringify(retried));
    const mined = await waitFor('the retry to be mined', () => receipt(retried.hash).then((r) => r ?? undefined), 30_000, 100);
    assert.equal(mined.status, '0x1');
    await waitFor('two more blocks', async () => ((await head()) >= Number(mined.blockNumber) + 2 ? true : undefined), 30_000, 100);
    assert.equal(await receipt(refusedHash), null, 'the refused one is never mined');
    assert.equal(await nonceAt('latest'), refused.nonce + 1);
    assert.equal(BigInt(await rpc<Hex>(node.url, 'eth_getBalance', [payee, 'latest'])), VALUE, 'paid once');

    const lines = node
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
    assert.equal(lines.filter((l) => l.msg === JOURNAL_FAILED_LINE).length, 1, 'the failure is logged once');
    assert.equal(lines.filter((l) => l.msg === JOURNAL_RECOVERED_LINE).length, 1, 'the recovery is logged once');
    assert.equal(lines.filter((l) => l.msg === 'JSON-RPC method failed').length, 0, 'no error line per refused call');
  });
});
