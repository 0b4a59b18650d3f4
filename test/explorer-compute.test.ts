// The explorer's Compute category against an in-process node: a miner registered through
// svc_registerMiner, its challenge tasks after an epoch start, a proof queued straight into the
// module (no inference addon needed), and the 404s and 400s of every path parameter.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, staking as stakingParams } from '../src/params.js';
import { deriveKeys, generateWallet, parseSeed, signRegistration, type MinerKeys } from '../src/miner/wallet.js';
import type { QueuedProof } from '../src/modules/compute/queues.js';
import type { Address, TaskRecord } from '../src/modules/compute/types.js';
import { devnetConfig } from './support/node-config.js';
import { rpc } from './support/json-rpc.js';
import { explorerClient } from './support/explorer-client.js';

const SMALL = 'svc-embed-small@v1.0';
type Hex = `0x${string}`;

let node: RunningNode;
let dataDir: string;
let base: string;
let keys: MinerKeys;
let wallet: Address;
let heartbeat: NodeJS.Timeout | undefined;




const { ok, refused } = explorerClient(() => base);

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The miner's most recently assigned open task: its deadline is the furthest away. */
function newestTask(): TaskRecord {
  const compute = node.services.app.compute;
  const open = compute.openTasksOf(wallet).filter((t) => !compute.isProofQueued(t.id));
  assert.ok(open.length > 0, 'the miner holds open tasks');
  return open.reduce((a, b) => ((b.assignedEpoch ?? 0) > (a.assignedEpoch ?? 0) ? b : a));
}

const hex = (b: Buffer): Hex => `0x${b.toString('hex')}`;
const decimal = /^[0-9]+$/;

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-explorer-compute-'));
  node = await startNode(devnetConfig(dataDir, { blockTimeMs: 30 }));
  base = `${node.explorerUrl}/api/v1`;
  keys = deriveKeys(parseSeed(generateWallet().privateKey));
  wallet = keys.address.toLowerCase() as Address;
  let sequence = 1;
  const register = async () => rpc(node.rpcUrl, 'svc_registerMiner', [await signRegistration(keys, CHAIN_ID.devnet, 'Cold', [SMALL], sequence++)]);
  await register();
  // Registering again every few blocks keeps the miner active (as svc-miner does when it sees
  // "inactive"), however slowly the tests run against 30 ms blocks.
  heartbeat = setInterval(() => void register().catch(() => undefined), 150);
  // Past an epoch start after the registration, so the miner holds its challenge tasks.
  await until(
    'challenge tasks',
    () => node.services.chain.head().number > stakingParams.epochLengthBlocks && node.services.app.compute.openTasksOf(wallet).length > 0,
  );
});

after(async () => {
  clearInterval(heartbeat);
  await node.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Compute', () => {
  it('/compute/stats: models, tasks, proofs, spot-checks, FLOPs, rewards, miners, pow', async () => {
    const s = await ok('/compute/stats');
    assert.equal(s.computeMode, 'none');
    assert.equal(typeof s.blockNumber, 'number');
    assert.equal(typeof s.epoch, 'number');
    const small = s.models.find((m: { id: string }) => m.id === SMALL);
    assert.deepEqual(Object.keys(small).sort(), ['approved', 'dims', 'id', 'servedByThisNode', 'tasksAssigned', 'tasksCompleted', 'tier']);
    assert.equal(small.tier, 'Cold');
    assert.equal(small.dims, node.services.app.compute.modelDims(SMALL));
    assert.equal(small.servedByThisNode, false);
    assert.ok(small.tasksAssigned >= 1);
    assert.ok(s.tasks.challenge >= 1 && s.tasks.open >= 1);
    assert.equal(s.miners.registered, 1);
    assert.equal(s.miners.active, 1);
    assert.equal(s.miners.jailed, 0);
    assert.match(s.totalFlops, decimal);
    for (const v of Object.values(s.rewardsPaid)) assert.match(v as string, decimal);
    assert.deepEqual(Object.keys(s.proofs).sort(), ['accepted', 'dropped', 'failedSpotCheck', 'rejected', 'rejectedAtSubmission', 'rejectedByReason', 'submitted']);
    assert.deepEqual(Object.keys(s.spotChecks).sort(), ['expired', 'failed', 'passed', 'pending', 'selected']);
    assert.match(s.pow.shareDifficulty, decimal);
    assert.equal(s.pow.thisNode, null, 'no search thread in mode none');
  });

  it('/compute/miners/{address}: the miner with its open tasks, checksummed; the same with a lowercase address', async () => {
    const m = await ok(`/compute/miners/${keys.address}`);
    assert.equal(m.wallet, keys.address);
    assert.equal(m.status, 'active');
    assert.equal(m.publicKey, keys.publicKey);
    assert.equal(m.tier, 'Cold');
    assert.deepEqual(m.models, [SMALL]);
    assert.equal(typeof m.registeredAt, 'number');
    for (const f of ['inferenceScore', 'flops', 'blockRewards', 'feeRewards', 'rewards']) assert.match(m[f], decimal, f);
    assert.ok(m.openTasks.length >= 1);
    assert.equal(m.openTaskCount, m.openTasks.length);
    const first = m.openTasks[0];
    assert.deepEqual(Object.keys(first).sort(), ['assignedEpoch', 'deadlineEpoch', 'kind', 'modelId', 'taskId']);
    assert.equal(first.kind, 'challenge');
    assert.equal(first.modelId, SMALL);
    assert.equal(typeof first.deadlineEpoch, 'number');
    const held = await ok(`/compute/tasks/${first.taskId}`);
    assert.equal(held.assignedTo, keys.address);
    assert.equal(held.deadlineEpoch, first.deadlineEpoch);
    assert.equal((await ok(`/compute/miners/${wallet}`)).wallet, keys.address);
  });

  it('/compute/tasks/{id}: a challenge task with its input, no result yet', async () => {
    const t = newestTask();
    const v = await ok(`/compute/tasks/${t.id}`);
    assert.equal(v.taskId, t.id);
    assert.equal(v.kind, 'challenge');
    assert.equal(v.status, 'assigned');
    assert.equal(v.modelId, SMALL);
    assert.equal(v.input, t.input);
    assert.ok(v.input.split(' ').length >= 12, 'the challenge input is stored with the task');
    assert.equal(v.inputHash, t.inputHash);
    assert.equal(v.fee, '0');
    assert.equal(v.submitter, null);
    assert.equal(v.assignedTo, keys.address);
    assert.equal(v.result, null);
    // Upper-case hex finds it too.
    assert.equal((await ok(`/compute/tasks/0x${t.id.slice(2).toUpperCase()}`)).taskId, t.id);
  });

  it('404 for an unknown miner, task or proof and a block beyond the head', async () => {
    await refused(`/compute/miners/0x${'12'.repeat(20)}`, 404);
    await refused(`/compute/tasks/0x${'ab'.repeat(32)}`, 404);
    await refused(`/compute/proofs/0x${'ab'.repeat(32)}`, 404);
    await refused(`/compute/blocks/${node.services.chain.head().number + 1_000}/proofs`, 404);
  });

  it('400 for a malformed address, hash or block number', async () => {
    await refused('/compute/miners/0x12', 400);
    await refused(`/compute/miners/0x${'zz'.repeat(20)}`, 400);
    await refused('/compute/tasks/0x1234', 400);
    await refused(`/compute/tasks/${'ab'.repeat(32)}`, 400);
    await refused(`/compute/proofs/0x${'gg'.repeat(32)}`, 400);
    await refused('/compute/blocks/abc/proofs', 400);
    await refused('/compute/blocks/-1/proofs', 400);
    await refused('/compute/blocks/1.5/proofs', 400);
    await refused('/compute/blocks/99999999999999999999/proofs', 400);
  });

  it('/compute/blocks/{n}/proofs of a block without activity: empty lists', async () => {
    assert.deepEqual(await ok('/compute/blocks/1/proofs'), { blockNumber: 1, accepted: [], spotChecksDecided: [] });
    assert.deepEqual(await ok('/compute/blocks/0/proofs'), { blockNumber: 0, accepted: [], spotChecksDecided: [] });
  });

  it('a proof queued for an assigned task: /compute/proofs/{id}, the block lists it, the task and miner show it', async () => {
    const compute = node.services.app.compute;
    const task = newestTask();
    const m = compute.miner(wallet)!;
    const id = hex(randomBytes(32));
    const proof: QueuedProof = {
      id,
      taskId: task.id,
      validator: node.services.compute.intake.validator,
      miner: wallet,
      publicKey: m.publicKey,
      modelId: task.modelId,
      inputHash: task.inputHash,
      outputHash: hex(randomBytes(32)),
      quantized: hex(Buffer.alloc(compute.modelDims(task.modelId)!, 3)),
      executionTimeMs: 7,
      flops: 123_456_789n,
      claimedFlops: 123_456_789n,
      signature: hex(randomBytes(64)),
    };
    compute.queueProof(proof);
    // The module holds the proof while its block is being made: wait for the block's commit.
    await until('the proof in a block', () => {
      const p = compute.proof(id);
      return p !== undefined && node.services.chain.head().number >= p.includedAt;
    });
    const included = compute.proof(id)!.includedAt;

    const p = await ok(`/compute/proofs/${id}`);
    assert.equal(p.proofId, id);
    assert.equal(p.taskId, task.id);
    assert.equal(p.taskKind, 'challenge');
    assert.equal(p.miner, keys.address);
    assert.equal(p.validator.toLowerCase(), proof.validator);
    assert.equal(p.flops, '123456789');
    assert.equal(p.claimedFlops, '123456789');
    assert.equal(p.includedAt, included);
    assert.match(p.blockReward, decimal);
    assert.deepEqual(p.fee, { miner: '0', validator: '0', treasury: '0', paid: false });
    assert.ok(['undrawn', 'not-selected', 'pending', 'expired'].includes(p.spotCheck), p.spotCheck);
    assert.ok(p.spotCheckResult === null);

    const block = await ok(`/compute/blocks/${included}/proofs`);
    assert.equal(block.blockNumber, included);
    assert.deepEqual(
      block.accepted.map((x: { proofId: string }) => x.proofId),
      [id],
    );
    assert.deepEqual(block.spotChecksDecided, []);
    assert.equal(block.accepted[0].flops, '123456789');

    const t = await ok(`/compute/tasks/${task.id}`);
    assert.equal(t.status, 'completed');
    assert.equal(t.completedAt, included);
    assert.equal(t.result.proofId, id);
    assert.equal(t.result.miner, keys.address);

    const miner = await ok(`/compute/miners/${keys.address}`);
    assert.equal(miner.tasksCompleted, 1);
    assert.equal(miner.proofsAccepted, 1);
    assert.equal(miner.flops, '123456789');
    assert.equal(miner.inferenceScore, '123456789');
    assert.ok(!miner.openTasks.some((x: { taskId: string }) => x.taskId === task.id));
    assert.equal(miner.blockRewards, p.blockReward);

    const s = await ok('/compute/stats');
    assert.equal(s.proofs.accepted, 1);
    assert.equal(s.totalFlops, '123456789');
    assert.ok(s.tasks.completed >= 1);
    assert.equal(s.models.find((x: { id: string }) => x.id === SMALL).tasksCompleted, 1);
    assert.equal(s.rewardsPaid.blockRewards, p.blockReward);

    // The miners leaderboard ranks it with the same figures.
    const board = await ok<{ rank: number; wallet: string; status: string; inferenceScore: string; proofsAccepted: number; blockRewards: string }[]>(
      '/leaderboard/miners',
    );
    assert.equal(board.length, 1);
    assert.deepEqual(
      { rank: board[0]!.rank, wallet: board[0]!.wallet, status: board[0]!.status, inferenceScore: board[0]!.inferenceScore, proofsAccepted: board[0]!.proofsAccepted, blockRewards: board[0]!.blockRewards },
      { rank: 1, wallet: keys.address, status: miner.status, inferenceScore: '123456789', proofsAccepted: 1, blockRewards: p.blockReward },
    );
  });
});
