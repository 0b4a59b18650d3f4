// Compute modes at start (pow, inference, auto and its fall-back, mode none), miner registration and
// its refusals, the compute records across a restart, and the CLI's compute flags.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, compute as computeParams, staking as stakingParams } from '../src/params.js';
import { deriveKeys, generateWallet, parseSeed, signRegistration } from '../src/miner/wallet.js';
import { devnetConfig } from './support/node-config.js';
import { SMALL, missingInferenceAddon, missingSmallModel, requireOrSkip, testModelDir } from './support/inference.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { capturingLogger } from './support/captured-log.js';

const SVC_NODE = fileURLToPath(new URL('../src/cli/svc-node.js', import.meta.url));
const dirs: string[] = [];
const nodes: RunningNode[] = [];

function tmp(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

after(async () => {
  for (const n of nodes) await n.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});


async function start(overrides: Parameters<typeof devnetConfig>[1], log?: Logger): Promise<RunningNode> {
  const node = await startNode(devnetConfig(tmp('svc-compute-modes-'), { blockTimeMs: 100, ...overrides }), log ? { log } : {});
  nodes.push(node);
  return node;
}

interface ValidatorEntry {
  address: string;
  computeMode: string;
  providesCompute: boolean;
  hashrate: string;
  inferenceScore: string;
  tasksCompleted: string;
}

async function waitForBlocks(node: RunningNode, n: number): Promise<void> {
  const target = node.services.chain.head().number + n;
  while (node.services.chain.head().number < target) await new Promise((r) => setTimeout(r, 20));
}


describe('compute mode at start', () => {
  it('auto falls back to pow and logs why when no model is on disk', { skip: requireOrSkip(missingInferenceAddon()) }, async () => {
    const { log, lines } = capturingLogger('info');
    const node = await start({ computeMode: 'auto', modelDir: tmp('svc-empty-models-'), powThreads: 1 }, log);
    assert.equal(node.services.compute.mode, 'pow');
    const line = lines().find((l) => l.msg === 'compute mode');
    assert.ok(line, 'a "compute mode" log line');
    assert.equal(line.mode, 'pow');
    assert.equal(line.setting, 'auto');
    assert.match(String(line.reason), /auto: no supported model could be loaded .*files not in/);
    await waitForBlocks(node, 2);
    const [v] = await rpc<ValidatorEntry[]>(node.rpcUrl, 'svc_getValidators');
    assert.equal(v!.computeMode, 'pow');
    // A pow node does not take proofs or hand out tasks: -32004 with the reason.
    await assert.rejects(rpc(node.rpcUrl, 'svc_getInferenceTasks', [{ miner: '0x0000000000000000000000000000000000000001' }]), (e: JsonRpcError) => {
      assert.equal(e.code, -32004);
      assert.match(e.message, /compute mode pow/);
      return true;
    });
    await node.stop();
  });

  it('auto picks inference when a supported model loads', { skip: requireOrSkip(missingSmallModel()) }, async () => {
    const { log, lines } = capturingLogger('info');
    const node = await start({ computeMode: 'auto', modelDir: testModelDir(), models: [SMALL], inferenceBackend: 'cpu' }, log);
    assert.equal(node.services.compute.mode, 'inference');
    assert.deepEqual([...node.services.compute.models!.loaded.keys()], [SMALL]);
    assert.match(String(lines().find((l) => l.msg === 'compute mode')!.reason), /auto: loaded svc-embed-small@v1.0/);
    await waitForBlocks(node, 2);
    const [v] = await rpc<ValidatorEntry[]>(node.rpcUrl, 'svc_getValidators');
    assert.equal(v!.computeMode, 'inference');
    assert.equal(v!.providesCompute, false, 'no proof yet');
    const info = await rpc<{ computeMode: string }>(node.rpcUrl, 'svc_getNodeInfo');
    assert.equal(info.computeMode, 'inference');
    await node.stop();
  });

  it('inference refuses to start without a model, saying why', { skip: requireOrSkip(missingInferenceAddon()) }, async () => {
    await assert.rejects(
      startNode(devnetConfig(tmp('svc-compute-modes-'), { computeMode: 'inference', modelDir: tmp('svc-empty-models-'), models: ['svc-embed-large@v1.0'] })),
      /compute mode inference: no supported model could be loaded \(svc-embed-large@v1.0: not an approved model\)/,
    );
  });

  it('--pow-threads 0 announces mode none: no search, no compute contribution', async () => {
    const node = await start({ computeMode: 'pow', powThreads: 0 });
    assert.equal(node.services.compute.mode, 'none');
    assert.equal(node.services.compute.powStats(), null);
    await waitForBlocks(node, 2);
    const [v] = await rpc<ValidatorEntry[]>(node.rpcUrl, 'svc_getValidators');
    assert.deepEqual(
      { computeMode: v!.computeMode, providesCompute: v!.providesCompute, hashrate: v!.hashrate, inferenceScore: v!.inferenceScore, tasksCompleted: v!.tasksCompleted },
      { computeMode: 'none', providesCompute: false, hashrate: '0', inferenceScore: '0', tasksCompleted: '0' },
    );
    const detail = await rpc<{ computeMode: string; scoreBreakdown: { compute: number } }>(node.rpcUrl, 'svc_getValidator', [v!.address]);
    assert.equal(detail.computeMode, 'none');
    assert.equal(detail.scoreBreakdown.compute, 0);
    await node.stop();
  });
});

describe('miner registration', () => {
  let node: RunningNode;

  it('is refused, with its reason, when a signature, sequence, tier or model is wrong; changes nothing', async () => {
    node = await start({});
    const keys = deriveKeys(parseSeed(generateWallet().privateKey));
    const chainId = CHAIN_ID.devnet;
    const refused = async (param: unknown, code: number, reason?: string) => {
      await assert.rejects(rpc(node.rpcUrl, 'svc_registerMiner', [param]), (e: JsonRpcError) => {
        assert.equal(e.code, code, e.message);
        if (reason) assert.deepEqual(e.data, { reason });
        return true;
      });
    };
    const good = await signRegistration(keys, chainId, 'Cold', [SMALL], 1_000);
    await refused({ ...good, signature: `0x${'11'.repeat(64)}` }, -32003, 'BAD_SIGNATURE');
    const other = deriveKeys(parseSeed(generateWallet().privateKey));
    const otherWallet = await signRegistration(other, chainId, 'Cold', [SMALL], 1_000);
    await refused({ ...good, wallet_signature: otherWallet.wallet_signature }, -32003, 'BAD_WALLET_SIGNATURE');
    await refused(await signRegistration(keys, chainId, 'Cold', ['svc-classify-small@v1.0'], 1_000), -32003, 'TIER_TOO_LOW');
    await refused(await signRegistration(keys, chainId, 'Hot', ['svc-embed-large@v1.0'], 1_000), -32003, 'MODEL_NOT_APPROVED');
    // Signed for another chain: the signature does not cover these bytes here.
    await refused(await signRegistration(keys, 1, 'Cold', [SMALL], 1_000), -32003, 'BAD_SIGNATURE');
    await refused({ ...good, tier: 'Lukewarm' }, -32602);
    await refused({ ...good, models: [] }, -32602);
    await refused({ ...good, sequence: -1 }, -32602);
    await refused({ ...good, public_key: '0x1234' }, -32602);
    await refused('not an object', -32602);

    await waitForBlocks(node, 2);
    const none = await rpc<{ registered: boolean }>(node.rpcUrl, 'svc_getInferenceMiner', [keys.address]);
    assert.equal(none.registered, false, 'nothing refused was recorded');

    const accepted = await rpc<{ status: string; appliesAtBlock: number }>(node.rpcUrl, 'svc_registerMiner', [good]);
    assert.equal(accepted.status, 'pending');
    await waitForBlocks(node, 2);
    const m = await rpc<{ registered: boolean; status: string; tier: string; models: string[]; publicKey: string; registeredAt: string }>(
      node.rpcUrl,
      'svc_getInferenceMiner',
      [keys.address],
    );
    assert.deepEqual({ registered: m.registered, status: m.status, tier: m.tier, models: m.models, publicKey: m.publicKey }, {
      registered: true,
      status: 'active',
      tier: 'Cold',
      models: [SMALL],
      publicKey: keys.publicKey,
    });
    assert.ok(Number(m.registeredAt) >= accepted.appliesAtBlock);
    // The same registration again (a replay) is refused; a newer one is taken.
    await refused(good, -32003, 'SEQUENCE_NOT_NEWER');
    await rpc(node.rpcUrl, 'svc_registerMiner', [await signRegistration(keys, chainId, 'Warm', [SMALL, 'svc-classify-small@v1.0'], 2_000)]);
    await waitForBlocks(node, 2);
    const m2 = await rpc<{ tier: string; models: string[] }>(node.rpcUrl, 'svc_getInferenceMiner', [keys.address]);
    assert.deepEqual({ tier: m2.tier, models: m2.models }, { tier: 'Warm', models: [SMALL, 'svc-classify-small@v1.0'] });
    const stats = await rpc<{ miners: { registered: number } }>(node.rpcUrl, 'svc_getInferenceStats');
    assert.equal(stats.miners.registered, 1);
  });

  it('and the miner, its challenge tasks and the counters survive a restart', async () => {
    const epoch = stakingParams.epochLengthBlocks;
    // Past an epoch start, so the registered miner holds its challenge tasks.
    while (node.services.chain.head().number < 2 * epoch + 1) await new Promise((r) => setTimeout(r, 20));
    const [miner] = node.services.app.compute.minerList();
    const before = {
      miner: await rpc<Record<string, unknown>>(node.rpcUrl, 'svc_getInferenceMiner', [miner!.wallet]),
      tasks: node.services.app.compute.openTasksOf(miner!.wallet).map((t) => t.id),
      stats: (await rpc<{ tasks: unknown; miners: unknown }>(node.rpcUrl, 'svc_getInferenceStats')).tasks,
    };
    assert.ok(before.tasks.length > 0, 'challenge tasks were assigned at the epoch start');
    const dataDir = node.config.dataDir;
    await node.stop();
    nodes.splice(nodes.indexOf(node), 1);
    // A long block time: the restarted node makes no block before it is read.
    const again = await startNode(devnetConfig(dataDir, { blockTimeMs: 60_000 }));
    nodes.push(again);
    const after = {
      miner: await rpc<Record<string, unknown>>(again.rpcUrl, 'svc_getInferenceMiner', [miner!.wallet]),
      tasks: again.services.app.compute.openTasksOf(miner!.wallet).map((t) => t.id),
      stats: (await rpc<{ tasks: unknown; miners: unknown }>(again.rpcUrl, 'svc_getInferenceStats')).tasks,
    };
    assert.deepEqual(after, before);
    const task = await rpc<{ input: string; inputHash: string; status: string }>(again.rpcUrl, 'svc_getInferenceTask', [before.tasks[0]]);
    assert.equal(task.status, 'assigned');
    assert.ok(task.input.split(' ').length >= 12, 'the challenge input is stored with the task');
    await assert.rejects(rpc(again.rpcUrl, 'svc_getInferenceTask', [`0x${'ab'.repeat(32)}`]), (e: JsonRpcError) => e.code === -32001);
    await assert.rejects(rpc(again.rpcUrl, 'svc_getInferenceProof', [`0x${'ab'.repeat(32)}`]), (e: JsonRpcError) => e.code === -32001);
    // A block without compute activity lists nothing; a block beyond the head is -32001; a bad tag -32602.
    assert.deepEqual(await rpc(again.rpcUrl, 'svc_getInferenceProofs', ['latest']), {
      blockNumber: `0x${again.services.chain.head().number.toString(16)}`,
      accepted: [],
      spotChecksDecided: [],
    });
    await assert.rejects(rpc(again.rpcUrl, 'svc_getInferenceProofs', ['0xffffff']), (e: JsonRpcError) => e.code === -32001);
    await assert.rejects(rpc(again.rpcUrl, 'svc_getInferenceProofs', ['soon']), (e: JsonRpcError) => e.code === -32602);
  });
});

describe('miner activity', () => {
  it('a miner without a registration or proof for minerActiveEpochs epochs is inactive and gets no task until it registers again', async () => {
    const node = await start({ blockTimeMs: 30 });
    const compute = node.services.app.compute;
    const L = stakingParams.epochLengthBlocks;
    const keys = deriveKeys(parseSeed(generateWallet().privateKey));
    const wallet = keys.address.toLowerCase() as `0x${string}`;
    await rpc(node.rpcUrl, 'svc_registerMiner', [await signRegistration(keys, CHAIN_ID.devnet, 'Cold', [SMALL], 1)]);
    const status = async () => (await rpc<{ status: string }>(node.rpcUrl, 'svc_getInferenceMiner', [keys.address])).status;
    await waitForBlocks(node, 1);
    const registeredEpoch = compute.miner(wallet)!.lastActiveEpoch;
    assert.equal(await status(), 'active');
    // Past the epochs it stays eligible, without proving anything.
    const lapse = (registeredEpoch + compute.params.minerActiveEpochs) * L;
    while (node.services.chain.head().number < lapse + 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await status(), 'inactive');
    const assignedBefore = compute.counters.tasksAssigned;
    while (node.services.chain.head().number < lapse + L + 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal(compute.counters.tasksAssigned, assignedBefore, 'no task for an inactive miner at the epoch start');
    await rpc(node.rpcUrl, 'svc_registerMiner', [await signRegistration(keys, CHAIN_ID.devnet, 'Cold', [SMALL], 2)]);
    await waitForBlocks(node, 1);
    assert.equal(await status(), 'active');
    const next = (Math.floor(node.services.chain.head().number / L) + 1) * L;
    while (node.services.chain.head().number < next + 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal(compute.openTasksOf(wallet).length, compute.params.challengeTasksPerMiner, 'tasks again at the next epoch start');
    await node.stop();
  });
});

describe('idle miners', () => {
  it('are forgotten after minerRetentionEpochs without a registration or proof, and start afresh', async () => {
    const node = await startNode(devnetConfig(tmp('svc-compute-modes-'), { blockTimeMs: 30 }), {
      computeParams: { ...computeParams, minerActiveEpochs: 1, minerRetentionEpochs: 2 },
    });
    nodes.push(node);
    const L = stakingParams.epochLengthBlocks;
    const keys = deriveKeys(parseSeed(generateWallet().privateKey));
    await rpc(node.rpcUrl, 'svc_registerMiner', [await signRegistration(keys, CHAIN_ID.devnet, 'Cold', [SMALL], 1)]);
    await waitForBlocks(node, 1);
    const miner = () => rpc<{ registered: boolean; status: string }>(node.rpcUrl, 'svc_getInferenceMiner', [keys.address]);
    assert.equal((await miner()).registered, true);
    const registeredEpoch = node.services.app.compute.miner(keys.address.toLowerCase() as `0x${string}`)!.lastActiveEpoch;
    while (node.services.chain.head().number < (registeredEpoch + 2) * L + 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await miner()).registered, false);
    const stats = await rpc<{ miners: { registered: number; forgotten: number } }>(node.rpcUrl, 'svc_getInferenceStats');
    assert.deepEqual(stats.miners.registered, 0);
    assert.equal(stats.miners.forgotten, 1);
    // A registration after that starts afresh (its old sequence is gone with the record).
    await rpc(node.rpcUrl, 'svc_registerMiner', [await signRegistration(keys, CHAIN_ID.devnet, 'Cold', [SMALL], 1)]);
    await waitForBlocks(node, 1);
    assert.equal((await miner()).status, 'active');
    await node.stop();
  });
});

describe('svc-node start: compute flags', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [SVC_NODE, ...args], { env: { ...process.env, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('lists them with their environment variables', async () => {
    const out = await run(['start', '--help']);
    assert.equal(out.code, 0);
    for (const s of ['--compute-mode', 'SVC_COMPUTE_MODE', '--inference-backend', 'SVC_INFERENCE_BACKEND', '--model-dir', 'SVC_MODEL_DIR', '--pow-threads', 'SVC_POW_THREADS']) {
      assert.ok(out.stdout.includes(s), `${s} in --help`);
    }
  });

  it('refuses an unknown mode from the flag or SVC_COMPUTE_MODE with exit code 2', async () => {
    const flag = await run(['start', '--compute-mode', 'quantum', '--data-dir', tmp('svc-cli-compute-')]);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /--compute-mode/);
    const env = await run(['start', '--data-dir', tmp('svc-cli-compute-')], { SVC_COMPUTE_MODE: 'quantum' });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /compute-mode/);
  });
});
