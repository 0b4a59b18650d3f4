// The pool journal: every transaction the node acknowledges is appended to a file in the data dir
// and fsync'd before its hash is answered, so that a crash loses no acknowledged transaction; on
// start the journal is replayed into the pool. Appends made in one event-loop turn share one write
// and one fsync (group commit); the file is rewritten with only the pool's transactions after
// blocks (write-temp, fsync, rename, fsync the directory), which keeps it bounded.
//
// Format: an 8-byte magic, then records of [u32 BE length][first 4 bytes of SHA-256 of the
// payload][payload = the raw signed transaction]. A record cut short at the end of the file (a write
// torn by a crash) is ignored; anything else that does not parse makes the file corrupt: the records
// before the damage are replayed and the file is moved aside.
import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Chain } from '../native/index.js';
import { mempool as poolParams } from '../params.js';
import { AlreadyKnownError, TxPoolError } from './pool.js';
import { SvcError } from '../errors.js';

/** The first bytes of every journal file (format version 1). */
export const JOURNAL_MAGIC = Buffer.from('svcpool1', 'latin1');
const HEADER_BYTES = 8;

/** Raised to the caller of append when the journal could not be written (the transaction stays in the pool). */
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

/** The journal file of one node; one instance owns the file. */
export class PoolJournal {
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

  private constructor(
    readonly file: string,
    private handle: FileHandle,
    size: number,
    entries: number,
    head: number,
    private readonly log: Logger,
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
  static async open(dataDir: string, head: number, log: Logger, restore: (records: Buffer[]) => Buffer[]): Promise<PoolJournal> {
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
    return new PoolJournal(file, handle, bytes, kept.length, head, log);
  }

  /** Append one acknowledged transaction; resolves once it is on disk (fsync'd). */
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
   * journalCompactBlocks blocks when something changed, or sooner when appends outgrew the last rewrite.
   */
  compactIfDue(head: number, entries: () => Buffer[]): Promise<void> {
    if (this.closed) return Promise.resolve();
    const grown = this.appendedSinceRewrite >= poolParams.journalCompactBytes && this.appendedSinceRewrite > this.lastRewriteBytes;
    const due = head - this.lastRewriteBlock >= poolParams.journalCompactBlocks && this.changedSinceRewrite;
    if (!grown && !due) return Promise.resolve();
    this.lastRewriteBlock = head;
    // A failed rewrite is logged and keeps the old file; a later block tries again.
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
    const bytes = Buffer.concat(records);
    try {
      await writeAll(this.handle, bytes);
      await this.handle.datasync();
    } catch (err) {
      // Cut a partial write back so that later records do not follow garbage.
      await this.handle.truncate(this.size).catch(() => undefined);
      const failure = new PoolJournalError((err as Error).message, { cause: err });
      this.log.error({ err, file: this.file, records: records.length }, 'transaction journal: append failed');
      for (const w of waiters) w.reject(failure);
      return;
    }
    this.size += bytes.length;
    this.appendedSinceRewrite += bytes.length;
    this.changedSinceRewrite = true;
    for (const w of waiters) w.resolve();
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
      this.log.error({ err, file: this.file }, 'transaction journal: rewrite failed (the old file is kept)');
      throw err;
    }
    const old = this.handle;
    this.handle = await open(this.file, 'a');
    await old.close().catch(() => undefined);
    this.size = bytes;
    this.lastRewriteBytes = bytes;
    this.appendedSinceRewrite = 0;
    this.changedSinceRewrite = kept.length > 0;
    for (const w of waiters) w.resolve();
    this.log.debug({ file: this.file, transactions: kept.length, bytes }, 'transaction journal rewritten');
  }
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
