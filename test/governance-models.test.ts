// Models approved and retired by governance, picked up without a restart: an in-process node in
// inference mode whose genesis approves only svc-embed-small, and the real svc-miner, started
// before any proposal. A random-weights checkpoint of svc-embed-medium@v1.0 (the addon's real
// writer and loader, svc-embed-small's tokenizer) lies in the node's and the miner's model folders;
// its digests and sizes go into a model-approval proposal sent from a wallet with viem, the genesis
// validator votes yes, and it passes. Then, with neither restarted: svc_getApprovedModels shows the
// model pinned by governance, the node loads it (by the pins) and serves it, the miner registers
// again with it and proves its tasks (a public task paid for it, and challenge tasks), every proof
// spot-checked by the node's own run of the model and passed, its FLOPs the node's. A retirement
// proposal passes next: the model is `retiring` through the grace period, then `retired`; its
// proofs are refused (MODEL_NOT_APPROVED), no block accepts one from its refusal block on, the node
// drops it and the miner registers again without it and goes on proving svc-embed-small.
// Skipped where the inference addon or the svc-embed-small files are absent; in CI that fails.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  http,
  parseEther,
  parseEventLogs,
  toHex,
  type Abi,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import {
  compute as defaultCompute,
  governance as defaultGovernance,
  staking as defaultStaking,
  system,
  type ComputeParams,
  type GovernanceParams,
  type StakingParams,
} from '../src/params.js';
import type { ApprovedModelView } from '../src/modules/compute/queries.js';
import { hexOf, inputHash, outputHash } from '../src/modules/compute/wire.js';
import { inferenceAddon } from '../src/native/inference.js';
import { capturingLogger } from './support/captured-log.js';
import { SVC_MINER, spawnCli, type CliProcess } from './support/cli-process.js';
import { ScriptedMiner, refusalOf, type TasksAnswer } from './support/compute-miner.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { SMALL, missingSmallModel, requireOrSkip, testModelDir } from './support/inference.js';
import { rpc as rpcAt, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { svcDevnet } from './support/viem-chain.js';

const MEDIUM = 'svc-embed-medium@v1.0';
const abi = (name: string) => JSON.parse(readFileSync(path.join(repoRoot(), 'abi', `${name}.json`), 'utf8')) as Abi;
const GOV_ABI = abi('governance');
const COMPUTE_ABI = abi('compute');
const GOV = system.governanceAddress as Hex;
const COMPUTE = system.computeAddress as Hex;

/** Genesis approves svc-embed-small only; every proof is spot-checked, so each medium proof is re-run by the node. */
const COMPUTE_PARAMS: ComputeParams = { ...defaultCompute, approvedModels: defaultCompute.approvedModels.filter((m) => m.id === SMALL), spotCheckBps: 10_000 };
const STAKING: StakingParams = { ...defaultStaking, epochLengthBlocks: 10 };
const GRACE_BLOCKS = 8;
const GOVERNANCE: GovernanceParams = { ...defaultGovernance, votingPeriodSeconds: 4, depositPeriodSeconds: 8, modelRetirementGraceBlocks: GRACE_BLOCKS };

const keys = devPrivateKeys(3);
/** Dev account 0: the genesis validator, all the bonded stake: its vote decides. */
const validator = privateKeyToAccount(keys[0]!);
/** Submits the proposals (with the whole minimum deposit). */
const proposer = privateKeyToAccount(keys[1]!);
/** Pays a public task for the approved model. */
const alice = privateKeyToAccount(keys[2]!);

const PUBLIC_INPUT = 'A model approved by governance computes this public task without a restart.';

interface StatsModels {
  models: { id: string; servedByThisNode: boolean; tasksAssigned: number; tasksCompleted: number }[];
  proofs: { accepted: number; rejectedByReason: Record<string, number> };
}

interface ProofView {
  proofId: Hex;
  taskId: Hex;
  taskKind: string;
  miner: string;
  modelId: string;
  flops: string;
  includedAt: Hex;
  spotCheck: string;
}

interface TaskView {
  taskId: Hex;
  modelId: string;
  status: string;
  result: { proofId: Hex; miner: string; spotCheck: string } | null;
}

let node: RunningNode;
let dataDir: string;
let nodeModels: string;
let minerModels: string;
let client: PublicClient;
let captured: ReturnType<typeof capturingLogger>;
let miner: CliProcess | undefined;
let wallet: { address: Hex; privateKey: Hex; publicKey: Hex };
/** The random checkpoint's pins. */
let pins: { weights: { sha256: string; size: number }; tokenizer: { sha256: string; size: number } };
let approvalId: bigint;
let approvedAt: number;
let refusedFrom: number;
const started = Date.now();
const figures: Record<string, unknown> = {};

const rpc = <T>(method: string, params: unknown[] = []): Promise<T> => rpcAt<T>(node.rpcUrl, method, params);
const approvedModels = () => rpc<ApprovedModelView[]>('svc_getApprovedModels');
const head = async () => Number(await rpc<Hex>('eth_blockNumber'));
const minerInfo = () => rpc<{ registered: boolean; status: string; models?: string[]; proofsAccepted: string }>('svc_getInferenceMiner', [wallet.address]);
const same = (a: string | null | undefined, b: string) => a?.toLowerCase() === b.toLowerCase();
const sha256File = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const minerOutput = () => (miner ? `--- svc-miner stderr ---\n${miner.stderr().slice(-6000)}` : '(no miner)');

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  try {
    return await waitFor(what, probe, timeoutMs, 100);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${minerOutput()}`);
  }
}

async function send(from: PrivateKeyAccount, to: Hex, contractAbi: Abi, functionName: string, args: unknown[], value = 0n): Promise<TransactionReceipt> {
  const w = createWalletClient({ account: from, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 100 });
  const hash: Hash = await w.writeContract({ address: to, abi: contractAbi, functionName, args, value } as never);
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
  assert.equal(receipt.status, 'success', `${functionName} mined`);
  return receipt;
}

/** Submits a proposal with the whole minimum deposit, votes yes from the genesis validator and waits for it to pass. */
async function passProposal(functionName: string, args: unknown[]): Promise<{ id: bigint; passedAt: number }> {
  const r = await send(proposer, GOV, GOV_ABI, functionName, args, parseEther('10'));
  const [e] = parseEventLogs({ abi: GOV_ABI, logs: r.logs, eventName: 'ProposalSubmitted' });
  assert.ok(e, 'ProposalSubmitted logged');
  const id = (e.args as { proposalId: bigint }).proposalId;
  await send(validator, GOV, GOV_ABI, 'vote', [id, 1]);
  const status = await until(`proposal ${id} decided`, async () => {
    const [, s] = (await client.readContract({ address: GOV, abi: GOV_ABI, functionName: 'getProposal', args: [id] })) as [string, string];
    return s === 'deposit-period' || s === 'voting-period' ? undefined : s;
  }, 40_000);
  assert.equal(status, 'passed');
  return { id, passedAt: await head() };
}

/** A well-formed proof of a made-up task for `modelId` through this node's validator (refused before the task is looked up). */
function madeUpProof(scripted: ScriptedMiner, modelId: string) {
  const input = 'a task that does not exist';
  const quantized = new Int8Array(384);
  const ih = inputHash(input);
  return scripted.proof(
    { task_id: hexOf(Buffer.alloc(32, 7)), kind: 'challenge', model_id: modelId, input, input_hash: hexOf(ih) },
    validator.address,
    { modelId, inputHash: ih, quantized, outputHash: outputHash(modelId, ih, new Uint8Array(quantized.buffer)), executionTimeMs: 1, flops: 1 },
  );
}

/** The proofs blocks `from`..`to` accepted, and the spot-checks they decided. */
async function proofsIn(from: number, to: number): Promise<{ accepted: ProofView[]; decided: ProofView[] }> {
  const accepted: ProofView[] = [];
  const decided: ProofView[] = [];
  for (let n = from; n <= to; n++) {
    const b = await rpc<{ accepted: ProofView[]; spotChecksDecided: ProofView[] }>('svc_getInferenceProofs', [toHex(n)]);
    accepted.push(...b.accepted);
    decided.push(...b.spotChecksDecided);
  }
  return { accepted, decided };
}

/** A model folder: svc-embed-small's files linked from the test cache, svc-embed-medium's random checkpoint and the small tokenizer. */
function modelFolder(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const id of [SMALL, MEDIUM]) mkdirSync(path.join(dir, id));
  for (const f of ['model.safetensors', 'tokenizer.json']) symlinkSync(path.join(testModelDir(), SMALL, f), path.join(dir, SMALL, f));
  copyFileSync(path.join(testModelDir(), SMALL, 'tokenizer.json'), path.join(dir, MEDIUM, 'tokenizer.json'));
  return dir;
}

const skip = requireOrSkip(missingSmallModel());

describe('models approved and retired by governance, without restarting the node or the miner', { skip, timeout: 400_000 }, () => {
  before(async () => {
    nodeModels = modelFolder('svc-gov-models-node-');
    minerModels = modelFolder('svc-gov-models-miner-');
    // Random weights of svc-embed-medium's real shape, written by the addon (the real loader reads them).
    const weights = inferenceAddon().writeRandomCheckpoint(MEDIUM, nodeModels, 20_251_126);
    copyFileSync(path.join(nodeModels, MEDIUM, 'model.safetensors'), path.join(minerModels, MEDIUM, 'model.safetensors'));
    const file = (name: string) => path.join(nodeModels, MEDIUM, name);
    pins = {
      weights: { sha256: weights, size: statSync(file('model.safetensors')).size },
      tokenizer: { sha256: sha256File(file('tokenizer.json')), size: statSync(file('tokenizer.json')).size },
    };
    assert.equal(sha256File(file('model.safetensors')), weights, 'writeRandomCheckpoint returns the file\'s SHA-256');

    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-gov-models-'));
    captured = capturingLogger('info');
    // No --models: the node serves every approved model it can run, and follows the chain's list.
    node = await startNode(devnetConfig(dataDir, { computeMode: 'inference', modelDir: nodeModels, inferenceBackend: 'cpu', blockTimeMs: 200 }), {
      computeParams: COMPUTE_PARAMS,
      stakingParams: STAKING,
      governanceParams: GOVERNANCE,
      log: captured.log,
    });
    client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 100 });
    const gen = spawnCli(SVC_MINER, ['--generate-wallet']);
    assert.equal(await gen.exit, 0, gen.stderr());
    wallet = JSON.parse(gen.stdout()) as typeof wallet;
  });

  after(async () => {
    if (miner && miner.child.exitCode === null && miner.child.signalCode === null) miner.child.kill('SIGKILL');
    await node?.stop();
    for (const d of [dataDir, nodeModels, minerModels]) if (d) rmSync(d, { recursive: true, force: true });
    figures.wallSeconds = Math.round((Date.now() - started) / 100) / 10;
    process.stdout.write(`governance-models figures: ${JSON.stringify(figures)}\n`);
  });

  it('at genesis: svc_getApprovedModels lists svc-embed-small, pinned by the registry; the node serves it alone', async () => {
    assert.deepEqual(await approvedModels(), [
      { id: SMALL, tier: 'Cold', dims: 384, status: 'approved', refusedFromBlock: null, approvedAtBlock: 0, approvedBy: null, files: null, pinnedBy: 'registry' },
    ]);
    const s = await rpc<StatsModels>('svc_getInferenceStats');
    assert.deepEqual(s.models.map((m) => [m.id, m.servedByThisNode]), [[SMALL, true]]);
    assert.deepEqual([...node.services.compute.models!.loaded.keys()], [SMALL]);
  });

  it('the miner, started before any proposal, registers for svc-embed-small; proofs of svc-embed-medium are refused', async () => {
    miner = spawnCli(SVC_MINER, [
      '--wallet', wallet.address, '--private-key', wallet.privateKey, '--validator-rpc', node.rpcUrl,
      '--model-dir', minerModels, '--backend', 'cpu', '--poll-interval', '500', '--verbose',
    ]);
    const m = await until('the miner registered', async () => {
      const info = await minerInfo();
      return info.registered ? info : undefined;
    });
    assert.deepEqual(m.models, [SMALL]);
    const scripted = new ScriptedMiner('governance-models', node.rpcUrl, node.config.chainId);
    const refused = await refusalOf(scripted.submit(madeUpProof(scripted, MEDIUM)));
    assert.equal(refused.reason, 'MODEL_NOT_APPROVED');
    await assert.rejects(
      client.simulateContract({ address: COMPUTE, abi: COMPUTE_ABI, functionName: 'submitTask', args: [MEDIUM, PUBLIC_INPUT], value: parseEther('0.01'), account: alice.address }),
      /not approved/,
    );
  });

  it('a model-approval proposal from a wallet passes with the genesis validator\'s vote; svc_getApprovedModels shows its pins', async () => {
    const r = await passProposal('submitModelApproval', [
      'Approve svc-embed-medium',
      'A 12-layer embedding model; the files are the ones these digests pin.',
      MEDIUM,
      'Cold',
      384,
      `0x${pins.weights.sha256}`,
      BigInt(pins.weights.size),
      `0x${pins.tokenizer.sha256}`,
      BigInt(pins.tokenizer.size),
    ]);
    approvalId = r.id;
    const medium = (await approvedModels()).find((m) => m.id === MEDIUM);
    assert.ok(medium, 'listed once the proposal passed');
    approvedAt = medium.approvedAtBlock;
    assert.ok(approvedAt > 0 && approvedAt <= r.passedAt, `approved at block ${approvedAt}`);
    assert.deepEqual(medium, {
      id: MEDIUM,
      tier: 'Cold',
      dims: 384,
      status: 'approved',
      refusedFromBlock: null,
      approvedAtBlock: approvedAt,
      approvedBy: Number(approvalId),
      files: [
        { name: 'model.safetensors', sha256: pins.weights.sha256, size: pins.weights.size },
        { name: 'tokenizer.json', sha256: pins.tokenizer.sha256, size: pins.tokenizer.size },
      ],
      pinnedBy: 'governance',
    });
    figures.approvedAtBlock = approvedAt;
  });

  it('the node loads the approved model by its pins in the background, without a restart', async () => {
    await until('the node serving svc-embed-medium', async () => {
      const s = await rpc<StatsModels>('svc_getInferenceStats');
      return s.models.find((m) => m.id === MEDIUM)?.servedByThisNode ? true : undefined;
    });
    const line = captured.lines().find((l) => l.msg === 'approved model loaded' && l.model === MEDIUM);
    assert.ok(line, 'the load is logged');
    assert.equal(line.pinnedBy, 'governance');
    assert.equal(line.proposal, Number(approvalId));
    figures.nodeLoadMs = line.ms;
  });

  it('the miner registers again with it and proves its tasks: a paid public task and challenge tasks, spot-checked and passed', async () => {
    const m = await until('the miner registered for both models', async () => {
      const info = await minerInfo();
      return info.models?.includes(MEDIUM) ? info : undefined;
    });
    assert.deepEqual(m.models, [SMALL, MEDIUM]);
    assert.match(miner!.stderr(), /the chain's models changed: added svc-embed-medium@v1\.0 \(files pinned by governance\)/);

    const r = await send(alice, COMPUTE, COMPUTE_ABI, 'submitTask', [MEDIUM, PUBLIC_INPUT], parseEther('0.01'));
    const [e] = parseEventLogs({ abi: COMPUTE_ABI, logs: r.logs, eventName: 'TaskSubmitted' });
    const taskId = (e!.args as { taskId: Hex }).taskId;
    const done = await until('the public task proven and its spot-check passed', async () => {
      const t = await rpc<TaskView>('svc_getInferenceTask', [taskId]);
      return t.status === 'completed' && t.result?.spotCheck === 'passed' ? t : undefined;
    }, 90_000);
    assert.equal(done.modelId, MEDIUM);
    assert.ok(same(done.result!.miner, wallet.address));
    const proof = await rpc<ProofView>('svc_getInferenceProof', [done.result!.proofId]);
    assert.equal(proof.modelId, MEDIUM);
    // The node's FLOPs: the model's shape (12 layers) and the input's tokens, as the addon counts them.
    const served = node.services.compute.models!.loaded.get(MEDIUM)!;
    const [tokens] = served.tokenCounts([PUBLIC_INPUT]);
    assert.equal(proof.flops, String(inferenceAddon().modelFlops(MEDIUM, tokens!)));
    assert.ok(BigInt(proof.flops) > BigInt(inferenceAddon().modelFlops(SMALL, tokens!)), 'twice the layers of svc-embed-small');

    // Challenge tasks of the new model, drawn among the miner's two, proven and checked too.
    const checked = await until('challenge proofs of svc-embed-medium spot-checked', async () => {
      const { decided } = await proofsIn(approvedAt, await head());
      const medium = decided.filter((p) => p.modelId === MEDIUM && p.taskKind === 'challenge');
      return medium.length > 0 ? decided : undefined;
    }, 90_000);
    assert.equal(checked.filter((p) => p.spotCheck !== 'passed').length, 0, JSON.stringify(checked.map((p) => [p.modelId, p.spotCheck])));
    figures.mediumProofsChecked = checked.filter((p) => p.modelId === MEDIUM).length;
  });

  it('a retirement proposal passes: retiring through the grace period, then retired; its proofs are refused', async () => {
    const r = await passProposal('submitModelRetirement', ['Retire svc-embed-medium', 'Its grace period lets miners finish what they hold.', MEDIUM]);
    const retiring = (await approvedModels()).find((m) => m.id === MEDIUM)!;
    refusedFrom = retiring.refusedFromBlock!;
    // Refused from the block after the grace period that follows the block the proposal passed in.
    const passedIn = refusedFrom - GRACE_BLOCKS - 1;
    assert.ok(passedIn > approvedAt && passedIn <= r.passedAt, `refused from ${refusedFrom}, passed by block ${r.passedAt}`);
    if ((await head()) < refusedFrom - 1) assert.equal(retiring.status, 'retiring');
    assert.equal(retiring.approvedBy, Number(approvalId));
    figures.refusedFromBlock = refusedFrom;

    const retired = await until('the model retired', async () => {
      const m = (await approvedModels()).find((x) => x.id === MEDIUM)!;
      return m.status === 'retired' ? m : undefined;
    });
    assert.equal(retired.refusedFromBlock, refusedFrom);
    assert.ok((await head()) >= refusedFrom);
    const small = (await approvedModels()).find((x) => x.id === SMALL)!;
    assert.equal(small.status, 'approved');

    const scripted = new ScriptedMiner('governance-models', node.rpcUrl, node.config.chainId);
    const refused = await refusalOf(scripted.submit(madeUpProof(scripted, MEDIUM)));
    assert.equal(refused.reason, 'MODEL_NOT_APPROVED');
    await assert.rejects(
      client.simulateContract({ address: COMPUTE, abi: COMPUTE_ABI, functionName: 'submitTask', args: [MEDIUM, PUBLIC_INPUT], value: parseEther('0.01'), account: alice.address }),
      /not approved/,
    );
  });

  it('the node drops the retired model and the miner registers again without it, proving svc-embed-small only', async () => {
    await until('the node no longer serving svc-embed-medium', async () => (node.services.compute.models!.loaded.has(MEDIUM) ? undefined : true));
    assert.ok(captured.lines().some((l) => l.msg === 'model retired: no longer served' && l.model === MEDIUM), 'the drop is logged');
    const s = await rpc<StatsModels>('svc_getInferenceStats');
    assert.deepEqual(s.models.map((m) => m.id), [SMALL]);

    const m = await until('the miner registered without the retired model', async () => {
      const info = await minerInfo();
      return info.models && !info.models.includes(MEDIUM) ? info : undefined;
    });
    assert.deepEqual(m.models, [SMALL]);
    assert.match(miner!.stderr(), /dropped svc-embed-medium@v1\.0 \(retired\)/);

    // Two more epochs of proofs: svc-embed-small only, and no block from the refusal on accepted a medium proof.
    const from = await head();
    await until('svc-embed-small proofs after the retirement', async () => {
      const { accepted } = await proofsIn(from, await head());
      return accepted.filter((p) => p.modelId === SMALL).length >= 2 ? true : undefined;
    }, 90_000);
    const all = await proofsIn(approvedAt, await head());
    const medium = all.accepted.filter((p) => p.modelId === MEDIUM);
    assert.ok(medium.length > 0, 'medium proofs were accepted while it was approved');
    for (const p of medium) assert.ok(Number(p.includedAt) < refusedFrom, `medium proof ${p.proofId} included at ${Number(p.includedAt)}, refused from ${refusedFrom}`);
    // Tasks of it assigned before the refusal expire at their deadline; no new one is given.
    await until('no open svc-embed-medium task left to the miner', async () => {
      const open = (await rpc<TasksAnswer>('svc_getInferenceTasks', [{ miner: wallet.address }])).tasks;
      return open.every((t) => t.model_id === SMALL) ? true : undefined;
    }, 60_000);
    figures.mediumProofsAccepted = medium.length;
    // Refusals the miner saw (a proof that raced the refusal block, or tasks past their deadline on this busy machine).
    figures.minerRejections = [...miner!.stderr().matchAll(/proof for task \S+ rejected: (\w+)/g)].map((x) => x[1]);
  });
});
