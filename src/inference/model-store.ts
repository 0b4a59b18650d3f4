// The local model cache: `<model-dir>/<model id>/<file>`. Files come from the public model hub on
// first use, resume after an interrupted transfer (HTTP Range), and are kept only when their SHA-256
// equals the registry's pin; after that everything runs offline.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ModelFile, ModelInfo } from '../native/inference.js';
import { silentProgress, type ProgressSink } from './progress.js';
import { SvcError } from '../errors.js';

/** The public model hub; SVC_MODEL_HUB_URL points elsewhere (a mirror). */
export const DEFAULT_HUB_URL = 'https://huggingface.co';

/** A file's bytes differ from the registry's pin. */
export class ModelFileHashError extends SvcError {
  override name = 'ModelFileHashError';
  override readonly code = 'MODEL_FILE_HASH';
  constructor(readonly modelId: string, readonly file: string, readonly expected: string, readonly found: string) {
    super(`${modelId}: ${file} has sha256 ${found}, the registry pins ${expected}; the file was discarded`);
  }
}

/** The registry has no verified digest for a file, so it is neither downloaded nor used. */
export class ModelFileNotPinnedError extends SvcError {
  override name = 'ModelFileNotPinnedError';
  override readonly code = 'MODEL_FILE_NOT_PINNED';
  constructor(readonly modelId: string, readonly file: string) {
    super(`${modelId}: the registry pins no sha256 for ${file}, so it cannot be verified and is not downloaded`);
  }
}

/** The hub answered with an error or the transfer kept failing. */
export class ModelDownloadError extends SvcError {
  override name = 'ModelDownloadError';
  override readonly code = 'MODEL_DOWNLOAD';
  constructor(readonly modelId: string, readonly file: string, readonly url: string, readonly reason: string) {
    super(`${modelId}: downloading ${file} from ${url} failed: ${reason}`);
  }
}

export type CacheState = 'cached' | 'partial' | 'missing' | 'unpinned';

export interface DownloadOptions {
  hubUrl?: string;
  progress?: ProgressSink;
  /** Attempts per file; each resumes where the last one stopped. */
  attempts?: number;
  /** Abort a transfer that receives nothing for this long. */
  stallMs?: number;
}

/** `<modelDir>/<model id>/`. */
export function modelFolder(modelDir: string, model: ModelInfo): string {
  return path.join(modelDir, model.id);
}

/** Where the hub serves a file of the model. */
export function fileUrl(model: ModelInfo, file: ModelFile, hubUrl = process.env.SVC_MODEL_HUB_URL ?? DEFAULT_HUB_URL): string {
  return `${hubUrl.replace(/\/+$/, '')}/${model.hubRepo}/resolve/${model.hubRevision}/${file.name}`;
}

/** Whether the model's files are present at their pinned sizes (hashes are checked at load). */
export async function cacheState(modelDir: string, model: ModelInfo): Promise<CacheState> {
  if (model.files.some((f) => f.sha256 === undefined)) return 'unpinned';
  let present = 0;
  for (const f of model.files) {
    const p = path.join(modelFolder(modelDir, model), f.name);
    const s = await stat(p).catch(() => null);
    if (s?.isFile() && (f.size === undefined || s.size === f.size)) present += 1;
    else if (s || existsSync(`${p}.part`)) return 'partial';
  }
  if (present === model.files.length) return 'cached';
  return present > 0 ? 'partial' : 'missing';
}

async function sha256OfFile(p: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(p)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Makes sure every file of `model` is in the cache and matches its pin, downloading what is missing. */
export async function ensureModelFiles(modelDir: string, model: ModelInfo, opts: DownloadOptions = {}): Promise<string> {
  const folder = modelFolder(modelDir, model);
  await mkdir(folder, { recursive: true });
  for (const file of model.files) {
    if (file.sha256 === undefined) throw new ModelFileNotPinnedError(model.id, file.name);
    const target = path.join(folder, file.name);
    const s = await stat(target).catch(() => null);
    if (s?.isFile() && (file.size === undefined || s.size === file.size) && (await sha256OfFile(target)) === file.sha256) continue;
    await downloadFile(model, file, target, opts);
  }
  return folder;
}

async function partSize(p: string): Promise<number> {
  const s = await stat(p).catch(() => null);
  return s?.isFile() ? s.size : 0;
}

/** Fetches one file into `<target>.part`, resuming across attempts, then verifies and renames it. */
async function downloadFile(model: ModelInfo, file: ModelFile, target: string, opts: DownloadOptions): Promise<void> {
  const url = fileUrl(model, file, opts.hubUrl);
  const part = `${target}.part`;
  const progress = opts.progress ?? silentProgress;
  const attempts = opts.attempts ?? 5;
  const label = `${model.id}/${file.name}`;
  let lastError = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const have = await partSize(part);
    if (file.size !== undefined && have === file.size) break;
    if (file.size !== undefined && have > file.size) await rm(part, { force: true });
    try {
      const done = await fetchInto(url, part, file, await partSize(part), label, progress, opts.stallMs ?? 60_000);
      if (done) break;
      lastError = 'connection closed before the end of the file';
    } catch (e) {
      lastError = (e as Error).message;
      if (e instanceof ModelDownloadError) throw new ModelDownloadError(model.id, file.name, url, e.reason);
    }
    if (attempt === attempts) throw new ModelDownloadError(model.id, file.name, url, `${lastError} (after ${attempts} attempts)`);
  }
  const found = await sha256OfFile(part);
  if (found !== file.sha256) {
    await rm(part, { force: true });
    throw new ModelFileHashError(model.id, file.name, file.sha256!, found);
  }
  await rename(part, target);
}

/** One HTTP transfer appended to `part`; true when the file is complete. */
async function fetchInto(
  url: string, part: string, file: ModelFile, from: number, label: string, progress: ProgressSink, stallMs: number,
): Promise<boolean> {
  const abort = new AbortController();
  let stall = setTimeout(() => abort.abort(new Error(`no data for ${stallMs} ms`)), stallMs);
  try {
    const headers: Record<string, string> = { 'user-agent': 'svc-miner' };
    if (from > 0) headers.range = `bytes=${from}-`;
    const res = await fetch(url, { headers, signal: abort.signal, redirect: 'follow' });
    if (res.status === 416 && from > 0) {
      // The part already holds the whole file; the hash check decides.
      await res.body?.cancel();
      return true;
    }
    if (res.status !== 200 && res.status !== 206) {
      await res.body?.cancel();
      // Server errors may pass (the next attempt retries); a 4xx answer will not change.
      if (res.status >= 500) throw new Error(`HTTP ${res.status} ${res.statusText}`);
      throw new ModelDownloadError('', file.name, url, `HTTP ${res.status} ${res.statusText}`);
    }
    // A server that ignores Range sends the whole file again: start over.
    const append = res.status === 206 && from > 0;
    let received = append ? from : 0;
    const length = Number(res.headers.get('content-length') ?? NaN);
    const total = file.size ?? (Number.isFinite(length) ? received + length : null);
    progress.start(label, total, received);
    const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
    try {
      if (!res.body) throw new Error('empty response body');
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        clearTimeout(stall);
        stall = setTimeout(() => abort.abort(new Error(`no data for ${stallMs} ms`)), stallMs);
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
        received += chunk.byteLength;
        progress.advance(received);
      }
    } finally {
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }
    progress.done();
    return total === null || received >= total;
  } finally {
    clearTimeout(stall);
  }
}
