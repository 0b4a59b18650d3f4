// docs/explorer.md's table of how the explorer's routes map to the spec's categories: each row's
// count is the route definitions' (src/explorer/routes/*.ts), every category is in it once, and the
// heading's totals are the definitions' totals.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PUBLIC_ROUTES } from '../src/explorer/index.js';
import { apiKeyRoutes } from '../src/explorer/handlers/api-keys.js';
import { authenticationRoutes } from '../src/explorer/handlers/authentication.js';
import { watchlistRoutes } from '../src/explorer/handlers/watchlist.js';
import { repoRoot } from './support/repo.js';

describe('docs/explorer.md route map', () => {
  it('counts what the router defines, category by category', () => {
    const doc = readFileSync(path.join(repoRoot(), 'docs', 'explorer.md'), 'utf8');
    const defined = new Map<string, number>();
    for (const m of [...PUBLIC_ROUTES, authenticationRoutes, watchlistRoutes, apiKeyRoutes]) {
      for (const d of m.definitions) defined.set(d.category, (defined.get(d.category) ?? 0) + 1);
    }
    const section = doc.slice(doc.indexOf('### How they map'), doc.indexOf('### Blocks'));
    const rows = [...section.matchAll(/^\| ([A-Z][A-Za-z ]+) \| (named|not named) \| (\d+) \|/gm)].map((m) => [m[1]!, Number(m[3])] as const);
    assert.deepEqual(new Map(rows), defined);
    assert.equal(rows.length, defined.size, 'each category once');
    const total = [...defined.values()].reduce((a, b) => a + b, 0);
    assert.match(doc, new RegExp(`^## Routes: ${total} in ${defined.size} categories$`, 'm'));
  });
});
