// The inference addon on the real all-MiniLM-L6-v2 weights: svc-embed-small against
// sentence-transformers, the canonical output and its hash, FLOPs, the spot-check verdicts.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { blake3 } from '@noble/hashes/blake3.js';
import { InferenceError, inferenceAddon, type InferenceOutput, type LoadedModel } from '../src/native/inference.js';
import { SMALL, cosine, reference, testModelDir } from './support/inference.js';

const addon = inferenceAddon();
const refs = reference();
let model: LoadedModel;
let outputs: InferenceOutput[];

before(async () => {
  model = await addon.loadModel(SMALL, testModelDir(), 'cpu');
  outputs = await model.infer(refs.map((r) => r.text), 32);
});

describe('svc-embed-small matches sentence-transformers (all-MiniLM-L6-v2)', () => {
  it('has at least 50 reference sentences: empty, truncated, non-ASCII and emoji among them', () => {
    assert.ok(refs.length >= 50);
    assert.ok(refs.some((r) => r.text === ''));
    assert.ok(refs.some((r) => r.tokens === 256));
    assert.ok(refs.some((r) => /[\u4e00-\u9fff]/.test(r.text)));
    assert.ok(refs.some((r) => /\p{Extended_Pictographic}/u.test(r.text)));
  });

  it('gives each sentence a 384-dim vector with cosine >= 0.9999 to the reference', () => {
    assert.equal(model.backend, 'cpu');
    assert.equal(model.dims, 384);
    for (const [i, r] of refs.entries()) {
      const out = outputs[i]!;
      assert.equal(out.dims, 384);
      assert.equal(out.tokens, r.tokens, `tokens of ${JSON.stringify(r.text)}`);
      const c = cosine(out.vector, r.embedding);
      assert.ok(c >= 0.9999, `cosine ${c} for ${JSON.stringify(r.text)}`);
    }
  });

  it('names the CPU kernel the flags of this CPU call for', () => {
    const flags = new Set(/^(?:flags|Features)\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.split(/\s+/) ?? []);
    const want = process.arch !== 'x64' ? 'scalar' : flags.has('avx512f') ? 'avx512f' : flags.has('avx2') && flags.has('fma') ? 'avx2+fma' : 'scalar';
    assert.equal(addon.cpuKernel(), want);
  });

  it('reports the token counts it read', () => {
    assert.deepEqual(model.tokenCounts(refs.map((r) => r.text)), refs.map((r) => r.tokens));
  });
});

/** The documented commitment, recomputed here from its definition. */
function documentedOutputHash(modelId: string, inputHash: Uint8Array, q: Int8Array): Buffer {
  const id = Buffer.from(modelId, 'ascii');
  const dims = Buffer.alloc(2);
  dims.writeUInt16BE(q.length);
  const bytes = Buffer.concat([
    Buffer.from('svc/inference-output/v1', 'ascii'), Buffer.from([id.length]), id, inputHash, dims,
    Buffer.from(q.buffer, q.byteOffset, q.byteLength),
  ]);
  return Buffer.from(blake3(bytes));
}

describe('canonical output', () => {
  it('quantises the unit vector with round(127 x)', () => {
    for (const out of outputs) {
      const norm = Math.sqrt(out.vector.reduce((s, x) => s + x * x, 0));
      assert.ok(Math.abs(norm - 1) < 1e-5);
      // Math.fround: the product is taken in float32, as the addon does.
      out.vector.forEach((x, i) => assert.equal(out.quantized[i], Math.sign(x) * Math.round(Math.abs(Math.fround(127 * x))) || 0));
    }
  });

  it('hashes the input with BLAKE3 and commits with the documented encoding', () => {
    for (const [i, r] of refs.entries()) {
      const out = outputs[i]!;
      assert.deepEqual(out.inputHash, Buffer.from(blake3(Buffer.from(r.text, 'utf8'))));
      assert.deepEqual(out.outputHash, documentedOutputHash(SMALL, out.inputHash, out.quantized));
      assert.deepEqual(addon.outputHash(SMALL, out.inputHash, out.quantized), out.outputHash);
    }
  });

  it('computes FLOPs from the model shape and token count', () => {
    // 6 layers, h = 384, f = 1536: 6 (8 n h² + 4 n² h + 4 n h f)
    const flops = (n: number) => 6 * (8 * n * 384 * 384 + 4 * n * n * 384 + 4 * n * 384 * 1536);
    for (const out of outputs) assert.equal(out.flops, flops(out.tokens));
    assert.equal(addon.modelFlops(SMALL, 10), 213_258_240);
  });
});

const claim = (o: InferenceOutput) => ({ modelId: o.modelId, inputHash: o.inputHash, quantized: o.quantized, outputHash: o.outputHash });

describe('spot-check verification', () => {
  it('accepts the same inputs run one at a time and on another thread count', async () => {
    const before = addon.threads();
    addon.setThreads(1);
    const single = await model.infer(refs.map((r) => r.text), 1);
    addon.setThreads(before);
    for (const [i, out] of outputs.entries()) {
      const v = addon.verifyOutput(claim(single[i]!), claim(out));
      assert.ok(v.accepted && v.hashMatches, `input ${i}: ${JSON.stringify(v)}`);
    }
  });

  it('rejects a perturbed vector even with a matching hash, and a forged hash', () => {
    const honest = outputs[3]!;
    const q = Int8Array.from(honest.quantized);
    q[0] = q[0]! > 0 ? q[0]! - 3 : q[0]! + 3;
    const perturbed = { ...claim(honest), quantized: q, outputHash: addon.outputHash(SMALL, honest.inputHash, q) };
    const v = addon.verifyOutput(perturbed, claim(honest));
    assert.equal(v.hashMatches, true);
    assert.equal(v.maxAbsDiff, 3);
    assert.equal(v.accepted, false);
    const forged = { ...claim(honest), quantized: q };
    assert.equal(addon.verifyOutput(forged, claim(honest)).hashMatches, false);
  });

  it('rejects an output of another input or another model id', () => {
    const [a, b] = [outputs[5]!, outputs[6]!];
    assert.equal(addon.verifyOutput(claim(a), claim(b)).accepted, false);
    const relabelled = { ...claim(a), modelId: 'svc-embed-medium@v1.0' };
    relabelled.outputHash = addon.outputHash('svc-embed-medium@v1.0', a.inputHash, a.quantized);
    const v = addon.verifyOutput(relabelled, claim(a));
    assert.equal(v.sameTask, false);
    assert.equal(v.accepted, false);
  });

  it('publishes the tolerance it applies', () => {
    assert.deepEqual(addon.tolerance(), { minCosine: 0.999, maxAbsDiff: 2 });
  });
});

describe('errors', () => {
  it('names unknown models, backends and missing files with stable codes', async () => {
    await assert.rejects(addon.loadModel('svc-embed-huge@v9.9', testModelDir(), 'cpu'), (e: unknown) =>
      e instanceof InferenceError && e.code === 'UNKNOWN_MODEL' && /approved: svc-embed-small@v1\.0/.test(e.message));
    await assert.rejects(addon.loadModel(SMALL, testModelDir(), 'tpu' as 'cpu'), (e: unknown) =>
      e instanceof InferenceError && e.code === 'UNKNOWN_BACKEND');
    await assert.rejects(addon.loadModel(SMALL, '/nonexistent-model-dir', 'cpu'), (e: unknown) =>
      e instanceof InferenceError && e.code === 'MISSING_FILE' && e.message.includes('model.safetensors'));
    assert.throws(() => addon.detectHardware('metal'), (e: unknown) =>
      process.platform === 'darwin' || (e instanceof InferenceError && e.code === 'BACKEND_UNAVAILABLE'));
  });

  it('classifies this machine into a tier and lists what it may load', () => {
    const hw = addon.detectHardware('cpu');
    assert.equal(hw.backend, 'cpu');
    assert.equal(hw.tier, 'Cold');
    assert.deepEqual(hw.loadableModels, ['svc-embed-small@v1.0', 'svc-embed-medium@v1.0']);
    assert.ok(hw.systemMemoryMb > 0);
  });
});
