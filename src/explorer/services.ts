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

/** Runs a GET route of this API by path (for the batch route): its status and envelope. */
export type Dispatch = (ctx: Context, path: string) => Promise<{ status: number; body: unknown }>;

export interface ExplorerServices {
  node: NodeServices;
  indexer: Indexer;
  indexes: ExplorerIndexes;
  access: AccessControl;
  /** Set by the server once its routes are built. */
  dispatch?: Dispatch;
}
