// The one record codec of module state, and the records a module changed in the block being built.
//
// A record's value is canonical JSON: object keys in code-unit order at every depth, bigints as
// {"$n":"<decimal>"}, numbers as ECMAScript prints them (the shortest string that reads back as the
// same double, so one value has one text); integers beyond 2^53 (which would lose digits), NaN,
// Infinity and binary values are refused. Consensus arithmetic is on integers and bigints; a
// fraction appears only as a reported measurement (a spot-check's cosine).
// The same value therefore always gives the same bytes, whatever order its fields were assigned in
// or whether it was read back from disk: the state root commits to keccak256 of these bytes (the
// slot keccak256(key) of the module's account), so two nodes holding equal records have equal roots.
import type { Chain, RecordWrite } from '../../native/index.js';
import { SvcError } from '../../errors.js';

/** A module's account address (0x-prefixed hex). */
export type Address = `0x${string}`;

/** Raised for a value the codec cannot encode or bytes it cannot decode. */
export class RecordCodecError extends SvcError {
  override readonly name = 'RecordCodecError';
  override readonly code = 'RECORD_CODEC';
}

function canonical(value: unknown, path: string): unknown {
  switch (typeof value) {
    case 'bigint':
      return { $n: value.toString() };
    case 'number':
      if (!Number.isFinite(value)) throw new RecordCodecError(`${path}: ${value} cannot be stored`);
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new RecordCodecError(`${path}: ${value} is beyond 2^53: store it as a bigint`);
      return value;
    case 'string':
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((v, i) => canonical(v, `${path}[${i}]`));
      if (ArrayBuffer.isView(value)) throw new RecordCodecError(`${path}: binary values are stored as hex strings`);
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined) continue;
        out[key] = canonical(v, `${path}.${key}`);
      }
      return out;
    }
    default:
      throw new RecordCodecError(`${path}: a ${typeof value} cannot be stored`);
  }
}

/** The canonical bytes of a record value. */
export function encodeRecord(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(canonical(value, '$')), 'utf8');
}

/** A record value from its bytes, bigints restored. */
export function decodeRecord<T>(bytes: Buffer): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'), (_k, v: unknown) => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const o = v as Record<string, unknown>;
        const keys = Object.keys(o);
        if (keys.length === 1 && keys[0] === '$n' && typeof o.$n === 'string' && /^-?(0|[1-9][0-9]*)$/.test(o.$n)) return BigInt(o.$n);
      }
      return v;
    });
  } catch {
    throw new RecordCodecError('record value is not JSON');
  }
  return parsed as T;
}

/**
 * The records a module changed since the last take, by full key (module prefix included); the last
 * write of a key wins, and `take` lists them in key order so the block's writes do not depend on
 * the order the module touched them in.
 */
export class RecordChanges {
  private readonly changed = new Map<string, Buffer | null>();
  /** Values marked for writing (null: delete), encoded once at take() in the state they are in by then. */
  private readonly marked = new Map<string, unknown>();
  private readonly owner: Buffer;

  constructor(module: Address) {
    this.owner = Buffer.from(module.slice(2), 'hex');
  }

  /** Writes `value` (already encoded) under `key`. */
  put(key: Buffer, value: Buffer): void {
    this.changed.set(key.toString('latin1'), value);
  }

  delete(key: Buffer): void {
    this.changed.set(key.toString('latin1'), null);
  }

  /**
   * Marks a record (its key as a string) for the block's write: `value` is kept as the object it is
   * and encoded when taken, so a record changed many times in a block is encoded once; null deletes.
   */
  mark(key: string, value: unknown): void {
    this.marked.set(key, value);
  }

  /** The value marked for `key` since the last take (undefined when none, null when deleted). */
  markedValue(key: string): unknown {
    return this.marked.get(key);
  }

  get size(): number {
    return this.changed.size + this.marked.size;
  }

  /** The changes as the block's record writes, sorted by key, and forgets them. */
  take(): RecordWrite[] {
    for (const [k, v] of this.marked) {
      if (v === null) this.delete(Buffer.from(k));
      else this.put(Buffer.from(k), encodeRecord(v));
    }
    this.marked.clear();
    const keys = [...this.changed.keys()].sort();
    const out = keys.map((k): RecordWrite => {
      const value = this.changed.get(k)!;
      const key = Buffer.from(k, 'latin1');
      return value === null ? { module: this.owner, key } : { module: this.owner, key, value };
    });
    this.changed.clear();
    return out;
  }

  /** Forgets every change (a block that failed). */
  clear(): void {
    this.changed.clear();
    this.marked.clear();
  }
}

/** Every record of a module at the head, keys without the module's prefix. */
export function loadRecords(chain: Pick<Chain, 'getAppEntries'>, prefix: Buffer): { key: Buffer; value: Buffer }[] {
  return chain.getAppEntries(prefix).map((e) => ({ key: e.key.subarray(prefix.length), value: e.value }));
}
