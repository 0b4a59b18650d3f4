// The explorer's typed routes: a route's schemas are its TypeScript types (tsc checks the handlers
// against them: the @ts-expect-error lines below compile only while a wrong answer, a misspelt
// parameter or a missing handler is refused), and the OpenAPI document generated from the routes
// describes every object it answers or takes (no bare {type: 'object'}). The web page compiles
// against the same types and reads every API answer as a route types it (no shape of its own).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { routeModule } from '../src/explorer/definition.js';
import { apiKeyRoutes } from '../src/explorer/handlers/api-keys.js';
import { authenticationRoutes } from '../src/explorer/handlers/authentication.js';
import { watchlistRoutes } from '../src/explorer/handlers/watchlist.js';
import { PUBLIC_ROUTES } from '../src/explorer/index.js';
import { openApiDocument } from '../src/explorer/openapi.js';
import { blockRouteDefs, type BlockApi } from '../src/explorer/routes/blocks.js';
import type { BlockItem } from '../src/explorer/routes/shapes.js';
import type { TransactionApi } from '../src/explorer/routes/transactions.js';
import { object, routes, type FromSchema, type Page } from '../src/explorer/schema.js';
import { repoRoot } from './support/repo.js';

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
    // Page<T>, what the web page's lists read, is what pageSchema describes.
    expectType<Equal<BlockApi['listBlocks']['response'], Page<BlockItem>>>(true);
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

  it('type-checks the web page against the route types', () => {
    const program = webProgram(repoRoot());
    webPage = program;
    const diagnostics = ts.getPreEmitDiagnostics(program);
    assert.equal(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => repoRoot(), getNewLine: () => '\n' }), '');
  });

  it('reads every API answer of the web page as a route types it', () => {
    const root = repoRoot();
    assert.deepEqual(handWrittenAnswers(webPage ?? webProgram(root), root), []);
  });
});

let webPage: ts.Program | undefined;

/** The web page's program, as `tsc -p web/tsconfig.json` (scripts/build-web.mjs) builds it. */
function webProgram(root: string): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'web/tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!config) throw new Error('web/tsconfig.json could not be read');
  return ts.createProgram({ rootNames: config.fileNames, options: config.options });
}

/**
 * Every type argument of an `api<T>(…)` or `useApi<T>(…)` call in web/src that is not made of the
 * routes' types (src/explorer/routes/*.ts, src/explorer/schema.ts): a type literal, an interface of
 * the page's own, or a type from elsewhere. Aliases in web/src are followed to what they name;
 * indexed access, arrays, unions and generic arguments are checked part by part; the type parameter
 * of a generic helper passes. Each finding is `file:line: what`.
 */
export function handWrittenAnswers(program: ts.Program, root: string): string[] {
  const checker = program.getTypeChecker();
  const web = path.join(root, 'web', 'src') + path.sep;
  const allowed = (file: string) => path.dirname(file) === path.join(root, 'src', 'explorer', 'routes') || file === path.join(root, 'src', 'explorer', 'schema.ts');
  const findings: string[] = [];
  const where = (node: ts.Node) => {
    const sf = node.getSourceFile();
    return `${path.relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  };
  const check = (node: ts.TypeNode, seen: Set<ts.Node>, at: string): void => {
    if (ts.isParenthesizedTypeNode(node)) return check(node.type, seen, at);
    if (ts.isArrayTypeNode(node)) return check(node.elementType, seen, at);
    if (ts.isUnionTypeNode(node) || ts.isIntersectionTypeNode(node)) return node.types.forEach((t) => check(t, seen, at));
    if (ts.isIndexedAccessTypeNode(node)) return check(node.objectType, seen, at);
    if (ts.isTypeReferenceNode(node)) {
      let symbol = checker.getSymbolAtLocation(node.typeName);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const decl = symbol?.declarations?.[0];
      const name = node.typeName.getText();
      if (!decl) return void findings.push(`${at}: ${name} is not declared`);
      if (ts.isTypeParameterDeclaration(decl)) return;
      node.typeArguments?.forEach((t) => check(t, seen, at));
      const file = path.normalize(decl.getSourceFile().fileName);
      if (allowed(file)) return;
      if (file.startsWith(web) && ts.isTypeAliasDeclaration(decl)) {
        if (seen.has(decl)) return;
        seen.add(decl);
        return check(decl.type, seen, `${at} (${name}, ${where(decl)})`);
      }
      return void findings.push(`${at}: ${name} is declared in ${path.relative(root, file)}, not by a route`);
    }
    findings.push(`${at}: ${ts.isTypeLiteralNode(node) ? 'a shape written by hand' : `${node.getText()} is not a route's type`}`);
  };
  for (const sf of program.getSourceFiles()) {
    if (!path.normalize(sf.fileName).startsWith(web)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && (node.expression.text === 'api' || node.expression.text === 'useApi')) {
        for (const t of node.typeArguments ?? []) check(t, new Set(), where(t));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return findings;
}
