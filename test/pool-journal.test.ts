// The pool journal (docs/architecture.md, "The pool journal"): a transaction the node answered with
// its hash survives SIGKILL (mined, or pending after the restart and mined later); the journal file
// ignores a torn last record, survives corruption (moved aside), drops what became invalid with a
// logged reason, and is compacted to what the pool holds.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { pino, type Logger } from 'pino';
import { keccak256, parseGwei, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { decodeJournal, encodeRecord, JOURNAL_MAGIC, PoolJournal } from '../src/chain/pool-journal.js';
import { startNode, type RunningNode } from '../src/node.js';
import { mempool as poolParams } from '../src/params.js';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { isConnectionFailure, rpc, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { NodeProcess } from './support/node-process.js';
import { capturingLogger } from './support/captured-log.js';

const KILLS = 2;
const MAX_FEE = parseGwei('10');
const TIP = parseGwei('1');
const keys = devPrivateKeys(10);

interface RpcTx {
  hash: Hex;
  blockNumber: Hex | null;
}
interface RpcReceipt {
  status: Hex;
  blockNumber: Hex;
}

const dirs: string[] = [];
function tmp(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function transfer(from: PrivateKeyAccount, nonce: bigint, value: bigint): Promise<Hex> {
  return from.signTransaction({
    type: 'eip1559',
    chainId: DEV_CHAIN_ID,
    nonce: Number(nonce),
    to: '0x000000000000000000000000000000000000bEEF',
    value,
    gas: 21_000n,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  });
}

const bytes = (raw: Hex): Buffer => Buffer.from(raw.slice(2), 'hex');

async function postJson(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

/** The WebSocket closed while a request waited for its answer (the node was killed). */
class WsClosedError extends Error {
  override readonly name = 'WsClosedError';
}

/** JSON-RPC over one WebSocket: calls answered by id; a close rejects what waits with WsClosedError. */
class WsRpc {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const m = JSON.parse(String(data)) as { id: number; result?: unknown; error?: { code: number; message: string } };
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error) w?.reject(new Error(`${m.error.code}: ${m.error.message}`));
      else w?.resolve(m.result);
    });
    socket.on('close', () => {
      for (const w of this.waiting.values()) w.reject(new WsClosedError('the WebSocket closed'));
      this.waiting.clear();
    });
    socket.on('error', () => undefined);
  }

  static async connect(url: string): Promise<WsRpc> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new WsRpc(socket);
  }

  call<T>(method: string, params: unknown[]): Promise<T> {
    if (this.socket.readyState !== WebSocket.OPEN) return Promise.reject(new WsClosedError('the WebSocket is closed'));
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return new Promise<T>((resolve, reject) => this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  close(): void {
    this.socket.close();
  }
}

describe('nothing acknowledged is lost across SIGKILL', { timeout: 300_000 }, () => {
  let node: NodeProcess | undefined;
  afterEach((t) => dumpLogsOnFailure(t, node));
  after(async () => {
    await node?.dispose();
  });

  it(`every hash answered over HTTP or WebSocket is mined, or pending after each of ${KILLS} SIGKILLs and mined later`, async (t) => {
    // One-second blocks: at a kill, the transactions answered since the last block are only in the pool (and the journal).
    node = await NodeProcess.start({ blockTimeMs: 1_000 });
    const senders = keys.slice(5).map((k) => privateKeyToAccount(k));
    /** Every hash the node answered: the one transport that answered it. */
    const acknowledged = new Map<Hex, 'http' | 'ws'>();
    let pendingAfterRestart = 0;

    for (let segment = 0; segment <= KILLS; segment++) {
      const url = node.url;
      const ws = await WsRpc.connect(node.wsUrl);
      let stopped = false;
      let killed = false;
      // The last sender sends over WebSocket, the others over HTTP; each sends its nonces one after another.
      const streams = senders.map(async (from, i) => {
        const transport = i === senders.length - 1 ? 'ws' : 'http';
        let nonce = BigInt(await rpc<Hex>(url, 'eth_getTransactionCount', [from.address, 'pending']));
        while (!stopped) {
          const raw = await transfer(from, nonce, BigInt(1_000 * segment + i + 1));
          let hash: Hex;
          try {
            hash = transport === 'ws' ? await ws.call<Hex>('eth_sendRawTransaction', [raw]) : await rpc<Hex>(url, 'eth_sendRawTransaction', [raw]);
          } catch (err) {
            // The kill cuts requests off; any other failure (a refusal, a wrong answer) fails the test.
            if (killed && (isConnectionFailure(err) || err instanceof WsClosedError)) return;
            throw err;
          }
          assert.equal(hash, keccak256(raw), 'the answer is the transaction hash');
          acknowledged.set(hash, transport);
          nonce++;
        }
      });

      await new Promise((r) => setTimeout(r, 1_500 + Math.floor(Math.random() * 1_500)));
      if (segment < KILLS) {
        killed = true;
        await node.kill();
        stopped = true;
        await Promise.all(streams);
        ws.close();
        await node.restart();
        // Right after the restart (newest first, in batches, before the next block takes them): known, mined or pending.
        const hashes = [...acknowledged.keys()].reverse();
        for (let i = 0; i < hashes.length; i += 500) {
          const chunk = hashes.slice(i, i + 500);
          const answers = (await postJson(node.url, chunk.map((hash, id) => ({ jsonrpc: '2.0', id, method: 'eth_getTransactionByHash', params: [hash] })))) as { id: number; result: RpcTx | null }[];
          for (const { id, result } of answers) {
            const hash = chunk[id]!;
            assert.ok(result, `${hash}, answered over ${acknowledged.get(hash)} before kill ${segment + 1}, is known after the restart`);
            if (result.blockNumber === null) pendingAfterRestart++;
          }
        }
      } else {
        stopped = true;
        await Promise.all(streams);
        ws.close();
      }
    }
    const restored = [...node.logs().matchAll(/"restored":(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    assert.ok(restored > 0, 'some transactions were only in the pool at a kill: the journal brought them back');
    assert.ok([...acknowledged.values()].includes('ws') && [...acknowledged.values()].includes('http'));

    const url = node.url;
    const unmined = async (): Promise<Hex[]> => {
      const out: Hex[] = [];
      for (const hash of acknowledged.keys()) if ((await rpc<RpcReceipt | null>(url, 'eth_getTransactionReceipt', [hash])) === null) out.push(hash);
      return out;
    };
    await waitFor('every acknowledged transaction to be mined', async () => ((await unmined()).length === 0 ? true : undefined), 60_000, 500);
    for (const hash of acknowledged.keys()) {
      const receipt = await rpc<RpcReceipt>(url, 'eth_getTransactionReceipt', [hash]);
      assert.equal(receipt.status, '0x1', `${hash} succeeded`);
    }
    assert.match(node.logs(), /transaction journal replayed/);
    t.diagnostic(`${acknowledged.size} transactions answered, all mined; ${restored} restored from the journal at the restarts, ${pendingAfterRestart} of the answered seen pending right after one`);
  });
});


const INFO = 30;
const WARN = 40;
const journalFile = (dir: string) => path.join(dir, poolParams.journalFile);
const journalOf = (...raws: Buffer[]) => Buffer.concat([JOURNAL_MAGIC, ...raws.map(encodeRecord)]);

describe('the journal file', () => {
  const nodes: RunningNode[] = [];
  after(async () => {
    for (const n of nodes) await n.stop();
  });

  /** An in-process node whose driver makes no block during the test: what is pooled stays pending. */
  async function start(dataDir: string, log: Logger, blockTimeMs = 600_000): Promise<RunningNode> {
    const node = await startNode(devnetConfig(dataDir, { blockTimeMs }), { log });
    nodes.push(node);
    return node;
  }

  const pending = async (node: RunningNode, raw: Hex): Promise<boolean> =>
    (await rpc<RpcTx | null>(node.rpcUrl, 'eth_getTransactionByHash', [keccak256(raw)]))?.blockNumber === null;

  it('reads back what it wrote; a torn last record is ignored; damage is reported with the readable records before it', () => {
    const payloads = [Buffer.from('first'), Buffer.alloc(300, 7), Buffer.from('third')];
    const whole = journalOf(...payloads);
    assert.deepEqual(decodeJournal(whole), { records: payloads, tornTail: false });
    assert.deepEqual(decodeJournal(JOURNAL_MAGIC), { records: [], tornTail: false });
    // Cut anywhere inside the last record (its header or its payload): the two before it remain.
    for (const cut of [1, 4, 8, 8 + 4]) {
      assert.deepEqual(decodeJournal(whole.subarray(0, whole.length - cut)), { records: payloads.slice(0, 2), tornTail: true }, `cut ${cut}`);
    }
    assert.deepEqual(decodeJournal(JOURNAL_MAGIC.subarray(0, 3)), { records: [], tornTail: true }, 'torn inside the magic');

    const flipped = Buffer.from(whole);
    flipped[JOURNAL_MAGIC.length + 8 + payloads[0]!.length + 8 + 100] ^= 0xff;
    const damaged = decodeJournal(flipped);
    assert.deepEqual(damaged.records, payloads.slice(0, 1));
    assert.match(damaged.corrupt ?? '', /fails its checksum/);
    assert.match(decodeJournal(Buffer.from('not a journal at all')).corrupt ?? '', /bad magic/);
    const huge = Buffer.concat([JOURNAL_MAGIC, Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])]);
    assert.match(decodeJournal(huge).corrupt ?? '', /impossible length 4294967295/);
  });

  it('appends are on disk when they resolve; a rewrite keeps only the pool\'s transactions, atomically', async () => {
    const dir = tmp('svc-journal-unit-');
    const log = pino({ level: 'silent' }) as unknown as Logger;
    const journal = await PoolJournal.open(dir, 0, log, (records) => records);
    const a = Buffer.from('a'.repeat(100));
    const b = Buffer.from('b'.repeat(120));
    const c = Buffer.from('c'.repeat(140));
    // Three appends in one turn: one group write.
    await Promise.all([journal.append(a), journal.append(b), journal.append(c)]);
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, [a, b, c]);

    await journal.compactIfDue(1, () => [b]);
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, [a, b, c], 'not due one block later');
    await journal.compactIfDue(poolParams.journalCompactBlocks, () => [b]);
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, [b], 'rewritten after journalCompactBlocks blocks');
    await journal.append(c);
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, [b, c], 'appends go on after the rewrite');
    await journal.close(() => [c]);
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, [c], 'closing leaves the pool\'s transactions');
    assert.deepEqual(readdirSync(dir), [poolParams.journalFile], 'no temp file is left behind');
    await assert.rejects(journal.append(a), /journal is closed/);
  });

  it('eth_sendRawTransaction answers once the transaction is in the journal; a clean stop and start keeps it pending', async () => {
    const dir = tmp('svc-journal-node-');
    const { log } = capturingLogger();
    const node = await start(dir, log);
    const from = privateKeyToAccount(keys[1]!);
    const raws = [await transfer(from, 0n, 1n), await transfer(from, 1n, 2n)];
    // Nonce 1 first (queued), then nonce 0.
    for (const raw of [raws[1]!, raws[0]!]) {
      await rpc(node.rpcUrl, 'eth_sendRawTransaction', [raw]);
      assert.ok(decodeJournal(readFileSync(journalFile(dir))).records.some((r) => r.equals(bytes(raw))), 'in the file when answered');
    }
    // A batch: admitted in order, answered together once all are in the file.
    const batch = [await transfer(from, 2n, 3n), await transfer(from, 3n, 4n), await transfer(from, 4n, 5n)];
    const answers = (await postJson(node.rpcUrl, [
      ...batch.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] })),
      { jsonrpc: '2.0', id: 3, method: 'eth_sendRawTransaction', params: [batch[0]] },
    ])) as { id: number; result?: Hex; error?: { code: number; message: string } }[];
    assert.deepEqual(answers.slice(0, 3).map((a) => a.result), batch.map((raw) => keccak256(raw)));
    assert.deepEqual(answers[3]!.error, { code: -32003, message: 'already known' }, 'a refusal in a batch keeps its place');
    const inFile = decodeJournal(readFileSync(journalFile(dir))).records;
    for (const raw of batch) assert.ok(inFile.some((r) => r.equals(bytes(raw))), 'every transaction of the batch is in the file when it is answered');
    await node.stop();
    raws.push(...batch);
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, raws.map(bytes), 'rewritten at the stop, the sender\'s in nonce order');
    const again = await start(dir, capturingLogger().log);
    for (const raw of raws) assert.ok(await pending(again, raw), 'pending after the restart');
    await again.stop();
  });

  it('a torn last record is ignored: the node starts and restores the complete ones', async () => {
    const dir = tmp('svc-journal-torn-');
    const from = privateKeyToAccount(keys[2]!);
    const raws = [await transfer(from, 0n, 1n), await transfer(from, 1n, 2n), await transfer(from, 2n, 3n)];
    const whole = journalOf(...raws.map(bytes));
    writeFileSync(journalFile(dir), whole.subarray(0, whole.length - 20));
    const { log, lines } = capturingLogger();
    const node = await start(dir, log);
    assert.ok(await pending(node, raws[0]!));
    assert.ok(await pending(node, raws[1]!));
    assert.equal(await rpc(node.rpcUrl, 'eth_getTransactionByHash', [keccak256(raws[2]!)]), null, 'the torn one is not replayed');
    assert.ok(lines().some((l) => l.level === INFO && /torn last record/.test(l.msg)));
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, raws.slice(0, 2).map(bytes), 'rewritten without the torn tail');
    await node.stop();
  });

  it('a corrupt journal does not stop the node: logged, moved aside, the records before the damage restored', async () => {
    const dir = tmp('svc-journal-corrupt-');
    const from = privateKeyToAccount(keys[3]!);
    const raws = [await transfer(from, 0n, 1n), await transfer(from, 1n, 2n)];
    const file = journalOf(...raws.map(bytes));
    file[file.length - 5] ^= 0x55; // inside the second record's payload
    writeFileSync(journalFile(dir), file);
    const { log, lines } = capturingLogger();
    const node = await start(dir, log);
    assert.ok(await pending(node, raws[0]!), 'the record before the damage is restored');
    assert.equal(await rpc(node.rpcUrl, 'eth_getTransactionByHash', [keccak256(raws[1]!)]), null);
    const warning = lines().find((l) => l.level === WARN && /transaction journal is corrupt/.test(l.msg));
    assert.ok(warning, 'a warning says so');
    assert.match(String(warning['reason']), /fails its checksum/);
    const aside = readdirSync(dir).filter((f) => f.startsWith(`${poolParams.journalFile}.corrupt-`));
    assert.equal(aside.length, 1, 'the damaged file is moved aside');
    assert.deepEqual(readFileSync(path.join(dir, aside[0]!)), file, 'unchanged, for inspection');
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))), { records: [bytes(raws[0]!)], tornTail: false }, 'a fresh journal');
    await node.stop();
    assert.ok(existsSync(journalFile(dir)));
  });

  it('a journaled transaction that became invalid is dropped on replay, logged once with its reason', async () => {
    const dir = tmp('svc-journal-stale-');
    const from = privateKeyToAccount(keys[4]!);
    const mined = await transfer(from, 0n, 1n);
    const first = await start(dir, capturingLogger().log, 100);
    await rpc(first.rpcUrl, 'eth_sendRawTransaction', [mined]);
    await waitFor('the transfer to be mined', async () => (await rpc(first.rpcUrl, 'eth_getTransactionReceipt', [keccak256(mined)])) ?? undefined);
    await first.stop();

    // Written by hand: the mined one, another with its nonce (now stale), and the next nonce.
    const stale = await transfer(from, 0n, 2n);
    const next = await transfer(from, 1n, 3n);
    writeFileSync(journalFile(dir), journalOf(bytes(mined), bytes(stale), bytes(next)));
    const { log, lines } = capturingLogger();
    const node = await start(dir, log);
    assert.ok(await pending(node, next), 'the still-valid one is pending');
    assert.equal(await rpc(node.rpcUrl, 'eth_getTransactionByHash', [keccak256(stale)]), null);
    const refusals = lines().filter((l) => l.msg === 'journaled transaction not restored to the pool');
    assert.deepEqual(
      refusals.map((l) => ({ level: l.level, hash: l['hash'], reason: l['reason'] })),
      [
        { level: 20, hash: keccak256(mined), reason: 'nonce too low: next nonce 1, tx nonce 0' },
        { level: INFO, hash: keccak256(stale), reason: 'nonce too low: next nonce 1, tx nonce 0' },
      ],
      'the mined one at debug, the stale one at info, each once',
    );
    assert.deepEqual(decodeJournal(readFileSync(journalFile(dir))).records, [bytes(next)], 'the journal keeps only what the pool took back');
    await node.stop();
  });
});
