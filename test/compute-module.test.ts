// The compute module's pure parts: the FLOPs split of the miners' pool and the task-fee split
// (rewards.ts), the signed wire formats (wire.ts), the coordinator's assignment (assign.ts) and
// challenge inputs (corpus.ts), the record encoding (types.ts) and the spot-check draw. No node,
// no chain: each function is checked against docs/compute.md and against an independent
// computation of what it must return.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256 } from 'viem';
import { splitByFlops, splitTaskFee, type FlopsEntry } from '../src/modules/compute/rewards.js';
import {
  PROOF_DOMAIN,
  REGISTRATION_DOMAIN,
  WALLET_DOMAIN,
  TIERS,
  hexOf,
  inputHash,
  outputHash,
  proofId,
  proofMessage,
  registrationMessage,
  walletKeyOf,
  type GpuTierName,
  type Hex,
} from '../src/modules/compute/wire.js';
import { assignTasks, canRun, type AssignmentInput, type ModelTiers } from '../src/modules/compute/assign.js';
import { challengeSentence, VOCABULARY_SIZE } from '../src/modules/compute/corpus.js';
import { newPublicTask, type Address, type MinerRecord, type TaskRecord } from '../src/modules/compute/types.js';
import { decodeRecord, encodeRecord } from '../src/modules/kernel/records.js';
import { drawnForSpotCheck } from '../src/modules/compute/hooks.js';
import { compute as computeParams } from '../src/params.js';
import { inferenceAddon } from '../src/native/inference.js';
import { missingInferenceAddon, requireOrSkip } from './support/inference.js';
import { repoRoot } from './support/repo.js';
import { prng } from './support/prng.js';


function randomBytes(rand: () => bigint, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = Number(rand() & 0xffn);
  return out;
}

const SMALL = 'svc-embed-small@v1.0';
const MEDIUM = 'svc-embed-medium@v1.0';
const CLASSIFY = 'svc-classify-small@v1.0';
const TIER_OF: ModelTiers = new Map(computeParams.approvedModels.map((m) => [m.id, m.tier as GpuTierName]));

// ---- rewards ----

/** The expected split, computed independently: floor shares, remainder to max FLOPs (ties: lowest tiebreak). */
function expectedSplit(pool: bigint, entries: readonly FlopsEntry[]): bigint[] {
  const total = entries.reduce((s, e) => s + e.flops, 0n);
  const floors = entries.map((e) => (pool * e.flops) / total);
  const sorted = entries.map((e, i) => ({ e, i })).sort((a, b) => (a.e.flops !== b.e.flops ? (a.e.flops > b.e.flops ? -1 : 1) : a.e.tiebreak < b.e.tiebreak ? -1 : 1));
  const holder = sorted[0]!.i;
  floors[holder] = floors[holder]! + pool - floors.reduce((s, a) => s + a, 0n);
  return floors;
}

describe('splitByFlops', () => {
  it('sums exactly to the pool; each amount is floor(pool*f/F) except the remainder holder (random cases)', () => {
    const rand = prng(0xc0ffeen);
    for (let round = 0; round < 2_000; round++) {
      const n = 1 + Number(rand() % 12n);
      const pool = round % 10 === 0 ? rand() % 1000n : rand() * (1n + (rand() % 1_000_000n));
      // Small FLOPs sometimes, so that ties (for most FLOPs) and large remainders occur.
      const small = rand() % 3n === 0n;
      const entries: FlopsEntry[] = Array.from({ length: n }, (_, i) => ({
        to: `m${i}`,
        flops: small ? 1n + (rand() % 4n) : 1n + (rand() % (1n << 48n)),
        tiebreak: hexOf(randomBytes(rand, 32)),
      }));
      const out = splitByFlops(pool, entries);
      assert.equal(out.length, n);
      assert.equal(out.reduce((s, a) => s + a, 0n), pool, `round ${round}: sum`);
      assert.deepEqual(out, expectedSplit(pool, entries), `round ${round}`);
      const total = entries.reduce((s, e) => s + e.flops, 0n);
      const off = out.map((a, i) => a - (pool * entries[i]!.flops) / total).filter((d) => d !== 0n);
      assert.ok(off.length <= 1, 'only the remainder holder differs from its floor');
      for (const d of off) assert.ok(d > 0n && d < BigInt(n), 'the remainder is less than the number of entries');
    }
  });

  it('gives the remainder to the most FLOPs, ties to the lowest tiebreak, whatever the entry order', () => {
    // pool 10, FLOPs 3/3/1 of 7: floors 4, 4, 1 (sum 9): the remainder 1 goes to the lower of the two 3s.
    const a: FlopsEntry = { to: 'a', flops: 3n, tiebreak: '0x02' };
    const b: FlopsEntry = { to: 'b', flops: 3n, tiebreak: '0x01' };
    const c: FlopsEntry = { to: 'c', flops: 1n, tiebreak: '0x00' };
    assert.deepEqual(splitByFlops(10n, [a, b, c]), [4n, 5n, 1n]);
    assert.deepEqual(splitByFlops(10n, [c, b, a]), [1n, 5n, 4n]);
    assert.deepEqual(splitByFlops(10n, [b, c, a]), [5n, 1n, 4n]);
    // The most FLOPs wins the remainder over a lower tiebreak.
    assert.deepEqual(splitByFlops(10n, [{ to: 'x', flops: 1n, tiebreak: '0x00' }, { to: 'y', flops: 2n, tiebreak: '0xff' }]), [3n, 7n]);
  });

  it('zero pool pays zero to everyone; one entry takes the whole pool', () => {
    const entries: FlopsEntry[] = [
      { to: 'a', flops: 5n, tiebreak: '0x01' },
      { to: 'b', flops: 7n, tiebreak: '0x02' },
    ];
    assert.deepEqual(splitByFlops(0n, entries), [0n, 0n]);
    assert.deepEqual(splitByFlops(123_456_789n, [{ to: 'a', flops: 1n, tiebreak: '0x01' }]), [123_456_789n]);
    assert.deepEqual(splitByFlops(1n, [{ to: 'a', flops: 10n ** 30n, tiebreak: '0x01' }]), [1n]);
    // Fewer wei than entries: every floor is 0 and the holder gets it all.
    assert.deepEqual(splitByFlops(2n, [{ to: 'a', flops: 1n, tiebreak: '0x01' }, { to: 'b', flops: 1n, tiebreak: '0x02' }, { to: 'c', flops: 1n, tiebreak: '0x03' }]), [2n, 0n, 0n]);
  });

  it('refuses a negative pool and non-positive FLOPs', () => {
    assert.throws(() => splitByFlops(-1n, [{ to: 'a', flops: 1n, tiebreak: '0x01' }]), RangeError);
    assert.throws(() => splitByFlops(10n, [{ to: 'a', flops: 0n, tiebreak: '0x01' }]), RangeError);
    assert.throws(() => splitByFlops(10n, [{ to: 'a', flops: 5n, tiebreak: '0x01' }, { to: 'b', flops: -3n, tiebreak: '0x02' }]), RangeError);
  });
});

describe('splitTaskFee', () => {
  const params = { taskFeeMinerBps: computeParams.taskFeeMinerBps, taskFeeValidatorBps: computeParams.taskFeeValidatorBps };

  it('is 70% / 20% / 10% with the rounding to the treasury', () => {
    assert.deepEqual(splitTaskFee(10n ** 15n, params), { miner: 7n * 10n ** 14n, validator: 2n * 10n ** 14n, treasury: 10n ** 14n });
    assert.deepEqual(splitTaskFee(10n, params), { miner: 7n, validator: 2n, treasury: 1n });
    assert.deepEqual(splitTaskFee(1n, params), { miner: 0n, validator: 0n, treasury: 1n });
    assert.deepEqual(splitTaskFee(9n, params), { miner: 6n, validator: 1n, treasury: 2n });
    assert.deepEqual(splitTaskFee(12_345n, params), { miner: 8_641n, validator: 2_469n, treasury: 1_235n });
    assert.deepEqual(splitTaskFee(0n, params), { miner: 0n, validator: 0n, treasury: 0n });
  });

  it('sums exactly to the fee (random fees)', () => {
    const rand = prng(77n);
    for (let i = 0; i < 2_000; i++) {
      const fee = i % 4 === 0 ? rand() % 100n : rand() * (1n + (rand() % 10n ** 12n));
      const s = splitTaskFee(fee, params);
      assert.equal(s.miner + s.validator + s.treasury, fee);
      assert.equal(s.miner, (fee * 7_000n) / 10_000n);
      assert.equal(s.validator, (fee * 2_000n) / 10_000n);
      assert.ok(s.treasury >= (fee * 1_000n) / 10_000n && s.treasury - (fee * 1_000n) / 10_000n < 3n);
    }
  });

  it('refuses a negative fee', () => {
    assert.throws(() => splitTaskFee(-1n, params), RangeError);
  });
});

// ---- wire ----

describe('wire formats', () => {
  const rand = prng(4242n);
  const taskId = randomBytes(rand, 32);
  const validator = randomBytes(rand, 20);
  const miner = randomBytes(rand, 20);
  const inHash = randomBytes(rand, 32);
  const outHash = randomBytes(rand, 32);

  it('proofMessage lays out every field at the offsets of docs/compute.md', () => {
    const m = proofMessage({
      chainId: 9000,
      taskId,
      validator,
      miner,
      modelId: SMALL,
      inputHash: inHash,
      outputHash: outHash,
      executionTimeMs: 1234,
      flops: 0x0102030405060708n,
    });
    const domain = Buffer.from('svc/inference-proof/v1', 'ascii');
    assert.equal(PROOF_DOMAIN, 'svc/inference-proof/v1');
    const { take, offset } = byteReader(m);
    assert.deepEqual(take(domain.length), domain);
    assert.equal(take(8).readBigUInt64BE(0), 9000n);
    assert.deepEqual(take(32), taskId);
    assert.deepEqual(take(20), validator);
    assert.deepEqual(take(20), miner);
    const len = take(1)[0]!;
    assert.equal(len, Buffer.byteLength(SMALL));
    assert.equal(take(len).toString('utf8'), SMALL);
    assert.deepEqual(take(32), inHash);
    assert.deepEqual(take(32), outHash);
    assert.equal(take(8).readBigUInt64BE(0), 1234n);
    assert.equal(take(8).readBigUInt64BE(0), 0x0102030405060708n);
    assert.equal(offset(), m.length, 'nothing after the FLOPs');
    assert.equal(m.length, 22 + 8 + 32 + 20 + 20 + 1 + SMALL.length + 32 + 32 + 8 + 8);
    // Every field is covered: changing one changes the message.
    const base = { chainId: 9000, taskId, validator, miner, modelId: SMALL, inputHash: inHash, outputHash: outHash, executionTimeMs: 1234, flops: 5n };
    const ref = proofMessage(base);
    for (const change of [{ chainId: 9001 }, { taskId: outHash }, { validator: miner }, { miner: validator }, { modelId: MEDIUM }, { inputHash: outHash }, { outputHash: inHash }, { executionTimeMs: 1235 }, { flops: 6n }]) {
      assert.notDeepEqual(proofMessage({ ...base, ...change }), ref, JSON.stringify(Object.keys(change)));
    }
    assert.throws(() => proofMessage({ ...base, modelId: 'x'.repeat(256) }), RangeError);
  });

  it('registrationMessage lays out every field at the offsets of docs/compute.md', () => {
    const publicKey = randomBytes(rand, 32);
    const models = [SMALL, CLASSIFY];
    for (const [tier, code] of [['Cold', 0], ['Warm', 1], ['Hot', 2]] as const) {
      const m = registrationMessage({ chainId: 9000, wallet: miner, publicKey, tier, models, sequence: 1_700_000_000_123n });
      const domain = Buffer.from('svc/miner-registration/v1', 'ascii');
      assert.equal(REGISTRATION_DOMAIN, 'svc/miner-registration/v1');
      const { take, offset } = byteReader(m);
      assert.deepEqual(take(domain.length), domain);
      assert.equal(take(8).readBigUInt64BE(0), 9000n);
      assert.deepEqual(take(20), miner);
      assert.deepEqual(take(32), publicKey);
      assert.equal(take(1)[0], code, `tier ${tier}`);
      assert.equal(TIERS[code], tier);
      assert.equal(take(1)[0], models.length);
      for (const id of models) {
        const len = take(1)[0]!;
        assert.equal(take(len).toString('utf8'), id);
      }
      assert.equal(take(8).readBigUInt64BE(0), 1_700_000_000_123n);
      assert.equal(offset(), m.length, 'nothing after the sequence');
    }
    const none = registrationMessage({ chainId: 1, wallet: miner, publicKey, tier: 'Cold', models: [], sequence: 0 });
    assert.equal(none.length, 25 + 8 + 20 + 32 + 1 + 1 + 8);
    assert.throws(() => registrationMessage({ chainId: 1, wallet: miner, publicKey, tier: 'Ice' as GpuTierName, models: [], sequence: 0 }), RangeError);
  });

  it('inputHash is BLAKE3 of the UTF-8 bytes (and the addon\'s, where it loads)', (t) => {
    assert.equal(hexOf(inputHash('')), '0xaf1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
    assert.equal(hexOf(inputHash('abc')), '0x6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    // Not UTF-16, not Latin-1: a non-ASCII input hashes its UTF-8 encoding.
    const text = 'héllo wörld 世界 🙂';
    assert.notDeepEqual(inputHash(text), inputHash(Buffer.from(text, 'utf8').toString('latin1')));
    const missing = requireOrSkip(missingInferenceAddon());
    if (missing) return t.skip(`addon comparison: ${missing}`);
    assert.deepEqual(inputHash(text), Buffer.from(inferenceAddon().inputHash(text)));
  });

  it('outputHash is the addon\'s commitment (when the inference addon loads here)', (t) => {
    const q = new Int8Array(384);
    for (let i = 0; i < q.length; i++) q[i] = Number(BigInt.asIntN(8, rand()));
    q[0] = -128;
    q[1] = 127;
    const bytes = Buffer.from(q.buffer, q.byteOffset, q.byteLength);
    const h = outputHash(SMALL, inHash, bytes);
    assert.equal(h.length, 32);
    assert.notDeepEqual(outputHash(SMALL, inHash, bytes.subarray(0, 383)), h, 'the length (dims) is committed');
    assert.notDeepEqual(outputHash(MEDIUM, inHash, bytes), h, 'the model is committed');
    const missing = requireOrSkip(missingInferenceAddon());
    if (missing) return t.skip(`addon comparison: ${missing}`);
    assert.deepEqual(h, Buffer.from(inferenceAddon().outputHash(SMALL, inHash, q)));
    const q768 = new Int8Array(768).map((_, i) => ((i * 37) % 256) - 128);
    assert.deepEqual(outputHash(CLASSIFY, inHash, Buffer.from(q768.buffer)), Buffer.from(inferenceAddon().outputHash(CLASSIFY, inHash, q768)));
  });

  it('walletKeyOf is keccak256(domain || seed): deterministic, 32 bytes, seed-dependent', () => {
    const seed = randomBytes(rand, 32);
    const k = walletKeyOf(seed);
    assert.match(k, /^0x[0-9a-f]{64}$/);
    assert.equal(walletKeyOf(Buffer.from(seed)), k);
    assert.equal(k, keccak256(Buffer.concat([Buffer.from(WALLET_DOMAIN, 'ascii'), seed])));
    assert.equal(WALLET_DOMAIN, 'svc-miner/wallet/v1');
    const other = Buffer.from(seed);
    other[31] = other[31]! ^ 1;
    assert.notEqual(walletKeyOf(other), k);
    assert.throws(() => walletKeyOf(seed.subarray(0, 31)), RangeError);
    assert.throws(() => walletKeyOf(Buffer.alloc(33)), RangeError);
  });

  it('proofId is keccak256 of the signed message', () => {
    const m = proofMessage({ chainId: 9000, taskId, validator, miner, modelId: SMALL, inputHash: inHash, outputHash: outHash, executionTimeMs: 1, flops: 2 });
    assert.equal(hexOf(proofId(m)), keccak256(m));
    assert.deepEqual(proofId(m), Buffer.from(keccak_256(m)));
    assert.equal(proofId(m).length, 32);
  });
});

// ---- assignment ----

function miner(wallet: string, tier: GpuTierName, models: string[]): MinerRecord {
  return {
    wallet: wallet as Address,
    publicKey: `0x${'11'.repeat(32)}`,
    tier,
    models,
    sequence: 1,
    registeredAt: 1,
    lastActiveEpoch: 1,
    jailedUntil: 0,
    tasksCompleted: 0,
    proofsAccepted: 0,
    spotChecksPassed: 0,
    spotChecksFailed: 0,
    flops: 0n,
    blockRewards: 0n,
    feeRewards: 0n,
    window: [],
  };
}

/** Reads a message field by field: take(n) returns the next n bytes; offset() is how far it got. */
function byteReader(m: Buffer): { take(n: number): Buffer; offset(): number } {
  let o = 0;
  return {
    take(n) {
      const b = m.subarray(o, o + n);
      o += n;
      return b;
    },
    offset: () => o,
  };
}

function publicTask(id: Hex, modelId: string, createdAt: number): TaskRecord {
  return newPublicTask({ id, modelId, input: `input of ${id}`, fee: 10n ** 15n, submitter: `0x${'aa'.repeat(20)}`, createdAt, createdEpoch: 0 });
}

const walletN = (i: number): string => `0x${i.toString(16).padStart(40, '0')}`;
const taskIdN = (i: number): Hex => hexOf(keccak_256(Buffer.from(`task ${i}`)));

function shuffled<T>(list: readonly T[], rand: () => bigint): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Number(rand() % BigInt(i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function input(seed: Uint8Array, over: Partial<AssignmentInput> = {}): AssignmentInput {
  const miners = [
    miner(walletN(1), 'Cold', [SMALL]),
    miner(walletN(2), 'Cold', [SMALL, MEDIUM, CLASSIFY]), // lists a Warm model above its tier: never given one
    miner(walletN(3), 'Warm', [SMALL, CLASSIFY]),
    miner(walletN(4), 'Hot', [MEDIUM, CLASSIFY]),
    miner(walletN(5), 'Cold', [MEDIUM]),
  ];
  const models = [SMALL, MEDIUM, CLASSIFY];
  const pending = Array.from({ length: 30 }, (_, i) => publicTask(taskIdN(i), models[i % 3]!, 10 + (i % 7)));
  return {
    epoch: 7,
    height: 70,
    seed,
    miners,
    openCount: new Map(),
    pending,
    approved: new Set(models),
    tiers: TIER_OF,
    challengeTasksPerMiner: 4,
    maxOpenTasksPerMiner: 32,
    deadlineEpochs: 2,
    ...over,
  };
}

/** An assignment as plain sorted data, to compare two of them. */
function canonical(a: ReturnType<typeof assignTasks>): unknown {
  return {
    publicAssigned: [...a.publicAssigned].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
    challenges: [...a.challenges].sort((x, y) => (x.id < y.id ? -1 : 1)),
  };
}

describe('assignTasks', () => {
  const seedA = Buffer.from(keccak_256(Buffer.from('block A')));
  const seedB = Buffer.from(keccak_256(Buffer.from('block B')));

  it('is deterministic for the same seed and state, whatever the order of miners and tasks', () => {
    const rand = prng(9n);
    const base = input(seedA);
    const ref = canonical(assignTasks(base));
    for (let i = 0; i < 10; i++) {
      const again = assignTasks({ ...base, miners: shuffled(base.miners, rand), pending: shuffled(base.pending, rand) });
      assert.deepEqual(canonical(again), ref);
    }
  });

  it('differs for another seed (public draws and challenge inputs)', () => {
    const a = assignTasks(input(seedA));
    const b = assignTasks(input(seedB));
    assert.notDeepEqual(canonical(a), canonical(b));
    assert.notDeepEqual(
      [...a.publicAssigned].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
      [...b.publicAssigned].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
    );
    const inputsA = new Set(a.challenges.map((t) => t.input));
    assert.ok(b.challenges.every((t) => !inputsA.has(t.input)), 'challenge inputs depend on the seed');
  });

  it('respects tiers and loaded models (a Cold miner never gets a Warm model), over many seeds', () => {
    let classifyAssigned = 0;
    for (let s = 0; s < 50; s++) {
      const a = input(Buffer.from(keccak_256(Buffer.from(`seed ${s}`))));
      const byWallet = new Map(a.miners.map((m) => [m.wallet, m]));
      const tasks = new Map(a.pending.map((t) => [t.id, t]));
      const out = assignTasks(a);
      for (const [id, wallet] of out.publicAssigned) {
        const t = tasks.get(id)!;
        const m = byWallet.get(wallet)!;
        assert.ok(m.models.includes(t.modelId), `${wallet} did not load ${t.modelId}`);
        assert.ok(TIERS.indexOf(m.tier) >= TIERS.indexOf(TIER_OF.get(t.modelId)!), `${m.tier} miner got ${t.modelId}`);
        assert.ok(canRun(m, t.modelId, TIER_OF));
        if (t.modelId === CLASSIFY) classifyAssigned++;
      }
      for (const t of out.challenges) {
        const m = byWallet.get(t.assignedTo!)!;
        assert.ok(m.models.includes(t.modelId) && canRun(m, t.modelId, TIER_OF), `challenge ${t.modelId} for ${m.tier} ${m.wallet}`);
        if (m.tier === 'Cold') assert.notEqual(t.modelId, CLASSIFY);
      }
      // Every public task found a miner: each model has one that can run it.
      assert.equal(out.publicAssigned.size, a.pending.length);
    }
    assert.ok(classifyAssigned > 0);
    // A model nobody can run is left waiting; an unknown model needs Hot.
    const a = input(seedA, { miners: [miner(walletN(1), 'Cold', [SMALL, CLASSIFY])] });
    const out = assignTasks(a);
    for (const t of a.pending) assert.equal(out.publicAssigned.has(t.id), t.modelId === SMALL, t.modelId);
    assert.equal(canRun(miner(walletN(9), 'Warm', ['x@v1.0']), 'x@v1.0', TIER_OF), false);
    assert.equal(canRun(miner(walletN(9), 'Hot', ['x@v1.0']), 'x@v1.0', TIER_OF), true);
  });

  it('gives no miner more than maxOpenTasksPerMiner open tasks', () => {
    const openCount = new Map<Address, number>([
      [walletN(1) as Address, 5],
      [walletN(2) as Address, 6],
      [walletN(3) as Address, 0],
      [walletN(4) as Address, 2],
    ]);
    const a = input(seedA, { openCount, maxOpenTasksPerMiner: 6 });
    const out = assignTasks(a);
    const load = new Map(openCount);
    for (const w of out.publicAssigned.values()) load.set(w, (load.get(w) ?? 0) + 1);
    for (const t of out.challenges) load.set(t.assignedTo!, (load.get(t.assignedTo!) ?? 0) + 1);
    for (const [w, n] of load) assert.ok(n <= 6, `${w} holds ${n}`);
    assert.equal(load.get(walletN(2) as Address), 6, 'a miner at the limit gets nothing');
    assert.ok(![...out.publicAssigned.values()].includes(walletN(2) as Address));
    assert.ok(!out.challenges.some((t) => t.assignedTo === walletN(2)));
    // Capacity fills up: the total given equals the room left among those that can take the tasks.
    assert.equal(load.get(walletN(3) as Address), 6);
  });

  it('gives waiting public tasks oldest first when room is short', () => {
    const pending = Array.from({ length: 8 }, (_, i) => publicTask(taskIdN(100 + i), SMALL, 50 - i)); // the last is the oldest
    const a = input(seedA, {
      miners: [miner(walletN(1), 'Cold', [SMALL])],
      pending: shuffled(pending, prng(3n)),
      maxOpenTasksPerMiner: 3,
      challengeTasksPerMiner: 4,
    });
    const out = assignTasks(a);
    const oldest = [...pending].sort((x, y) => x.createdAt - y.createdAt).slice(0, 3).map((t) => t.id).sort();
    assert.deepEqual([...out.publicAssigned.keys()].sort(), oldest);
    assert.equal(out.challenges.length, 0, 'no room left for challenge tasks');
    // Same height: the lower id first.
    const same = Array.from({ length: 5 }, (_, i) => publicTask(taskIdN(200 + i), SMALL, 9));
    const out2 = assignTasks(input(seedA, { miners: [miner(walletN(1), 'Cold', [SMALL])], pending: same, maxOpenTasksPerMiner: 2 }));
    assert.deepEqual([...out2.publicAssigned.keys()].sort(), same.map((t) => t.id).sort().slice(0, 2));
  });

  it('draws challenge inputs from challengeSentence, with unique ids and the epoch deadline', () => {
    const a = input(seedA);
    const out = assignTasks({ ...a, pending: [] });
    assert.equal(out.challenges.length, a.miners.length * 4);
    const ids = new Set(out.challenges.map((t) => t.id));
    assert.equal(ids.size, out.challenges.length, 'task ids are unique');
    for (const t of out.challenges) {
      const wallet = Buffer.from(t.assignedTo!.slice(2), 'hex');
      const k = out.challenges.filter((c) => c.assignedTo === t.assignedTo).indexOf(t);
      const expected = challengeSentence(Buffer.concat([seedA, Buffer.from('input'), wallet, Buffer.from([k >> 8, k & 0xff])]));
      assert.equal(t.input, expected);
      assert.equal(t.inputHash, hexOf(inputHash(t.input)));
      assert.equal(t.kind, 'challenge');
      assert.equal(t.fee, 0n);
      assert.equal(t.status, 'assigned');
      assert.equal(t.assignedEpoch, 7);
      assert.equal(t.deadlineEpoch, 7 + 2 - 1);
      assert.equal(t.createdAt, 70);
    }
    // Across miners and seeds, ids never collide.
    const all = new Set<string>();
    for (let s = 0; s < 20; s++) for (const t of assignTasks({ ...a, seed: Buffer.from(keccak_256(Buffer.from(`s${s}`))), pending: [] }).challenges) all.add(t.id);
    assert.equal(all.size, 20 * a.miners.length * 4);
    // Unapproved models are never chosen for a challenge.
    const out3 = assignTasks({ ...a, pending: [], approved: new Set([SMALL]) });
    assert.ok(out3.challenges.every((t) => t.modelId === SMALL));
    assert.deepEqual([...new Set(out3.challenges.map((t) => t.assignedTo))].sort(), [walletN(1), walletN(2), walletN(3)]);
  });
});

describe('challengeSentence', () => {
  it('has 12 to 27 words of the vocabulary, is deterministic, and differs between seeds', () => {
    const seen = new Set<string>();
    const lengths = new Set<number>();
    const vocabulary = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const seed = Buffer.from(keccak_256(Buffer.from(`seed ${i}`)));
      const s = challengeSentence(seed);
      assert.equal(challengeSentence(Buffer.from(seed)), s);
      assert.match(s, /^[A-Z][a-z ]*\.$/);
      const words = s.slice(0, -1).split(' ');
      assert.ok(words.length >= 12 && words.length <= 27, `${words.length} words`);
      lengths.add(words.length);
      for (const w of words) vocabulary.add(w.toLowerCase());
      seen.add(s);
    }
    assert.equal(seen.size, 2_000, 'different seeds give different sentences');
    assert.equal(lengths.size, 16, 'every length from 12 to 27 occurs');
    // About 39,000 words drawn: every word of the vocabulary shows up, and nothing else.
    assert.equal(vocabulary.size, VOCABULARY_SIZE);
    const documented = /(\d+)-word vocabulary/.exec(readFileSync(path.join(repoRoot(), 'docs', 'compute.md'), 'utf8'));
    assert.ok(documented, 'docs/compute.md states the vocabulary size');
    assert.equal(VOCABULARY_SIZE, Number(documented[1]), 'the vocabulary has the size docs/compute.md states');
  });
});

// ---- records ----

describe('encodeRecord / decodeRecord', () => {
  it('round-trips bigints, and user text that looks like a tag stays text', () => {
    const record = {
      id: '0xabc',
      fee: 10n ** 15n,
      zero: 0n,
      negative: -12345678901234567890n,
      huge: (1n << 255n) + 7n,
      input: '{"$n":"5"}',
      other: '$n',
      nested: { window: [{ epoch: 3, flops: 99n }, { epoch: 4, flops: 1n << 70n }], note: '{"$n":"-1"}' },
      list: ['{"$n":"7"}', 7n, null, true, 1.5],
      empty: {},
      nil: null,
    };
    const bytes = encodeRecord(record);
    assert.ok(Buffer.isBuffer(bytes));
    const back = decodeRecord<typeof record>(bytes);
    assert.deepEqual(back, record);
    assert.equal(typeof back.input, 'string');
    assert.equal(back.input, '{"$n":"5"}');
    assert.equal(typeof back.nested.note, 'string');
    assert.equal(back.list[0], '{"$n":"7"}');
    assert.equal(typeof back.fee, 'bigint');
    assert.equal(typeof back.nested.window[1]!.flops, 'bigint');
    // A whole task record with an adversarial input.
    const task = publicTask(taskIdN(1), SMALL, 3);
    task.input = '{"$n":"123"} and {"$n": "4"}';
    assert.deepEqual(decodeRecord<TaskRecord>(encodeRecord(task)), task);
  });
});

// ---- spot-check draw ----

describe('drawnForSpotCheck', () => {
  it('selects about spotCheckBps of random proofs, none at 0 and all at 10000', () => {
    const rand = prng(BigInt(process.env.SVC_PROPERTY_SEED ?? '5150'));
    const n = 20_000;
    const p = 0.05;
    let selected = 0;
    let none = 0;
    let all = 0;
    for (let i = 0; i < n; i++) {
      const block = randomBytes(rand, 32);
      const id = hexOf(randomBytes(rand, 32));
      const drawn = drawnForSpotCheck(block, id, 500);
      assert.equal(drawnForSpotCheck(Buffer.from(block), id, 500), drawn, 'deterministic');
      if (drawn) selected++;
      if (drawnForSpotCheck(block, id, 0)) none++;
      if (drawnForSpotCheck(block, id, 10_000)) all++;
    }
    const sigma = Math.sqrt(n * p * (1 - p));
    assert.ok(Math.abs(selected - n * p) <= 5 * sigma, `${selected} of ${n} selected, expected ${n * p} ± ${Math.round(5 * sigma)}`);
    assert.equal(none, 0);
    assert.equal(all, n);
  });

  it('depends on the block hash: the same proof is drawn in some blocks and not others', () => {
    const id = hexOf(keccak_256(Buffer.from('one proof')));
    let drawn = 0;
    for (let i = 0; i < 1_000; i++) if (drawnForSpotCheck(Buffer.from(keccak_256(Buffer.from(`block ${i}`))), id, 5_000)) drawn++;
    assert.ok(drawn > 400 && drawn < 600, `${drawn} of 1000 at 50%`);
  });
});
