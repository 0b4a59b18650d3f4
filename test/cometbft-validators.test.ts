// Validator-set changes on a CometBFT network: a validator registered from a wallet with its
// consensus key joins CometBFT's set at the next epoch and signs blocks, and leaves it after it
// undelegates; a validator left stopped is jailed for downtime; a consensus key run on two nodes
// at once produces duplicate-vote evidence and its validator is slashed and banned. Every outcome
// is read through svc_getValidator on every node.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { encodeFunctionData, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../src/chain/dev-accounts.js';
import { system } from '../src/params.js';
import { addTestnetNode } from '../src/consensus/cometbft/testnet.js';
import { JsonRpcError, rpc, waitFor } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { basePortFor, blockNumber, startLocalNetwork, waitForHeight, type LocalNetwork } from './support/testnet.js';

const GWEI = 10n ** 9n;
const TOKEN = 10n ** 18n;
const STAKING = parseAbi([
  'function registerValidator(string moniker, uint16 commissionBps, uint16 maxCommissionBps, uint16 maxChangeBpsPerDay, bytes32 consensusKey) payable',
  'function undelegate(address validator, uint256 amount)',
]);

interface ValidatorAnswer {
  status: string;
  jailedUntil: string;
  totalStake: string;
  blocksProduced: string;
  consensusKey: string | null;
}

let net: LocalNetwork;
const extra: NodeProcess[] = [];
const urls = (): string[] => net.nodes.map((n) => n.url);

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

async function send(from: number, data: `0x${string}`, value: bigint): Promise<void> {
  const account = privateKeyToAccount(devAccounts()[from]!.privateKey);
  const nonce = Number(await rpc<string>(urls()[0]!, 'eth_getTransactionCount', [account.address, 'pending']));
  const raw = await account.signTransaction({ chainId: 9000, type: 'eip1559', nonce, to: system.stakingAddress as `0x${string}`, data, value, gas: 500_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI });
  const hash = await rpc<string>(urls()[1]!, 'eth_sendRawTransaction', [raw]);
  const receipt = await waitFor(`receipt ${hash}`, async () => (await rpc<{ status: string } | null>(urls()[2]!, 'eth_getTransactionReceipt', [hash])) ?? undefined, 30_000);
  assert.equal(receipt.status, '0x1');
}

/** Consensus addresses (upper-case hex) of CometBFT's current validator set, as a node's CometBFT reports it. */
async function cometValidators(cometRpc: string): Promise<string[]> {
  const res = (await (await fetch(`${cometRpc}/validators?per_page=100`)).json()) as { result: { validators: { pub_key: { value: string } }[] } };
  return res.result.validators.map((v) => Buffer.from(v.pub_key.value, 'base64').toString('hex'));
}

describe('validator-set changes on a CometBFT network', () => {
  it('a validator registered from its wallet with its consensus key joins the set at the next epoch, signs blocks, and leaves after it undelegates', async () => {
    const wallet = devAccounts()[4]!;
    const { node, consensusKey, cometRpc } = await startExtraNode({ validatorAddress: wallet.address });
    const all = [...urls(), node.url];
    await send(4, encodeFunctionData({ abi: STAKING, functionName: 'registerValidator', args: ['newcomer', 1_000, 2_000, 100, consensusKey as `0x${string}`] }), 1_000n * TOKEN);
    const joined = await waitOnEvery(all, wallet.address, 'the newcomer active', (v) => v.status === 'active', 60_000);
    assert.equal(joined[0]!.consensusKey, consensusKey);
    await waitFor('the newcomer in CometBFT\'s set', async () => ((await cometValidators(cometRpc)).includes(consensusKey.slice(2)) ? true : undefined), 30_000, 250);
    // It proposes its share of blocks: its operator is the coinbase of some.
    await waitOnEvery(all, wallet.address, 'a block proposed by the newcomer', (v) => BigInt(v.blocksProduced) > 0n, 60_000);

    await send(4, encodeFunctionData({ abi: STAKING, functionName: 'undelegate', args: [wallet.address as `0x${string}`, 1_000n * TOKEN] }), 0n);
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
    await node.stop();
    assert.ok((await blockNumber(urls()[0]!)) > 0);
  });
});
