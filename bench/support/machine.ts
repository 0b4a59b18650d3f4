// What every bench prints about the machine it ran on: the CPU, its vector extensions (which SIMD
// paths a figure could use) and the load average before and after (whether something else was
// using the cores).
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** The extensions that decide which vector code runs, in the order they were added to CPUs. */
const VECTOR_FLAGS = [
  'sse2', 'ssse3', 'sse4_1', 'sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'bmi2', 'sha_ni', 'aes',
  'avx512f', 'avx512dq', 'avx512bw', 'avx512vl', 'avx512_vnni', 'avx512_bf16', 'avx_vnni', 'amx_tile',
  // aarch64 (the "Features" line)
  'asimd', 'asimddp', 'sha3', 'sve', 'sve2', 'i8mm', 'bf16',
];

/** The CPU's vector extensions as the kernel reports them (Linux), else an empty list. */
export function vectorExtensions(): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return [];
  }
  const line = /^(?:flags|Features)\s*:\s*(.*)$/m.exec(text)?.[1] ?? '';
  const have = new Set(line.split(/\s+/));
  return VECTOR_FLAGS.filter((f) => have.has(f));
}

/** One line: CPU model, cores, memory, vector extensions, OS and Node. */
export function machineLine(): string {
  const cpus = os.cpus();
  const ext = vectorExtensions();
  return (
    `Machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `vector extensions: ${ext.length > 0 ? ext.join(' ') : 'unknown'}, ${os.platform()} ${os.release()}, Node ${process.version}`
  );
}

/** One line: the 1, 5 and 15 minute load averages, labelled (e.g. "before", "after"). */
export function loadLine(label: string): string {
  const [a, b, c] = os.loadavg().map((x) => x.toFixed(2));
  return `Load average ${label}: ${a} ${b} ${c} (1, 5, 15 min; ${os.availableParallelism()} cores)`;
}
