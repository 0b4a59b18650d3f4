// bench:flops — sentences per second and achieved GFLOP/s of the approved models per batch size on
// this CPU, next to sentence-transformers (PyTorch) on the same CPU, same inputs, same thread count,
// in the same run. svc-embed-small runs its real weights; the other two run random weights of their
// real shapes (same FLOPs). Prints a table; asserts nothing.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { inferenceAddon, type LoadedModel } from '../src/native/inference.js';

const USAGE = `usage: node dist/bench/flops.js [options]
  --seconds <s>        measuring time per cell (default 3)
  --batch <list>       batch sizes, comma-separated (default 1,8,32,128)
  --models <list>      model ids, comma-separated (default all three)
  --threads <n>        CPU threads for both sides (default: all cores)
  --no-reference       skip sentence-transformers
  --help

The reference side needs \`node scripts/setup-inference.mjs --python-reference\` (or SVC_REFERENCE_PYTHON).`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cacheDir = process.env.SVC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'svc-node');
const SMALL = 'svc-embed-small@v1.0';
const addon = inferenceAddon();

function referencePython(): string | null {
  const py = process.env.SVC_REFERENCE_PYTHON ?? path.join(cacheDir, 'py-reference', 'bin', 'python');
  return existsSync(py) ? py : null;
}

/** The benchmark corpus: the 61 reference sentences (empty to 500+ tokens, many scripts). */
function corpus(): string[] {
  const file = path.join(root, 'test', 'data', 'inference', 'minilm-l6-reference.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { sentences: { text: string }[] }).sentences.map((s) => s.text);
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

async function ours(model: LoadedModel, sentences: string[], batch: number, seconds: number): Promise<number> {
  await model.infer(sentences.slice(0, Math.max(batch, 8)), batch);
  let done = 0;
  const began = performance.now();
  while (done === 0 || performance.now() - began < seconds * 1e3) {
    await model.infer(sentences, batch);
    done += sentences.length;
  }
  return done / ((performance.now() - began) / 1e3);
}

/** sentence-transformers in a Python process that answers one measurement per request line. */
class Reference {
  private child: ChildProcessWithoutNullStreams;
  private lines: AsyncIterator<string>;
  private stderr = '';

  constructor(py: string, sentences: string[], threads: number) {
    this.child = spawn(py, [path.join(root, 'bench', 'sentence_transformers_throughput.py')]);
    this.child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
    this.child.stdin.write(`${JSON.stringify({ sentences, threads })}\n`);
  }

  async measure(model: string, batch: number, seconds: number): Promise<number> {
    this.child.stdin.write(`${JSON.stringify({ model, batch, seconds })}\n`);
    const next = await this.lines.next();
    if (next.done) throw new Error(`sentence-transformers exited: ${this.stderr.slice(-2000)}`);
    return (JSON.parse(next.value) as { sentences_per_s: number }).sentences_per_s;
  }

  close(): void {
    this.child.stdin.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '3' },
      batch: { type: 'string', default: '1,8,32,128' },
      models: { type: 'string', default: addon.listModels().map((m) => m.id).join(',') },
      threads: { type: 'string', default: String(os.availableParallelism()) },
      'no-reference': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const seconds = Number(values.seconds);
  const batches = values.batch!.split(',').map(Number);
  const threads = Number(values.threads);
  const ids = values.models!.split(',');
  const known = new Set(addon.listModels().map((m) => m.id));
  if (!(seconds > 0) || batches.some((b) => !Number.isInteger(b) || b < 1) || !(threads >= 1) || ids.some((id) => !known.has(id))) {
    throw new Error(`bad arguments\n${USAGE}`);
  }
  const py = values['no-reference'] ? null : referencePython();
  if (!values['no-reference'] && !py) {
    throw new Error('sentence-transformers reference environment missing: run `node scripts/setup-inference.mjs --python-reference` or pass --no-reference');
  }
  addon.setThreads(threads);
  const sentences = corpus();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-models-'));
  process.stdout.write(`Text encoders on ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${threads} threads, fp32, the ${sentences.length} reference sentences per pass, ${seconds} s per cell\n`);
  process.stdout.write('GFLOP/s = sentences/s x mean FLOPs per sentence (docs/inference.md formula, each sentence at its own token count)\n\n');
  const rows: string[][] = [];
  const reference = py ? new Reference(py, sentences, threads) : null;
  try {
    for (const id of ids) {
      const model = await load(id, scratch);
      const meanFlops = model.tokenCounts(sentences).reduce((s, n) => s + addon.modelFlops(id, n), 0) / sentences.length;
      for (const b of batches) {
        // The two sides alternate cell by cell, so that a change in the machine's load hits both.
        const peer = reference ? await reference.measure(id, b, seconds) : undefined;
        const mine = await ours(model, sentences, b, seconds);
        rows.push([id, String(b), mine.toFixed(1), (mine * meanFlops / 1e9).toFixed(1),
          peer ? peer.toFixed(1) : '-', peer ? (peer * meanFlops / 1e9).toFixed(1) : '-', peer ? `${(mine / peer).toFixed(2)}x` : '-']);
      }
    }
  } finally {
    reference?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  const head = ['model', 'batch', 'svc-infer sent/s', 'svc-infer GFLOP/s', 'sentence-transformers sent/s', 'sentence-transformers GFLOP/s', 'ratio'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
}

await main();
