// The explorer's route declarations as types: a JSON Schema written `as const` (or built with
// `object`) is also its TypeScript type (FromSchema), so a route's parameters, body and answer are
// declared once, in routes/<category>.ts, and both the handlers (checked by tsc) and the web page
// (type-only imports) read them from there. This file imports nothing: the web page's type check
// reads it and the route declarations without the node's code.

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it); the server checks the subset in validate.ts. */
export type Schema = { readonly [key: string]: unknown };

export interface ParamDef {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required?: boolean;
  readonly description: string;
  readonly schema: Schema;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route: what the server builds it from and the OpenAPI document describes. */
export interface RouteSpec<C extends string = string> {
  /** Unique id, also the OpenAPI operationId and the key of its handler. */
  readonly id: string;
  readonly method: Method;
  /** OpenAPI-style path under /api/v1, e.g. /blocks/{id}. */
  readonly path: string;
  readonly category: C;
  readonly summary: string;
  /** public: anyone (API keys raise the rate limit); user: a JWT access token is required. */
  readonly auth: 'public' | 'user';
  readonly params?: readonly ParamDef[];
  /** JSON request body, when the route takes one. */
  readonly body?: Schema;
  /**
   * Only requests with `Content-Type: application/json` reach the route (415 otherwise, before the
   * body is read): a browser posts a form or text/plain across origins without a CORS preflight,
   * never JSON, so another site cannot make a visitor's browser call it.
   */
  readonly jsonOnly?: boolean;
  /** Schema of `data` in the success envelope. */
  readonly response: Schema;
  /** Status of a success (default 200). */
  readonly status?: number;
}

// ---- FromSchema: the TypeScript type of the values a schema describes ----

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;
type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      } & (S extends { readonly additionalProperties: infer A extends Schema } ? { [key: string]: FromSchema<A> | FromSchema<P[keyof P]> } : unknown)
    >
  : S extends { readonly additionalProperties: infer A extends Schema }
    ? { [key: string]: FromSchema<A> }
    : { [key: string]: unknown };
type ArrayOf<S> = S extends { readonly items: infer I } ? FromSchema<I>[] : unknown[];
type OfType<T, S> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? ArrayOf<S>
          : T extends 'object'
            ? ObjectOf<S>
            : unknown;

/** The type of the values `S` accepts: const, enum, oneOf/anyOf, type (one or a list), properties with required, items, additionalProperties. */
export type FromSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly oneOf: readonly (infer O)[] }
      ? FromSchema<O>
      : S extends { readonly anyOf: readonly (infer O)[] }
        ? FromSchema<O>
        : S extends { readonly type: readonly (infer T)[] }
          ? OfType<T, S>
          : S extends { readonly type: infer T }
            ? OfType<T, S>
            : unknown;

/**
 * An object schema whose properties are all required except those named in `optional` (JSON
 * Schema's default is the other way round; the explorer's answers carry nearly every field).
 */
export function object<const P extends { readonly [key: string]: Schema }, const O extends keyof P & string = never>(
  properties: P,
  optional: readonly O[] = [],
  description?: string,
): { readonly type: 'object'; readonly description?: string; readonly required: readonly Exclude<keyof P & string, O>[]; readonly properties: P } {
  const required = Object.keys(properties).filter((k) => !(optional as readonly string[]).includes(k)) as Exclude<keyof P & string, O>[];
  return description === undefined ? { type: 'object', required, properties } : { type: 'object', description, required, properties };
}

/** A list of routes, kept with their literal types (ids, parameter names, schemas) for RouteTypes. */
export function routes<const R extends readonly RouteSpec[]>(definitions: R): R {
  return definitions;
}

// ---- a route's request and answer types ----

type ParamsIn<D, Where> = D extends { readonly params: readonly (infer P)[] } ? Extract<P, { readonly in: Where }> : never;
type Present<P> = P extends { readonly required: true } ? true : P extends { readonly in: 'path' } ? true : P extends { readonly schema: { readonly default: unknown } } ? true : false;

/** The parsed path or query parameters of route `D` (absent optional ones are undefined). */
export type ParamsOf<D, Where extends 'path' | 'query'> = Simplify<{
  [P in ParamsIn<D, Where> as P extends { readonly name: infer N extends string } ? N : never]: P extends { readonly schema: infer S } ? (Present<P> extends true ? FromSchema<S> : FromSchema<S> | undefined) : never;
}>;

/** What a client sends route `D` and what it answers. */
export interface RouteTypes<D> {
  params: ParamsOf<D, 'path'>;
  query: ParamsOf<D, 'query'>;
  body: D extends { readonly body: infer B } ? FromSchema<B> : undefined;
  response: D extends { readonly response: infer S } ? FromSchema<S> : never;
}

/** Each route of a list by its id: `Api<typeof definitions>['getBlock']['response']`. */
export type Api<R extends readonly RouteSpec[]> = { [D in R[number] as D['id']]: RouteTypes<D> };

// ---- schemas many routes share ----

/** Reusable schemas. */
export const schemas = {
  address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', description: '0x-prefixed 20-byte address' },
  hash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: '0x-prefixed 32-byte hash' },
  /** Integers that may exceed 2^53 travel as decimal strings. */
  bigint: { type: 'string', pattern: '^[0-9]+$', description: 'decimal integer' },
  hex: { type: 'string', pattern: '^0x[0-9a-fA-F]*$' },
  cursor: { type: 'string', maxLength: 512, description: 'opaque cursor from a previous page' },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'page size (at most 100)' },
} as const satisfies Record<string, Schema>;

/** A page of items with keyset cursors: `next` (older) and `prev` (newer), null at the ends. */
export function pageSchema<const I extends Schema>(item: I) {
  return {
    type: 'object',
    required: ['items', 'next', 'prev'],
    properties: {
      items: { type: 'array', items: item },
      next: { type: ['string', 'null'] },
      prev: { type: ['string', 'null'] },
    },
  } as const;
}

/** The type of what `pageSchema(item)` describes, `T` being the item's type (test/explorer-route-types.test.ts holds the two equal). */
export type Page<T> = { items: T[]; next: string | null; prev: string | null };

/** The query parameters of every paginated list. */
export const pageParams = [
  { name: 'cursor', in: 'query', description: 'cursor from `next` or `prev` of a previous page', schema: schemas.cursor },
  { name: 'limit', in: 'query', description: 'page size, 1..100 (default 25)', schema: schemas.limit },
] as const satisfies readonly ParamDef[];
