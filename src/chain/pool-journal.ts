// The pool journal: every transaction the node acknowledges is appended to a file in the data dir
// and fsync'd before its hash is answered, so that a crash loses no acknowledged transaction; on
// start the journal is replayed into the pool. Appends made in one event-loop turn share one write
// and one fsync (group commit); the file is rewritten with only the pool's transactions after
// blocks (write-temp, fsync, rename, fsync the directory), which keeps it bounded. A failed append
// is answered as an error and the pool drops what it failed for (chain/mempool.ts); while appends
// fail the journal reports itself failing (health, node info) until a write succeeds again.
//
// Format: an 8-byte magic, then records of [u32 BE length][first 4 bytes of SHA-256 of the
// payload][payload = the raw signed transaction]. A record cut short at the end of the file (a write
// torn by a crash) is ignored; anything else that does not parse makes the file corrupt: the records
// before the damage are replayed and the file is moved aside.
import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Chain } from '../native/index.js';
import { mempool as poolParams } from '../params.js';
import { AlreadyKnownError, TxPoolError } from './pool.js';
import { SvcError } from '../errors.js';

/** The first bytes of every journal file (format version 1). */
export const JOURNAL_MAGIC = Buffer.from('svcpool1', 'latin1');
const HEADER_BYTES = 8;

/** Raised to the caller of append when the journal could not be written (the pool then drops the transaction). */
export class PoolJournalError extends SvcError {
  override readonly name = 'PoolJournalError';
  override readonly code = 'POOL_JOURNAL';
  constructor(message: string, options?: { cause: unknown }) {
    super(`transaction journal write failed: ${message}`, options);
  }
}

/** What a journal file held: the records that parse, and what was wrong with the rest, if anything. */
export interface JournalContents {
  records: Buffer[];
  /** The last record was cut short (a torn write); it is ignored. */
  tornTail: boolean;
  /** Why the file is corrupt (bad magic, bad checksum, impossible length) and where; undefined when it is not. */
  corrupt?: string;
}

/** One record of the file format. */
export function encodeRecord(raw: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + raw.length);
  out.writeUInt32BE(raw.length, 0);
  checksum(raw).copy(out, 4);
  raw.copy(out, HEADER_BYTES);
  return out;
}

/** Parse a journal file's bytes (see the format above). */
export function decodeJournal(data: Buffer, maxRecordBytes: number = poolParams.maxTxSizeBytes): JournalContents {
  const records: Buffer[] = [];
  if (data.length < JOURNAL_MAGIC.length) {
    // A crash while the magic itself was written leaves a prefix of it.
    return JOURNAL_MAGIC.subarray(0, data.length).equals(data) ? { records, tornTail: data.length > 0 } : { records, tornTail: false, corrupt: 'not a transaction journal (bad magic)' };
  }
  if (!data.subarray(0, JOURNAL_MAGIC.length).equals(JOURNAL_MAGIC)) return { records, tornTail: false, corrupt: 'not a transaction journal (bad magic)' };
  let offset = JOURNAL_MAGIC.length;
  while (offset < data.length) {
    if (data.length - offset < HEADER_BYTES) return { records, tornTail: true };
    const length = data.readUInt32BE(offset);
    if (length === 0 || length > maxRecordBytes) return { records, tornTail: false, corrupt: `record at byte ${offset} has an impossible length ${length}` };
    const end = offset + HEADER_BYTES + length;
    if (end > data.length) return { records, tornTail: true };
    const payload = data.subarray(offset + HEADER_BYTES, end);
    if (!checksum(payload).equals(data.subarray(offset + 4, offset + HEADER_BYTES))) {
      return { records, tornTail: false, corrupt: `record at byte ${offset} fails its checksum` };
    }
    records.push(Buffer.from(payload));
    offset = end;
  }
  return { records, tornTail: false };
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

/** Whether transactions can be journaled now (health checks, svc_getNodeInfo, /metrics). */
export interface JournalHealth {
  /** 'failing' from a failed append until a write (append or rewrite) succeeds again. */
  status: 'ok' | 'failing';
  /** The failed write's error (e.g. "ENOSPC: no space left on device, write"), or null. */
  reason: string | null;
  /** When the failure began (milliseconds since the epoch), or null. */
  since: number | null;
  /** Failed writes since then. */
  failures: number;
}

/** What health checks read of the journal. */
export interface JournalHealthSource {
  health(): JournalHealth;
  /** Why transactions cannot be journaled ("transaction journal: ENOSPC: ..."), or null when they can. */
  problem(): string | null;
}

/** The journal file of one node; one instance owns the file. */
export class PoolJournal implements JournalHealthSource {
  /** Records waiting for the next write, and the callers waiting on them. */
  private batch: Buffer[] = [];
  private waiters: Waiter[] = [];
  private flushScheduled = false;
  /** Writes and rewrites run one after another on this chain. */
  private tail: Promise<void> = Promise.resolve();
  /** Bytes in the file that are known durable (where a failed append is cut back to). */
  private size: number;
  /** Bytes appended since the last rewrite, and what that rewrite wrote. */
  private appendedSinceRewrite = 0;
  private lastRewriteBytes: number;
  private lastRewriteBlock: number;
  /** Records appended since the last rewrite, or a pool that was not empty then: a rewrite would change something. */
  private changedSinceRewrite: boolean;
  private closed = false;
  /** The current run of failed writes, or null while writes succeed. */
  private failure: { reason: string; since: number; failures: number } | null = null;
  /** When a rewrite was last tried as a probe while failing (see compactIfDue). */
  private lastProbeAt = 0;
  /** A failed append could not be cut back (its error): the file may end in garbage, so nothing is appended until a rewrite replaces it. */
  private needsRewrite: string | null = null;

  private constructor(
    readonly file: string,
    private handle: FileHandle,
    size: number,
    entries: number,
    head: number,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {
    this.size = size;
    this.lastRewriteBytes = size;
    this.lastRewriteBlock = head;
    this.changedSinceRewrite = entries > 0;
  }

  /**
   * Read the journal in `dataDir` (a missing file is an empty journal; a corrupt one is logged and
   * moved aside, its readable records kept), then write a fresh file with `restore(records)`: the
   * transactions the pool took back, so that refused ones are not replayed again.
   */
  static async open(
    dataDir: string,
    head: number,
    log: Logger,
    restore: (records: Buffer[]) => Buffer[],
    now: () => number = Date.now,
  ): Promise<PoolJournal> {
    const file = path.join(dataDir, poolParams.journalFile);
    let data: Buffer | undefined;
    try {
      data = await readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const contents = data === undefined ? { records: [], tornTail: false } : decodeJournal(data);
    if (contents.tornTail) log.info({ file, records: contents.records.length }, 'transaction journal: a torn last record (cut short by a crash) is ignored');
    if (contents.corrupt !== undefined) {
      const aside = `${file}.corrupt-${Date.now()}`;
      await rename(file, aside);
      log.warn({ file, movedTo: aside, reason: contents.corrupt, readable: contents.records.length }, 'transaction journal is corrupt: its readable records are replayed and the file is moved aside');
    }
    const kept = restore(contents.records);
    const bytes = await writeDurably(file, kept);
    const handle = await open(file, 'a');
    return new PoolJournal(file, handle, bytes, kept.length, head, log, now);
  }

  health(): JournalHealth {
    const f = this.failure;
    return f === null ? { status: 'ok', reason: null, since: null, failures: 0 } : { status: 'failing', reason: f.reason, since: f.since, failures: f.failures };
  }

  problem(): string | null {
    return this.failure === null ? null : `transaction journal: ${this.failure.reason} (transactions are refused until a write succeeds)`;
  }

  /** Append one transaction; resolves once it is on disk (fsync'd), rejects with PoolJournalError when the write failed. */
  append(raw: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new PoolJournalError('the journal is closed'));
    this.batch.push(encodeRecord(raw));
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // Everything appended in this event-loop turn (and while the previous write runs) goes in one write.
      setImmediate(() => {
        this.flushScheduled = false;
        void this.serially(() => this.flush());
      });
    }
    return done;
  }

  /**
   * After a block: rewrite the file with `entries()` (the pool's transactions) every
   * journalCompactBlocks blocks when something changed, or sooner when appends outgrew the last
   * rewrite. While appends fail, a rewrite is tried after a block at most every journalProbeMs: it
   * is the write that tells when the disk takes writes again, with no transaction waiting on it.
   */
  compactIfDue(head: number, entries: () => Buffer[]): Promise<void> {
    if (this.closed) return Promise.resolve();
    const grown = this.appendedSinceRewrite >= poolParams.journalCompactBytes && this.appendedSinceRewrite > this.lastRewriteBytes;
    const due = head - this.lastRewriteBlock >= poolParams.journalCompactBlocks && this.changedSinceRewrite;
    const now = this.now();
    const probe = (this.failure !== null || this.needsRewrite !== null) && now - this.lastProbeAt >= poolParams.journalProbeMs;
    if (!grown && !due && !probe) return Promise.resolve();
    if (probe) this.lastProbeAt = now;
    this.lastRewriteBlock = head;
    // A failed rewrite is logged and keeps the old file; a later block tries again.
    return this.serially(() => this.rewrite(entries)).catch(() => undefined);
  }

  /** Rewrites the file with `entries()` now (after the devnet's evm_revert emptied the pool); a failure is logged and keeps the old file. */
  rewriteNow(entries: () => Buffer[]): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.serially(() => this.rewrite(entries)).catch(() => undefined);
  }

  /** Write what is waiting, rewrite the file with `entries()` when given (a tidy file for the next start) and close it. */
  async close(entries?: () => Buffer[]): Promise<void> {
    if (this.closed) return;
    // A failed rewrite is logged and keeps the old file, which still holds every acknowledged transaction.
    if (entries) await this.serially(() => this.rewrite(entries)).catch(() => undefined);
    this.closed = true;
    await this.serially(() => this.flush());
    await this.handle.close();
  }

  private serially(op: () => Promise<void>): Promise<void> {
    const run = this.tail.then(op);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Append the batch with one write and one fsync, then answer its callers. */
  private async flush(): Promise<void> {
    const records = this.batch;
    const waiters = this.waiters;
    if (waiters.length === 0) return;
    this.batch = [];
    this.waiters = [];
    if (this.needsRewrite !== null) {
      const reason = `the file could not be cut back after a failed write (${this.needsRewrite}); waiting for a rewrite`;
      const failure = new PoolJournalError(reason);
      this.failed(reason, records.length);
      for (const w of waiters) w.reject(failure);
      return;
    }
    const bytes = Buffer.concat(records);
    try {
      await writeAll(this.handle, bytes);
      await this.handle.datasync();
    } catch (err) {
      // Cut a partial write back so that later records do not follow garbage (and a record whose
      // caller hears of the failure is not replayed after a crash).
      await this.handle.truncate(this.size).catch((cut: unknown) => {
        this.needsRewrite = (err as Error).message;
        this.log.error({ err: cut, file: this.file }, 'transaction journal: a failed append could not be cut back; appends wait for a rewrite');
      });
      const failure = new PoolJournalError((err as Error).message, { cause: err });
      this.failed((err as Error).message, records.length, err);
      for (const w of waiters) w.reject(failure);
      return;
    }
    this.size += bytes.length;
    this.appendedSinceRewrite += bytes.length;
    this.changedSinceRewrite = true;
    this.succeeded('append');
    for (const w of waiters) w.resolve();
  }

  /** A write failed: the first failure of a run is logged at error, the rest at debug. */
  private failed(reason: string, records: number, err?: unknown): void {
    if (this.failure === null) {
      this.failure = { reason, since: this.now(), failures: 1 };
      this.lastProbeAt = this.now();
      this.log.error({ err, file: this.file, records }, 'transaction journal: append failed; transactions are refused until a write succeeds');
      return;
    }
    this.failure.reason = reason;
    this.failure.failures += 1;
    this.log.debug({ err, file: this.file, records, failures: this.failure.failures }, 'transaction journal: append failed');
  }

  /** A write succeeded: a run of failures ends (logged once). */
  private succeeded(write: 'append' | 'rewrite'): void {
    const f = this.failure;
    if (f === null) return;
    this.failure = null;
    this.log.warn({ file: this.file, write, failures: f.failures, failingMs: this.now() - f.since, reason: f.reason }, 'transaction journal: writes succeed again');
  }

  /** Replace the file with `entries()`; appends waiting at that moment are in the snapshot and are answered with it. */
  private async rewrite(entries: () => Buffer[]): Promise<void> {
    const records = this.batch;
    const waiters = this.waiters;
    this.batch = [];
    this.waiters = [];
    const kept = entries();
    let bytes: number;
    try {
      bytes = await writeDurably(this.file, kept);
    } catch (err) {
      // The old file is intact: its waiting appends go back in line for a normal write.
      this.batch = records.concat(this.batch);
      this.waiters = waiters.concat(this.waiters);
      void this.serially(() => this.flush());
      if (this.failure === null) this.log.error({ err, file: this.file }, 'transaction journal: rewrite failed (the old file is kept)');
      else {
        this.failure.reason = (err as Error).message;
        this.log.debug({ err, file: this.file }, 'transaction journal: rewrite failed while appends fail (the old file is kept)');
      }
      throw err;
    }
    const old = this.handle;
    this.handle = await open(this.file, 'a');
    await old.close().catch(() => undefined);
    this.size = bytes;
    this.lastRewriteBytes = bytes;
    this.appendedSinceRewrite = 0;
    this.changedSinceRewrite = kept.length > 0;
    this.needsRewrite = null;
    this.succeeded('rewrite');
    for (const w of waiters) w.resolve();
    this.log.debug({ file: this.file, transactions: kept.length, bytes }, 'transaction journal rewritten');
  }
}

/** Characters of the journal's error kept in the failing gauge's label. */
const FAILURE_REASON_LABEL_CHARS = 200;

/** The journal's health, read on scrape: failing or not (labelled with the error), and failed writes in the run. */
export function registerJournalMetrics(registry: Registry, journal: JournalHealthSource): void {
  const registers = [registry];
  new Gauge({
    name: 'svc_transaction_journal_failing',
    help: 'Whether submitted transactions cannot be journaled (and are refused): 1 from a failed append until a write succeeds, labelled with its error',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      const h = journal.health();
      this.reset();
      this.set({ reason: (h.reason ?? '').slice(0, FAILURE_REASON_LABEL_CHARS) }, h.status === 'failing' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'svc_transaction_journal_failed_writes',
    help: 'Failed journal writes in the current run of failures (0 while writes succeed)',
    registers,
    collect() {
      this.set(journal.health().failures);
    },
  });
}

/** First 4 bytes of SHA-256: detects a damaged record (available on every supported Node, unlike zlib.crc32). */
function checksum(payload: Buffer): Buffer {
  return createHash('sha256').update(payload).digest().subarray(0, 4);
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let done = 0;
  while (done < bytes.length) done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
}

/** Write a whole journal atomically: a temp file, fsync'd, renamed over `file`, then the directory fsync'd. */
async function writeDurably(file: string, raws: Buffer[]): Promise<number> {
  const tmp = `${file}.tmp`;
  const bytes = Buffer.concat([JOURNAL_MAGIC, ...raws.map(encodeRecord)]);
  const handle = await open(tmp, 'w', 0o600);
  try {
    await writeAll(handle, bytes);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(tmp, file);
  const dir = await open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
  return bytes.length;
}

/**
 * Put journaled transactions back in the pool, in journal order; returns what the journal should
 * now hold. A transaction the pool refuses (mined meanwhile, a stale nonce, a base fee above its cap)
 * is dropped and logged once with the reason: at debug when it is mined or already pooled, else at info.
 */
export function replayIntoPool(pool: { add(raw: Buffer): Buffer; journalEntries(): Buffer[] }, chain: Chain, records: Buffer[], log: Logger): Buffer[] {
  let restored = 0;
  let refused = 0;
  for (const raw of records) {
    try {
      pool.add(raw);
      restored++;
    } catch (err) {
      if (!(err instanceof TxPoolError)) throw err;
      refused++;
      let hash: Buffer | undefined;
      try {
        hash = chain.decodeTransaction(raw).hash;
      } catch {
        // Undecodable: the pool's reason says why.
      }
      const known = err instanceof AlreadyKnownError || (hash !== undefined && chain.getTransactionByHash(hash) !== null);
      log[known ? 'debug' : 'info']({ hash: hash && `0x${hash.toString('hex')}`, reason: err.message }, 'journaled transaction not restored to the pool');
    }
  }
  if (records.length > 0) log.info({ restored, refused }, 'transaction journal replayed');
  return pool.journalEntries();
}
