#!/usr/bin/env node
// Builds the explorer's web page (web/) into dist/web: type-checks it with its own tsconfig, bundles
// it with esbuild (Preact, minified, content-hashed names under assets/) and writes index.html
// naming the bundles. The explorer serves dist/web at / (src/explorer/web.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist', 'web');
const noCheck = process.argv.includes('--no-check');

if (!noCheck) execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'web/tsconfig.json')], { stdio: 'inherit', cwd: root });

rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'assets'), { recursive: true });
const result = await esbuild.build({
  entryPoints: [path.join(root, 'web/src/main.tsx')],
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: root,
});
const outputs = Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
if (!js || !css) throw new Error(`esbuild wrote no ${js ? 'CSS' : 'JavaScript'} bundle`);
const html = readFileSync(path.join(root, 'web/index.html'), 'utf8').replace('%JS%', path.basename(js)).replace('%CSS%', path.basename(css));
writeFileSync(path.join(out, 'index.html'), html);
for (const f of [js, css]) {
  const body = readFileSync(f);
  process.stdout.write(`[build-web] ${path.relative(root, f)}: ${(body.length / 1024).toFixed(1)} KB, ${(gzipSync(body, { level: 9 }).length / 1024).toFixed(1)} KB gzip\n`);
}
