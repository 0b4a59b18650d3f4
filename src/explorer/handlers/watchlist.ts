// Watchlist handlers: entries of the signed-in user, each with the address's latest activity.
import { authServices, signedIn } from '../auth/access.js';
import type { WatchlistEntry } from '../auth/store.js';
import { latestActivity, type WatchlistChanges, type WatchlistItem } from '../auth/watchlist.js';
import { routeModule, type ExplorerServices, type Handlers } from '../definition.js';
import { BadRequestError } from '../envelope.js';
import { decodeCursor, PAGE } from '../pagination.js';
import { watchlistRouteDefs } from '../routes/watchlist.js';

const withActivity = (services: ExplorerServices, e: WatchlistEntry): WatchlistItem => ({ ...e, latestActivity: latestActivity(services.indexes, e.address) });

export const watchlistHandlers: Handlers<typeof watchlistRouteDefs> = {
  listWatchlist({ user, query }, services) {
    const cursor = decodeCursor(query['cursor'] as string | undefined);
    const limit = (query['limit'] as number | undefined) ?? PAGE.defaultLimit;
    const page = authServices(services).watchlists.page(signedIn(user).id, cursor, limit);
    return { ...page, items: page.items.map((e) => withActivity(services, e)) };
  },

  addWatchlistEntry({ user, body }, services) {
    const b = body as { address: string; name?: string; notifyIncoming?: boolean; notifyOutgoing?: boolean };
    const entry = authServices(services).watchlists.add(signedIn(user).id, {
      address: b.address,
      name: (b.name ?? '').trim(),
      notifyIncoming: b.notifyIncoming ?? true,
      notifyOutgoing: b.notifyOutgoing ?? true,
    });
    return withActivity(services, entry);
  },

  getWatchlistEntry({ user, params }, services) {
    return withActivity(services, authServices(services).watchlists.get(signedIn(user).id, params['id'] as string));
  },

  updateWatchlistEntry({ user, params, body }, services) {
    const b = body as WatchlistChanges;
    const changes: WatchlistChanges = {};
    if (b.name !== undefined) changes.name = b.name.trim();
    if (b.notifyIncoming !== undefined) changes.notifyIncoming = b.notifyIncoming;
    if (b.notifyOutgoing !== undefined) changes.notifyOutgoing = b.notifyOutgoing;
    if (Object.keys(changes).length === 0) throw new BadRequestError('body must change at least one of name, notifyIncoming, notifyOutgoing');
    return withActivity(services, authServices(services).watchlists.update(signedIn(user).id, params['id'] as string, changes));
  },

  deleteWatchlistEntry({ user, params }, services) {
    const entry = authServices(services).watchlists.remove(signedIn(user).id, params['id'] as string);
    return { id: entry.id, deleted: true };
  },
};

export const watchlistRoutes = routeModule(watchlistRouteDefs, watchlistHandlers);
