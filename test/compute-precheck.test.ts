// The pre-check (docs/compute.md, "Pre-check"): a failed spot-check slashes the validator that relayed
// the proof, so a node re-executes a share of the proofs it is given before it accepts them. Unit:
// which proofs the policy selects (the rate drawn with the node's own randomness, miners that failed
// the pre-check or a spot-check always, rate 0 = off, the suspect list bounded). Node: a node in
// inference mode with svc-embed-small on the CPU and a pre-check rate of 100% refuses a perturbed
// output (which passes every other check) with -32003 PRECHECK_FAILED and relays nothing, while the
// task stays the miner's and nothing on chain changes (the pre-check is the node's policy, not a
// penalty); the same miner's honest proof of that task, and another miner's, are re-executed and
// accepted. The node part is skipped where the addon or the model files are absent; in CI that fails.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { ProofPrecheck } from '../src/compute/intake.js';
import { startNode, type RunningNode } from '../src/node.js';
import { chain as chainParams, compute as defaultCompute, proofPrecheck, staking, type ComputeParams } from '../src/params.js';
import type { Address } from '../src/modules/compute/types.js';
import { inputHash, outputHash, type TaskJson } from '../src/modules/compute/wire.js';
import { inferenceAddon, type LoadedModel } from '../src/native/inference.js';
import { SMALL, missingSmallModel, requireOrSkip, testModelDir } from './support/inference.js';
import { rpc } from './support/json-rpc.js';
import { int8Bytes, refusalOf, ScriptedMiner, type ClaimedOutput } from './support/compute-miner.js';
import { devnetConfig } from './support/node-config.js';

const A = '0x00000000000000000000000000000000000000a1' as Address;
const B = '0x00000000000000000000000000000000000000b2' as Address;

describe('ProofPrecheck: which proofs a node re-executes before accepting them', () => {
  it('draws at the rate with its own randomness: a roll below the rate (0..9999) is checked', () => {
    let next = 0;
    const p = new ProofPrecheck(2_500, () => next);
    for (const [roll, checked] of [[0, true], [2_499, true], [2_500, false], [9_999, false]] as const) {
      next = roll;
      assert.equal(p.selects(A, 0), checked, `roll ${roll}`);
    }
    assert.equal(new ProofPrecheck(10_000, () => 9_999).selects(A, 0), true, 'rate 100%: every proof');
    // The default is the documented one, and the real draw lands near it.
    const d = new ProofPrecheck();
    assert.equal(d.rateBps, proofPrecheck.rateBps);
    let n = 0;
    for (let i = 0; i < 20_000; i++) if (d.selects(A, 0)) n += 1;
    assert.ok(Math.abs(n / 20_000 - proofPrecheck.rateBps / 10_000) < 0.02, `${n} of 20000 drawn`);
  });

  it('checks every proof of a miner that failed its pre-check or a spot-check on chain; rate 0 checks none', () => {
    const p = new ProofPrecheck(1, () => 9_999);
    assert.equal(p.selects(A, 0), false);
    assert.equal(p.selects(A, 1), true, 'a failed spot-check on chain');
    p.suspect(A);
    assert.equal(p.isSuspect(A), true);
    assert.equal(p.selects(A, 0), true, 'failed the pre-check here');
    assert.equal(p.selects(B, 0), false);
    const off = new ProofPrecheck(0, () => 0);
    off.suspect(A);
    assert.equal(off.selects(A, 3), false, 'rate 0 turns the pre-check off');
  });

  it('forgets the oldest suspect past its bound, and refuses a rate outside 0..10000 bps', () => {
    const p = new ProofPrecheck(1, () => 9_999, 2);
    const C = '0x00000000000000000000000000000000000000c3' as Address;
    p.suspect(A);
    p.suspect(B);
    p.suspect(A); // seen again: the newest now
    p.suspect(C);
    assert.deepEqual([p.isSuspect(A), p.isSuspect(B), p.isSuspect(C)], [true, false, true]);
    for (const bad of [-1, 10_001, 0.5, Number.NaN]) assert.throws(() => new ProofPrecheck(bad), RangeError, String(bad));
  });
});

const skip = requireOrSkip(missingSmallModel());
/** Every proof is spot-checked too, so an accepted proof's fate is known two blocks later. */
const COMPUTE: ComputeParams = { ...defaultCompute, spotCheckBps: 10_000 };
const EPOCH = staking.epochLengthBlocks;

interface StatsAnswer {
  proofs: { accepted: number; rejectedAtSubmission: number; rejectedByReason: Record<string, number> };
  precheck: { rateBps: number; checked: number; failed: number };
  spotChecks: { failed: number };
}

describe('a node that pre-checks every proof', { skip }, () => {
  let node: RunningNode;
  let dataDir: string;
  let model: LoadedModel;
  let clockMs = chainParams.genesisTimestamp.devnet * 1000;
  let cheat: ScriptedMiner;
  let honest: ScriptedMiner;
  let validator: Hex;
  const call = <T>(method: string, params: unknown[] = []): Promise<T> => rpc<T>(node.rpcUrl, method, params);
  const stats = () => call<StatsAnswer>('svc_getInferenceStats');
  const block = async () => {
    clockMs += 1000;
    return (await node.driver.produceNext()).head;
  };

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-precheck-'));
    model = await inferenceAddon().loadModel(SMALL, testModelDir(), 'cpu');
    const config = devnetConfig(dataDir, {
      blockTimeMs: chainParams.maxBlockTimeMs,
      computeMode: 'inference',
      modelDir: testModelDir(),
      models: [SMALL],
      inferenceBackend: 'cpu',
      proofPrecheckBps: 10_000,
    });
    node = await startNode(config, { computeParams: COMPUTE, now: () => clockMs });
    cheat = new ScriptedMiner('precheck-cheat', node.rpcUrl, config.chainId);
    honest = new ScriptedMiner('precheck-honest', node.rpcUrl, config.chainId);
    for (const m of [cheat, honest]) assert.equal((await m.register([SMALL])).status, 'pending');
    await block();
    validator = (await honest.tasks()).validator;
    for (;;) if ((await block()).number % EPOCH === 0) break;
    for (const m of [cheat, honest]) assert.equal((await m.tasks()).tasks.length, COMPUTE.challengeTasksPerMiner);
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a perturbed output with PRECHECK_FAILED and relays nothing; the honest proofs are re-executed and accepted', async (t) => {
    const [task] = (await cheat.tasks()).tasks as [TaskJson];
    const [real] = await cheat.run(model, [task]);
    // The honest vector with 6 components moved 3 steps and the hash recomputed: every other check passes.
    const q = Int8Array.from(real!.quantized);
    for (const i of [0, 50, 100, 150, 200, 383]) q[i] = q[i]! >= 0 ? q[i]! - 3 : q[i]! + 3;
    const bad: ClaimedOutput = { ...real!, quantized: q, outputHash: outputHash(SMALL, inputHash(task.input), int8Bytes(q)) };
    const stake0 = (await call<{ totalStake: Hex }>('svc_getValidator', [validator])).totalStake;

    const r = await refusalOf(cheat.submit(cheat.proof(task, validator, bad)));
    assert.deepEqual([r.code, r.reason], [-32003, 'PRECHECK_FAILED'], r.message);
    assert.match(r.message, /re-executed the task and the output is outside the tolerance \(cosine 0\.\d+, max \|dq\| 3\)/);
    assert.equal(node.app.compute.queueSizes().proofs, 0, 'nothing queued for the block');
    let s = await stats();
    assert.deepEqual(s.precheck, { rateBps: 10_000, checked: 1, failed: 1 });
    assert.equal(s.proofs.rejectedByReason.PRECHECK_FAILED, 1);
    assert.equal(node.services.compute.intake.precheck.isSuspect(cheat.address.toLowerCase() as Address), true);

    // Nothing on chain: the task is still the miner's, the miner is free, the validator's stake is whole.
    await block();
    const after = await call<{ status: string; assignedTo: string; result: unknown }>('svc_getInferenceTask', [task.task_id]);
    assert.deepEqual([after.status, after.assignedTo, after.result], ['assigned', cheat.address, null]);
    assert.equal((await cheat.info()).status, 'active');
    assert.equal((await call<{ totalStake: Hex }>('svc_getValidator', [validator])).totalStake, stake0);

    // The honest proof of the same task (its miner is a suspect now, so it is re-executed too), and the other miner's proofs.
    const ids: Hex[] = [(await cheat.submit(cheat.proof(task, validator, real!))).proof_id];
    const mine = (await honest.tasks()).tasks;
    const outs = await honest.run(model, mine);
    for (const [i, x] of mine.entries()) ids.push((await honest.submit(honest.proof(x, validator, outs[i]!))).proof_id);
    s = await stats();
    assert.deepEqual(s.precheck, { rateBps: 10_000, checked: 2 + mine.length, failed: 1 });
    const included = await block();
    for (const id of ids) assert.equal(Number((await call<{ includedAt: Hex }>('svc_getInferenceProof', [id])).includedAt), included.number);
    // They pass the spot-checks that the block after draws (spotCheckBps 100%): the validator relayed nothing it is slashed for.
    await block();
    await node.services.compute.spotChecker!.idle();
    await block();
    for (const id of ids) assert.equal((await call<{ spotCheck: string }>('svc_getInferenceProof', [id])).spotCheck, 'passed', id);
    assert.equal((await stats()).spotChecks.failed, 0);
    await block();
    assert.equal((await call<{ totalStake: Hex; status: string }>('svc_getValidator', [validator])).totalStake, stake0);
    t.diagnostic(`refused: ${r.message}; then ${ids.length} honest proofs re-executed and accepted at block ${included.number}`);
  });
});
