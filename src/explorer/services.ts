// What explorer handlers reach: the node's services, the indexes, and the access control.
import type { NodeServices } from '../chain/services.js';
import type { Indexer } from './indexer/indexer.js';
import type { ExplorerIndexes } from './indexer/records.js';
import type { Context } from 'koa';
import type { AuthenticatedUser, RouteDef } from './definition.js';

/** Who may call a route and how often; throws ExplorerError (401, 429) and sets the rate-limit headers. */
export interface AccessControl {
  admit(ctx: Context, route: RouteDef): Promise<AuthenticatedUser | undefined>;
}

export interface ExplorerServices {
  node: NodeServices;
  indexer: Indexer;
  indexes: ExplorerIndexes;
  access: AccessControl;
}
