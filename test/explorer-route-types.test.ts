// The explorer's typed routes: a route's schemas are its TypeScript types (tsc checks the handlers
// against them: the @ts-expect-error lines below compile only while a wrong answer, a misspelt
// parameter or a missing handler is refused), and the OpenAPI document generated from the routes
// describes every object it answers or takes (no bare {type: 'object'}).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeModule } from '../src/explorer/definition.js';
import { apiKeyRoutes } from '../src/explorer/handlers/api-keys.js';
import { authenticationRoutes } from '../src/explorer/handlers/authentication.js';
import { watchlistRoutes } from '../src/explorer/handlers/watchlist.js';
import { PUBLIC_ROUTES } from '../src/explorer/index.js';
import { openApiDocument } from '../src/explorer/openapi.js';
import { blockRouteDefs, type BlockApi } from '../src/explorer/routes/blocks.js';
import type { TransactionApi } from '../src/explorer/routes/transactions.js';
import { object, routes, type FromSchema } from '../src/explorer/schema.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_: T): void => undefined;

describe('typed explorer routes', () => {
  it('derives TypeScript types from the route schemas', () => {
    const s = object({ n: { type: 'integer' }, name: { type: ['string', 'null'] }, tags: { type: 'array', items: { type: 'string' } }, kind: { enum: ['a', 'b'] } }, ['tags']);
    expectType<Equal<FromSchema<typeof s>, { n: number; name: string | null; kind: 'a' | 'b'; tags?: string[] }>>(true);
    expectType<Equal<BlockApi['getBlock']['params'], { id: string }>>(true);
    expectType<Equal<BlockApi['listBlocks']['query'], { cursor: string | undefined; limit: number; apikey: string | undefined }>>(true);
    expectType<Equal<BlockApi['getBlock']['response']['transactions'][number]['status'], 'success' | 'failed'>>(true);
    expectType<Equal<TransactionApi['getTransaction']['response']['fee'], string | null>>(true);
    assert.deepEqual(s.required, ['n', 'name', 'kind']);
  });

  it('refuses, at compile time, a handler that answers another shape', () => {
    const defs = routes([
      { id: 'one', method: 'GET', path: '/one/{id}', category: 'Blocks', summary: 'one', auth: 'public', params: [{ name: 'id', in: 'path', description: 'id', schema: { type: 'integer' } }], response: object({ id: { type: 'integer' }, name: { type: 'string' } }) },
    ]);
    const ok = routeModule(defs, { one: ({ params }) => ({ id: params.id, name: 'x' }) });
    // @ts-expect-error: `name` must be a string
    routeModule(defs, { one: ({ params }) => ({ id: params.id, name: 1 }) });
    // @ts-expect-error: `name` is missing
    routeModule(defs, { one: ({ params }) => ({ id: params.id }) });
    // @ts-expect-error: the route has no parameter `ids`
    routeModule(defs, { one: ({ params }) => ({ id: params.ids, name: 'x' }) });
    // @ts-expect-error: the route `one` has no handler
    routeModule(defs, {});
    // @ts-expect-error: getBlock answers a block, not a page of blocks
    routeModule(blockRouteDefs, { listBlocks: () => ({ items: [], next: null, prev: null }), getBlock: () => ({ items: [], next: null, prev: null }), getBlockTransactions: () => ({ items: [], next: null, prev: null }), getBlockTokenTransfers: () => [] });
    assert.equal(ok.definitions.length, 1);
  });

  it('describes every object of the OpenAPI document', () => {
    const modules = [...PUBLIC_ROUTES, authenticationRoutes, watchlistRoutes, apiKeyRoutes];
    const doc = openApiDocument(modules.flatMap((m) => m.definitions));
    const untyped: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((x, i) => walk(x, `${where}[${i}]`));
      const s = node as Record<string, unknown>;
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (types.includes('object') && s.properties === undefined && s.additionalProperties === undefined && s.patternProperties === undefined) untyped.push(where);
      for (const [k, v] of Object.entries(s)) walk(v, `${where}.${k}`);
    };
    walk(doc.paths, 'paths');
    assert.deepEqual(untyped, []);
    // Every route is in it, with its answer.
    const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).flatMap((p) => Object.values(p));
    assert.equal(operations.length, modules.reduce((n, m) => n + m.definitions.length, 0));
  });
});
