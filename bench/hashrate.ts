// bench:hashrate — BLAKE3 proof-of-work hashes per second, per core and on all cores, through one
// addon call that searches many nonces (SIMD across nonces), next to a plain Rust loop of
// `blake3::hash` over the same pre-images in the same run. Prints a table; asserts nothing.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { core as pow, type PowOutcome } from '../src/native/index.js';

const USAGE = `usage: node dist/bench/hashrate.js [options]
  --seconds <s>     measuring time per cell (default 2)
  --prefix <bytes>  pre-image prefix lengths, comma-separated (default 32,80)
  --help`;

// The search is in the inference addon until the core addon binds crates/svc-pow/src/search.rs.
const NEVER = Buffer.alloc(32); // target 0: no nonce wins, so every nonce of the range is hashed

type Search = (prefix: Buffer, start: bigint, count: bigint, target: Buffer, threads: number) => Promise<PowOutcome>;

/** Hashes per second of `search` over about `seconds`, in calls of `perCall` nonces after calibration. */
async function rate(search: Search, prefix: Buffer, threads: number, seconds: number, perCall?: number): Promise<number> {
  const probe = await search(prefix, 0n, 1_000_000n, NEVER, threads);
  const estimate = probe.hashes / (probe.elapsedMs / 1e3);
  const total = Math.max(1_000_000, Math.round(estimate * seconds));
  const chunk = perCall ?? total;
  let hashes = 0;
  let start = 1n << 40n;
  const began = performance.now();
  while (hashes < total) {
    const out = await search(prefix, start, BigInt(Math.min(chunk, total - hashes)), NEVER, threads);
    hashes += out.hashes;
    start += BigInt(out.hashes);
  }
  return hashes / ((performance.now() - began) / 1e3);
}

const mhs = (r: number) => (r / 1e6).toFixed(2);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '2' }, prefix: { type: 'string', default: '32,80' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const seconds = Number(values.seconds);
  const prefixes = values.prefix!.split(',').map(Number);
  if (!(seconds > 0) || prefixes.some((p) => !Number.isInteger(p) || p < 0 || p > 1016)) {
    throw new Error(`bad arguments\n${USAGE}`);
  }
  const cores = os.availableParallelism();
  process.stdout.write(`BLAKE3 proof-of-work, ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${cores} cores, ${seconds} s per cell\n`);
  process.stdout.write('pre-image = prefix || nonce (8 bytes LE); MH/s = million nonces hashed per second\n\n');
  const rows: string[][] = [];
  for (const len of prefixes) {
    const prefix = Buffer.alloc(len, 0x5a);
    for (const threads of [1, cores]) {
      const plain = await rate(pow.powSearchPlain, prefix, threads, seconds);
      const simd = await rate(pow.powSearch, prefix, threads, seconds);
      const chunked = await rate(pow.powSearch, prefix, threads, seconds, 65_536);
      rows.push([`${len} B`, threads === 1 ? '1 (per core)' : `${threads} (all)`, mhs(plain), mhs(simd), mhs(chunked),
        `${(simd / plain).toFixed(2)}x`, `${(chunked / plain).toFixed(2)}x`]);
    }
  }
  const head = ['prefix', 'threads', 'plain blake3::hash MH/s', 'search MH/s', 'search 64Ki/call MH/s', 'search/plain', '64Ki/plain'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
  process.stdout.write('\n"search": one addon call per measurement; "64Ki/call": one call per 65,536 nonces (N-API cost included).\n');
}

await main();
