// The spot-check penalty is the relaying validator's (spec: "result does not match → validator is
// penalized with a 5% stake slash and a 6-hour jail"; docs/compute.md), and it is consensus: the block
// that decides a failed check orders it in the compute module's state and the next block applies it.
// Through real blocks of an in-process node (compute mode pow, proofs and verdicts queued as the intake
// and the spot-checker would queue them): the validator the proof names (the node's) is slashed
// exactly 5% and jailed 6 hours in the block after the verdict, never in the verdict block; an order
// survives a restart between the two blocks; a verdict block and a penalty block that fail to commit
// and are made again slash once; two failed proofs through one validator decided in one block cost one slash.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNode, type RunningNode } from '../src/node.js';
import type { NodeConfig } from '../src/config.js';
import { CHAIN_ID, chain as chainParams, compute as defaultCompute, staking, type ComputeParams } from '../src/params.js';
import type { QueuedProof } from '../src/modules/compute/queues.js';
import type { Address, TaskRecord } from '../src/modules/compute/types.js';
import { hexOf, proofId, proofMessage, type Hex } from '../src/modules/compute/wire.js';
import { devnetConfig } from './support/node-config.js';

const SMALL = 'svc-embed-small@v1.0';
/** Every proof is drawn; miners are jailed briefly so that the same miners can fail again. */
const COMPUTE: ComputeParams = { ...defaultCompute, spotCheckBps: 10_000, minerJailSeconds: 1, challengeTasksPerMiner: 4 };
const EPOCH = staking.epochLengthBlocks;
const buf = (h: string): Buffer => Buffer.from(h.slice(2), 'hex');

let node: RunningNode;
let config: NodeConfig;
let dataDir: string;
let clockMs = chainParams.genesisTimestamp.devnet * 1000;
let validator: Address;
const start = async () => {
  node = await startNode(config, { computeParams: COMPUTE, now: () => clockMs });
};
const block = async () => {
  clockMs += 1000;
  return (await node.driver.produceNext()).head;
};
const stakeOf = () => structuredClone(node.app.staking.state.validator(validator)!);
/** What a penalty changes (rewards and block counts change every block). */
const penaltyState = () => {
  const v = stakeOf();
  return { tokens: v.tokens, slashes: v.slashes.length, status: v.status, jailedUntil: v.jailedUntil, burned: node.app.staking.state.totals().burned };
};
const miners: Address[] = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a2'];
const KEY = hexOf(Buffer.alloc(32, 7));

/** A proof of `task` by its miner, as the intake queues it (the module trusts the intake's signature check). */
function proofOf(task: TaskRecord): QueuedProof {
  const outHash = Buffer.alloc(32, 9);
  const message = proofMessage({
    chainId: CHAIN_ID.devnet,
    taskId: buf(task.id),
    validator: buf(validator),
    miner: buf(task.assignedTo!),
    modelId: task.modelId,
    inputHash: buf(task.inputHash),
    outputHash: outHash,
    executionTimeMs: 5,
    flops: 1000,
  });
  return {
    id: hexOf(proofId(message)),
    taskId: task.id,
    validator,
    miner: task.assignedTo!,
    publicKey: KEY,
    modelId: task.modelId,
    inputHash: task.inputHash,
    outputHash: hexOf(outHash),
    quantized: hexOf(Buffer.alloc(384, 1)),
    executionTimeMs: 5,
    flops: 1_000_000n,
    claimedFlops: 1000n,
    signature: hexOf(Buffer.alloc(64, 3)),
  };
}

/**
 * Queues a proof of one open task of each miner in `who`, makes the block that includes them and the
 * one that draws them (every proof is drawn), and queues a failing verdict for each. Returns the proofs
 * and their block.
 */
async function failing(who: readonly Address[]): Promise<{ ids: Hex[]; includedAt: number }> {
  const ids: Hex[] = [];
  for (const w of who) {
    const task = node.app.compute.openTasksOf(w)[0];
    assert.ok(task, `miner ${w} holds a task`);
    const p = proofOf(task);
    node.app.compute.queueProof(p);
    ids.push(p.id);
  }
  const included = await block();
  for (const id of ids) assert.equal(node.app.compute.proof(id)?.includedAt, included.number, `proof ${id} accepted`);
  await block();
  for (const id of ids) {
    assert.equal(node.app.compute.proof(id)!.spotCheck, 'pending');
    node.app.compute.queueVerdict({ proofId: id, passed: false, result: { cosinePpm: 500_000, maxAbsDiff: 40, hashMatches: true } });
  }
  return { ids, includedAt: included.number };
}

/** The slash the block at `height` (time `now`) must have made: 5% of `before`'s tokens, jailed 6 hours, for `ids`. */
function assertSlashed(before: ReturnType<typeof stakeOf>, height: number, now: number, ids: Hex[], infractionHeight: number): void {
  const v = stakeOf();
  assert.equal(v.tokens, before.tokens - (before.tokens * 500n) / 10_000n, 'exactly 5% of the stake');
  assert.equal(v.slashes.length, before.slashes.length + 1, 'one slash');
  const s = v.slashes.at(-1)!;
  assert.deepEqual([s.height, s.fractionBps, s.infractionHeight], [height, 500, infractionHeight]);
  assert.ok(s.reason.startsWith(`spot-check failure: proof ${ids[0]}`), s.reason);
  if (ids.length > 1) assert.ok(s.reason.includes(`and ${ids.length - 1} more`), s.reason);
  assert.equal(v.status, 'jailed');
  assert.equal(v.jailedUntil, Math.max(before.jailedUntil, now + staking.spotCheckJailSeconds));
}

describe('the relaying validator\'s spot-check penalty', () => {
  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-penalty-'));
    config = devnetConfig(dataDir, { blockTimeMs: chainParams.maxBlockTimeMs });
    await start();
    validator = `0x${node.coinbase.toString('hex')}` as Address;
    // Queued as the intake queues what it verified; the node's own proposals are not verified again, so the signatures are not read.
    const unread = { signature: `0x${'00'.repeat(64)}`, walletSignature: `0x${'00'.repeat(65)}` } as const;
    for (const wallet of miners) node.app.compute.queueRegistration({ wallet, publicKey: KEY, tier: 'Cold', models: [SMALL], sequence: 1, ...unread });
    for (;;) if ((await block()).number % EPOCH === 0) break;
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is applied by the block after the verdict, to the validator the proof names, and survives a restart in between', async () => {
    const stake0 = stakeOf();
    const penalty0 = penaltyState();
    assert.equal(stake0.status, 'active');
    const { ids, includedAt } = await failing([miners[0]!]);
    await block();
    assert.equal(node.app.compute.proof(ids[0]!)!.spotCheck, 'failed');
    assert.deepEqual(penaltyState(), penalty0, 'the verdict block slashes nothing');
    assert.ok(node.app.compute.miner(miners[0]!)!.jailedUntil > 0, 'the miner is jailed');

    // The order is in the committed state: a node stopped now applies it after its restart.
    await node.stop();
    await start();
    const head = await block();
    assertSlashed(stake0, head.number, head.timestamp, ids, includedAt);
    const penalty1 = penaltyState();
    await block();
    assert.deepEqual(penaltyState(), penalty1, 'applied once');
  });

  it('slashes once when the verdict block and the penalty block each fail to commit and are made again', async () => {
    for (;;) if ((await block()).number % EPOCH === 0) break; // fresh tasks for both miners
    const stake0 = stakeOf();
    const penalty0 = penaltyState();
    const { ids, includedAt } = await failing([miners[1]!]);
    /** The next block's write fails once (as on a full disk), after the modules applied it: the solo driver executes and writes a block in one native call. */
    const failOnce = async () => {
      const chain = node.services.chain;
      const produce = chain.produceBlock;
      let failures = 0;
      chain.produceBlock = () => {
        chain.produceBlock = produce;
        failures += 1;
        return Promise.reject(new Error('injected commit failure'));
      };
      clockMs += 1000;
      await assert.rejects(node.driver.produceNext(), /injected commit failure/);
      assert.equal(failures, 1);
      assert.deepEqual(penaltyState(), penalty0, 'nothing of the failed block stays');
    };
    await failOnce();
    assert.equal(node.app.compute.proof(ids[0]!)!.spotCheck, 'pending');
    await block();
    assert.equal(node.app.compute.proof(ids[0]!)!.spotCheck, 'failed');
    assert.deepEqual(penaltyState(), penalty0);
    await failOnce();
    const head = await block();
    assertSlashed(stake0, head.number, head.timestamp, ids, includedAt);
    const penalty1 = penaltyState();
    await block();
    await block();
    assert.deepEqual(penaltyState(), penalty1, 'not slashed a second time for the same proof');
  });

  it('costs one slash for several failed proofs through the validator decided in one block', async () => {
    for (;;) if ((await block()).number % EPOCH === 0) break;
    const stake0 = stakeOf();
    const { ids, includedAt } = await failing(miners);
    await block();
    for (const id of ids) assert.equal(node.app.compute.proof(id)!.spotCheck, 'failed');
    const head = await block();
    assertSlashed(stake0, head.number, head.timestamp, ids, includedAt);
  });
});
