// Keyset pagination: a cursor names the key a page starts after and the direction, so pages stay
// stable while new blocks arrive and both `next` (older items) and `prev` (newer items) work.
import { BadRequestError } from './envelope.js';

/** Page sizes: the default and the cap. */
export const PAGE = { defaultLimit: 25, maxLimit: 100 } as const;

export interface Cursor {
  /** The last key of the previous page (hex). */
  after: string;
  /** 'older' continues down the list (next), 'newer' goes back up (prev). */
  direction: 'older' | 'newer';
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.direction === 'older' ? 'o' : 'n'}:${c.after}`, 'utf8').toString('base64url');
}

export function decodeCursor(text: string | undefined): Cursor | undefined {
  if (text === undefined) return undefined;
  const raw = Buffer.from(text, 'base64url').toString('utf8');
  const m = /^([on]):([0-9a-f]+)$/.exec(raw);
  if (!m) throw new BadRequestError('cursor is not valid: use `next` or `prev` from a previous page');
  return { direction: m[1] === 'o' ? 'older' : 'newer', after: m[2]! };
}

export interface Page<T> {
  items: T[];
  next: string | null;
  prev: string | null;
}

/**
 * A page over keys in descending order (newest first). `fetch(from, limit, older)` returns entries
 * strictly past `from` in that direction (or from the top when `from` is undefined), newest first
 * when `older`, oldest first otherwise.
 */
export function keysetPage<E extends { key: Buffer }, T>(
  cursor: Cursor | undefined,
  limit: number,
  fetch: (from: Buffer | undefined, limit: number, older: boolean) => E[],
  map: (e: E) => T,
): Page<T> {
  const older = cursor === undefined || cursor.direction === 'older';
  const from = cursor ? Buffer.from(cursor.after, 'hex') : undefined;
  // One more than asked tells whether another page follows in this direction.
  let entries = fetch(from, limit + 1, older);
  const more = entries.length > limit;
  entries = entries.slice(0, limit);
  if (!older) entries.reverse();
  const first = entries[0];
  const last = entries[entries.length - 1];
  const hasOlder = older ? more : cursor !== undefined;
  const hasNewer = older ? cursor !== undefined : more;
  return {
    items: entries.map(map),
    next: last && hasOlder ? encodeCursor({ after: last.key.toString('hex'), direction: 'older' }) : null,
    prev: first && hasNewer ? encodeCursor({ after: first.key.toString('hex'), direction: 'newer' }) : null,
  };
}

/**
 * A keyset page over a list held in memory (a module's records), sorted by `key` descending.
 * Every key has `keyBytes` bytes; a cursor whose key has another length is refused with 400.
 */
export function listPage<E extends { key: Buffer }, T>(cursor: Cursor | undefined, limit: number, sorted: readonly E[], keyBytes: number, map: (e: E) => T): Page<T> {
  if (cursor && cursor.after.length !== keyBytes * 2) throw new BadRequestError('cursor is not valid: use `next` or `prev` from a previous page');
  return keysetPage(
    cursor,
    limit,
    (from, n, older) => {
      if (older) return (from ? sorted.filter((e) => e.key.compare(from) < 0) : sorted).slice(0, n);
      return sorted.filter((e) => e.key.compare(from!) > 0).slice(-n).reverse();
    },
    map,
  );
}
