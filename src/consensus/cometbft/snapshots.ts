// State sync snapshots this node serves (ABCI ListSnapshots / LoadSnapshotChunk) and the restore
// of one it is offered (OfferSnapshot / ApplySnapshotChunk). A snapshot (format 1, written by the
// native store, crates/svc-store/src/snapshot.rs) is taken every `interval` blocks after Commit,
// from the RocksDB view pinned at that block, on a worker thread: the block path never waits for
// it. Each lies in <dir>/<height>/ as chunk-0, chunk-1 ... and meta.json; the newest `keep` are
// kept. The snapshot's hash is keccak256 of its chunks' hashes, which its metadata lists. Chunks
// are read for peers, and finished or pruned snapshots moved and removed, with asynchronous file
// calls: the event loop does not wait on the disk.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { keccak256 } from 'viem';
import type { Logger } from 'pino';
import type { Chain } from '../../native/index.js';

/** The snapshot format this node writes and restores. */
export const SNAPSHOT_FORMAT = 1;
/** Chunk size bound (CometBFT accepts chunks up to 16 MB). */
export const SNAPSHOT_CHUNK_BYTES = 4 << 20;

export interface SnapshotSettings {
  dir: string;
  /** Blocks between snapshots (0: none). */
  interval: number;
  /** Snapshots kept. */
  keep: number;
}

/** What ListSnapshots answers for one snapshot. */
export interface SnapshotEntry {
  height: number;
  format: number;
  chunks: number;
  hash: Buffer;
  /** JSON: the chunks' keccak256 hashes, hex. */
  metadata: Buffer;
}

interface Meta {
  height: number;
  format: number;
  blockHash: string;
  root: string;
  chunkHashes: string[];
}

/** keccak256 over the chunks' hashes: the snapshot's hash. */
export function snapshotHash(chunkHashes: Buffer[]): Buffer {
  return Buffer.from(keccak256(Buffer.concat(chunkHashes), 'bytes'));
}

/** keccak256 of a chunk, as its snapshot's metadata lists it (a restore checks it natively, on the block lane). */
export function chunkHash(chunk: Uint8Array): Buffer {
  return Buffer.from(keccak256(chunk, 'bytes'));
}

/** The chunk hashes a snapshot's metadata lists; null when it is not a list of 32-byte hex hashes. */
export function parseSnapshotMetadata(metadata: Uint8Array): Buffer[] | null {
  try {
    const list = JSON.parse(Buffer.from(metadata).toString('utf8')) as unknown;
    if (!Array.isArray(list) || !list.every((h) => typeof h === 'string' && /^0x[0-9a-f]{64}$/.test(h))) return null;
    return (list as string[]).map((h) => Buffer.from(h.slice(2), 'hex'));
  } catch {
    return null;
  }
}

export class SnapshotStore {
  private entries: SnapshotEntry[] = [];
  private writing = false;

  constructor(
    private readonly settings: SnapshotSettings,
    private readonly chain: Chain,
    private readonly log: Logger,
  ) {
    mkdirSync(settings.dir, { recursive: true });
    for (const name of readdirSync(settings.dir)) {
      const dir = path.join(settings.dir, name);
      if (name.endsWith('.tmp')) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      const file = path.join(dir, 'meta.json');
      if (!existsSync(file)) continue;
      try {
        this.entries.push(entry(JSON.parse(readFileSync(file, 'utf8')) as Meta));
      } catch (err) {
        this.log.warn({ err, dir }, 'state sync snapshot unreadable; not served');
      }
    }
    this.entries.sort((a, b) => a.height - b.height);
  }

  /** After block `height` is committed (its view is the chain's): start a snapshot when one is due. */
  committed(height: number): void {
    const { interval } = this.settings;
    if (interval <= 0 || height === 0 || height % interval !== 0 || this.writing) return;
    this.writing = true;
    const started = performance.now();
    const tmp = path.join(this.settings.dir, `${height}.tmp`);
    rmSync(tmp, { recursive: true, force: true });
    this.chain
      .writeSnapshot(height, tmp, SNAPSHOT_CHUNK_BYTES)
      .then(async (written) => {
        const meta: Meta = {
          height,
          format: SNAPSHOT_FORMAT,
          blockHash: `0x${written.hash.toString('hex')}`,
          root: `0x${written.root.toString('hex')}`,
          chunkHashes: written.chunkHashes.map((h) => `0x${h.toString('hex')}`),
        };
        await writeFile(path.join(tmp, 'meta.json'), JSON.stringify(meta));
        const final = path.join(this.settings.dir, String(height));
        this.entries = this.entries.filter((e) => e.height !== height);
        await rm(final, { recursive: true, force: true });
        await rename(tmp, final);
        this.entries = this.entries.concat(entry(meta));
        this.prune();
        this.log.info({ height, chunks: meta.chunkHashes.length, ms: Math.round(performance.now() - started) }, 'state sync snapshot written');
      })
      .catch(async (err: unknown) => {
        await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
        this.log.warn({ err, height }, 'state sync snapshot failed');
      })
      .finally(() => {
        this.writing = false;
      });
  }

  /** Drops the oldest beyond `keep`: unlisted at once (no chunk of it is served), its files removed in the background. */
  private prune(): void {
    while (this.entries.length > Math.max(1, this.settings.keep)) {
      const old = this.entries.shift()!;
      const dir = path.join(this.settings.dir, String(old.height));
      rm(dir, { recursive: true, force: true }).catch((err: unknown) => this.log.warn({ err, dir }, 'state sync snapshot not removed'));
    }
  }

  list(): SnapshotEntry[] {
    return this.entries;
  }

  /** Chunk `index` of the snapshot at `height` (empty when it is not held: CometBFT asks another peer). */
  async loadChunk(height: number, format: number, index: number): Promise<Buffer> {
    if (format !== SNAPSHOT_FORMAT || !this.entries.some((e) => e.height === height && index < e.chunks)) return Buffer.alloc(0);
    try {
      return await readFile(path.join(this.settings.dir, String(height), `chunk-${index}`));
    } catch {
      return Buffer.alloc(0);
    }
  }
}

function entry(meta: Meta): SnapshotEntry {
  const hashes = meta.chunkHashes.map((h) => Buffer.from(h.slice(2), 'hex'));
  return {
    height: meta.height,
    format: meta.format,
    chunks: hashes.length,
    hash: snapshotHash(hashes),
    metadata: Buffer.from(JSON.stringify(meta.chunkHashes)),
  };
}
