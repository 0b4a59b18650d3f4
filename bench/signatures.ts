// bench:signatures — Ed25519 verification of miners' proofs as the node does it (one native call
// for the signatures that arrive together, verify_strict per signature split over threads) next to
// one native call per signature and to @noble/curves in JavaScript, in the same run, over the same
// signed proof messages. Also how long the event loop is blocked by each. Prints a table; asserts nothing.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519.js';
import { core } from '../src/native/index.js';
import { proofMessage } from '../src/modules/compute/wire.js';

const USAGE = `usage: node dist/bench/signatures.js [options]
  --count <n>    signatures per round (default 2000)
  --rounds <n>   rounds per method (default 5)
  --help`;

interface Item {
  publicKey: Buffer;
  message: Buffer;
  signature: Buffer;
}

function items(n: number): Item[] {
  const out: Item[] = [];
  const keys = Array.from({ length: 16 }, (_, i) => Buffer.alloc(32, i + 1));
  for (let i = 0; i < n; i++) {
    const seed = keys[i % keys.length]!;
    const message = proofMessage({
      chainId: 9000,
      taskId: Buffer.alloc(32, i & 0xff),
      validator: Buffer.alloc(20, 1),
      miner: Buffer.alloc(20, 2),
      modelId: 'svc-embed-small@v1.0',
      inputHash: Buffer.alloc(32, 3),
      outputHash: Buffer.alloc(32, (i * 7) & 0xff),
      executionTimeMs: i,
      flops: 213_258_240,
    });
    out.push({ publicKey: Buffer.from(ed25519.getPublicKey(seed)), message, signature: Buffer.from(ed25519.sign(message, seed)) });
  }
  return out;
}

/** Longest gap between event-loop turns while `run` is in flight, in ms. */
async function withLoopWatch<T>(run: () => Promise<T>): Promise<{ result: T; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 1);
  const result = await run();
  const now = performance.now();
  maxGapMs = Math.max(maxGapMs, now - last);
  clearInterval(timer);
  return { result, maxGapMs };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '5' }, help: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const count = Number(values.count);
  const rounds = Number(values.rounds);
  const set = items(count);
  process.stdout.write(`${count} signed proof messages (${set[0]!.message.length} bytes), ${rounds} rounds, ${os.cpus().length} cores\n\n`);
  const methods: [string, () => Promise<boolean[]>][] = [
    ['native, one call for all (the node)', () => core.ed25519VerifyBatch(set)],
    ['native, one call per signature', async () => set.map((s) => core.ed25519Verify(s.publicKey, s.message, s.signature))],
    ['@noble/curves ed25519.verify (JS)', async () => set.map((s) => ed25519.verify(s.signature, s.message, s.publicKey, { zip215: false }))],
  ];
  const rows: { name: string; perSecond: number; gap: number }[] = [];
  for (const [name, run] of methods) {
    let best = 0;
    let worstGap = 0;
    for (let r = 0; r < rounds; r++) {
      const started = performance.now();
      const { result, maxGapMs } = await withLoopWatch(run);
      const seconds = (performance.now() - started) / 1e3;
      if (result.some((ok) => !ok)) throw new Error(`${name}: a valid signature was refused`);
      best = Math.max(best, count / seconds);
      worstGap = Math.max(worstGap, maxGapMs);
    }
    rows.push({ name, perSecond: best, gap: worstGap });
  }
  const peer = rows[2]!.perSecond;
  process.stdout.write('| method | signatures/s (best round) | vs JS | longest event-loop block (ms) |\n|---|---|---|---|\n');
  for (const r of rows) {
    process.stdout.write(`| ${r.name} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${(r.perSecond / peer).toFixed(1)}x | ${r.gap.toFixed(1)} |\n`);
  }
}

await main();
