// The import graph of src/ against the layer order written in docs/architecture.md: every import
// (static `import`/`export … from`, `import type` included, and dynamic `import()`) goes down a
// layer or stays in its own part, and no TypeScript files import each other in a circle.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from './support/repo.js';

/** One part of a layer: the src/ entries it holds ("chain/" is a folder, "node.ts" a file). */
interface Part {
  layer: number;
  entries: string[];
  label: string;
}

/** The ```layers block of docs/architecture.md: top first, one layer a line, `|` between peers. */
export function parseLayers(markdown: string): Part[] {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown);
  if (!block) throw new Error('docs/architecture.md has no ```layers block');
  const lines = block[1]!.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  return lines.flatMap((line, i) =>
    line.split('|').map((p) => {
      const entries = p.trim().split(/\s+/);
      return { layer: lines.length - 1 - i, entries, label: entries.join(' ') };
    }),
  );
}

/** Every .ts file under `dir`, relative to it with forward slashes, sorted. */
function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      const rel = prefix + name;
      if (statSync(full).isDirectory()) return sourceFiles(full, rel + '/');
      return name.endsWith('.ts') ? [rel] : [];
    });
}

/** The src/ files `file` imports (relative specifiers only; packages and node: builtins are outside src). */
export function importsOf(file: string, text: string): string[] {
  // preProcessFile finds `import`, `import type`, `export … from`, `import x = require()` and, with
  // the last flag, dynamic `import()`.
  const info = ts.preProcessFile(text, true, true);
  const targets: string[] = [];
  for (const ref of info.importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), ref.fileName));
    if (resolved.startsWith('..')) throw new Error(`${file} imports ${ref.fileName}, outside src/`);
    // `./x.js` is x.ts, or the declarations x.d.ts of a file that only exists at run time (an addon's).
    const ts = resolved.replace(/\.js$/, '.ts');
    const dts = resolved.replace(/\.js$/, '.d.ts');
    targets.push(!existsSync(path.join(srcDir, ts)) && existsSync(path.join(srcDir, dts)) ? dts : ts);
  }
  return targets;
}

/** The part that holds `file`: the longest entry that is the file itself or a folder above it. */
function partOf(parts: Part[], file: string): Part | undefined {
  let best: { part: Part; length: number } | undefined;
  for (const part of parts) {
    for (const entry of part.entries) {
      const hit = entry.endsWith('/') ? file.startsWith(entry) : file === entry;
      if (hit && (!best || entry.length > best.length)) best = { part, length: entry.length };
    }
  }
  return best?.part;
}

/** Import edges that break the order: upward, or sideways between peers of one layer. */
export function layerViolations(parts: Part[], graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const a = partOf(parts, from);
    for (const to of targets) {
      const b = partOf(parts, to);
      if (!a || !b || a === b) continue;
      if (b.layer > a.layer) out.push(`${from} -> ${to}: upward, from layer "${a.label}" to the higher "${b.label}"`);
      else if (b.layer === a.layer) out.push(`${from} -> ${to}: between the peers "${a.label}" and "${b.label}"`);
    }
  }
  return out;
}

/** The circles of the graph: its strongly connected components with more than one file (or a self-import). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

const root = repoRoot();
const src = path.join(root, 'src');
const srcDir = src;
const files = sourceFiles(src);
const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(path.join(src, f), 'utf8'))]));
const parts = parseLayers(readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8'));

describe('layering of src/', () => {
  it('finds the imports of every kind', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from '../b/b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "import './e.js';",
      "const f = await import('../f.js');",
      "import { g } from 'viem';",
    ].join('\n');
    assert.deepEqual(importsOf('x/y.ts', text).sort(), ['b/b.ts', 'f.ts', 'x/a.ts', 'x/c.ts', 'x/d.ts', 'x/e.ts']);
    // The graph is not empty: node.ts reaches every layer.
    assert.ok((graph.get('node.ts') ?? []).length > 10);
  });

  it('reports circles and imports against the order', () => {
    const small = new Map([
      ['a/x.ts', ['b/y.ts']],
      ['b/y.ts', ['a/x.ts']],
      ['c.ts', []],
    ]);
    assert.deepEqual(importCycles(small), [['a/x.ts', 'b/y.ts']]);
    const order = parseLayers('```layers\nc.ts\na/ | b/\n```');
    assert.deepEqual(layerViolations(order, small), [
      'a/x.ts -> b/y.ts: between the peers "a/" and "b/"',
      'b/y.ts -> a/x.ts: between the peers "b/" and "a/"',
    ]);
    assert.deepEqual(layerViolations(order, new Map([['a/x.ts', ['c.ts']]])), ['a/x.ts -> c.ts: upward, from layer "a/" to the higher "c.ts"']);
  });

  it('places every file of src/ in a layer, and every listed entry exists once', () => {
    assert.deepEqual(files.filter((f) => partOf(parts, f) === undefined), [], 'files in no layer of docs/architecture.md');
    const entries = parts.flatMap((p) => p.entries);
    assert.deepEqual(entries.filter((e, i) => entries.indexOf(e) !== i), [], 'entries listed twice');
    assert.deepEqual(entries.filter((e) => !files.some((f) => (e.endsWith('/') ? f.startsWith(e) : f === e))), [], 'listed entries with no file');
  });

  it('has no import circle between TypeScript files', () => {
    assert.deepEqual(importCycles(graph), []);
  });

  it('imports nothing from a higher layer or a peer', () => {
    assert.deepEqual(layerViolations(parts, graph), []);
  });

  it('resolves every relative import to a file of src/', () => {
    const missing = [...graph].flatMap(([from, targets]) => targets.filter((t) => !graph.has(t)).map((t) => `${from} -> ${t}`));
    assert.deepEqual(missing, []);
  });
});

/** The serving code: what answers clients and the consensus engine, and reads the modules only through their queries. */
const SERVING = ['rpc/', 'explorer/', 'consensus/'];
/** The files of a module serving code may import: its read views, its types, and its wire formats (messages and JSON that clients speak). */
const MODULE_SURFACE = new Set(['queries.ts', 'types.ts', 'wire.ts']);
/** The modules on the kernel (src/modules/<name>/), the kernel itself aside: serving code uses the kernel's seam directly. */
const MODULES = readdirSync(path.join(src, 'modules'))
  .filter((name) => name !== 'kernel' && statSync(path.join(src, 'modules', name)).isDirectory())
  .sort();

/**
 * Where a serving file reaches into a module past its queries: an import of another file of the
 * module's folder, a read through the app's module object (`app.staking.`, `{ staking } = app`), or
 * of a module's state (`staking.state`).
 */
export function servingReaches(file: string, text: string, imports: readonly string[], modules: readonly string[] = MODULES): string[] {
  const out: string[] = [];
  for (const to of imports) {
    const [top, name, ...rest] = to.split('/');
    if (top === 'modules' && modules.includes(name!) && !(rest.length === 1 && MODULE_SURFACE.has(rest[0]!))) {
      out.push(`${file} imports ${to}: only a module's ${[...MODULE_SURFACE].join(', ')}`);
    }
  }
  const names = modules.join('|');
  const patterns = [
    new RegExp(`\\bapp\\??\\.(?:${names})\\b`, 'g'),
    new RegExp(`\\{[^{}]*\\b(?:${names})\\b[^{}]*\\}\\s*=\\s*[\\w.?]*\\bapp\\b`, 'g'),
    new RegExp(`\\b(?:${names})\\??\\.(?:state|store|ledger)\\b`, 'g'),
  ];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
    for (const p of patterns) for (const m of line.matchAll(p)) out.push(`${file}:${i + 1}: ${m[0]}`);
  });
  return out;
}

describe('serving code reads modules only through their queries', () => {
  it('finds the modules', () => {
    assert.deepEqual(MODULES, ['bridge', 'compute', 'governance', 'rent', 'staking']);
    for (const m of MODULES) assert.ok(files.includes(`modules/${m}/queries.ts`), `modules/${m} has no queries.ts`);
  });

  it('gives every module the same files, each with its role (docs/architecture.md)', () => {
    const shape = ['genesis.ts', 'hooks.ts', 'index.ts', 'messages.ts', 'module.ts', 'params.ts', 'queries.ts', 'store.ts', 'types.ts'];
    const missing = MODULES.flatMap((m) => shape.filter((f) => !files.includes(`modules/${m}/${f}`)).map((f) => `modules/${m}/${f}`));
    assert.deepEqual(missing, []);
  });

  it('catches a handler reaching past the queries', () => {
    const text = [
      "import { StakingLedger } from '../../modules/staking/ledger.js';",
      "import type { ValidatorView } from '../../modules/staking/types.js';",
      "import { StakingQueries } from '../../modules/staking/queries.js';",
      "import { toAddress } from '../../modules/kernel/module.js';",
      'const v = services.node.app.staking.state.validator(a);',
      'const { staking, chain } = ctx.services.app;',
      'const w = staking.state.signingWindow(a);',
      'const ok = services.node.queries.staking.validator(a);',
      '// app.staking.state in a comment is prose',
    ].join('\n');
    const file = 'explorer/handlers/x.ts';
    assert.deepEqual(servingReaches(file, text, importsOf(file, text)), [
      'explorer/handlers/x.ts imports modules/staking/ledger.ts: only a module\'s queries.ts, types.ts, wire.ts',
      'explorer/handlers/x.ts:5: app.staking',
      'explorer/handlers/x.ts:5: staking.state',
      'explorer/handlers/x.ts:6: { staking, chain } = ctx.services.app',
      'explorer/handlers/x.ts:7: staking.state',
    ]);
  });

  it('holds for src/rpc, src/explorer and src/consensus', () => {
    const found = files
      .filter((f) => SERVING.some((p) => f.startsWith(p)))
      .flatMap((f) => servingReaches(f, readFileSync(path.join(src, f), 'utf8'), graph.get(f) ?? []));
    assert.deepEqual(found, []);
  });
});

/**
 * Where a file of one module's folder imports another module past its types: a module reads the
 * others only through its keepers (keepers.ts: interfaces it declares itself, written with its own
 * types or another module's types.ts), given to its constructor. The kernel is the seam every module
 * imports; modules/governable.ts, outside every module's folder, is the registry of their params.
 */
export function moduleReaches(file: string, imports: readonly string[], modules: readonly string[] = MODULES): string[] {
  const [top, own, ...inside] = file.split('/');
  if (top !== 'modules' || inside.length === 0) return [];
  return imports.flatMap((to) => {
    const [toTop, name, ...rest] = to.split('/');
    const other = toTop === 'modules' && modules.includes(name!) && name !== own && rest.length > 0;
    return other && !(rest.length === 1 && rest[0] === 'types.ts') ? [`${file} imports ${to}: another module only through its types.ts (keepers)`] : [];
  });
}

describe('modules read each other only through their keepers', () => {
  it('catches an import of another module past its types', () => {
    const text = [
      "import { assertParams } from '../staking/ledger.js';",
      "import type { Address } from '../staking/types.js';",
      "import { runDecided } from '../kernel/module.js';",
      "import { governable } from '../governable.js';",
      "import type { ParamChange } from './types.js';",
      "import { TallyStake } from './tally.js';",
    ].join('\n');
    const file = 'modules/governance/live-params.ts';
    assert.deepEqual(moduleReaches(file, importsOf(file, text)), [
      'modules/governance/live-params.ts imports modules/staking/ledger.ts: another module only through its types.ts (keepers)',
    ]);
    assert.deepEqual(moduleReaches('modules/governable.ts', ['modules/staking/params.ts']), []);
  });

  it('holds for every module of src/modules', () => {
    const found = files.filter((f) => f.startsWith('modules/')).flatMap((f) => moduleReaches(f, graph.get(f) ?? []));
    assert.deepEqual(found, []);
  });
});
