// Validator-set changes on a CometBFT network: a validator registered from a wallet with its
// consensus key joins CometBFT's set at the next epoch and signs blocks, and leaves it after it
// undelegates; a validator left stopped is jailed for downtime; a consensus key run on two nodes
// at once produces duplicate-vote evidence and its validator is slashed and banned. Every outcome
// is read through svc_getValidator on every node; a jailed or banned validator is out of CometBFT's
// own set (its /validators) within 2 blocks of the block that jailed it, and the rest go on.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { encodeFunctionData } from 'viem';
import { devAccounts } from '../src/chain/dev-accounts.js';
import { addTestnetNode } from '../src/consensus/cometbft/testnet.js';
import { cometValidators, sendStaking, STAKING, TOKEN } from './support/comet-validators.js';
import { JsonRpcError, rpc, waitFor } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { basePortFor, blockNumber, startLocalNetwork, waitForHeight, type LocalNetwork } from './support/testnet.js';

interface ValidatorAnswer {
  status: string;
  uptime: number;
  blocksMissed: string;
  jailedUntil: string;
  totalStake: string;
  blocksProduced: string;
  consensusKey: string | null;
}

let net: LocalNetwork;
const extra: NodeProcess[] = [];
const urls = (): string[] => net.nodes.map((n) => n.url);
const cometRpcOf = (i: number): string => `http://127.0.0.1:${net.manifest.nodes[i]!.cometRpcPort}`;

before(async () => {
  net = await startLocalNetwork({ validators: 4, blockTimeMs: 100, basePort: basePortFor(3) });
  await waitForHeight(urls(), 2, 60_000);
});

after(async () => {
  await Promise.all(extra.map((n) => n.dispose()));
  await net?.dispose();
});

/** Starts one more node of the testnet (a full node, or one running another's validator key). */
async function startExtraNode(options: { validatorKeyOf?: string; validatorAddress?: string }): Promise<{ node: NodeProcess; consensusKey: string; cometRpc: string }> {
  const n = addTestnetNode(net.dir, options.validatorKeyOf ? { validatorKeyOf: options.validatorKeyOf } : {});
  const node = await NodeProcess.start({
    dataDir: path.join(net.dir, n.dataDir),
    readyTimeoutMs: 120_000,
    extraArgs: [
      '--consensus', 'cometbft',
      '--cometbft-home', path.join(net.dir, n.cometbftHome),
      '--rpc-port', String(n.rpcPort), '--ws-port', String(n.wsPort), '--explorer-port', String(n.explorerPort),
      ...(options.validatorAddress ? ['--validator-address', options.validatorAddress] : []),
    ],
  });
  extra.push(node);
  return { node, consensusKey: n.consensusKey, cometRpc: `http://127.0.0.1:${n.cometRpcPort}` };
}

async function validatorOn(u: string, address: string): Promise<ValidatorAnswer> {
  return rpc<ValidatorAnswer>(u, 'svc_getValidator', [address]);
}

/** Waits until `check` holds for the validator on every one of `nodeUrls`. */
async function waitOnEvery(nodeUrls: string[], address: string, what: string, check: (v: ValidatorAnswer) => boolean, timeoutMs: number): Promise<ValidatorAnswer[]> {
  return waitFor(`${what} on every node`, async () => {
    // A node still syncing may not know the validator yet.
    const answers = await Promise.all(nodeUrls.map((u) => validatorOn(u, address).catch((err: unknown) => (err instanceof JsonRpcError ? undefined : Promise.reject(err)))));
    return answers.every((a) => a !== undefined && check(a)) ? (answers as ValidatorAnswer[]) : undefined;
  }, timeoutMs, 250);
}

/** The block that jailed `operator`: its last slash's height (downtime and double signing slash and jail in one step), from the explorer. */
async function jailHeight(explorerUrl: string, operator: string): Promise<number> {
  const res = await fetch(`${explorerUrl}/api/v1/network/validators/${operator}`);
  assert.equal(res.status, 200);
  const v = ((await res.json()) as { data: { status: string; slashes: { height: number }[] } }).data;
  assert.equal(v.status, 'jailed');
  assert.ok(v.slashes.length > 0, `a slash of ${operator}`);
  return v.slashes.at(-1)!.height;
}

/**
 * CometBFT's own set leaves the validator within 2 blocks of the block that jailed it (the block's
 * validator updates take effect from the block after next), and the validators left keep making blocks.
 */
async function assertLeftCometSet(node: NodeProcess, cometRpc: string, operator: string, consensusKey: string, running: string[]): Promise<void> {
  const nodeUrl = node.url;
  const jailed = await jailHeight(node.explorerUrl, operator);
  await waitForHeight([nodeUrl], jailed + 2, 30_000);
  assert.ok((await cometValidators(cometRpc, jailed)).includes(consensusKey.slice(2)), `in CometBFT's set at the jail's block ${jailed}`);
  assert.ok(!(await cometValidators(cometRpc, jailed + 2)).includes(consensusKey.slice(2)), `out of CometBFT's set at block ${jailed + 2}`);
  assert.ok(!(await cometValidators(cometRpc)).includes(consensusKey.slice(2)), 'out of CometBFT\'s latest set');
  const head = await blockNumber(nodeUrl);
  await waitForHeight(running, head + 5, 30_000);
}

describe('validator-set changes on a CometBFT network', () => {
  it('a validator registered from its wallet with its consensus key joins the set at the next epoch, signs blocks, and leaves after it undelegates', async () => {
    const wallet = devAccounts()[4]!;
    const { node, consensusKey, cometRpc } = await startExtraNode({ validatorAddress: wallet.address });
    const all = [...urls(), node.url];
    await sendStaking(urls(), 4, encodeFunctionData({ abi: STAKING, functionName: 'registerValidator', args: ['newcomer', 1_000, 2_000, 100, consensusKey as `0x${string}`] }), 1_000n * TOKEN);
    const joined = await waitOnEvery(all, wallet.address, 'the newcomer active', (v) => v.status === 'active', 60_000);
    assert.equal(joined[0]!.consensusKey, consensusKey);
    await waitFor('the newcomer in CometBFT\'s set', async () => ((await cometValidators(cometRpc)).includes(consensusKey.slice(2)) ? true : undefined), 30_000, 250);
    // It proposes its share of blocks: its operator is the coinbase of some.
    await waitOnEvery(all, wallet.address, 'a block proposed by the newcomer', (v) => BigInt(v.blocksProduced) > 0n, 60_000);

    await sendStaking(urls(), 4, encodeFunctionData({ abi: STAKING, functionName: 'undelegate', args: [wallet.address as `0x${string}`, 1_000n * TOKEN] }), 0n);
    await waitFor('the newcomer out of CometBFT\'s set', async () => ((await cometValidators(cometRpc)).includes(consensusKey.slice(2)) ? undefined : true), 60_000, 250);
    const left = await Promise.all(all.map((u) => validatorOn(u, wallet.address)));
    for (const v of left) assert.notEqual(v.status, 'active');
  });

  it('jails a validator left stopped for downtime, on every node', async () => {
    const operator = devAccounts()[2]!.address;
    await net.nodes[2]!.kill();
    const running = [urls()[0]!, urls()[1]!, urls()[3]!];
    const jailed = await waitOnEvery(running, operator, 'validator 2 jailed', (v) => v.status === 'jailed', 180_000);
    for (const v of jailed) assert.deepEqual(v, jailed[0]);
    assert.ok(BigInt(jailed[0]!.jailedUntil) < BigInt(Number.MAX_SAFE_INTEGER), 'downtime jail ends');
    // Its uptime shows the blocks it missed (the jail does not clear them).
    assert.ok(Number(jailed[0]!.uptime) < 50, `uptime ${jailed[0]!.uptime} beside ${jailed[0]!.blocksMissed} blocks missed`);
    await assertLeftCometSet(net.nodes[0]!, cometRpcOf(0), operator, net.manifest.nodes[2]!.consensusKey, running);
  });

  it('slashes and bans a validator whose consensus key signs on two nodes at once, on every node', async () => {
    const operator = devAccounts()[3]!.address;
    const before = BigInt((await validatorOn(urls()[0]!, operator)).totalStake);
    // A second node with validator 3's key: the two sign different votes at some height.
    const { node } = await startExtraNode({ validatorKeyOf: 'node3' });
    const running = [urls()[0]!, urls()[1]!, urls()[3]!, node.url];
    const banned = await waitOnEvery(running, operator, 'validator 3 banned', (v) => v.status === 'jailed' && BigInt(v.jailedUntil) === BigInt(Number.MAX_SAFE_INTEGER), 180_000);
    for (const v of banned) assert.deepEqual(v, banned[0]);
    // 5% of its stake burned (its delegators pro rata: it has only its own).
    assert.ok(BigInt(banned[0]!.totalStake) <= (before * 95n) / 100n, `stake ${banned[0]!.totalStake} of ${before}`);
    await assertLeftCometSet(net.nodes[0]!, cometRpcOf(0), operator, net.manifest.nodes[3]!.consensusKey, [urls()[0]!, urls()[1]!]);
    await node.stop();
    assert.ok((await blockNumber(urls()[0]!)) > 0);
  });
});
