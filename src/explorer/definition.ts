// How an explorer route is declared: method, path, category, parameters, body and response as
// JSON Schema (schema.ts: each schema is also its TypeScript type). Declarations live in
// routes/<category>.ts, implementations in handlers/<category>.ts, which binds them with
// routeModule (tsc checks each handler against its route's types); the server and the OpenAPI
// document are both built from the declarations. Handlers receive the ExplorerServices declared here.
import type { Context } from 'koa';
import type { NodeServices } from '../services.js';
import type { Indexer } from './indexer/indexer.js';
import type { ExplorerIndexes } from './indexer/records.js';
import type { RouteSpec, RouteTypes } from './schema.js';

export const CATEGORIES = [
  'Blocks',
  'Transactions',
  'Addresses',
  'Contracts',
  'Tokens',
  'Analytics',
  'Network',
  'Stats',
  'Gas Oracle',
  'Leaderboard',
  'Compute',
  'Governance',
  'Bridge',
  'Batch',
  'Authentication',
  'Watchlist',
  'API Keys',
  'Health',
  'Search',
] as const;
export type Category = (typeof CATEGORIES)[number];

export type { ParamDef, Schema } from './schema.js';

/** A route of one of the categories. */
export type RouteDef = RouteSpec<Category>;

/** The signed-in user of a request with a valid access token. */
export interface AuthenticatedUser {
  id: string;
  email: string;
}

/** What a handler gets: parsed, validated input. */
export interface HandlerInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  user: AuthenticatedUser | undefined;
  ip: string;
  /** The koa context, for what only HTTP has (cookies). */
  http: Context;
}

/** A route's implementation: returns `data` of the success envelope. */
export type Handler = (input: HandlerInput, services: ExplorerServices) => unknown;

/** What the handler of route `D` gets: its parameters and body typed by their schemas. */
export type RouteInput<D> = Omit<HandlerInput, 'params' | 'query' | 'body'> & Pick<RouteTypes<D>, 'params' | 'query' | 'body'>;

/** The handler of route `D`: answers the type of its response schema (tsc checks it). */
export type RouteHandler<D> = (input: RouteInput<D>, services: ExplorerServices) => RouteTypes<D>['response'] | Promise<RouteTypes<D>['response']>;

/** A handler for each route of `R`, by id. */
export type Handlers<R extends readonly RouteDef[]> = { [D in R[number] as D['id']]: RouteHandler<D> };

/** One category's routes: definitions and their implementations. */
export interface RouteModule {
  definitions: readonly RouteDef[];
  handlers: Record<string, Handler>;
}

/** Binds a category's route declarations (routes/<category>.ts) to their handlers, each checked against its route's types. */
export function routeModule<const R extends readonly RouteDef[]>(definitions: R, handlers: NoInfer<Handlers<R>>): RouteModule {
  return { definitions, handlers: handlers as unknown as Record<string, Handler> };
}

// What explorer handlers reach: the node's services, the indexes, and the access control.

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
