// Cheating inference miners against a real node in compute mode inference (svc-embed-small on the
// CPU, every proof spot-checked: spotCheckBps 10000), driven by scripted miners (test/support/
// compute-miner.ts; no svc-miner process) over JSON-RPC, with blocks made one at a time on a test
// clock. The contract is docs/compute.md: a bad signature, an unapproved model, another miner's
// task, a replayed proof and malformed fields are refused at submission and change nothing; a
// different model and a perturbed output pass the submission checks (this node's pre-check is off,
// so it relays them) and are caught by the spot-check: the miner is jailed for 6 hours of block time
// (no tasks, every proof refused), and the validator that relayed the proof (the node's) loses
// exactly 5% of its stake and is jailed 6 hours through staking in the next block, while a miner
// whose wallet is a validator keeps its stake (the spec names the relaying validator); once the
// block time reaches the end of its jail, the miner gets tasks again and its proofs are accepted. An
// honest miner works through all of it and passes every check.
// Skipped where the inference addon or the svc-embed-small files are absent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, createWalletClient, http, parseEther, type Abi, type Hash, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import {
  chain as chainParams,
  compute as defaultCompute,
  staking as defaultStaking,
  system,
  type ComputeParams,
  type StakingParams,
} from '../src/params.js';
import { inputHash, outputHash, type TaskJson } from '../src/modules/compute/wire.js';
import { inferenceAddon, type LoadedModel } from '../src/native/inference.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { SMALL, missingSmallModel, requireOrSkip, testModelDir } from './support/inference.js';
import { rpc } from './support/json-rpc.js';
import { int8Bytes, refusalOf, ScriptedMiner, type ClaimedOutput, type MinerAnswer } from './support/compute-miner.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { svcDevnet } from './support/viem-chain.js';

const ETHER = 10n ** 18n;
/** docs/compute.md: a failed spot-check jails the miner, and the validator it came through, for 6 hours of block time. */
const JAIL_SECONDS = 21_600;
const UNAPPROVED = 'svc-embed-large@v1.0';
const STAKING_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;

/** Forced spot-checks: every proof is drawn (docs/compute.md, "Tests force every proof to be checked"). */
const COMPUTE: ComputeParams = { ...defaultCompute, spotCheckBps: 10_000 };
/**
 * The devnet's staking rules, except that downtime is never judged: the cheating miner's wallet is
 * a validator that signs no block of this solo chain, and a downtime slash would blur the exact 5%.
 */
const STAKING: StakingParams = { ...defaultStaking, signedBlocksWindow: 10_000 };
const EPOCH = STAKING.epochLengthBlocks;

/** Skipped where the addon or svc-embed-small is absent; in CI that fails instead. */
const skip = requireOrSkip(missingSmallModel());

interface ProofAnswer {
  proofId: Hex;
  miner: Hex;
  includedAt: Hex;
  spotCheck: 'undrawn' | 'not-selected' | 'pending' | 'passed' | 'failed';
  spotCheckResult: { cosine: number; maxAbsDiff: number; hashMatches: boolean; checkedAt: Hex } | null;
}
interface TaskAnswer {
  taskId: Hex;
  status: string;
  assignedTo: string | null;
  deadlineEpoch: number | null;
  result: { proofId: Hex; spotCheck: string } | null;
}
interface StatsAnswer {
  tasks: Record<string, number>;
  proofs: {
    submitted: number;
    accepted: number;
    rejectedAtSubmission: number;
    failedSpotCheck: number;
    dropped: number;
    rejectedByReason: Record<string, number>;
  };
  spotChecks: { selected: number; passed: number; failed: number; pending: number };
  miners: { registered: number; active: number; jailed: number };
}
interface ValidatorAnswer {
  status: string;
  totalStake: Hex;
  selfStake: Hex;
  jailedUntil: Hex;
}

let node: RunningNode;
let dataDir: string;
let scratch: string;
let client: PublicClient;
/** The block clock, milliseconds: each block is made one second after the last unless a test jumps it. */
let clockMs = chainParams.genesisTimestamp.devnet * 1000;
/** The node's validator: proofs name it. */
let validator: Hex;
/** The real svc-embed-small, and a checkpoint of the same shape with random weights (a "different model"). */
let realModel: LoadedModel;
let otherModel: LoadedModel;

/** honest: proves every task as soon as it has one; rogue: tries the submission tricks; the cheats' wallets: differ (a validator with stake) and perturb (no stake). */
let honest: ScriptedMiner;
let rogue: ScriptedMiner;
let differ: ScriptedMiner;
let perturb: ScriptedMiner;
const honestProofs: Hex[] = [];
let honestWorking = true;

const call = <T>(method: string, params: unknown[] = []): Promise<T> => rpc<T>(node.rpcUrl, method, params);
const proofOf = (id: Hex) => call<ProofAnswer>('svc_getInferenceProof', [id]);
const taskOf = (id: Hex) => call<TaskAnswer>('svc_getInferenceTask', [id]);
const stats = () => call<StatsAnswer>('svc_getInferenceStats');
const validatorOf = (a: Hex) => call<ValidatorAnswer>('svc_getValidator', [a]);

/** The honest miner's turn: it proves every task it holds with the real model. */
async function honestWork(): Promise<void> {
  const { tasks } = await honest.tasks();
  const outs = await honest.run(realModel, tasks);
  for (const [i, t] of tasks.entries()) {
    const r = await honest.submit(honest.proof(t, validator, outs[i]!));
    assert.equal(r.status, 'pending');
    honestProofs.push(r.proof_id);
  }
}

/**
 * Makes one block, one second after the last (or at block time `at`, seconds), after the honest
 * miner's turn; then waits for the spot-checks that block started, so their verdicts are queued for
 * the next block (as they would be with real block times).
 */
async function block(at?: number): Promise<{ number: number; timestamp: number }> {
  if (honestWorking) await honestWork();
  clockMs = at === undefined ? clockMs + 1000 : at * 1000;
  const { head } = await node.driver.produceNext();
  await node.services.compute.spotChecker!.idle();
  if (at !== undefined) assert.equal(head.timestamp, at);
  return { number: head.number, timestamp: head.timestamp };
}

/** Makes blocks until the head is an epoch's first block (the one that assigns the epoch's tasks). */
async function toEpochStart(): Promise<{ number: number; timestamp: number }> {
  for (;;) {
    const b = await block();
    if (b.number % EPOCH === 0) return b;
  }
}

/** A miner's open tasks that can still be proven in the next block (deadline not passed). */
async function provable(m: ScriptedMiner): Promise<TaskJson[]> {
  const answer = await m.tasks();
  const out: TaskJson[] = [];
  for (const t of answer.tasks) if (((await taskOf(t.task_id)).deadlineEpoch ?? -1) >= answer.epoch) out.push(t);
  return out;
}

/** What a refused submission must leave as it was: the task, the miner's view, the module's counters. */
async function observable(m: ScriptedMiner, taskId: Hex) {
  const s = await stats();
  const t = await taskOf(taskId);
  const owner = t.assignedTo ? await call<MinerAnswer>('svc_getInferenceMiner', [t.assignedTo]) : null;
  return {
    task: { status: t.status, assignedTo: t.assignedTo, result: t.result },
    listedForOwner: owner === null ? false : (await rpc<{ tasks: TaskJson[] }>(node.rpcUrl, 'svc_getInferenceTasks', [{ miner: t.assignedTo }])).tasks.some((x) => x.task_id === taskId),
    owner: owner && { proofsAccepted: owner.proofsAccepted, openTasks: owner.openTasks, status: owner.status },
    submitter: await m.info(),
    tasks: s.tasks,
    proofsAccepted: s.proofs.accepted,
    dropped: s.proofs.dropped,
    spotChecks: s.spotChecks,
    queued: node.app.compute.queueSizes().proofs,
  };
}

/** Submits `proof` expecting -32003 with `reason`, and checks that nothing observable changed. */
async function refusedWithoutEffect(m: ScriptedMiner, proof: unknown, taskId: Hex, reason: string): Promise<void> {
  const before = await observable(m, taskId);
  const s0 = await stats();
  const r = await refusalOf(m.submit(proof));
  assert.equal(r.code, -32003, r.message);
  assert.equal(r.reason, reason, r.message);
  assert.deepEqual(await observable(m, taskId), before);
  const s1 = await stats();
  assert.equal(s1.proofs.rejectedByReason[reason] ?? 0, (s0.proofs.rejectedByReason[reason] ?? 0) + 1);
  assert.equal(s1.proofs.rejectedAtSubmission, s0.proofs.rejectedAtSubmission + 1);
}

/** After a block: the task is still assigned to its miner, without a proof. */
async function stillOpen(taskId: Hex, owner: ScriptedMiner): Promise<void> {
  const t = await taskOf(taskId);
  assert.equal(t.status, 'assigned');
  assert.equal(t.assignedTo, owner.address);
  assert.equal(t.result, null);
  assert.ok((await owner.tasks()).tasks.some((x) => x.task_id === taskId));
}

const sha256File = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

/** Mines a transaction sent by `send` and checks that it succeeded. */
async function mined(send: Promise<Hash>): Promise<void> {
  const hash = await send;
  await block();
  const receipt = await client.getTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
}

describe('cheating inference miners', { skip }, () => {
  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-cheating-'));
    scratch = mkdtempSync(path.join(os.tmpdir(), 'svc-cheating-model-'));
    const addon = inferenceAddon();
    realModel = await addon.loadModel(SMALL, testModelDir(), 'cpu');
    // Another model of the same shape and id: random weights, the real tokenizer, pinned by the test.
    mkdirSync(path.join(scratch, SMALL), { recursive: true });
    copyFileSync(path.join(testModelDir(), SMALL, 'tokenizer.json'), path.join(scratch, SMALL, 'tokenizer.json'));
    const weights = addon.writeRandomCheckpoint(SMALL, scratch, 7);
    otherModel = await addon.loadModelWithPins(SMALL, scratch, 'cpu', weights, sha256File(path.join(scratch, SMALL, 'tokenizer.json')));

    // Blocks are made by the tests, one at a time (the slot timer would fire after ~25 days).
    const config = devnetConfig(dataDir, {
      blockTimeMs: chainParams.maxBlockTimeMs,
      computeMode: 'inference',
      modelDir: testModelDir(),
      models: [SMALL],
      inferenceBackend: 'cpu',
      // The node relays every proof unchecked, so that the cheats reach the chain (test/compute-precheck.test.ts covers the pre-check).
      proofPrecheckBps: 0,
    });
    node = await startNode(config, { computeParams: COMPUTE, stakingParams: STAKING, now: () => clockMs });
    client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
    honest = new ScriptedMiner('honest', node.rpcUrl, config.chainId);
    rogue = new ScriptedMiner('rogue', node.rpcUrl, config.chainId);
    differ = new ScriptedMiner('different-model', node.rpcUrl, config.chainId);
    perturb = new ScriptedMiner('perturbed-output', node.rpcUrl, config.chainId);

    // The different-model cheat's wallet becomes a validator: funded from a dev account, then
    // registerValidator from the wallet (its key derived from the miner's Ed25519 seed) with 10 tokens.
    const walletOf = (account: PrivateKeyAccount) => createWalletClient({ account, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
    await mined(walletOf(privateKeyToAccount(devPrivateKeys(2)[1]!)).sendTransaction({ to: differ.address, value: parseEther('20') }));
    await mined(
      walletOf(differ.account).writeContract({
        address: system.stakingAddress as Hex,
        abi: STAKING_ABI,
        functionName: 'registerValidator',
        args: ['cheater', 1_000, 2_000, 100],
        value: 10n * ETHER,
        gas: 300_000n,
      }),
    );
    assert.equal(BigInt((await validatorOf(differ.address)).totalStake), 10n * ETHER);

    for (const m of [honest, rogue, differ, perturb]) assert.equal((await m.register([SMALL])).status, 'pending');
    await block();
    for (const m of [honest, rogue, differ, perturb]) assert.equal((await m.tasks()).miner.status, 'active');
    validator = (await honest.tasks()).validator;
    await toEpochStart();
    for (const m of [honest, rogue, differ, perturb]) assert.equal((await provable(m)).length, COMPUTE.challengeTasksPerMiner);
    // The validator joined the active set at the end of epoch 0.
    assert.equal((await validatorOf(differ.address)).status, 'active');
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  describe('refused at submission: nothing changes', () => {
    it('refuses malformed fields with -32602', async () => {
      const [t] = await provable(rogue);
      const [out] = await rogue.run(realModel, [t!]);
      const good = rogue.proof(t!, validator, out!);
      const bad: [string, unknown][] = [
        ['not an object', 'proof'],
        ['an array', [good]],
        ['a short task id', { ...good, task_id: '0x1234' }],
        ['a task id without 0x', { ...good, task_id: good.task_id.slice(2) }],
        ['a 63-byte signature', { ...good, signature: good.signature.slice(0, -2) }],
        ['a non-hex output', { ...good, quantized: `0x${'zz'.repeat(384)}` }],
        ['an odd-length output', { ...good, quantized: `${good.quantized}0` }],
        ['a negative execution time', { ...good, execution_time_ms: -1 }],
        ['fractional flops', { ...good, flops: 1.5 }],
        ['flops as a string', { ...good, flops: String(good.flops) }],
        ['a numeric model id', { ...good, model_id: 42 }],
        ['no miner', { ...good, miner: undefined }],
        ['a short public key', { ...good, public_key: good.public_key.slice(0, 40) }],
      ];
      const before = await observable(rogue, t!.task_id);
      for (const [what, p] of bad) {
        const r = await refusalOf(rogue.submit(p));
        assert.equal(r.code, -32602, `${what}: ${r.message}`);
      }
      const none = await refusalOf(call('svc_submitInferenceProof', []));
      assert.equal(none.code, -32602);
      assert.deepEqual(await observable(rogue, t!.task_id), before);
      await block();
      await stillOpen(t!.task_id, rogue);
    });

    it('refuses a bad signature with BAD_SIGNATURE: signed by another key, or a field changed after signing', async () => {
      const [t] = await provable(rogue);
      const [out] = await rogue.run(realModel, [t!]);
      // Signed with a key that is not the registered one (the proof still names the registered key).
      const otherKey = rogue.proof(t!, validator, out!, { signWith: new Uint8Array(32).fill(7) });
      await refusedWithoutEffect(rogue, otherKey, t!.task_id, 'BAD_SIGNATURE');
      // Signed correctly, then the miner's figures changed: the signature no longer covers them.
      const good = rogue.proof(t!, validator, out!);
      await refusedWithoutEffect(rogue, { ...good, execution_time_ms: good.execution_time_ms + 1 }, t!.task_id, 'BAD_SIGNATURE');
      await refusedWithoutEffect(rogue, { ...good, flops: good.flops * 2 }, t!.task_id, 'BAD_SIGNATURE');
      // Another registered miner's valid signature (of its own proof of the same output).
      await refusedWithoutEffect(rogue, { ...good, signature: honest.proof(t!, validator, out!).signature }, t!.task_id, 'BAD_SIGNATURE');
      await block();
      await stillOpen(t!.task_id, rogue);
    });

    it('refuses an unapproved model with MODEL_NOT_APPROVED, in a proof and in a registration', async () => {
      const [t] = await provable(rogue);
      const [out] = await rogue.run(realModel, [t!]);
      // Self-consistent: the output hash commits to the unapproved id, and the signature covers it.
      const p = rogue.proof(t!, validator, out!, { modelId: UNAPPROVED });
      assert.equal(p.output_hash, `0x${outputHash(UNAPPROVED, inputHash(t!.input), int8Bytes(out!.quantized)).toString('hex')}`);
      await refusedWithoutEffect(rogue, p, t!.task_id, 'MODEL_NOT_APPROVED');
      const reg = await refusalOf(call('svc_registerMiner', [await rogue.registration([SMALL, UNAPPROVED], 'Hot', 1_000)]));
      assert.equal(reg.code, -32003);
      assert.equal(reg.reason, 'MODEL_NOT_APPROVED');
      await block();
      await stillOpen(t!.task_id, rogue);
      assert.deepEqual((await rogue.tasks()).miner.models, [SMALL]);
    });

    it("refuses a proof of another miner's task with NOT_ASSIGNED", async () => {
      const [t] = await provable(perturb);
      // The rogue runs the right model on the other miner's task and signs it with its own registered key.
      const [out] = await rogue.run(realModel, [t!]);
      await refusedWithoutEffect(rogue, rogue.proof(t!, validator, out!), t!.task_id, 'NOT_ASSIGNED');
      await block();
      await stillOpen(t!.task_id, perturb);
      assert.equal((await rogue.info()).proofsAccepted, '0');
    });

    it('refuses a replayed proof with REPLAYED, while it waits for a block and after its inclusion', async () => {
      const [t] = await provable(rogue);
      const [out] = await rogue.run(realModel, [t!]);
      const p = rogue.proof(t!, validator, out!);
      const s0 = await stats();
      const first = await rogue.submit(p);
      assert.equal(first.status, 'pending');
      assert.ok(!(await rogue.tasks()).tasks.some((x) => x.task_id === t!.task_id), 'a task with a queued proof is not offered again');
      let r = await refusalOf(rogue.submit(p));
      assert.deepEqual([r.code, r.reason], [-32003, 'REPLAYED']);
      assert.equal(node.app.compute.queueSizes().proofs, 1);
      const b = await block();
      const included = await proofOf(first.proof_id);
      assert.equal(Number(included.includedAt), b.number);
      assert.equal((await taskOf(t!.task_id)).status, 'completed');
      r = await refusalOf(rogue.submit(p));
      assert.deepEqual([r.code, r.reason], [-32003, 'REPLAYED']);
      // A fresh, validly signed proof of the same task is a replay too: the task has its proof.
      r = await refusalOf(rogue.submit(rogue.resign({ ...p, execution_time_ms: p.execution_time_ms + 5 })));
      assert.deepEqual([r.code, r.reason], [-32003, 'REPLAYED']);
      const s1 = await stats();
      assert.equal((s1.proofs.rejectedByReason.REPLAYED ?? 0) - (s0.proofs.rejectedByReason.REPLAYED ?? 0), 3);
      const info = await rogue.info();
      assert.equal(info.proofsAccepted, '1');
      assert.equal((await taskOf(t!.task_id)).result?.proofId, first.proof_id);
    });
  });

  describe('caught by the forced spot-check: the miner jailed 6 hours, the validator that relayed it slashed 5% and jailed 6 hours', () => {
    /** Jail ends (block time), and the epochs and verdict blocks of the cheating proofs, for the release test. */
    const jail = { differ: 0, perturb: 0 };
    const proofEpoch = { differ: 0, perturb: 0 };
    const verdictBlock = { differ: 0, perturb: 0 };
    /** An assigned task of each cheat kept for a later, honest proof. */
    const kept: Partial<Record<'differ' | 'perturb', TaskJson>> = {};

    /**
     * Submits `cheat` for `task`; it must pass every submission check. Then: the block that includes
     * it, the block whose hash draws it (the check runs), the block with the verdict, and the one
     * after. Returns those blocks and the proof id.
     */
    async function caught(m: ScriptedMiner, task: TaskJson, cheat: ClaimedOutput) {
      const sub = await m.submit(m.proof(task, validator, cheat));
      assert.equal(sub.status, 'pending', 'the cheat passes every check made at submission');
      const included = await block();
      let p = await proofOf(sub.proof_id);
      assert.equal(Number(p.includedAt), included.number);
      assert.equal(p.spotCheck, 'undrawn');
      assert.equal((await m.info()).proofsAccepted, '1');
      const drawn = await block();
      assert.equal((await proofOf(sub.proof_id)).spotCheck, 'pending');
      assert.equal((await m.tasks()).miner.status, 'active', 'not jailed before the verdict');
      const balanceBeforeVerdict = await client.getBalance({ address: m.address });
      const verdict = await block();
      p = await proofOf(sub.proof_id);
      assert.equal(p.spotCheck, 'failed');
      assert.equal(Number(p.spotCheckResult!.checkedAt), verdict.number);
      assert.equal(p.spotCheckResult!.hashMatches, true, 'the output hash commits to the vector: only the vector is wrong');
      return { proofId: sub.proof_id, included, drawn, verdict, balanceBeforeVerdict, result: p.spotCheckResult! };
    }

    /** After the verdict block: jailed until its time + 6 h, no tasks, open tasks taken back, every proof refused. */
    async function jailed(m: ScriptedMiner, verdictTime: number, keptTask: TaskJson): Promise<number> {
      const info = await m.info();
      assert.equal(info.status, 'jailed');
      assert.equal(info.jailedUntil, verdictTime + JAIL_SECONDS);
      assert.equal(info.spotChecksFailed, 1);
      assert.equal(info.openTasks, 0);
      const t = await m.tasks();
      assert.equal(t.miner.status, 'jailed');
      assert.equal(t.miner.jailedUntil, verdictTime + JAIL_SECONDS);
      assert.deepEqual(t.tasks, []);
      assert.equal((await taskOf(keptTask.task_id)).status, 'expired', 'its other challenge tasks are taken back');
      // An honest proof of a task it held is refused now.
      const [out] = await m.run(realModel, [keptTask]);
      const r = await refusalOf(m.submit(m.proof(keptTask, validator, out!)));
      assert.deepEqual([r.code, r.reason], [-32003, 'MINER_JAILED'], r.message);
      return info.jailedUntil;
    }

    it('a different model (random weights of the same shape, self-consistent output hash): miner jailed, the relaying validator slashed 5% and jailed, the miner\'s own stake untouched', async (t) => {
      const [task, keep] = await provable(differ);
      kept.differ = keep!;
      const [cheat] = await differ.run(otherModel, [task!]);
      const [real] = await differ.run(realModel, [task!]);
      assert.equal(cheat!.modelId, SMALL);
      assert.ok(Buffer.from(cheat!.outputHash).equals(outputHash(SMALL, inputHash(task!.input), int8Bytes(cheat!.quantized))), 'self-consistent output hash');
      const local = inferenceAddon().verifyOutput(
        { modelId: SMALL, inputHash: Buffer.from(cheat!.inputHash), quantized: cheat!.quantized, outputHash: Buffer.from(cheat!.outputHash) },
        { modelId: SMALL, inputHash: Buffer.from(real!.inputHash), quantized: real!.quantized, outputHash: Buffer.from(real!.outputHash) },
      );
      assert.equal(local.accepted, false);

      const stake0 = BigInt((await validatorOf(validator)).totalStake);
      assert.equal(stake0, system.devGenesisValidator.selfStake);
      assert.equal(BigInt((await validatorOf(differ.address)).totalStake), 10n * ETHER);
      const c = await caught(differ, task!, cheat!);
      assert.ok(c.result.cosine < 0.999, `cosine ${c.result.cosine}`);
      jail.differ = await jailed(differ, c.verdict.timestamp, keep!);
      proofEpoch.differ = Math.floor(c.included.number / EPOCH);
      verdictBlock.differ = c.verdict.number;

      // The staking penalty is ordered by the verdict block and applied by the next one, to the validator the proof came through.
      let v = await validatorOf(validator);
      assert.equal(BigInt(v.totalStake), stake0, 'not slashed in the verdict block');
      assert.notEqual(v.status, 'jailed');
      const penalty = await block();
      v = await validatorOf(validator);
      const stake1 = BigInt(v.totalStake);
      assert.equal(stake0 - stake1, (stake0 * 500n) / 10_000n, 'exactly 5% of the relaying validator\'s stake is burned');
      assert.equal(stake1, parseEther('950'));
      assert.equal(v.status, 'jailed');
      assert.equal(Number(v.jailedUntil), penalty.timestamp + JAIL_SECONDS);
      // The miner's wallet is a validator too, but the spec's penalty is the relaying validator's: its stake and status stay.
      const own = await validatorOf(differ.address);
      assert.equal(BigInt(own.totalStake), 10n * ETHER, 'the cheating miner\'s own validator is not slashed');
      assert.equal(own.status, 'active');
      // Still refused after the penalty block.
      assert.equal((await differ.tasks()).miner.status, 'jailed');
      t.diagnostic(
        `different model: proof ${c.proofId} included at block ${c.included.number}, verdict at block ${c.verdict.number} ` +
          `(t=${c.verdict.timestamp}): cosine ${c.result.cosine}, max |dq| ${c.result.maxAbsDiff}; miner jailed until ${jail.differ}; ` +
          `relaying validator stake ${stake0} -> ${stake1} wei at block ${penalty.number}, jailed until ${Number(v.jailedUntil)}`,
      );
    });

    it('a perturbed output (honest vector, 6 components moved 3 steps, hash recomputed): miner without stake jailed, the relaying validator slashed 5% again', async (t) => {
      const [task, keep] = await provable(perturb);
      kept.perturb = keep!;
      const [real] = await perturb.run(realModel, [task!]);
      const q = Int8Array.from(real!.quantized);
      for (const i of [0, 50, 100, 150, 200, 383]) q[i] = q[i]! >= 0 ? q[i]! - 3 : q[i]! + 3;
      const cheat: ClaimedOutput = { ...real!, quantized: q, outputHash: outputHash(SMALL, inputHash(task!.input), int8Bytes(q)) };
      const local = inferenceAddon().verifyOutput(
        { modelId: SMALL, inputHash: Buffer.from(cheat.inputHash), quantized: cheat.quantized, outputHash: Buffer.from(cheat.outputHash) },
        { modelId: SMALL, inputHash: Buffer.from(real!.inputHash), quantized: real!.quantized, outputHash: Buffer.from(real!.outputHash) },
      );
      assert.deepEqual([local.accepted, local.hashMatches, local.maxAbsDiff], [false, true, 3]);

      await assert.rejects(validatorOf(perturb.address), { code: -32001 }, 'the wallet is not a validator');
      const stake0 = BigInt((await validatorOf(validator)).totalStake);
      const c = await caught(perturb, task!, cheat);
      assert.ok(c.result.maxAbsDiff >= 3, `max |dq| ${c.result.maxAbsDiff}`);
      jail.perturb = await jailed(perturb, c.verdict.timestamp, keep!);
      proofEpoch.perturb = Math.floor(c.included.number / EPOCH);
      verdictBlock.perturb = c.verdict.number;
      assert.equal(BigInt((await validatorOf(validator)).totalStake), stake0, 'not slashed in the verdict block');
      const penalty = await block();
      // The relaying validator (already jailed) loses 5% of what it has left; its jail runs 6 hours from this block.
      const v = await validatorOf(validator);
      assert.equal(stake0 - BigInt(v.totalStake), (stake0 * 500n) / 10_000n);
      assert.equal(BigInt(v.totalStake), parseEther('902.5'));
      assert.equal(v.status, 'jailed');
      assert.equal(Number(v.jailedUntil), penalty.timestamp + JAIL_SECONDS);
      // The miner is only jailed: not a validator, and its balance is untouched by the verdict and the block after it.
      await assert.rejects(validatorOf(perturb.address), { code: -32001 });
      assert.equal(await client.getBalance({ address: perturb.address }), c.balanceBeforeVerdict);
      assert.equal((await perturb.tasks()).miner.status, 'jailed');
      t.diagnostic(
        `perturbed output: local verdict cosine ${local.cosine.toFixed(6)}, max |dq| ${local.maxAbsDiff}; spot-check at block ${c.verdict.number}: ` +
          `cosine ${c.result.cosine}, max |dq| ${c.result.maxAbsDiff}; miner jailed until ${jail.perturb}`,
      );
    });

    it('refuses the jailed miners until their jail ends in block time, then gives them tasks at the next epoch start and accepts their proofs', async (t) => {
      assert.ok(jail.differ > 0 && jail.perturb > jail.differ, 'both cheats were jailed, the different model first');
      // A jailed miner is given no task at an epoch start (the module holds none for it, listed or not).
      let head = node.services.chain.head().number;
      if (Math.floor(head / EPOCH) === Math.floor(verdictBlock.differ / EPOCH)) head = (await toEpochStart()).number;
      const epochStart = Math.floor(head / EPOCH) * EPOCH;
      assert.ok(epochStart > verdictBlock.differ);
      assert.equal((await differ.info()).openTasks, 0, `no task for the jailed miner at the epoch start at block ${epochStart}`);
      assert.equal((await honest.tasks()).miner.status, 'active');

      // One second before the end of its jail (block time), the first cheat is still refused.
      await block(jail.differ - 1);
      assert.equal((await differ.tasks()).miner.status, 'jailed');
      const [out] = await differ.run(realModel, [kept.differ!]);
      let r = await refusalOf(differ.submit(differ.proof(kept.differ!, validator, out!)));
      assert.deepEqual([r.code, r.reason], [-32003, 'MINER_JAILED']);
      // At its end it is free; the other, jailed later, is not yet.
      await block(jail.differ);
      assert.equal((await differ.tasks()).miner.status, 'active');
      assert.equal((await differ.info()).status, 'active');
      assert.equal((await perturb.tasks()).miner.status, 'jailed');
      // The task it held was taken back: no longer MINER_JAILED, but not its task any more.
      r = await refusalOf(differ.submit(differ.proof(kept.differ!, validator, out!)));
      assert.deepEqual([r.code, r.reason], [-32003, 'NOT_ASSIGNED']);
      await block(jail.perturb);
      assert.equal((await perturb.tasks()).miner.status, 'active');

      // No task until the next epoch start assigns them. (Epochs count blocks: the 6 hours passed in
      // a few blocks, so both are still within minerActiveEpochs of their last accepted proof.)
      for (const m of [differ, perturb]) assert.deepEqual((await m.tasks()).tasks, []);
      const next = await toEpochStart();
      assert.ok(
        next.number / EPOCH - Math.min(proofEpoch.differ, proofEpoch.perturb) < COMPUTE.minerActiveEpochs,
        'this test needs the release within minerActiveEpochs of the last accepted proofs',
      );
      const submitted: Hex[] = [];
      for (const m of [differ, perturb]) {
        const tasks = await provable(m);
        assert.equal(tasks.length, COMPUTE.challengeTasksPerMiner);
        const outs = await m.run(realModel, tasks);
        for (const [i, task] of tasks.entries()) {
          const res = await m.submit(m.proof(task, validator, outs[i]!));
          assert.equal(res.status, 'pending');
          submitted.push(res.proof_id);
        }
      }
      const included = await block();
      for (const id of submitted) assert.equal(Number((await proofOf(id)).includedAt), included.number);
      await block();
      await block();
      for (const id of submitted) assert.equal((await proofOf(id)).spotCheck, 'passed');
      for (const m of [differ, perturb]) {
        const info = await m.info();
        assert.equal(info.status, 'active');
        assert.equal(info.proofsAccepted, String(1 + COMPUTE.challengeTasksPerMiner));
        assert.equal(info.spotChecksPassed, COMPUTE.challengeTasksPerMiner);
        assert.equal(info.spotChecksFailed, 1);
      }
      // The relaying validator's staking jail is its own: it stays jailed until it sends unjail; the miner's validator was never jailed.
      assert.equal((await validatorOf(validator)).status, 'jailed');
      assert.equal((await validatorOf(differ.address)).status, 'active');
      t.diagnostic(
        `no task for the jailed miner at the epoch start at block ${epochStart}; released at t=${jail.differ} and t=${jail.perturb}; ` +
          `${submitted.length} proofs accepted at block ${included.number} and passed their spot-checks`,
      );
    });
  });

  describe('the honest miner', () => {
    it('had every proof accepted and passed every spot-check throughout', async (t) => {
      honestWorking = false;
      await block();
      await block();
      const s = await stats();
      assert.equal(s.spotChecks.pending, 0);
      assert.ok(honestProofs.length >= 3 * COMPUTE.challengeTasksPerMiner, `${honestProofs.length} proofs`);
      for (const id of honestProofs) assert.equal((await proofOf(id)).spotCheck, 'passed', id);
      const info = await honest.info();
      assert.equal(info.status, 'active');
      assert.equal(info.jailedUntil, 0);
      assert.equal(info.proofsAccepted, String(honestProofs.length));
      assert.equal(info.spotChecksPassed, honestProofs.length);
      assert.equal(info.spotChecksFailed, 0);
      // The two cheats are the only failures; every proof was checked.
      assert.equal(s.spotChecks.failed, 2);
      assert.equal(s.proofs.failedSpotCheck, 2);
      assert.equal(s.spotChecks.selected, s.proofs.accepted);
      assert.equal(s.proofs.dropped, 0);
      t.diagnostic(
        `honest proofs ${honestProofs.length}, all passed; chain: accepted ${s.proofs.accepted}, checks passed ${s.spotChecks.passed}, failed ${s.spotChecks.failed}; ` +
          `refused at submission ${s.proofs.rejectedAtSubmission} ${JSON.stringify(s.proofs.rejectedByReason)}`,
      );
    });
  });
});
