// Closed-loop load: N requests in flight, each answered before its connection sends the next, for a
// fixed time. The generator is native (crates/svc-loadgen, one thread) so that it takes little of the
// cores the servers need; every server in a run is measured with it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../test/support/repo.js';
import { cpuSeconds } from './cpu.js';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Share of one core the server and the generator used during the run (undefined where unknown). */
  serverCpu?: number;
  generatorCpu?: number;
  firstError?: string;
}

interface LoadgenOutput {
  requests: number;
  errors: number;
  firstError: string | null;
  seconds: number;
  perSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  cpuSeconds: number | null;
}

/** Builds svc-loadgen (release, the addon's target dir and target, so it reuses those artifacts) and returns its path. */
export function buildLoadGenerator(): string {
  const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(process.env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node'), 'target');
  const host = spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout.match(/^host: (.+)$/m)?.[1];
  const args = ['build', '--release', '--quiet', '-p', 'svc-loadgen', ...(host ? ['--target', host] : [])];
  const r = spawnSync('cargo', args, { cwd: repoRoot(), stdio: 'inherit', env: { ...process.env, CARGO_TARGET_DIR: targetDir } });
  if (r.status !== 0) throw new Error(`cargo ${args.join(' ')} failed (${r.status ?? r.signal})`);
  const binary = path.join(targetDir, ...(host ? [host] : []), 'release', 'svc-loadgen');
  if (!existsSync(binary)) throw new Error(`svc-loadgen not found at ${binary}`);
  return binary;
}

/** How answers are judged: they count when they contain `expect` and not `reject` (JSON-RPC by default). */
export interface LoadShape {
  method?: 'GET' | 'POST';
  expect?: string;
  reject?: string;
}

/** Hammer one endpoint with the same request; counts only answers that carry a `result` (or `shape.expect`). */
export async function measureRequests(
  generator: string,
  url: string,
  body: string,
  concurrency: number,
  durationMs: number,
  serverPid?: number,
  shape: LoadShape = {},
): Promise<LoadResult> {
  const serverCpuBefore = cpuSeconds(serverPid);
  const args = ['--url', url, '--connections', String(concurrency), '--duration-ms', String(durationMs)];
  if (body) args.push('--body', body);
  if (shape.method) args.push('--method', shape.method);
  if (shape.expect) args.push('--expect', shape.expect);
  if (shape.reject) args.push('--reject', shape.reject);
  const child = spawn(generator, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (code !== 0) throw new Error(`svc-loadgen exited with ${code}`);
  const serverCpuAfter = cpuSeconds(serverPid);
  const r = JSON.parse(out) as LoadgenOutput;
  const serverCpu = serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / r.seconds : undefined;
  return {
    requests: r.requests,
    errors: r.errors,
    seconds: r.seconds,
    perSecond: r.perSecond,
    p50Ms: r.p50Ms ?? NaN,
    p99Ms: r.p99Ms ?? NaN,
    serverCpu,
    generatorCpu: r.cpuSeconds === null ? undefined : r.cpuSeconds / r.seconds,
    firstError: r.firstError ?? undefined,
  };
}
