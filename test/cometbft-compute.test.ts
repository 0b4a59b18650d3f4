// Inference mining across a CometBFT network: four validators in inference mode (svc-embed-small on
// the CPU, every proof spot-checked), in-process, each running its own CometBFT. An honest miner and
// a cheating one (6 components of an honest vector moved 3 steps, hash recomputed) register and
// submit through node 0 only; the network's mempool carries their registrations and proofs to every
// validator, so blocks proposed by the others carry them, and every node has the same proofs,
// spot-check verdicts, miner records, rewards and the relaying validator's penalty.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Hex } from 'viem';
import { startNode, type RunningNode } from '../src/node.js';
import { compute as defaultCompute, staking as defaultStaking, type ComputeParams, type StakingParams } from '../src/params.js';
import { readManifest } from '../src/consensus/cometbft/testnet.js';
import { inputHash, outputHash, type TaskJson } from '../src/modules/compute/wire.js';
import { inferenceAddon, type LoadedModel } from '../src/native/inference.js';
import { SVC_NODE } from './support/cli-process.js';
import { SMALL, missingSmallModel, requireOrSkip, testModelDir } from './support/inference.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { int8Bytes, ScriptedMiner, type ClaimedOutput } from './support/compute-miner.js';
import { devnetConfig } from './support/node-config.js';
import { basePortFor } from './support/testnet.js';

/** Every proof is spot-checked, so the cheat is caught at its first proof. */
const COMPUTE: ComputeParams = { ...defaultCompute, spotCheckBps: 10_000 };
const STAKING: StakingParams = defaultStaking;

/** Skipped where the addon or svc-embed-small is absent; in CI that fails instead. */
const skip = requireOrSkip(missingSmallModel());

interface StatsAnswer {
  blockNumber: number;
  tasks: unknown;
  proofs: { accepted: number; failedSpotCheck: number };
  spotChecks: unknown;
  miners: unknown;
}

interface ProofAnswer {
  proofId: Hex;
  includedAt: Hex;
  spotCheck: string;
}

let dir: string;
let nodes: RunningNode[] = [];
let model: LoadedModel;
let honest: ScriptedMiner;
let cheat: ScriptedMiner;

const urls = (): string[] => nodes.map((n) => n.rpcUrl);

/** Waits until every node gives the same answer to `method(params)`, and `check` holds for it. */
async function sameOnEvery<T>(what: string, method: string, params: unknown[], check: (v: T) => boolean, timeoutMs = 120_000): Promise<T> {
  return waitFor(`${what} on every node`, async () => {
    const answers = await Promise.all(urls().map((u) => rpc<T>(u, method, params).catch(() => undefined)));
    if (answers.some((a) => a === undefined)) return undefined;
    return answers.every((a) => isDeepStrictEqual(a, answers[0])) && check(answers[0]!) ? answers[0] : undefined;
  }, timeoutMs, 100);
}

/** The miner's tasks it has not proven yet, once an epoch's first block has assigned some. */
async function tasksOf(m: ScriptedMiner, proven: ReadonlySet<string> = new Set()): Promise<{ validator: Hex; tasks: TaskJson[] }> {
  return waitFor(`${m.name}'s tasks`, async () => {
    const t = await m.tasks();
    const open = t.tasks.filter((x) => !proven.has(x.task_id));
    return open.length > 0 ? { validator: t.validator, tasks: open } : undefined;
  }, 60_000, 100);
}

describe('inference mining on a network of four validators', { skip }, () => {
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-net-compute-'));
    const init = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', '4', '--base-port', String(basePortFor(4)), '--block-time-ms', '200'], { encoding: 'utf8' });
    assert.equal(init.status, 0, init.stderr);
    const manifest = readManifest(dir);
    nodes = await Promise.all(
      manifest.nodes.map((n) =>
        startNode(
          devnetConfig(path.join(dir, n.dataDir), {
            consensus: 'cometbft',
            cometbftHome: path.join(dir, n.cometbftHome),
            computeMode: 'inference',
            modelDir: testModelDir(),
            models: [SMALL],
            inferenceBackend: 'cpu',
            // Every node relays what it is given unchecked, so that the cheat reaches the chain.
            proofPrecheckBps: 0,
          }),
          { computeParams: COMPUTE, stakingParams: STAKING },
        ),
      ),
    );
    model = await inferenceAddon().loadModel(SMALL, testModelDir(), 'cpu');
    honest = new ScriptedMiner('net-honest', urls()[0]!, 9000);
    cheat = new ScriptedMiner('net-cheat', urls()[0]!, 9000);
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('carries proofs submitted to one node into blocks proposed by the others, with identical verdicts, rewards and penalties everywhere', async () => {
    for (const m of [honest, cheat]) assert.equal((await m.register([SMALL])).status, 'pending');
    for (const m of [honest, cheat]) await sameOnEvery(`${m.name} registered`, 'svc_getInferenceMiner', [m.address], (v: { status: string }) => v.status === 'active');

    // The cheat's first proof: an honest vector with 6 components moved 3 steps, its hash recomputed.
    const c = await tasksOf(cheat);
    const [real] = await cheat.run(model, [c.tasks[0]!]);
    const q = Int8Array.from(real!.quantized);
    for (const i of [0, 50, 100, 150, 200, 383]) q[i] = q[i]! >= 0 ? q[i]! - 3 : q[i]! + 3;
    const bad: ClaimedOutput = { ...real!, quantized: q, outputHash: outputHash(SMALL, inputHash(c.tasks[0]!.input), int8Bytes(q)) };
    const relaying = c.validator;
    const stakeBefore = BigInt((await rpc<{ totalStake: Hex }>(urls()[0]!, 'svc_getValidator', [relaying])).totalStake);
    const cheatProof = (await cheat.submit(cheat.proof(c.tasks[0]!, relaying, bad))).proof_id;

    // The honest miner proves its tasks one at a time, epoch after epoch, until a block proposed by
    // another validator than node 0's has carried one of them (each block's proposer is CometBFT's choice).
    const honestProofs: Hex[] = [];
    const proposers = new Set<string>();
    const proven = new Set<string>();
    for (let round = 0; round < 12 && ![...proposers].some((p) => p !== relaying.toLowerCase()); round++) {
      const h = await tasksOf(honest, proven);
      for (const task of h.tasks) {
        proven.add(task.task_id);
        const [out] = await honest.run(model, [task]);
        const id = (await honest.submit(honest.proof(task, h.validator, out!))).proof_id;
        honestProofs.push(id);
        const p = await sameOnEvery<ProofAnswer>(`proof ${id} included`, 'svc_getInferenceProof', [id], (v) => v.includedAt !== null);
        const block = await rpc<{ miner: string }>(urls()[0]!, 'eth_getBlockByNumber', [p.includedAt, false]);
        proposers.add(block.miner.toLowerCase());
      }
    }
    assert.ok([...proposers].some((p) => p !== relaying.toLowerCase()), `proofs sent to node 0 were carried by ${[...proposers].join(', ')}`);

    // Verdicts: every honest proof passed, the cheat's failed, the same on every node.
    for (const id of honestProofs) await sameOnEvery<ProofAnswer>(`proof ${id} passed`, 'svc_getInferenceProof', [id], (v) => v.spotCheck === 'passed');
    await sameOnEvery<ProofAnswer>('the cheat\'s proof failed', 'svc_getInferenceProof', [cheatProof], (v) => v.spotCheck === 'failed');
    // The cheat jailed, the honest miner paid, with the same records everywhere.
    await sameOnEvery('the cheat jailed', 'svc_getInferenceMiner', [cheat.address], (v: { status: string; spotChecksFailed: number }) => v.status === 'jailed' && v.spotChecksFailed === 1);
    const paid = await sameOnEvery<{ spotChecksPassed: number; proofsAccepted: string }>('the honest miner paid', 'svc_getInferenceMiner', [honest.address], (v) => v.spotChecksPassed === honestProofs.length);
    assert.ok(BigInt(paid.proofsAccepted) >= BigInt(honestProofs.length));
    const balances = await Promise.all(urls().map((u) => rpc<Hex>(u, 'eth_getBalance', [honest.address, 'latest'])));
    assert.ok(balances.every((b) => BigInt(b) > 0n), 'rewards reach the honest miner\'s wallet');
    // The validator that relayed the cheat lost 5% of its stake, on every node.
    const v = await sameOnEvery('the relaying validator slashed', 'svc_getValidator', [relaying], (x: { totalStake: Hex }) => BigInt(x.totalStake) < stakeBefore);
    assert.equal(stakeBefore - BigInt((v as { totalStake: Hex }).totalStake), (stakeBefore * 500n) / 10_000n);
    // The module's statistics agree (what each node's own intake received is its own).
    await waitFor('the same inference statistics on every node', async () => {
      const answers = await Promise.all(urls().map((u) => rpc<StatsAnswer>(u, 'svc_getInferenceStats', [])));
      const chainPart = answers.map((a) => ({ blockNumber: a.blockNumber, tasks: a.tasks, accepted: a.proofs.accepted, failed: a.proofs.failedSpotCheck, spotChecks: a.spotChecks, miners: a.miners }));
      return chainPart.every((x) => isDeepStrictEqual(x, chainPart[0])) ? true : undefined;
    }, 60_000, 50);
  });
});
