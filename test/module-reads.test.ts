// Readers of module state see committed blocks only. The modules change their memory while a block
// is built; the native execution and commit of that block then run off the event loop. A svc_*
// method, an eth_call to a module or an explorer route asked during that time waits for the commit
// (or the rollback of a block that failed), while other reads are answered at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeFunctionResult, encodeFunctionData, keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetConfig } from './support/node-config.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { rpc, JsonRpcError } from './support/json-rpc.js';
import { explorerClient } from './support/explorer-client.js';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, chain as chainParams, compute as computeParams, system } from '../src/params.js';
import { COMPUTE_ABI, publicTaskId } from '../src/modules/compute/module.js';

let node: RunningNode;
let dataDir: string;
const explorer = explorerClient(() => `${node.explorerUrl}/api/v1`);
const sender = privateKeyToAccount(devPrivateKeys(3)[2]!);
let nonce = 0;

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-module-reads-'));
  node = await startNode(devnetConfig(dataDir, { blockTimeMs: chainParams.maxBlockTimeMs, computeMode: 'pow', powThreads: 0 }));
});

after(async () => {
  await node.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A public task paid by a submitTask transaction, sent to the pool; its task id. */
async function sendTask(input: string): Promise<Hex> {
  const raw = await sender.signTransaction({
    type: 'eip1559',
    chainId: CHAIN_ID.devnet,
    nonce: nonce++,
    to: system.computeAddress as Hex,
    data: encodeFunctionData({ abi: COMPUTE_ABI, functionName: 'submitTask', args: ['svc-embed-small@v1.0', input] } as never),
    value: computeParams.publicTaskMinFee,
    gas: 400_000n,
    maxFeePerGas: 100n * 10n ** 9n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  const hash = await rpc<Hex>(node.rpcUrl, 'eth_sendRawTransaction', [raw]);
  assert.equal(hash, keccak256(raw));
  return publicTaskId(Buffer.from(hash.slice(2), 'hex'));
}

type NativeProduce = (...args: unknown[]) => Promise<unknown>;

/**
 * Holds the next block inside its native execution (produceBlock, which executes and writes the
 * solo driver's block): resolves `entered` once the modules have applied it, and finishes it (or
 * fails it) when told.
 */
function holdNextCommit(): { entered: Promise<void>; finish(): void; fail(err: Error): void } {
  const chain = node.services.chain as unknown as { produceBlock: NativeProduce };
  const original = chain.produceBlock;
  let enter!: () => void;
  const entered = new Promise<void>((r) => (enter = r));
  let decide!: (err: Error | null) => void;
  const decided = new Promise<Error | null>((r) => (decide = r));
  chain.produceBlock = async (...args: unknown[]) => {
    chain.produceBlock = original;
    enter();
    const err = await decided;
    if (err) throw err;
    return original.apply(node.services.chain, args);
  };
  return { entered, finish: () => decide(null), fail: (err) => decide(err) };
}

/** A promise with a flag that says whether it has settled. */
function watched<T>(p: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  const promise = p.finally(() => (done = true));
  promise.catch(() => undefined);
  return { promise, settled: () => done };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reads of module state during a block commit', () => {
  it('wait for the commit and then show the block, while other reads answer at once', async (t) => {
    const id = await sendTask('held in the commit');
    const head = Number(BigInt(await rpc<string>(node.rpcUrl, 'eth_blockNumber')));
    const hold = holdNextCommit();
    const producing = node.driver.produceNext();
    await hold.entered;
    t.after(async () => {
      hold.finish(); // a failed assertion must not leave the block held
      await producing.catch(() => undefined);
    });
    // The module already holds the task in memory; the chain does not have the block yet.
    assert.ok(node.app.compute.task(id), 'applied to the module before the commit');

    const task = watched(rpc<{ taskId: string; status: string; createdAt: string }>(node.rpcUrl, 'svc_getInferenceTask', [id]));
    const stats = watched(rpc<{ tasks: { public: number } }>(node.rpcUrl, 'svc_getInferenceStats'));
    const route = watched(explorer.ok<{ taskId: string; createdAt: number }>(`/compute/tasks/${id}`));
    const getTask = encodeFunctionData({ abi: COMPUTE_ABI, functionName: 'getTask', args: [id] } as never);
    const call = watched(rpc<Hex>(node.rpcUrl, 'eth_call', [{ to: system.computeAddress, data: getTask }, 'latest']));
    // Reads that do not touch module state are not held.
    assert.equal(Number(BigInt(await rpc<string>(node.rpcUrl, 'eth_blockNumber'))), head);
    await pause(300);
    assert.equal(task.settled() || stats.settled() || route.settled() || call.settled(), false, 'module reads wait while the block commits');

    hold.finish();
    const produced = await producing;
    assert.equal(produced.head.number, head + 1);
    const shown = await task.promise;
    assert.equal(shown.taskId, id);
    assert.equal(Number(BigInt(shown.createdAt)), head + 1);
    assert.deepEqual(await route.promise.then((r) => [r.taskId, r.createdAt]), [id, head + 1]);
    assert.equal((await stats.promise).tasks.public, 1);
    const [status, modelId, fee] = decodeFunctionResult({ abi: COMPUTE_ABI, functionName: 'getTask', data: await call.promise } as never) as unknown as [
      string,
      string,
      bigint,
    ];
    assert.deepEqual([status, modelId, fee], [shown.status, 'svc-embed-small@v1.0', computeParams.publicTaskMinFee]);
  });

  it('wait for the rollback of a block that fails to commit, and never show it', async (t) => {
    const id = await sendTask('in a block that fails');
    const hold = holdNextCommit();
    const producing = node.driver.produceNext();
    await hold.entered;
    t.after(async () => {
      hold.finish();
      await producing.catch(() => undefined);
    });
    assert.ok(node.app.compute.task(id), 'applied to the module before the commit');
    const task = watched(rpc(node.rpcUrl, 'svc_getInferenceTask', [id]));
    const route = watched(explorer.get(`/compute/tasks/${id}`));
    await pause(300);
    assert.equal(task.settled() || route.settled(), false);

    hold.fail(new Error('the disk is full'));
    await assert.rejects(producing, /the disk is full/);
    await assert.rejects(task.promise, (err: unknown) => err instanceof JsonRpcError && /not found/.test(err.message));
    assert.equal((await route.promise).status, 404);
    assert.equal(node.app.compute.task(id), undefined, 'the module forgot the failed block');

    // The transaction is still in the pool: the next block takes it, and the task is there.
    const next = await node.driver.produceNext();
    assert.equal(next.included.length, 1);
    const shown = await rpc<{ taskId: string }>(node.rpcUrl, 'svc_getInferenceTask', [id]);
    assert.equal(shown.taskId, id);
  });
});
