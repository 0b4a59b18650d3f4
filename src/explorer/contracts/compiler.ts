// The Solidity compilers this node can verify with: the solc-js build installed beside it (a node
// downloads no compilers). Compilations run one at a time in a worker thread.
import { Worker } from 'node:worker_threads';
import { contracts as params } from '../../params.js';
import { BadRequestError, ExplorerError } from '../envelope.js';
import type { WorkerReply, WorkerRequest } from './solc-worker.js';
import { SvcError } from '../../errors.js';

/** A compiler version that is not installed; names the ones that are. */
export class UnknownCompilerVersionError extends BadRequestError {
  override name = 'UnknownCompilerVersionError';
  constructor(
    readonly requested: string,
    readonly available: string[],
  ) {
    super(`compiler version ${requested} is not available on this node; available: ${available.map((v) => `v${v}`).join(', ')}`);
  }
}

/** No compiler is installed at all (solc-js missing). */
export class CompilerUnavailableError extends ExplorerError {
  override name = 'CompilerUnavailableError';
  constructor() {
    super(503, 'no Solidity compiler is installed on this node: source verification is unavailable');
  }
}

/** A compilation that ran past params.contracts.compileTimeoutMs. */
export class CompileTimeoutError extends SvcError {
  override name = 'CompileTimeoutError';
  override readonly code = 'COMPILE_TIMEOUT';
  constructor(readonly timeoutMs: number) {
    super(`compilation took longer than ${timeoutMs / 1000} s`);
  }
}

/** A version as clients write it (v0.8.30+commit.73712a01, 0.8.30) without the leading v. */
export const bareVersion = (v: string): string => v.trim().replace(/^v/, '');

/** Whether `requested` names the installed `long` version: the long version itself, or its release alone. */
export function versionMatches(requested: string, long: string): boolean {
  const v = bareVersion(requested);
  return v === long || v === long.split('+')[0];
}

interface Pending {
  resolve(result: string | null): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/** solc-js in a worker thread; the worker starts on first use and is restarted after a timeout. */
export class SolcCompiler {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private installed: Promise<string | null> | undefined;

  /** The installed compiler's long version (0.8.30+commit.73712a01), null when there is none. */
  version(): Promise<string | null> {
    this.installed ??= this.request({ id: 0, kind: 'version' }, undefined).then((v) => (v === null ? null : v.replace(/\.Emscripten\.clang$/, '')));
    return this.installed;
  }

  /** The long version `requested` names; throws UnknownCompilerVersionError or CompilerUnavailableError. */
  async resolve(requested: string): Promise<string> {
    const installed = await this.version();
    if (installed === null) throw new CompilerUnavailableError();
    if (!versionMatches(requested, installed)) throw new UnknownCompilerVersionError(requested, [installed]);
    return installed;
  }

  /** solc's standard JSON output for a standard JSON input (both as text). */
  async compile(input: string): Promise<string> {
    const out = await this.request({ id: 0, kind: 'compile', input }, params.compileTimeoutMs);
    if (out === null) throw new CompilerUnavailableError();
    return out;
  }

  /** Stops the worker; a later call starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.fail(new Error('the compiler was closed'));
    await worker?.terminate();
  }

  private request(req: WorkerRequest, timeoutMs: number | undefined): Promise<string | null> {
    const worker = this.start();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              // A compilation cannot be interrupted inside solc: the worker goes, with whatever it had queued.
              this.worker = undefined;
              this.fail(new CompileTimeoutError(timeoutMs));
              void worker.terminate();
            }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.ref();
      worker.postMessage({ ...req, id });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./solc-worker.js', import.meta.url));
    worker.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      clearTimeout(p.timer);
      if (reply.ok) p.resolve(reply.result);
      else p.reject(new Error(reply.error));
      // An idle worker does not keep the process alive.
      if (this.pending.size === 0) worker.unref();
    });
    const gone = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.installed = undefined;
      this.fail(err);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`the compiler worker exited (code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private fail(err: Error): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }
}
