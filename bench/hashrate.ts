// bench:hashrate — BLAKE3 proof-of-work hashes per second, per core (1 thread) and on all cores,
// through one addon call that searches many nonces (crates/svc-pow/src/search.rs: SIMD across
// nonces, one nonce per lane), next to `search_plain`, a plain Rust loop of `blake3::hash` over the
// same pre-images, in the same run. Prints the machine, the SIMD path that ran, the load average
// before and after, a table and whether the targets are met; asserts nothing.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { core as pow, type PowOutcome } from '../src/native/index.js';
import { loadLine, machineLine } from './support/machine.js';

const USAGE = `usage: node dist/bench/hashrate.js [options]
  --seconds <s>     measuring time per cell (default 2)
  --prefix <bytes>  pre-image prefix lengths, comma-separated (default 32,80)
  --help`;

const NEVER = Buffer.alloc(32); // target 0: no nonce wins, so every nonce of the range is hashed

/** What the search must reach (docs/inference.md): per core against the plain loop, by prefix length. */
const TARGET_PER_CORE: Record<number, number> = { 32: 1.5, 80: 3 };
/** ... and all cores (2 on the development machine) against one thread. */
const TARGET_SCALING = 1.8;

type Search = (prefix: Buffer, start: bigint, count: bigint, target: Buffer, threads: number) => Promise<PowOutcome>;

/** A cell's result: hashes per second, and the cores the process got meanwhile (CPU time / wall time). */
interface Rate {
  perSecond: number;
  cores: number;
}

/** Hashes per second of `search` over about `seconds`, in calls of `perCall` nonces after calibration. */
async function rate(search: Search, prefix: Buffer, threads: number, seconds: number, perCall?: number): Promise<Rate> {
  const probe = await search(prefix, 0n, 1_000_000n, NEVER, threads);
  const estimate = probe.hashes / (probe.elapsedMs / 1e3);
  const total = Math.max(1_000_000, Math.round(estimate * seconds));
  const chunk = perCall ?? total;
  let hashes = 0;
  let start = 1n << 40n;
  const began = performance.now();
  const cpuBefore = process.cpuUsage(); // every thread of the process, the addon's included
  while (hashes < total) {
    const out = await search(prefix, start, BigInt(Math.min(chunk, total - hashes)), NEVER, threads);
    hashes += out.hashes;
    start += BigInt(out.hashes);
  }
  const wallSeconds = (performance.now() - began) / 1e3;
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond: hashes / wallSeconds, cores: (cpu.user + cpu.system) / 1e6 / wallSeconds };
}

const mhs = (r: number) => (r / 1e6).toFixed(2);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

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
  const simd = pow.powSimd();
  process.stdout.write(`BLAKE3 proof-of-work, ${seconds} s per cell\n${machineLine()}\n`);
  process.stdout.write(`Rust detects: ${simd.cpuFeatures.join(' ') || 'none of the extensions it checks'}\n`);
  process.stdout.write(`SIMD path: ${simd.path} (${simd.lanes} nonces per compression; paths this CPU can run: ${simd.available.join(', ')})\n`);
  process.stdout.write('pre-image = prefix || nonce (8 bytes LE); MH/s = million nonces hashed per second\n');
  process.stdout.write(`${loadLine('before')}\n\n`);

  const rows: string[][] = [];
  const checks: string[] = [];
  for (const len of prefixes) {
    const prefix = Buffer.alloc(len, 0x5a);
    const perThreads = new Map<number, { plain: number; search: Rate }>();
    for (const threads of cores > 1 ? [1, cores] : [1]) {
      const plain = (await rate(pow.powSearchPlain, prefix, threads, seconds)).perSecond;
      const search = await rate(pow.powSearch, prefix, threads, seconds);
      const chunked = (await rate(pow.powSearch, prefix, threads, seconds, 65_536)).perSecond;
      perThreads.set(threads, { plain, search });
      const one = perThreads.get(1)!;
      rows.push([
        `${len} B`,
        threads === 1 ? '1 (per core)' : `${threads} (all)`,
        mhs(plain),
        mhs(search.perSecond),
        `${(search.perSecond / plain).toFixed(2)}x`,
        threads === 1 ? '' : `${(search.perSecond / one.search.perSecond).toFixed(2)}x`,
        search.cores.toFixed(2),
        mhs(chunked),
      ]);
    }
    const one = perThreads.get(1)!;
    const need = TARGET_PER_CORE[len];
    if (need !== undefined) {
      const got = one.search.perSecond / one.plain;
      checks.push(`search >= ${need}x plain per core at ${len} B: ${got.toFixed(2)}x, ${verdict(got >= need)}`);
    }
    const all = perThreads.get(cores);
    if (cores > 1 && all) {
      const got = all.search.perSecond / one.search.perSecond;
      checks.push(
        `search on ${cores} threads >= ${TARGET_SCALING}x one thread at ${len} B: ${got.toFixed(2)}x, ${verdict(got >= TARGET_SCALING)} ` +
          `(the ${cores} threads got ${all.search.cores.toFixed(2)} cores, 1 thread ${one.search.cores.toFixed(2)})`,
      );
    }
  }
  const head = ['prefix', 'threads', 'plain MH/s', 'search MH/s', 'search/plain', 'search vs 1 thread', 'cores got', 'search 64Ki/call MH/s'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n\n`);
  process.stdout.write(`${loadLine('after')}\n`);
  process.stdout.write('"plain": one blake3::hash per nonce (search_plain); "search": one addon call per measurement;\n');
  process.stdout.write('"cores got": CPU time of the process / wall time during the search (below the thread count when other work shares the cores);\n');
  process.stdout.write('"64Ki/call": one call per 65,536 nonces (N-API cost included).\n\nTargets:\n');
  process.stdout.write(checks.map((c) => `  ${c}\n`).join(''));
}

await main();
