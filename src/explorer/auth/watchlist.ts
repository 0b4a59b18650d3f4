// Watchlists: addresses a user follows, one entry per address, at most watchlistPerAccount per
// account, each shown with the address's latest activity from the explorer indexes. Entries live
// under their owner's id, so another user's entry id is simply not found.
import { explorer as params } from '../../params.js';
import { addressKey, type ExplorerIndexes, type Hex } from '../indexer/records.js';
import { BadRequestError, ConflictError, NotFoundError } from '../envelope.js';
import { keysetPage, type Cursor, type Page } from '../pagination.js';
import { commit } from '../store.js';
import { idKey, newId, type UsersStore, type WatchlistEntry } from './store.js';

/** The latest transaction touching an address. */
export interface LatestActivity {
  txHash: Hex;
  blockNumber: number;
  /** Unix seconds of its block. */
  timestamp: number;
  /** incoming: the address received (value, a created contract or tokens); outgoing: it sent; self: both. */
  direction: 'incoming' | 'outgoing' | 'self';
}

export type WatchlistItem = WatchlistEntry & { latestActivity: LatestActivity | null };

export type WatchlistChanges = Partial<Pick<WatchlistEntry, 'name' | 'notifyIncoming' | 'notifyOutgoing'>>;

/** The address's most recent transaction in the indexes, or null when it has none. */
export function latestActivity(indexes: ExplorerIndexes, address: Hex): LatestActivity | null {
  const addr = addressKey(address);
  const [latest] = indexes.addressTxs.scan(addr, undefined, 1, true);
  if (!latest) return null;
  const tx = indexes.txs.get(latest.key.subarray(20));
  if (!tx) return null;
  const roles = latest.value.roles;
  let sent = roles.includes('from');
  let received = roles.includes('to') || roles.includes('created');
  if (!sent && !received && roles.includes('token')) {
    // Only tokens moved: the address's latest transfer of this transaction says which way.
    const [transfer] = indexes.addressTransfers.scan(addr, undefined, 1, true);
    if (transfer && transfer.value.txHash === tx.hash) {
      sent = transfer.value.from === address;
      received = transfer.value.to === address;
    } else received = true;
  }
  return { txHash: tx.hash, blockNumber: tx.blockNumber, timestamp: tx.timestamp, direction: sent && received ? 'self' : sent ? 'outgoing' : 'incoming' };
}

export class Watchlists {
  constructor(private readonly store: UsersStore) {}

  /** A page of the user's entries, newest first. */
  page(userId: string, cursor: Cursor | undefined, limit: number): Page<WatchlistEntry> {
    const user = idKey(userId);
    if (cursor && !/^[0-9a-f]{32}$/.test(cursor.after)) throw new BadRequestError('cursor is not valid: use `next` or `prev` from a previous page');
    return keysetPage(
      cursor,
      limit,
      (from, n, older) =>
        this.store.watchlist
          .scan(user, from && Buffer.concat([user, from]), n, older)
          // Cursors carry the entry id only, never the owner's id.
          .map((e) => ({ key: e.key.subarray(16), value: e.value })),
      (e) => e.value,
    );
  }

  count(userId: string): number {
    return this.store.count(this.store.watchlist, idKey(userId), 10_000);
  }

  /** The user's entry; 404 when it does not exist or belongs to someone else. */
  get(userId: string, id: string): WatchlistEntry {
    const entry = this.store.watchlist.get(Buffer.concat([idKey(userId), idKey(id)]));
    if (!entry) throw new NotFoundError(`watchlist entry ${id} not found`);
    return entry;
  }

  add(userId: string, input: { address: string; name: string; notifyIncoming: boolean; notifyOutgoing: boolean }): WatchlistEntry {
    const user = idKey(userId);
    const address = input.address.toLowerCase() as Hex;
    // Both checks and the write run with no await between them, so concurrent adds cannot pass the cap or duplicate.
    const existing = this.store.watchedAddresses.get(Buffer.concat([user, addressKey(address)]));
    if (existing !== undefined) throw new ConflictError(`${address} is already on the watchlist (entry ${existing})`);
    if (this.store.count(this.store.watchlist, user, params.watchlistPerAccount) >= params.watchlistPerAccount) {
      throw new ConflictError(`watchlist is full: at most ${params.watchlistPerAccount} addresses per account`);
    }
    const now = new Date().toISOString();
    const entry: WatchlistEntry = { id: newId(), address, name: input.name, notifyIncoming: input.notifyIncoming, notifyOutgoing: input.notifyOutgoing, createdAt: now, updatedAt: now };
    commit(this.store.chain, 'users', [
      this.store.watchlist.putWrite(Buffer.concat([user, idKey(entry.id)]), entry),
      this.store.watchedAddresses.putWrite(Buffer.concat([user, addressKey(address)]), entry.id),
    ]);
    return entry;
  }

  update(userId: string, id: string, changes: WatchlistChanges): WatchlistEntry {
    const entry = this.get(userId, id);
    const updated: WatchlistEntry = { ...entry, ...changes, updatedAt: new Date().toISOString() };
    this.store.watchlist.put(Buffer.concat([idKey(userId), idKey(id)]), updated);
    return updated;
  }

  remove(userId: string, id: string): WatchlistEntry {
    const entry = this.get(userId, id);
    const user = idKey(userId);
    commit(this.store.chain, 'users', [
      this.store.watchlist.deleteWrite(Buffer.concat([user, idKey(id)])),
      this.store.watchedAddresses.deleteWrite(Buffer.concat([user, addressKey(entry.address)])),
    ]);
    return entry;
  }
}
