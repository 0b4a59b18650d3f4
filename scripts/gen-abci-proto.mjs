#!/usr/bin/env node
// Generates the TypeScript of CometBFT's ABCI messages (src/consensus/cometbft/proto/) from
// CometBFT's own .proto files, with buf and protoc-gen-es (@bufbuild/protobuf's generator): the
// files of the CometBFT release in scripts/setup-cometbft.mjs, taken from Go's module cache, and
// gogoproto's gogo.proto, which they import. Nothing is written by hand.
//   node scripts/gen-abci-proto.mjs           regenerate the committed copy
//   node scripts/gen-abci-proto.mjs --check   fail when the committed copy differs from a fresh generation (npm test)
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { protoSources } from './setup-cometbft.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(root, 'src', 'consensus', 'cometbft', 'proto');
/** The one file the app needs; buf generates it with what it imports. */
const ENTRY = 'tendermint/abci/types.proto';

function files(dir, base = dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p, base) : [path.relative(base, p)];
  });
}

function makeWritable(dir) {
  for (const f of files(dir)) chmodSync(path.join(dir, f), 0o644);
}

/** Generates into `out` (emptied first). */
export function generate(out) {
  const src = protoSources();
  const work = mkdtempSync(path.join(tmpdir(), 'svc-abci-proto-'));
  try {
    const stage = path.join(work, 'proto');
    cpSync(path.join(src.cometbft, 'proto', 'tendermint'), path.join(stage, 'tendermint'), { recursive: true });
    mkdirSync(path.join(stage, 'gogoproto'), { recursive: true });
    cpSync(path.join(src.gogoproto, 'gogoproto', 'gogo.proto'), path.join(stage, 'gogoproto', 'gogo.proto'));
    makeWritable(stage);
    const template = {
      version: 'v2',
      plugins: [{ local: path.join(root, 'node_modules', '.bin', 'protoc-gen-es'), out, opt: ['target=ts', 'import_extension=js'] }],
    };
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const r = spawnSync(
      path.join(root, 'node_modules', '.bin', 'buf'),
      ['generate', stage, '--template', JSON.stringify(template), '--path', path.join(stage, ENTRY), '--include-imports'],
      { encoding: 'utf8', cwd: work },
    );
    if (r.status !== 0) throw new Error(`buf generate failed: ${r.stderr || r.stdout}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Files that differ between the committed copy and a fresh generation (empty when current). */
export function staleFiles() {
  const fresh = mkdtempSync(path.join(tmpdir(), 'svc-abci-fresh-'));
  try {
    generate(fresh);
    const committed = new Set(safeFiles(OUT));
    const generated = files(fresh);
    const stale = generated.filter((f) => !committed.has(f) || readFileSync(path.join(OUT, f), 'utf8') !== readFileSync(path.join(fresh, f), 'utf8'));
    for (const f of committed) if (!generated.includes(f)) stale.push(f);
    return stale.sort();
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

function safeFiles(dir) {
  try {
    return files(dir);
  } catch {
    return [];
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--check')) {
      const stale = staleFiles();
      if (stale.length > 0) {
        process.stderr.write(`the ABCI messages in src/consensus/cometbft/proto are not what CometBFT's .proto files generate: ${stale.join(', ')}\nrun \`node scripts/gen-abci-proto.mjs\` and commit the result\n`);
        process.exit(1);
      }
      process.stdout.write('ABCI messages are current\n');
    } else {
      generate(OUT);
      process.stdout.write(`generated ${files(OUT).length} files into ${path.relative(root, OUT)}\n`);
    }
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

