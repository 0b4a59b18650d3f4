// Closed-loop load: N requests in flight, each answered before its worker sends the next, for a fixed time.
import { cpuSeconds, ownCpuSeconds } from './cpu.js';
import { RpcHttpClient } from './http-client.js';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Share of one core the server and this generator used during the run (undefined where unknown). */
  serverCpu?: number;
  generatorCpu: number;
  firstError?: string;
}

/** Hammer one endpoint with the same request body; counts only answers that carry a `result`. */
export async function measureRequests(url: string, body: string, concurrency: number, durationMs: number, serverPid?: number): Promise<LoadResult> {
  const client = new RpcHttpClient(url, concurrency);
  const payload = Buffer.from(body);
  const latencies: number[] = [];
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  const serverCpuBefore = cpuSeconds(serverPid);
  const ownCpuBefore = ownCpuSeconds();
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      try {
        const answer = await client.post(payload);
        // A result field and no error field: a real answer, not a refusal.
        if (answer.status === 200 && answer.text.includes('"result"') && !answer.text.includes('"error"')) {
          requests++;
          latencies.push(performance.now() - t);
        } else {
          errors++;
          firstError ??= `HTTP ${answer.status} ${answer.text.slice(0, 200)}`;
        }
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const serverCpuAfter = cpuSeconds(serverPid);
  const generatorCpu = (ownCpuSeconds() - ownCpuBefore) / seconds;
  const serverCpu = serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / seconds : undefined;
  client.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!);
  return { requests, errors, seconds, perSecond: requests / seconds, p50Ms: pct(0.5), p99Ms: pct(0.99), serverCpu, generatorCpu, firstError };
}
