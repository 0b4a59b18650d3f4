// bench:flops — embedding throughput and latency of svc-infer next to two peers on this CPU, same
// inputs, same thread count, in the same run, the implementations alternating cell by cell so that a
// change in the machine's load hits all of them:
//   - sentence-transformers (PyTorch eager, Python) on the same model files;
//   - onnxruntime on the same weights exported to ONNX by scripts/export-onnx.py.
// Each peer runs in its own Python process (bench/embedding_peers.py says what each does per call).
//
// Headline table: inputs where nobody pads. Batch 1 (one sentence per call: reference sentences of
// 10–30 tokens, and made-up sentences of exactly 16, 64, 128 tokens), and batches of 8 and 32
// sentences that all have the same token count. Secondary table: the 61 reference sentences (0 to 256
// tokens) per call, where each implementation batches them its own way and pads within its batches.
// Prints the cosine of svc-infer's vectors against both peers. Asserts nothing.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { inferenceAddon, type LoadedModel } from '../src/native/inference.js';
import { loadLine, machineLine, vectorExtensions } from './support/machine.js';

const USAGE = `usage: node dist/bench/flops.js [options]
  --seconds <s>        measuring time per implementation and cell, per round (default 1.5)
  --rounds <n>         rounds over every cell, the implementations alternating (default 2)
  --threads <n>        CPU threads for every implementation (default: all cores)
  --lengths <list>     token counts of the equal-length cells (default 16,64,128)
  --equal <list>       batch sizes of the equal-length cells (default 8,32)
  --batch <list>       batch sizes of the reference-corpus table (default 1,8,32,128)
  --models <list>      models of the reference-corpus table (default svc-embed-small@v1.0; the other
                       two run random weights of their real shapes, sentence-transformers only)
  --no-reference       svc-infer only
  --no-onnx            skip onnxruntime
  --help

The peers need \`node scripts/setup-inference.mjs --python-reference\` (or SVC_REFERENCE_PYTHON and
SVC_ONNX_MODEL).`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cacheDir = process.env.SVC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'svc-node');
const SMALL = 'svc-embed-small@v1.0';
const addon = inferenceAddon();

type Peer = 'svc-infer' | 'sentence-transformers' | 'onnxruntime';

function referencePython(): string | null {
  const py = process.env.SVC_REFERENCE_PYTHON ?? path.join(cacheDir, 'py-reference', 'bin', 'python');
  return existsSync(py) ? py : null;
}

function onnxModel(): string | null {
  const file = process.env.SVC_ONNX_MODEL ?? path.join(cacheDir, 'onnx', SMALL, 'model.onnx');
  return existsSync(file) ? file : null;
}

/** The 61 reference sentences (empty to 256+ tokens, many scripts). */
function corpus(): string[] {
  const file = path.join(root, 'test', 'data', 'inference', 'minilm-l6-reference.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { sentences: { text: string }[] }).sentences.map((s) => s.text);
}

/** Common English words; the ones that are one WordPiece token each build the equal-length sentences. */
const WORDS = `the of and to in is was for on that with as by at from his her they this had not are but
which one were their all been has when who will more would there out into time two first new some may
only over years other then them these people made many most like after could did man world state
city three work long part about school war way between where family under name water during found
year small just life down high system house great best day since even left power place end music
back well later same each around because before second team early until three game line country
several large while both group known four city market town north south film river book field light
story party green road church series near point area case center small black white history side
body head hand eye night table window door street car money food paper letter garden morning river
tree stone bridge train boat island summer winter spring autumn color voice heart mind friend child`
  .split(/\s+/).filter((w) => w.length > 0);

/** A deterministic generator (32-bit xorshift), so every run measures the same sentences. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** `count` distinct made-up sentences of exactly `tokens` tokens ([CLS] and [SEP] included). */
function equalLengthSentences(model: LoadedModel, tokens: number, count: number, seed: number): string[] {
  const counts = model.tokenCounts([...new Set(WORDS)]);
  const single = [...new Set(WORDS)].filter((_, i) => counts[i] === 3);
  const next = prng(seed);
  const out: string[] = [];
  while (out.length < count) {
    const words = Array.from({ length: tokens - 2 }, () => single[Math.floor(next() * single.length)]!);
    out.push(words.join(' '));
  }
  const got = model.tokenCounts(out);
  if (got.some((n) => n !== tokens)) throw new Error(`made-up sentences of ${tokens} tokens came out as ${[...new Set(got)].join(',')}`);
  return out;
}

interface Measurement {
  sentences: number;
  seconds: number;
  latencies: number[];
}

const emptyMeasurement = (): Measurement => ({ sentences: 0, seconds: 0, latencies: [] });

function merge(into: Measurement, m: { sentences_per_s: number; latencies_ms: number[] }, sentencesPerCall: number[]): void {
  const sentences = m.latencies_ms.reduce((s, _, i) => s + sentencesPerCall[i % sentencesPerCall.length]!, 0);
  into.sentences += sentences;
  into.seconds += sentences / m.sentences_per_s;
  into.latencies.push(...m.latencies_ms);
}

/** svc-infer through the addon, as the node and svc-miner call it (canonical outputs and hashes included). */
async function measureOurs(model: LoadedModel, calls: string[][], batch: number, seconds: number) {
  await model.infer(calls[0]!, batch);
  const latencies: number[] = [];
  let done = 0;
  const began = performance.now();
  for (let i = 0; done === 0 || performance.now() - began < seconds * 1e3; i++) {
    const call = calls[i % calls.length]!;
    const t = performance.now();
    await model.infer(call, batch);
    latencies.push(performance.now() - t);
    done += call.length;
  }
  return { sentences_per_s: done / ((performance.now() - began) / 1e3), latencies_ms: latencies };
}

/** One peer in its own Python process (bench/embedding_peers.py), one JSON line per request. */
class PythonPeer {
  private child: ChildProcessWithoutNullStreams;
  private lines: AsyncIterator<string>;
  private stderr = '';

  constructor(py: string, readonly name: Exclude<Peer, 'svc-infer'>, threads: number, onnx: string | null) {
    this.child = spawn(py, [path.join(root, 'bench', 'embedding_peers.py'), name]);
    this.child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
    this.child.stdin.write(`${JSON.stringify({ threads, onnx })}\n`);
  }

  async ask<T>(request: object): Promise<T> {
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
    const next = await this.lines.next();
    if (next.done) throw new Error(`${this.name} exited: ${this.stderr.slice(-2000)}`);
    return JSON.parse(next.value) as T;
  }

  measure(model: string, calls: string[][], batch: number, seconds: number) {
    return this.ask<{ sentences_per_s: number; latencies_ms: number[] }>({ op: 'measure', model, calls, batch, seconds });
  }

  async embed(model: string, sentences: string[], batch: number): Promise<number[][]> {
    return (await this.ask<{ embeddings: number[][] }>({ op: 'embed', model, sentences, batch })).embeddings;
  }

  close(): void {
    this.child.stdin.end();
  }
}

const sha256 = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

/** The model: real files for svc-embed-small, random weights of the real shape for the others. */
async function load(id: string, scratch: string): Promise<LoadedModel> {
  const modelDir = process.env.SVC_TEST_MODEL_DIR ?? path.join(cacheDir, 'models');
  if (id === SMALL) return addon.loadModel(id, modelDir, 'cpu');
  const folder = path.join(scratch, id);
  mkdirSync(folder, { recursive: true });
  // All three share BERT's uncased WordPiece vocabulary.
  copyFileSync(path.join(modelDir, SMALL, 'tokenizer.json'), path.join(folder, 'tokenizer.json'));
  const weights = addon.writeRandomCheckpoint(id, scratch, 7);
  return addon.loadModelWithPins(id, scratch, 'cpu', weights, sha256(path.join(folder, 'tokenizer.json')));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return `${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`;
}

const list = (s: string) => s.split(',').filter((x) => x.length > 0).map(Number);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '1.5' },
      rounds: { type: 'string', default: '2' },
      threads: { type: 'string', default: String(os.availableParallelism()) },
      lengths: { type: 'string', default: '16,64,128' },
      equal: { type: 'string', default: '8,32' },
      batch: { type: 'string', default: '1,8,32,128' },
      models: { type: 'string', default: SMALL },
      'no-reference': { type: 'boolean' },
      'no-onnx': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const threads = Number(values.threads);
  const lengths = list(values.lengths!);
  const equal = list(values.equal!);
  const batches = list(values.batch!);
  const ids = values.models!.split(',');
  const known = new Set(addon.listModels().map((m) => m.id));
  const positive = (xs: number[]) => xs.every((x) => Number.isInteger(x) && x >= 1);
  if (!(seconds > 0) || !positive([rounds, threads]) || !positive(batches) || !positive(equal) || !positive(lengths)
    || lengths.some((n) => n < 3 || n > 256) || ids.some((id) => !known.has(id))) {
    throw new Error(`bad arguments\n${USAGE}`);
  }
  const py = values['no-reference'] ? null : referencePython();
  if (!values['no-reference'] && !py) {
    throw new Error('reference environment missing: run `node scripts/setup-inference.mjs --python-reference` or pass --no-reference');
  }
  const onnx = py && !values['no-onnx'] ? onnxModel() : null;
  if (py && !values['no-onnx'] && !onnx) {
    throw new Error('ONNX export missing: run `node scripts/setup-inference.mjs --python-reference` (it runs scripts/export-onnx.py) or pass --no-onnx');
  }

  process.stdout.write(`${machineLine()}\n`);
  if (vectorExtensions().includes('avx512f')) process.stdout.write('(AVX-512 present: libtorch and onnxruntime pick their AVX-512 kernels)\n');
  process.stdout.write(`svc-infer CPU kernel: ${addon.cpuKernel()} (packed products with GELU in the store, per-head attention)\n`);
  process.stdout.write(`${loadLine('before')}\n`);
  addon.setThreads(threads);
  const peers: PythonPeer[] = [];
  if (py) peers.push(new PythonPeer(py, 'sentence-transformers', threads, null));
  if (py && onnx) peers.push(new PythonPeer(py, 'onnxruntime', threads, onnx));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-models-'));
  try {
    const threadLine = [`svc-infer: libtorch ${addon.threads()} intra-op threads`];
    for (const p of peers) {
      const info = await p.ask<{ version: string; threads: number; interop_threads: number; unpadded_batches?: boolean }>({ op: 'info' });
      threadLine.push(`${info.version}: ${info.threads} intra-op, ${info.interop_threads} inter-op threads${info.unpadded_batches ? ', unpadded batches' : ''}`);
    }
    process.stdout.write(`Threads: ${threadLine.join('; ')}\n`);
    process.stdout.write(`fp32 everywhere; ${rounds} rounds x ${seconds} s per implementation and cell; sent/s over all rounds, p50 = median time of one call / sentences per call\n\n`);

    const small = await load(SMALL, scratch);
    const sentences = corpus();
    const tokenCounts = small.tokenCounts(sentences);
    const short = sentences.filter((_, i) => tokenCounts[i]! >= 10 && tokenCounts[i]! <= 30);
    const shortMean = short.reduce((s, x) => s + small.tokenCounts([x])[0]!, 0) / short.length;

    // Headline cells: what each call carries. Nobody pads: one sentence per call, or equal lengths.
    interface Cell { label: string; tokens: string; batch: number; calls: string[][] }
    const cells: Cell[] = [{ label: 'reference sentences of 10-30 tokens', tokens: `${shortMean.toFixed(1)} (mean)`, batch: 1, calls: short.map((s) => [s]) }];
    for (const n of lengths) {
      cells.push({ label: 'made-up sentences', tokens: String(n), batch: 1, calls: equalLengthSentences(small, n, 32, n).map((s) => [s]) });
    }
    for (const b of equal) {
      for (const n of lengths) {
        const pool = equalLengthSentences(small, n, b * 4, 1000 * b + n);
        const calls = Array.from({ length: 4 }, (_, i) => pool.slice(i * b, (i + 1) * b));
        cells.push({ label: `${b} sentences of equal length per call`, tokens: String(n), batch: b, calls });
      }
    }
    const all: Peer[] = ['svc-infer', ...peers.map((p) => p.name)];
    const results = cells.map(() => new Map<Peer, Measurement>(all.map((p) => [p, emptyMeasurement()])));
    for (let r = 0; r < rounds; r++) {
      for (const [ci, cell] of cells.entries()) {
        const perCall = cell.calls.map((c) => c.length);
        merge(results[ci]!.get('svc-infer')!, await measureOurs(small, cell.calls, cell.batch, seconds), perCall);
        for (const p of peers) merge(results[ci]!.get(p.name)!, await p.measure(SMALL, cell.calls, cell.batch, seconds), perCall);
      }
    }
    const rate = (m: Measurement) => m.sentences / m.seconds;
    const p50 = (m: Measurement, batch: number) => median(m.latencies) / batch;
    const headRow = ['svc-embed-small@v1.0 input', 'tokens', 'batch'];
    for (const p of all) headRow.push(`${p} sent/s`, `${p} p50 ms`);
    for (const p of peers) headRow.push(`vs ${p.name}`);
    const rows = cells.map((cell, ci) => {
      const m = results[ci]!;
      const row = [cell.label, cell.tokens, String(cell.batch)];
      for (const p of all) row.push(rate(m.get(p)!).toFixed(1), p50(m.get(p)!, cell.batch).toFixed(2));
      for (const p of peers) row.push(`${(rate(m.get('svc-infer')!) / rate(m.get(p.name)!)).toFixed(2)}x`);
      return row;
    });
    process.stdout.write('Headline: no padding anywhere (one sentence per call, or every sentence of a call the same length)\n');
    process.stdout.write(table(headRow, rows));

    // Agreement: svc-infer's vectors against each peer's, at batch 1 and batch 32 on every side.
    const agreeInputs = [...sentences, ...cells.slice(1, 1 + lengths.length).flatMap((c) => c.calls.slice(0, 4).flat())];
    for (const b of [1, 32]) {
      const ours = (await small.infer(agreeInputs, b)).map((o) => o.vector);
      const parts: string[] = [];
      for (const p of peers) {
        const theirs = await p.embed(SMALL, agreeInputs, b);
        const cos = ours.map((v, i) => cosine(v, theirs[i]!));
        parts.push(`vs ${p.name} min ${Math.min(...cos).toFixed(9)}, mean ${(cos.reduce((s, x) => s + x, 0) / cos.length).toFixed(9)}`);
      }
      if (parts.length > 0) process.stdout.write(`Cosine of svc-infer's vectors, ${agreeInputs.length} inputs at batch ${b} on every side: ${parts.join('; ')}\n`);
    }

    // Secondary: the reference corpus per call, each implementation batching (and padding) its own way.
    process.stdout.write(`\nSecondary: the ${sentences.length} reference sentences (0 to 256 tokens, mean ${(tokenCounts.reduce((s, x) => s + x, 0) / sentences.length).toFixed(1)}) per call, batch = at most that many sentences per forward pass.\n`);
    process.stdout.write('svc-infer sorts by token count and pads each pass to its longest, closing a pass early rather than pad more tokens than it holds;\n');
    process.stdout.write('sentence-transformers sorts by character count and pads each run of <batch> to its longest; onnxruntime (this bench) sorts by token count and pads each run of <batch>.\n');
    process.stdout.write('GFLOP/s = sentences/s x mean FLOPs per sentence (docs/inference.md formula, each sentence at its own token count, padding not counted)\n');
    const corpusRows: string[][] = [];
    for (const id of ids) {
      const model = id === SMALL ? small : await load(id, scratch);
      const meanFlops = model.tokenCounts(sentences).reduce((s, n) => s + addon.modelFlops(id, n), 0) / sentences.length;
      const celled = batches.map(() => new Map<Peer, Measurement>());
      for (let r = 0; r < rounds; r++) {
        for (const [bi, b] of batches.entries()) {
          const slot = (p: Peer) => celled[bi]!.get(p) ?? celled[bi]!.set(p, emptyMeasurement()).get(p)!;
          merge(slot('svc-infer'), await measureOurs(model, [sentences], b, seconds), [sentences.length]);
          for (const p of peers) {
            if (p.name === 'onnxruntime' && id !== SMALL) continue;
            merge(slot(p.name), await p.measure(id, [sentences], b, seconds), [sentences.length]);
          }
        }
      }
      for (const [bi, b] of batches.entries()) {
        const m = celled[bi]!;
        const ours = rate(m.get('svc-infer')!);
        const row = [id, String(b), ours.toFixed(1), (ours * meanFlops / 1e9).toFixed(1)];
        for (const p of peers) {
          const theirs = m.get(p.name);
          row.push(theirs ? rate(theirs).toFixed(1) : '-', theirs ? `${(ours / rate(theirs)).toFixed(2)}x` : '-');
        }
        corpusRows.push(row);
      }
    }
    const corpusHead = ['model', 'batch', 'svc-infer sent/s', 'svc-infer GFLOP/s'];
    for (const p of peers) corpusHead.push(`${p.name} sent/s`, `vs ${p.name}`);
    process.stdout.write(table(corpusHead, corpusRows));
  } finally {
    for (const p of peers) p.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`\n${loadLine('after')}\n`);
}

await main();
