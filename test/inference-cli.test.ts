// `svc-miner infer` and `svc-miner models` as a user runs them: a real process whose commander
// program registers the inference commands the way src/miner/cli.ts does, on the real weights.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3 } from '@noble/hashes/blake3.js';
import { inferenceAddon } from '../src/native/inference.js';
import { LocalHub, SMALL, cosine, reference, testModelDir } from './support/inference.js';

const INFER_MODULE = fileURLToPath(new URL('../src/miner/infer.js', import.meta.url));
// The svc-miner program's own --backend / --model-dir declarations (as in src/miner/cli.ts).
const PROGRAM = `
import { Command, CommanderError, Option } from 'commander';
const { registerInferenceCommands } = await import(process.env.INFER_MODULE);
const program = new Command('svc-miner').exitOverride()
  .addOption(new Option('--backend <backend>', 'inference backend').choices(['cpu', 'metal', 'cuda', 'auto']).default('auto').env('SVC_MINER_BACKEND'))
  .addOption(new Option('--model-dir <dir>', 'model cache directory').default('./models').env('SVC_MINER_MODEL_DIR'));
registerInferenceCommands(program);
try { await program.parseAsync(process.argv.slice(1), { from: 'user' }); }
catch (e) { if (!(e instanceof CommanderError)) throw e; process.exitCode = e.exitCode === 0 ? 0 : 2; }
`;

interface Outcome { code: number | null; stdout: string; stderr: string }

function svcMiner(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const clean: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SVC_')) clean[k] = v;
    const root = path.resolve(path.dirname(INFER_MODULE), '../../..');
    const child = spawn(process.execPath, ['--input-type=module', '-e', PROGRAM, '--', ...args], {
      env: { ...clean, INFER_MODULE, ...env }, cwd: root,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`svc-miner ${args.join(' ')} timed out`)); }, 120_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

const dirs: string[] = [];
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

describe('svc-miner infer', () => {
  it('prints the canonical output as JSON', async () => {
    const r = await svcMiner(['--backend', 'cpu', '--model-dir', testModelDir(), 'infer', '--model', SMALL, '--input', 'The cat sat on the mat.']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out).sort(),
      ['backend', 'dims', 'execution_time_ms', 'flops', 'input_hash', 'model_id', 'output', 'output_hash', 'quantized'].sort());
    assert.equal(out.model_id, SMALL);
    assert.equal(out.dims, 384);
    assert.equal(out.backend, 'cpu');
    assert.equal((out.output as number[]).length, 384);
    assert.equal((out.quantized as number[]).length, 384);
    assert.equal(out.input_hash, `0x${Buffer.from(blake3(Buffer.from('The cat sat on the mat.'))).toString('hex')}`);
    assert.match(out.output_hash as string, /^0x[0-9a-f]{64}$/);
    assert.equal(out.flops, inferenceAddon().modelFlops(SMALL, 9));
    assert.ok(Number.isInteger(out.execution_time_ms));
    const ref = reference().find((s) => s.text === 'The cat sat on the mat.')!;
    assert.ok(cosine(out.output as number[], ref.embedding) >= 0.9999);
  });

  it('takes the backend and model dir from SVC_INFERENCE_BACKEND and SVC_MODEL_DIR', async () => {
    const r = await svcMiner(['infer', '--model', SMALL, '--input', 'x'], { SVC_INFERENCE_BACKEND: 'cpu', SVC_MODEL_DIR: testModelDir() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).backend, 'cpu');
  });

  it('downloads the weights on first use, with a progress report', async () => {
    const hub = new LocalHub();
    const small = inferenceAddon().listModels().find((m) => m.id === SMALL)!;
    for (const f of small.files) hub.publish(small.hubRepo, small.hubRevision, f.name, readFileSync(path.join(testModelDir(), SMALL, f.name)));
    const url = await hub.start();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-models-'));
    dirs.push(dir);
    try {
      const r = await svcMiner(['infer', '--model', SMALL, '--input', 'first use'],
        { SVC_MINER_MODEL_DIR: dir, SVC_MINER_BACKEND: 'cpu', SVC_MODEL_HUB_URL: url });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /svc-embed-small@v1\.0\/model\.safetensors: downloading, 90\.9 MB/);
      assert.equal(JSON.parse(r.stdout).dims, 384);
      const listed = await svcMiner(['models', '--json'], { SVC_MINER_MODEL_DIR: dir, SVC_MINER_BACKEND: 'cpu' });
      const rows = JSON.parse(listed.stdout).models as { id: string; cached: string; loadable: boolean; tier: string }[];
      assert.deepEqual(rows.map((m) => [m.id, m.cached, m.loadable, m.tier]), [
        ['svc-embed-small@v1.0', 'cached', true, 'Cold'],
        ['svc-embed-medium@v1.0', 'unpinned', true, 'Cold'],
        ['svc-classify-small@v1.0', 'missing', false, 'Warm'],
      ]);
    } finally {
      await hub.stop();
    }
  });

  it('refuses unknown models and backends with a usage error', async () => {
    const r = await svcMiner(['infer', '--model', 'svc-embed-huge@v1.0', '--input', 'x'], { SVC_MODEL_DIR: testModelDir() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown model "svc-embed-huge@v1\.0" \(approved: svc-embed-small@v1\.0/);
    const b = await svcMiner(['--backend', 'tpu', 'infer', '--model', SMALL, '--input', 'x']);
    assert.equal(b.code, 2);
    assert.match(b.stderr, /Allowed choices are cpu, metal, cuda, auto/);
  });

  it('says which file is missing when the hub cannot be reached', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-models-'));
    dirs.push(dir);
    const r = await svcMiner(['infer', '--model', SMALL, '--input', 'x'],
      { SVC_MINER_MODEL_DIR: dir, SVC_MODEL_HUB_URL: 'http://127.0.0.1:9', SVC_MINER_BACKEND: 'cpu' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /svc-miner: svc-embed-small@v1\.0: downloading model\.safetensors from http:\/\/127\.0\.0\.1:9\/.* failed/);
  });
});

describe('svc-miner models', () => {
  it('prints a table with sizes, tiers and cache state', async () => {
    const r = await svcMiner(['models'], { SVC_MODEL_DIR: testModelDir(), SVC_INFERENCE_BACKEND: 'cpu' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^this machine: backend cpu, \d+ MB RAM, tier Cold$/m);
    assert.match(r.stdout, /^svc-embed-small@v1\.0\s+text-embedding\s+6 layers, 384 hidden\s+384\s+~80 MB\s+512 MB\s+Cold\s+yes\s+cached$/m);
    assert.match(r.stdout, /^svc-classify-small@v1\.0\s+text-classification\s+12 layers, 768 hidden\s+768\s+~440 MB\s+2048 MB\s+Warm\s+no\s+missing$/m);
  });
});
