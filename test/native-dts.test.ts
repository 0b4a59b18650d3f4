// The addons' declarations are generated from the Rust signatures when an addon is built and committed
// under src/native/generated/, where the loaders take their types from; a stale copy fails here (and
// `npm test` runs scripts/check-native-dts.mjs right after the build). napi-rs's loaders, which a
// release ships, are checked the same way.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './support/repo.js';

const root = repoRoot();
type Declaration = [fresh: string, committed: string, build: string];
const check = (await import(pathToFileURL(path.join(root, 'scripts', 'check-native-dts.mjs')).href)) as {
  DECLARATIONS: Declaration[];
  staleDeclarations(declarations?: Declaration[], base?: string): string[];
};

describe('generated addon declarations', () => {
  it('are committed as the last build generated them, for both addons, with napi-rs loaders', () => {
    assert.deepEqual(
      check.DECLARATIONS.map(([, committed]) => committed),
      ['src/native/generated/core.d.ts', 'src/native/generated/inference.d.ts', 'src/native/generated/core.cjs', 'src/native/generated/inference.cjs'],
    );
    assert.deepEqual(check.staleDeclarations(), []);
  });

  it('reports a committed copy that differs from the generation, one that is missing, and an addon not built', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-dts-'));
    try {
      mkdirSync(path.join(dir, 'native'));
      mkdirSync(path.join(dir, 'committed'));
      writeFileSync(path.join(dir, 'native', 'a.d.ts'), 'export interface A {\n  x: number\n}\n');
      writeFileSync(path.join(dir, 'committed', 'a.d.ts'), 'export interface A {\n  x: string\n}\n');
      writeFileSync(path.join(dir, 'native', 'b.d.ts'), 'export declare function b(): void\n');
      const declarations: Declaration[] = [
        ['native/a.d.ts', 'committed/a.d.ts', 'build a'],
        ['native/b.d.ts', 'committed/b.d.ts', 'build b'],
        ['native/c.d.ts', 'committed/c.d.ts', 'build c'],
      ];
      const problems = check.staleDeclarations(declarations, dir);
      assert.equal(problems.length, 3);
      assert.match(problems[0]!, /^committed\/a\.d\.ts is stale \(differs from the generated native\/a\.d\.ts at line 2: committed "  x: string", generated "  x: number"\)/);
      assert.match(problems[1]!, /^committed\/b\.d\.ts is missing: run node scripts\/check-native-dts\.mjs --write and commit it$/);
      assert.match(problems[2]!, /^native\/c\.d\.ts is missing: build the addon \(build c\)$/);
      writeFileSync(path.join(dir, 'committed', 'a.d.ts'), readFileSync(path.join(dir, 'native', 'a.d.ts')));
      assert.equal(check.staleDeclarations(declarations.slice(0, 1), dir).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are what the loaders type the addons with, not a hand-written mirror', () => {
    const core = readFileSync(path.join(root, 'src', 'native', 'index.ts'), 'utf8');
    assert.match(core, /import type \* as Generated from '\.\/generated\/core\.js';/);
    assert.match(core, /export type CoreAddon = typeof Generated;/);
    assert.doesNotMatch(core, /export interface (Chain|DecodedTx|ProducedBlock|GenesisSpec|CallRequest|HeadInfo)\b/);
    const inference = readFileSync(path.join(root, 'src', 'native', 'inference.ts'), 'utf8');
    assert.match(inference, /import type \* as Generated from '\.\/generated\/inference\.js';/);
    assert.doesNotMatch(inference, /export interface (ModelInfo|HardwareInfo|InferenceOutput|Verdict|Tolerance)\b/);
    const dts = readFileSync(path.join(root, 'src', 'native', 'generated', 'core.d.ts'), 'utf8');
    assert.match(dts, /export interface DecodedTx \{[^}]*\n  data: Buffer\n/);
    assert.match(dts, /export interface HeadInfo \{[^}]*\n  timestampMs: number\n/);
  });
});
