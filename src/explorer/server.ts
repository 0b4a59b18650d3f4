// The explorer's HTTP server: koa with its router, every route built from its definition (params
// and body checked against their schemas), the response envelope, body limits, and the OpenAPI
// document at /api/v1/openapi.json.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Context } from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Dispatch, ExplorerServices, RouteDef, RouteModule } from './definition.js';
import {
  ExplorerError,
  failure,
  PayloadTooLargeError,
  success,
  toJson,
  BadRequestError,
  RequestAbortedError,
  ServiceBusyError,
  UnsupportedMediaTypeError,
} from './envelope.js';
import { clientOrigin, TrustedProxies } from '../net/client-ip.js';
import { guardConnections, listenerLimits, serverOptions } from '../net/connection-guard.js';
import { isLaneBusy } from '../native/index.js';
import { openApiDocument } from './openapi.js';
import { checkBody, clip, parseParam } from './validate.js';

export const API_PREFIX = '/api/v1';
/** Largest JSON body accepted (Solidity standard JSON inputs for verification fit well within it). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface ExplorerServer {
  port: number;
  /** The node:http server (socket.io attaches to it). */
  http: http.Server;
  close(): Promise<void>;
}

/** Reads a JSON (or form-urlencoded) body up to MAX_BODY_BYTES; larger bodies are 413. */
export async function readJson(ctx: Context): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
      chunks.push(chunk);
    }
  } catch (err) {
    // The client went away mid-body (the stream errors with "aborted"): its request, not ours, failed.
    if (!(err instanceof ExplorerError) && !ctx.req.complete) throw new RequestAbortedError();
    throw err;
  }
  if (size === 0 || Buffer.concat(chunks).toString('utf8').trim() === '') return undefined;
  const type = ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
  const text = Buffer.concat(chunks).toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequestError('body is not valid JSON');
  }
}

/** koa's path syntax for an OpenAPI path: /blocks/{id} -> /blocks/:id */
function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Whether the client reached the explorer over HTTPS (X-Forwarded-Proto from a trusted proxy; the port itself is plain HTTP). */
export function clientUsesHttps(ctx: Context): boolean {
  return ctx.state['clientHttps'] === true;
}

/** The envelope of an error the client caused, or of a request that went wrong (500, logged once). */
function failureAnswer(err: unknown, log: Logger, path: string): { status: number; headers: Record<string, string>; error: string } {
  // A native lane with a full queue: busy, not broken.
  if (isLaneBusy(err)) err = new ServiceBusyError(err.message);
  if (err instanceof URIError) err = new BadRequestError('malformed %-escape in the path');
  if (err instanceof ExplorerError) return { status: err.status, headers: err.headers, error: err.message };
  log.error({ err, path }, 'explorer request failed');
  return { status: 500, headers: {}, error: 'internal error' };
}

/** 415 unless the request says its body is JSON (a route's `jsonOnly`). */
function requireJson(ctx: Context): void {
  const type = ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return;
  const got = type === '' ? 'none' : `"${type.slice(0, 100)}"`;
  throw new UnsupportedMediaTypeError(`Content-Type must be application/json (got ${got}): this route takes JSON bodies only`);
}

/** The raw path and query values of a request. */
export interface RawInput {
  path: Record<string, string | undefined>;
  query: Record<string, string | string[] | undefined>;
}

/** Runs one route: access, params, body, handler; returns the `data` of its envelope. */
export async function runRoute(
  def: RouteDef,
  module: RouteModule,
  ctx: Context,
  services: ExplorerServices,
  raw: RawInput = { path: ctx.params as Record<string, string | undefined>, query: ctx.query },
  body?: unknown,
): Promise<unknown> {
  const user = await services.access.admit(ctx, def);
  if (def.jsonOnly) requireJson(ctx);
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const p of def.params ?? []) {
    const value = p.in === 'path' ? raw.path[p.name] : raw.query[p.name];
    if (Array.isArray(value)) throw new BadRequestError(`${p.in} parameter "${p.name}" is given more than once`);
    (p.in === 'path' ? params : query)[p.name] = parseParam(p, value);
  }
  let input: unknown = body;
  if (def.body) {
    if (input === undefined) input = await readJson(ctx);
    checkBody(def.body, input ?? {});
    input ??= {};
  }
  const handler = module.handlers[def.id];
  if (!handler) throw new Error(`route ${def.id} has no handler`);
  // Module state (validators, compute) as committed: not a block's while it is being committed.
  await services.node.app.settled();
  return handler({ params, query, body: input, user, ip: ctx.ip, http: ctx }, services);
}

/** GET routes matched by path, static segments before parameters (so /transactions/pending wins over /transactions/{hash}). */
function makeDispatch(modules: RouteModule[], services: ExplorerServices, log: Logger): Dispatch {
  const routes = modules
    .flatMap((module) => module.definitions.filter((d) => d.method === 'GET').map((def) => ({ def, module })))
    .map((r) => {
      const names: string[] = [];
      const pattern = r.def.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { ...r, names, regex: new RegExp(`^${pattern}$`) };
    })
    .sort((a, b) => a.names.length - b.names.length);
  return async (ctx, target) => {
    // Each item fails on its own: a malformed path or %-escape is that item's 400, never the batch's.
    try {
      let url: URL;
      try {
        url = new URL(target, 'http://explorer');
      } catch {
        throw new BadRequestError(`not a path: ${clip(target)}`);
      }
      const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) : url.pathname;
      for (const r of routes) {
        const m = r.regex.exec(path);
        if (!m) continue;
        const raw: RawInput = {
          path: Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])),
          query: Object.fromEntries(url.searchParams),
        };
        return { status: r.def.status ?? 200, body: { ok: true, data: await runRoute(r.def, r.module, ctx, services, raw) } };
      }
      return { status: 404, body: { ok: false, error: `not found: GET ${path}` } };
    } catch (err) {
      const answer = failureAnswer(err, log, target);
      return { status: answer.status, body: { ok: false, error: answer.error } };
    }
  };
}

/** Starts the explorer on `port` (0: any free port) of `host`. */
export async function startExplorerServer(
  services: ExplorerServices,
  modules: RouteModule[],
  options: {
    host: string;
    port: number;
    log: Logger;
    /** Routes outside /api/v1 (the Etherscan-compatible /api), added to a router at the root. */
    rootRoutes?: (root: Router) => void;
    /** Reverse proxies whose X-Forwarded-For/-Proto name the client (--trust-proxy); default none. */
    trustProxy?: TrustedProxies;
    /** The web page (src/explorer/web.ts), answered before the routes for the paths it serves. */
    page?: Koa.Middleware;
  },
): Promise<ExplorerServer> {
  const { log } = options;
  const app = new Koa({ proxy: false });
  const router = new Router({ prefix: API_PREFIX });
  const definitions: RouteDef[] = [];
  for (const module of modules) {
    for (const def of module.definitions) {
      definitions.push(def);
      router.register(koaPath(def.path), [def.method], async (ctx: Context) => {
        const data = await runRoute(def, module, ctx, services);
        ctx.status = def.status ?? 200;
        ctx.type = 'application/json';
        ctx.body = success(data);
      });
    }
  }
  services.dispatch = makeDispatch(modules, services, log);
  const openapi = toJson(openApiDocument(definitions));
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = openapi;
  });
  const root = new Router();
  options.rootRoutes?.(root);

  const trustProxy = options.trustProxy ?? TrustedProxies.none;
  app.use(async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    // One client-address rule for limits, loopback exemption and cookies (src/net/client-ip.ts).
    const origin = clientOrigin(ctx.req.socket.remoteAddress ?? '', ctx.req.headers, trustProxy);
    ctx.request.ip = origin.ip;
    ctx.state['clientHttps'] = origin.https;
    try {
      await next();
      // Answers the routers leave without a body (404 of an unknown path, 405, 501) get the envelope too.
      if (ctx.status >= 400 && ctx.body == null) {
        const status = ctx.status;
        ctx.type = 'application/json';
        ctx.body = failure(
          status === 404
            ? `not found: ${ctx.method} ${ctx.path}`
            : status === 405
              ? `method ${ctx.method} is not allowed on ${ctx.path} (allowed: ${ctx.response.get('Allow')})`
              : (http.STATUS_CODES[status] ?? 'error'),
        );
        ctx.status = status;
      }
    } catch (caught) {
      if (caught instanceof RequestAbortedError) log.debug({ path: ctx.path, ip: ctx.ip }, 'explorer client closed the connection mid-body');
      const answer = failureAnswer(caught, log, ctx.path);
      ctx.status = answer.status;
      for (const [k, v] of Object.entries(answer.headers)) ctx.set(k, v);
      ctx.type = 'application/json';
      ctx.body = failure(answer.error);
    }
  });
  if (options.page) app.use(options.page);
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  app.use(root.routes());
  app.use(root.allowedMethods({ throw: false }));

  // Read, write and idle timeouts and the per-address connection cap of every port (params.http, docs/explorer.md).
  const limits = listenerLimits(services.node.config);
  const server = http.createServer(serverOptions(limits), app.callback());
  guardConnections(server, limits, (_status, message) => failure(message), log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ host: options.host, port }, 'explorer listening');
  return {
    port,
    http: server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
