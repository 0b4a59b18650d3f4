// How an explorer route is declared: method, path, category, parameters, body and response as
// JSON Schema. Definitions live in routes/<category>.ts, implementations in handlers/<category>.ts;
// the server and the OpenAPI document are both built from the definitions. Handlers receive the
// ExplorerServices declared here.
import type { Context } from 'koa';
import type { NodeServices } from '../services.js';
import type { Indexer } from './indexer/indexer.js';
import type { ExplorerIndexes } from './indexer/records.js';

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

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it); the server checks the subset in validate.ts. */
export type Schema = Record<string, unknown>;

export interface ParamDef {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  description: string;
  schema: Schema;
}

export interface RouteDef {
  /** Unique id, also the OpenAPI operationId and the key of its handler. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI-style path under /api/v1, e.g. /blocks/{id}. */
  path: string;
  category: Category;
  summary: string;
  /** public: anyone (API keys raise the rate limit); user: a JWT access token is required. */
  auth: 'public' | 'user';
  params?: ParamDef[];
  /** JSON request body, when the route takes one. */
  body?: Schema;
  /**
   * Only requests with `Content-Type: application/json` reach the route (415 otherwise, before the
   * body is read): a browser posts a form or text/plain across origins without a CORS preflight,
   * never JSON, so another site cannot make a visitor's browser call it.
   */
  jsonOnly?: boolean;
  /** Schema of `data` in the success envelope. */
  response: Schema;
  /** Status of a success (default 200). */
  status?: number;
}

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

/** One category's routes: definitions and their implementations. */
export interface RouteModule {
  definitions: RouteDef[];
  handlers: Record<string, Handler>;
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
