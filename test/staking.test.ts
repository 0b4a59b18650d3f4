// Staking through a wallet: viem sends transactions to the staking module of a real node (native
// HTTP server, RocksDB in a temp dir), blocks are made one at a time on a test clock, and the
// results are read back through receipts, logs, balances and the svc_* methods.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  http,
  parseEther,
  parseEventLogs,
  type Abi,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { chain as chainParams, staking as defaultStaking, system, type StakingParams } from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';
import { svcDevnet } from './support/viem-chain.js';

const ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;
const STAKING = system.stakingAddress as Hex;
const TREASURY = system.treasuryAddress as Hex;
const COMPUTE = system.computeAddress as Hex;
const ETHER = 10n ** 18n;

/**
 * Test chain parameters: short epochs and unbonding, a constant block reward (multiplier pinned at
 * 1x) and a score made of stake alone, so that rewards can be computed by hand.
 */
const PARAMS: StakingParams = {
  ...defaultStaking,
  epochLengthBlocks: 4,
  unbondingPeriodSeconds: 30,
  signedBlocksWindow: 10_000,
  rewardMultiplierMinBps: 10_000,
  rewardMultiplierMaxBps: 10_000,
  scoreWeightsBps: { staking: 10_000, compute: 0, uptime: 0, accuracy: 0, network: 0 },
};

const keys = devPrivateKeys(4);
const genesisValidator = privateKeyToAccount(keys[0]!);
const operator = privateKeyToAccount(keys[1]!);
const alice = privateKeyToAccount(keys[2]!);
const bob = privateKeyToAccount(keys[3]!);

let node: RunningNode;
let dataDir: string;
let client: PublicClient;
/** The block clock, milliseconds; each block is made at the time it says. */
let clockMs = chainParams.genesisTimestamp.devnet * 1000;

async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const json = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (json.error) throw Object.assign(new Error(json.error.message), { code: json.error.code });
  return json.result as T;
}

/** Makes one block `seconds` after the last one. */
async function block(seconds = 1): Promise<{ number: number; timestamp: number }> {
  clockMs += seconds * 1000;
  const { head } = await node.driver.produceNext();
  return { number: head.number, timestamp: head.timestamp };
}

/** Makes blocks until the current epoch has ended (the next block starts an epoch). */
async function toEpochEnd(): Promise<void> {
  while ((node.services.chain.head().number + 1) % PARAMS.epochLengthBlocks !== 0) await block();
}

/** Sends a staking call from `from` (gas given, so nothing is estimated) and mines it; returns the receipt. */
async function send(from: PrivateKeyAccount, functionName: string, args: unknown[] = [], value = 0n, gas = 300_000n) {
  const wallet = createWalletClient({ account: from, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
  const hash: Hash = await wallet.writeContract({ address: STAKING, abi: ABI, functionName, args, value, gas } as never);
  await block();
  return client.getTransactionReceipt({ hash });
}

/** The revert reason viem decodes when it simulates the call. */
async function revertReason(from: PrivateKeyAccount, functionName: string, args: unknown[] = [], value = 0n): Promise<string | undefined> {
  try {
    await client.simulateContract({ account: from, address: STAKING, abi: ABI, functionName, args, value } as never);
  } catch (err) {
    const revert = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    if (revert instanceof ContractFunctionRevertedError) return revert.reason;
    throw err;
  }
  return undefined;
}

const fee = (r: { gasUsed: bigint; effectiveGasPrice: bigint }) => r.gasUsed * r.effectiveGasPrice;

interface Delegation {
  shares: string;
  balance: string;
  pendingRewards: string;
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-staking-'));
  // Blocks are made by the test, one at a time.
  const config = devnetConfig(dataDir, { blockTimeMs: chainParams.maxBlockTimeMs });
  node = await startNode(config, { stakingParams: PARAMS, now: () => clockMs });
  client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
});

after(async () => {
  await node.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a second validator registers from a wallet', () => {
  it('is refused below the minimum self stake, with the reason', async () => {
    assert.equal(await revertReason(operator, 'registerValidator', ['val-two', 1_000, 2_000, 500], 10n ** 17n), 'staking: self stake below minimum');
  });

  it('registers with its self stake, logs it, and joins the active set at the next epoch', async () => {
    const before = await client.getBalance({ address: operator.address });
    const receipt = await send(operator, 'registerValidator', ['val-two', 1_000, 2_000, 500], parseEther('100'));
    assert.equal(receipt.status, 'success');
    const [log] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'ValidatorRegistered' }) as unknown as {
      args: { validator: Hex; moniker: string; selfStake: bigint };
    }[];
    assert.equal(log!.args.validator, operator.address);
    assert.equal(log!.args.moniker, 'val-two');
    assert.equal(log!.args.selfStake, parseEther('100'));
    assert.equal(await client.getBalance({ address: operator.address }), before - parseEther('100') - fee(receipt));

    const v = await rpc<{ status: string; totalStake: string; commission: number }>('svc_getValidator', [operator.address]);
    assert.equal(v.status, 'inactive');
    assert.equal(BigInt(v.totalStake), parseEther('100'));
    assert.equal(v.commission, 10);

    await toEpochEnd();
    await block();
    assert.equal((await rpc<{ status: string }>('svc_getValidator', [operator.address])).status, 'active');
    const set = await rpc<{ validators: { address: string }[] }>('svc_getValidatorSet', []);
    assert.deepEqual(set.validators.map((m) => m.address).sort(), [genesisValidator.address, operator.address].sort());
  });
});

describe('delegation from two accounts', () => {
  it('adds each delegation to the validator and reports it per delegator', async () => {
    assert.equal((await send(alice, 'delegate', [operator.address], parseEther('100'))).status, 'success');
    assert.equal((await send(bob, 'delegate', [operator.address], parseEther('300'))).status, 'success');
    const v = await rpc<{ totalStake: string; selfStake: string; delegatedStake: string; delegatorCount: number }>('svc_getValidator', [
      operator.address,
    ]);
    assert.equal(BigInt(v.totalStake), parseEther('500'));
    assert.equal(BigInt(v.selfStake), parseEther('100'));
    assert.equal(BigInt(v.delegatedStake), parseEther('400'));
    assert.equal(v.delegatorCount, 2);
    const d = await rpc<Delegation>('svc_getDelegation', [bob.address, operator.address]);
    assert.equal(BigInt(d.balance), parseEther('300'));
    assert.equal((await rpc<{ stakedAmount: string }>('svc_getStakeInfo', [alice.address])).stakedAmount, '0x' + parseEther('100').toString(16));
  });

  it('refuses a delegation to an unknown validator and unknown validators in queries (-32001); an address with no stake has zeros', async () => {
    assert.equal(await revertReason(alice, 'delegate', ['0x00000000000000000000000000000000000000aa'], 1n), 'staking: validator not found');
    await assert.rejects(rpc('svc_getValidator', ['0x00000000000000000000000000000000000000aa']), { code: -32001 });
    // The spec's shape, every field present: a wallet shows a fresh account's stake.
    assert.deepEqual(await rpc('svc_getStakeInfo', ['0x00000000000000000000000000000000000000aa']), {
      stakedAmount: '0x0',
      unstakingAmount: '0x0',
      unstakingCompletesAt: '0x0',
      pendingRewards: '0x0',
    });
  });
});

describe('rewards', () => {
  it('match a hand computation: 75% of the block reward to validators by stake, 10% commission, then pro rata', async () => {
    // Active: the genesis validator (1000) and val-two (500): val-two earns 1/3 of 1.5 tokens = 0.5 per
    // block; 10% commission leaves 0.45 for its 500 tokens of shares: alice (100) earns 0.09 per block.
    const a0 = BigInt((await rpc<Delegation>('svc_getDelegation', [alice.address, operator.address])).pendingRewards);
    const b0 = BigInt((await rpc<Delegation>('svc_getDelegation', [bob.address, operator.address])).pendingRewards);
    const t0 = await client.getBalance({ address: TREASURY });
    const c0 = await client.getBalance({ address: COMPUTE });
    const v0 = await rpc<{ accumulatedCommission: string }>('svc_getValidator', [operator.address]);
    for (let i = 0; i < 5; i++) await block();
    const v1 = await rpc<{ accumulatedCommission: string }>('svc_getValidator', [operator.address]);
    const a1 = BigInt((await rpc<Delegation>('svc_getDelegation', [alice.address, operator.address])).pendingRewards);
    const b1 = BigInt((await rpc<Delegation>('svc_getDelegation', [bob.address, operator.address])).pendingRewards);
    assert.equal(a1 - a0, 5n * parseEther('0.09'));
    assert.equal(b1 - b0, 5n * parseEther('0.27'));
    // The operator's commission: 10% of val-two's 0.5 per block.
    assert.equal(BigInt(v1.accumulatedCommission) - BigInt(v0.accumulatedCommission), 5n * parseEther('0.05'));
    // The treasury takes 10%; the inference miners' 15% waits in the compute module's pool (no proofs here).
    assert.equal((await client.getBalance({ address: TREASURY })) - t0, 5n * parseEther('0.2'));
    assert.equal((await client.getBalance({ address: COMPUTE })) - c0, 5n * parseEther('0.3'));
  });

  it('are paid by claimRewards, which logs the amount; the operator also collects its commission', async () => {
    const pending = BigInt((await rpc<Delegation>('svc_getDelegation', [alice.address, operator.address])).pendingRewards);
    const before = await client.getBalance({ address: alice.address });
    const receipt = await send(alice, 'claimRewards', [operator.address]);
    const [log] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'RewardsClaimed' }) as unknown as { args: { rewards: bigint } }[];
    // The claim runs before its own block's reward is handed out.
    assert.equal(log!.args.rewards, pending);
    assert.equal(await client.getBalance({ address: alice.address }), before + pending - fee(receipt));

    const opBefore = await client.getBalance({ address: operator.address });
    const opReceipt = await send(operator, 'claimRewards', [operator.address]);
    const [opLog] = parseEventLogs({ abi: ABI, logs: opReceipt.logs, eventName: 'RewardsClaimed' }) as unknown as {
      args: { rewards: bigint; commission: bigint };
    }[];
    assert.ok(opLog!.args.commission > 0n);
    assert.equal(await client.getBalance({ address: operator.address }), opBefore + opLog!.args.rewards + opLog!.args.commission - fee(opReceipt));
  });
});

describe('undelegation and withdrawal', () => {
  let completesAt = 0;

  it('starts unbonding with its completion time', async () => {
    const receipt = await send(bob, 'undelegate', [operator.address, parseEther('100')]);
    const [log] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'Undelegated' }) as unknown as {
      args: { amount: bigint; completesAt: bigint };
    }[];
    const mined = await client.getBlock({ blockNumber: receipt.blockNumber });
    assert.equal(log!.args.amount, parseEther('100'));
    assert.equal(log!.args.completesAt, mined.timestamp + BigInt(PARAMS.unbondingPeriodSeconds));
    completesAt = Number(log!.args.completesAt);
    const info = await rpc<{ stakedAmount: string; unstakingAmount: string; unstakingCompletesAt: string }>('svc_getStakeInfo', [bob.address]);
    assert.equal(BigInt(info.stakedAmount), parseEther('200'));
    assert.equal(BigInt(info.unstakingAmount), parseEther('100'));
    assert.equal(Number(BigInt(info.unstakingCompletesAt)), completesAt);
  });

  it('cannot withdraw in the block one second before completion', async () => {
    clockMs = (completesAt - 2) * 1000;
    const before = await client.getBalance({ address: bob.address });
    const receipt = await send(bob, 'withdraw', [], 0n, 200_000n);
    assert.equal(Number((await client.getBlock({ blockNumber: receipt.blockNumber })).timestamp), completesAt - 1);
    assert.equal(receipt.status, 'reverted');
    assert.equal(await client.getBalance({ address: bob.address }), before - fee(receipt));
  });

  it('withdraws in the block at the completion time', async () => {
    const before = await client.getBalance({ address: bob.address });
    const receipt = await send(bob, 'withdraw');
    assert.equal(Number((await client.getBlock({ blockNumber: receipt.blockNumber })).timestamp), completesAt);
    assert.equal(receipt.status, 'success');
    const [log] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'Withdrawn' }) as unknown as { args: { amount: bigint } }[];
    assert.equal(log!.args.amount, parseEther('100'));
    assert.equal(await client.getBalance({ address: bob.address }), before + parseEther('100') - fee(receipt));
  });
});

describe('commission edits', () => {
  it('are refused within 24 hours of the last change, beyond the daily change and above the maximum', async () => {
    assert.equal(await revertReason(operator, 'editCommission', [1_200]), 'staking: commission changed less than 24 hours ago');
    clockMs += 86_400 * 1000;
    await block();
    assert.equal(await revertReason(operator, 'editCommission', [1_600]), 'staking: commission change exceeds max daily change');
    assert.equal(await revertReason(operator, 'editCommission', [2_100]), 'staking: commission above max');
  });

  it('apply within the limits and log the change', async () => {
    const receipt = await send(operator, 'editCommission', [1_500]);
    const [log] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'CommissionChanged' }) as unknown as {
      args: { oldBps: number; newBps: number };
    }[];
    assert.deepEqual([log!.args.oldBps, log!.args.newBps], [1_000, 1_500]);
    assert.equal((await rpc<{ commission: number }>('svc_getValidator', [operator.address])).commission, 15);
  });
});

describe('slashing, jail and unjail', () => {
  it('a failed spot-check slashes 5% pro rata and jails for the jail time', async () => {
    const aliceBefore = BigInt((await rpc<Delegation>('svc_getDelegation', [alice.address, operator.address])).balance);
    const stakeBefore = BigInt((await rpc<{ totalStake: string }>('svc_getValidator', [operator.address])).totalStake);
    const moduleBefore = await client.getBalance({ address: STAKING });
    node.app.staking.penalizeFailedSpotCheck(operator.address.toLowerCase() as Hex, 'spot-check failure: output mismatch');
    const { timestamp } = await block();
    const v = await rpc<{ status: string; totalStake: string; jailedUntil: string }>('svc_getValidator', [operator.address]);
    assert.equal(v.status, 'jailed');
    assert.equal(Number(BigInt(v.jailedUntil)), timestamp + PARAMS.spotCheckJailSeconds);
    assert.equal(BigInt(v.totalStake), stakeBefore - (stakeBefore * 500n) / 10_000n);
    const aliceAfter = BigInt((await rpc<Delegation>('svc_getDelegation', [alice.address, operator.address])).balance);
    assert.ok(aliceBefore - aliceAfter >= (aliceBefore * 500n) / 10_000n - 1n && aliceBefore - aliceAfter <= (aliceBefore * 500n) / 10_000n + 1n);
    // The slashed stake is burned: the module's balance drops by it, less the rewards it received meanwhile.
    assert.ok((await client.getBalance({ address: STAKING })) < moduleBefore);
    // Jailed validators earn nothing.
    const pending = BigInt((await rpc<Delegation>('svc_getDelegation', [alice.address, operator.address])).pendingRewards);
    await block();
    assert.equal(BigInt((await rpc<Delegation>('svc_getDelegation', [alice.address, operator.address])).pendingRewards), pending);
  });

  it('unjail is refused before the jail time and accepted after it; the validator returns at the next epoch', async () => {
    const reason = await revertReason(operator, 'unjail');
    assert.match(reason ?? '', /^staking: validator is jailed until \d+$/);
    clockMs += PARAMS.spotCheckJailSeconds * 1000;
    await block();
    const receipt = await send(operator, 'unjail');
    assert.equal(receipt.status, 'success');
    assert.equal(parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'Unjailed' }).length, 1);
    await toEpochEnd();
    await block();
    assert.equal((await rpc<{ status: string }>('svc_getValidator', [operator.address])).status, 'active');
  });
});

describe('supply', () => {
  it('is conserved: every balance on the chain adds up to genesis + minted - burned', async () => {
    const addresses: Hex[] = [
      ...devPrivateKeys(10).map((k) => privateKeyToAccount(k).address),
      STAKING,
      TREASURY,
      COMPUTE,
      chainParams.multicall3Address as Hex,
      // the faucet account (index 100 of the dev mnemonic)
      (await import('../src/chain/genesis.js')).faucetAccount().address as Hex,
      // the bundler account (index 101)
      (await import('../src/chain/dev-accounts.js')).bundlerAccount().address as Hex,
    ];
    let sum = 0n;
    for (const a of addresses) sum += await client.getBalance({ address: a });
    const stats = await rpc<{ totalSupply: string; totalStaked: string }>('svc_getNetworkStats');
    assert.equal(sum, BigInt(stats.totalSupply));
    assert.equal(await client.getBalance({ address: STAKING }), node.app.staking.state.moduleBalance());
    assert.deepEqual(node.app.staking.state.checkInvariants(), []);
  });
});

describe('chain and node methods', () => {
  it('svc_getEpoch reports the epoch, its start, length and the slot of the head', async () => {
    const head = node.services.chain.head().number;
    const epoch = await rpc<{ number: string; startTime: string; durationMs: string; slot: number; startBlock: string }>('svc_getEpoch');
    assert.equal(Number(BigInt(epoch.number)), Math.floor(head / PARAMS.epochLengthBlocks));
    assert.equal(epoch.slot, head % PARAMS.epochLengthBlocks);
    assert.equal(BigInt(epoch.durationMs), BigInt(PARAMS.epochLengthBlocks * chainParams.maxBlockTimeMs));
    const start = await client.getBlock({ blockNumber: BigInt(epoch.startBlock) });
    assert.equal(BigInt(epoch.startTime), start.timestamp);
  });

  it('svc_getValidatorSet answers past epochs and -32001 for epochs not reached', async () => {
    const first = await rpc<{ epoch: string; validators: { address: string; votingPower: string }[] }>('svc_getValidatorSet', ['0x0']);
    assert.deepEqual(first.validators.map((v) => v.address), [genesisValidator.address]);
    assert.equal(BigInt(first.validators[0]!.votingPower), system.devGenesisValidator.selfStake / PARAMS.powerReduction);
    await assert.rejects(rpc('svc_getValidatorSet', ['0xffff']), { code: -32001 });
  });

  it('svc_getNetworkStats, svc_getNodeInfo and svc_getContributionScore describe the chain and this validator', async () => {
    const stats = await rpc<{ totalValidators: number; activeValidators: number; totalStaked: string; latestBlock: string }>('svc_getNetworkStats');
    assert.equal(stats.totalValidators, 2);
    assert.equal(stats.activeValidators, 2);
    const staked = node.app.staking.state.validators().reduce((s, v) => s + v.tokens, 0n);
    assert.equal(BigInt(stats.totalStaked), staked);
    assert.equal(Number(BigInt(stats.latestBlock)), node.services.chain.head().number);
    const info = await rpc<{ chainId: number; isValidator: boolean; syncing: boolean; currentBlock: number }>('svc_getNodeInfo');
    assert.equal(info.chainId, 9000);
    assert.equal(info.isValidator, true);
    assert.equal(info.syncing, false);
    const score = await rpc<number>('svc_getContributionScore', [genesisValidator.address]);
    // Stake alone counts here, and the genesis validator holds the most: a full score.
    assert.equal(score, 100);
  });

  it('svc_getPendingTransactions lists what waits in the pool', async () => {
    const wallet = createWalletClient({ account: alice, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
    const hash = await wallet.sendTransaction({ to: bob.address, value: 1n, gas: 21_000n });
    assert.deepEqual(await rpc<string[]>('svc_getPendingTransactions'), [hash]);
    await block();
    assert.deepEqual(await rpc<string[]>('svc_getPendingTransactions'), []);
  });
});

describe('faucet', () => {
  const first = '0x00000000000000000000000000000000000f0001' as Hex;
  const second = '0x00000000000000000000000000000000000f0002' as Hex;

  it('sends the fixed amount once, then refuses the address and the IP during their cooldowns', async () => {
    const sent = await rpc<{ transactionHash: string; amount: string }>('svc_requestFaucet', [first]);
    assert.equal(BigInt(sent.amount), 10n * ETHER);
    await block();
    assert.equal(await client.getBalance({ address: first }), 10n * ETHER);
    assert.equal((await client.getTransactionReceipt({ hash: sent.transactionHash as Hash })).status, 'success');
    await assert.rejects(rpc('svc_requestFaucet', [first]), (err: Error & { code: number }) => err.code === -32005 && /this address/.test(err.message));
    await assert.rejects(rpc('svc_requestFaucet', [second]), (err: Error & { code: number }) => err.code === -32005 && /this IP/.test(err.message));
    await assert.rejects(rpc('svc_requestFaucet', ['0x1234']), { code: -32602 });
  });

  it('is not served on mainnet (-32004)', async () => {
    const { Faucet } = await import('../src/rpc/faucet.js');
    const mainnet = new Faucet({ ...node.services, config: { ...node.services.config, network: 'mainnet' } });
    await assert.rejects(mainnet.fund(Buffer.alloc(20, 1), '10.0.0.1'), { code: -32004 });
  });
});

describe('svc_* results follow the spec: every field present with its type', () => {
  const HEX = /^0x(0|[1-9a-f][0-9a-f]*)$/;
  const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
  const HASH = /^0x[0-9a-f]{64}$/;
  type Kind = 'hex' | 'number' | 'string' | 'boolean' | 'address' | 'numberOrNull' | 'object' | 'array';
  const is: Record<Kind, (v: unknown) => boolean> = {
    hex: (v) => typeof v === 'string' && HEX.test(v),
    number: (v) => typeof v === 'number' && Number.isFinite(v),
    string: (v) => typeof v === 'string',
    boolean: (v) => typeof v === 'boolean',
    address: (v) => typeof v === 'string' && ADDRESS.test(v),
    numberOrNull: (v) => v === null || (typeof v === 'number' && Number.isFinite(v)),
    object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
    array: (v) => Array.isArray(v),
  };
  function conforms(what: string, value: unknown, schema: Record<string, Kind>): void {
    assert.ok(is.object(value), `${what}: an object`);
    for (const [field, kind] of Object.entries(schema)) {
      assert.ok(field in (value as object), `${what}.${field} is missing`);
      assert.ok(is[kind]((value as Record<string, unknown>)[field]), `${what}.${field} should be ${kind}, is ${JSON.stringify((value as Record<string, unknown>)[field])}`);
    }
  }
  const summary: Record<string, Kind> = {
    address: 'address',
    totalStake: 'hex',
    contributionScore: 'number',
    commission: 'number',
    status: 'string',
    uptime: 'number',
    moniker: 'string',
  };

  it('svc_getValidators and svc_getValidator', async () => {
    const list = await rpc<unknown[]>('svc_getValidators');
    assert.equal(list.length, 2);
    for (const v of list) conforms('validator summary', v, summary);
    const detail = await rpc<Record<string, unknown>>('svc_getValidator', [operator.address]);
    conforms('validator detail', detail, {
      ...summary,
      operatorAddress: 'address',
      selfStake: 'hex',
      delegatedStake: 'hex',
      delegatorCount: 'number',
      scoreBreakdown: 'object',
      blocksProduced: 'hex',
      blocksMissed: 'hex',
      totalRewards: 'hex',
      registeredAt: 'hex',
      lastActiveAt: 'hex',
    });
    conforms('scoreBreakdown', detail.scoreBreakdown, { staking: 'number', compute: 'number', uptime: 'number', accuracy: 'number', network: 'number' });
    for (const part of Object.values(detail.scoreBreakdown as Record<string, number>)) assert.ok(part >= 0 && part <= 100);
  });

  it('svc_getValidatorSet, svc_getStakeInfo, svc_getDelegation, svc_getContributionScore', async () => {
    const set = await rpc<{ validators: unknown[] }>('svc_getValidatorSet');
    conforms('validator set', set, { epoch: 'hex', startBlock: 'hex', totalVotingPower: 'hex', validators: 'array' });
    for (const m of set.validators) conforms('validator set member', m, { address: 'address', votingPower: 'hex', tokens: 'hex' });
    conforms('stake info', await rpc('svc_getStakeInfo', [alice.address]), {
      stakedAmount: 'hex',
      unstakingAmount: 'hex',
      unstakingCompletesAt: 'hex',
      pendingRewards: 'hex',
    });
    const d = await rpc<{ unbonding: unknown[] }>('svc_getDelegation', [alice.address, operator.address]);
    conforms('delegation', d, { delegatorAddress: 'address', validatorAddress: 'address', shares: 'hex', balance: 'hex', pendingRewards: 'hex', unbonding: 'array' });
    assert.ok(is.number(await rpc('svc_getContributionScore', [operator.address])));
  });

  it('svc_getEpoch, svc_getNetworkStats, svc_getNodeInfo, svc_getPendingTransactions', async () => {
    conforms('epoch', await rpc('svc_getEpoch'), { number: 'hex', startTime: 'hex', durationMs: 'hex', slot: 'number' });
    conforms('network stats', await rpc('svc_getNetworkStats'), {
      latestBlock: 'hex',
      latestTimestamp: 'hex',
      avgBlockTimeMs: 'number',
      tps: 'number',
      activeAddresses: 'number',
      totalValidators: 'number',
      activeValidators: 'number',
      totalStaked: 'hex',
    });
    conforms('node info', await rpc('svc_getNodeInfo'), {
      version: 'string',
      chainId: 'number',
      peerCount: 'number',
      isValidator: 'boolean',
      syncing: 'boolean',
      startingBlock: 'numberOrNull',
      currentBlock: 'numberOrNull',
      highestBlock: 'numberOrNull',
    });
    const pending = await rpc<unknown[]>('svc_getPendingTransactions');
    assert.ok(Array.isArray(pending) && pending.every((h) => typeof h === 'string' && HASH.test(h)));
  });

  it('bad params are -32602 and unknown things -32001', async () => {
    const unknown = '0x00000000000000000000000000000000000000bb';
    for (const [methodName, params] of [
      ['svc_getValidator', []],
      ['svc_getValidator', ['0x12']],
      ['svc_getValidatorSet', ['latest']],
      ['svc_getStakeInfo', [42]],
      ['svc_getDelegation', [alice.address]],
      ['svc_getContributionScore', [true]],
      ['svc_requestFaucet', []],
      ['svc_getEpoch', [1]],
    ] as [string, unknown[]][]) {
      await assert.rejects(rpc(methodName, params), { code: -32602 }, `${methodName}(${JSON.stringify(params)})`);
    }
    for (const [methodName, params] of [
      ['svc_getValidator', [unknown]],
      ['svc_getDelegation', [unknown, operator.address]],
      ['svc_getDelegation', [alice.address, unknown]],
      ['svc_getContributionScore', [unknown]],
      ['svc_getValidatorSet', ['0x1000']],
    ] as [string, unknown[]][]) {
      await assert.rejects(rpc(methodName, params), { code: -32001 }, `${methodName}(${JSON.stringify(params)})`);
    }
  });
});

describe('live values move with the chain', () => {
  it('svc_getEpoch, svc_getNetworkStats and svc_getNodeInfo follow new blocks and transactions', async () => {
    type Stats = { latestBlock: string; latestTimestamp: string; avgBlockTimeMs: number; tps: number; activeAddresses: number };
    const before = await rpc<Stats>('svc_getNetworkStats');
    const epochBefore = await rpc<{ number: string; slot: number }>('svc_getEpoch');
    const infoBefore = await rpc<{ currentBlock: number }>('svc_getNodeInfo');
    // Transfers from three new senders, two seconds apart.
    const senders = devPrivateKeys(10).slice(5, 8).map((k) => privateKeyToAccount(k));
    for (const from of senders) {
      const wallet = createWalletClient({ account: from, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
      await wallet.sendTransaction({ to: bob.address, value: 1n, gas: 21_000n });
      await block(2);
    }
    const after = await rpc<Stats>('svc_getNetworkStats');
    const epochAfter = await rpc<{ number: string; slot: number }>('svc_getEpoch');
    const infoAfter = await rpc<{ currentBlock: number }>('svc_getNodeInfo');
    assert.equal(BigInt(after.latestBlock), BigInt(before.latestBlock) + 3n);
    assert.equal(BigInt(after.latestTimestamp), BigInt(before.latestTimestamp) + 6n);
    assert.equal(infoAfter.currentBlock, infoBefore.currentBlock + 3);
    assert.notDeepEqual(epochAfter, epochBefore);
    assert.ok(after.activeAddresses >= 3);
    // Recomputed from the blocks themselves: the window of the last 100 blocks.
    const head = await client.getBlock();
    // Genesis stays out of the window once there is a block after it (its time is fixed, not when the chain began).
    const oldest = await client.getBlock({ blockNumber: head.number > 101n ? head.number - 100n : 1n });
    const blocks = Number(head.number - oldest.number);
    // Timed by the blocks' millisecond times (timestampMs: the header's seconds and the milliseconds its mixHash carries).
    const timeMs = (b: object): number => Number(BigInt((b as { timestampMs: string }).timestampMs));
    assert.equal(timeMs(head), Number(head.timestamp) * 1000 + Number(BigInt(head.mixHash) & 0xffffn));
    const spanMs = timeMs(head) - timeMs(oldest);
    assert.equal(after.avgBlockTimeMs, Math.round(spanMs / blocks));
    let txs = 0;
    for (let n = oldest.number + 1n; n <= head.number; n++) txs += (await client.getBlock({ blockNumber: n })).transactions.length;
    assert.equal(after.tps, Number(((txs * 1000) / spanMs).toPrecision(6)));
    assert.ok(after.tps > 0);
  });
});
