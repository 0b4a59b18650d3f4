// Governance end to end through viem, from wallets, on an in-process devnet (200 ms blocks,
// 10-block epochs, short deposit and voting periods): a parameter change deposited in two parts,
// voted by two validators with a delegator overriding its validator, passes and applies from the
// next epoch's first block (the block gas limit in the headers, the public task minimum fee in the
// compute module's decisions, the spot-check rate in the rules); a vetoed proposal burns its
// deposit; a vote without quorum fails and burns it (the devnet's rule, docs/governance.md); a
// proposal that never reaches the minimum deposit expires and is refunded; treasury spends pay
// their recipient to the wei, at once and vested over epochs; and reverts change nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  http,
  parseEventLogs,
  type Abi,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { governance as defaultGovernance, staking as defaultStaking, system, type GovernanceParams, type StakingParams } from '../src/params.js';
import { epochStartHeight } from '../src/modules/staking/epoch.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { replayChain } from '../src/chain/replay.js';
import { pino } from 'pino';
import { devPrivateKeys } from './support/dev-accounts.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { svcDevnet } from './support/viem-chain.js';

const abi = (name: string) => JSON.parse(readFileSync(path.join(repoRoot(), 'abi', `${name}.json`), 'utf8')) as Abi;
const GOV_ABI = abi('governance');
const STAKING_ABI = abi('staking');
const COMPUTE_ABI = abi('compute');
const GOV = system.governanceAddress as Hex;
const STAKING = system.stakingAddress as Hex;
const COMPUTE = system.computeAddress as Hex;
const TREASURY = system.treasuryAddress as Hex;
const ETHER = 10n ** 18n;

const GOVERNANCE: GovernanceParams = { ...defaultGovernance, depositPeriodSeconds: 10, votingPeriodSeconds: 8 };
/**
 * The multiplier pinned at 1x, so that every block mints the same reward; no downtime penalty, since
 * the solo driver's blocks carry the proposer's signature only and validator B must stay bonded.
 */
const STAKING_PARAMS: StakingParams = {
  ...defaultStaking,
  epochLengthBlocks: 10,
  rewardMultiplierMinBps: 10_000,
  rewardMultiplierMaxBps: 10_000,
  minSignedPerWindowBps: 0,
};

const keys = devPrivateKeys(8);
const accounts: PrivateKeyAccount[] = keys.map((k) => privateKeyToAccount(k));
/** Dev account 0: the genesis validator (1,000 tokens of its own). */
const validatorA = accounts[0]!;
/** Registers a second validator with 500 tokens. */
const validatorB = accounts[1]!;
/** Delegates 600 tokens to validator A, then votes itself. */
const delegator = accounts[2]!;
const proposer = accounts[3]!;
const depositor = accounts[4]!;

let node: RunningNode;
let dataDir: string;
let client: PublicClient;

const wallet = (a: PrivateKeyAccount) => createWalletClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), account: a });

async function send(from: PrivateKeyAccount, to: Hex, contractAbi: Abi, functionName: string, args: unknown[], value = 0n): Promise<TransactionReceipt> {
  const hash: Hash = await wallet(from).writeContract({ address: to, abi: contractAbi, functionName, args, value, gas: 1_000_000n } as never);
  return client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

const gov = (from: PrivateKeyAccount, functionName: string, args: unknown[], value = 0n) => send(from, GOV, GOV_ABI, functionName, args, value);

/** A call that must revert: eth_call gives its reason, and the same transaction mined reverts and changes nothing. */
async function reverts(from: PrivateKeyAccount, functionName: string, args: unknown[], value: bigint, reason: RegExp): Promise<void> {
  await assert.rejects(client.simulateContract({ address: GOV, abi: GOV_ABI, functionName, args, value, account: from.address } as never), reason, functionName);
  const r = await gov(from, functionName, args, value);
  assert.equal(r.status, 'reverted', `${functionName} mined`);
}

/** The proposal id a submission's ProposalSubmitted log carries. */
function submittedId(r: TransactionReceipt): bigint {
  const [e] = parseEventLogs({ abi: GOV_ABI, logs: r.logs, eventName: 'ProposalSubmitted' });
  assert.ok(e, 'ProposalSubmitted logged');
  return (e.args as { proposalId: bigint }).proposalId;
}

async function proposal(id: bigint) {
  const [kind, status, who, totalDeposit, , , votingStart, votingEnd] = (await client.readContract({ address: GOV, abi: GOV_ABI, functionName: 'getProposal', args: [id] })) as [
    string, string, string, bigint, bigint, bigint, bigint, bigint,
  ];
  return { kind, status, proposer: who, totalDeposit, votingStart, votingEnd };
}

async function untilStatus(id: bigint, done: (s: string) => boolean, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await proposal(id);
    if (done(status)) return status;
    if (Date.now() > end) throw new Error(`proposal ${id} still ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function untilHeight(h: bigint): Promise<void> {
  while ((await client.getBlockNumber({ cacheTime: 0 })) < h) await new Promise((r) => setTimeout(r, 50));
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-governance-'));
  node = await startNode(devnetConfig(dataDir), { governanceParams: GOVERNANCE, stakingParams: STAKING_PARAMS });
  client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 }) as PublicClient;
  // Validator B (500 tokens) and a delegator of A (600 tokens); both count from the next epoch.
  await send(validatorB, STAKING, STAKING_ABI, 'registerValidator', ['validator-b', 500, 2_000, 100], 500n * ETHER);
  await send(delegator, STAKING, STAKING_ABI, 'delegate', [validatorA.address], 600n * ETHER);
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const epoch = Math.floor(Number(head) / STAKING_PARAMS.epochLengthBlocks);
  await untilHeight(BigInt(epochStartHeight(epoch + 1, STAKING_PARAMS)) + 1n);
  const active = node.app.staking.state.validators().filter((v) => v.status === 'active').map((v) => v.address);
  assert.deepEqual(active.sort(), [validatorA.address.toLowerCase(), validatorB.address.toLowerCase()].sort(), 'both validators bonded');
});

let replayDir: string | undefined;

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (replayDir) rmSync(replayDir, { recursive: true, force: true });
});

describe('governance through wallets', () => {
  it('a parameter change deposited in two parts, voted by two validators and an overriding delegator, applies from the next epoch', async () => {
    const oldGas = node.app.live.chain.blockGasLimit;
    const oldMinFee = node.app.live.compute.publicTaskMinFee;
    const newMinFee = oldMinFee * 10n;
    const submit = await gov(proposer, 'submitParameterChange', [
      'Spot-check every proof',
      'Raise the spot-check rate to 100%, the public task minimum fee tenfold and lower the block gas limit.',
      ['compute.spotCheckBps', 'compute.publicTaskMinFee', 'chain.blockGasLimit'],
      [10_000n, newMinFee, 250_000_000n],
    ], 4n * ETHER);
    assert.equal(submit.status, 'success');
    const id = submittedId(submit);
    assert.equal((await proposal(id)).status, 'deposit-period');
    // Votes are refused until the minimum deposit is in.
    await reverts(validatorA, 'vote', [id, 1], 0n, /deposit period/);
    const dep = await gov(depositor, 'deposit', [id], 6n * ETHER);
    const events = parseEventLogs({ abi: GOV_ABI, logs: dep.logs }).map((e) => e.eventName);
    assert.deepEqual(events, ['ProposalDeposit', 'VotingPeriodStarted']);
    assert.equal((await proposal(id)).status, 'voting-period');
    assert.equal((await proposal(id)).totalDeposit, 10n * ETHER);

    // A votes yes (its 1,000 and, by inheritance, its delegators'), B yes, the delegator abstains over A's vote.
    await gov(validatorA, 'vote', [id, 1]);
    await gov(validatorB, 'vote', [id, 1]);
    await gov(delegator, 'vote', [id, 3]); // no...
    await gov(delegator, 'vote', [id, 2]); // ...changed to abstain: the last vote counts
    assert.equal(await client.readContract({ address: GOV, abi: GOV_ABI, functionName: 'getVote', args: [id, delegator.address] }), 2);
    const [yes, abstain, no, veto] = (await client.readContract({ address: GOV, abi: GOV_ABI, functionName: 'getTally', args: [id] })) as bigint[];
    assert.deepEqual([yes, abstain, no, veto], [1_500n * ETHER, 600n * ETHER, 0n, 0n], 'the delegator\'s 600 left A\'s yes for abstain');

    const early = await send(proposer, COMPUTE, COMPUTE_ABI, 'submitTask', ['svc-embed-small@v1.0', 'under the old fee'], oldMinFee);
    assert.equal((await proposal(id)).status, 'voting-period', 'the task landed while the vote ran');
    const proposerBefore = await client.getBalance({ address: proposer.address });
    const depositorBefore = await client.getBalance({ address: depositor.address });
    assert.equal(await untilStatus(id, (s) => s !== 'voting-period'), 'passed');
    const record = node.app.governance.proposal(Number(id))!;
    assert.equal(record.deposits, 'refunded');
    assert.equal(await client.getBalance({ address: proposer.address }), proposerBefore + 4n * ETHER, 'deposit returned to the wei');
    assert.equal(await client.getBalance({ address: depositor.address }), depositorBefore + 6n * ETHER);
    const applies = record.execution!.appliesAtEpoch!;
    assert.equal(record.execution!.result, 'applied');
    const firstBlock = BigInt(epochStartHeight(applies, STAKING_PARAMS));
    // Until the epoch ends the old rules hold (the task at the old minimum fee was taken while the vote ran).
    assert.ok(early.blockNumber < firstBlock);
    assert.equal(early.status, 'success');
    if ((await client.getBlockNumber({ cacheTime: 0 })) < firstBlock - 1n) assert.equal(node.app.live.compute.spotCheckBps, 500);
    await untilHeight(firstBlock);
    const before = await client.getBlock({ blockNumber: firstBlock - 1n });
    const atChange = await client.getBlock({ blockNumber: firstBlock });
    assert.equal(before.gasLimit, BigInt(oldGas));
    assert.equal(atChange.gasLimit, 250_000_000n, 'the first block of the epoch has the new gas limit');
    assert.equal(node.app.live.compute.spotCheckBps, 10_000);
    assert.equal(node.app.live.compute.publicTaskMinFee, newMinFee);
    await assert.rejects(
      client.simulateContract({ address: COMPUTE, abi: COMPUTE_ABI, functionName: 'submitTask', args: ['svc-embed-small@v1.0', 'under the new fee'], value: oldMinFee, account: proposer.address }),
      /fee/i,
      'a task at the old minimum is refused now',
    );
    assert.equal((await send(proposer, COMPUTE, COMPUTE_ABI, 'submitTask', ['svc-embed-small@v1.0', 'under the new fee'], oldMinFee)).status, 'reverted');
  });

  it('a vetoed proposal burns its deposit', async () => {
    const r = await gov(proposer, 'submitText', ['Rename the chain', 'Signalling only.'], 10n * ETHER);
    const id = submittedId(r);
    await gov(validatorA, 'vote', [id, 4]); // 1,600 with its delegator: veto
    await gov(validatorB, 'vote', [id, 1]);
    const burnedBefore = node.app.governance.global.depositsBurned;
    const heldBefore = await client.getBalance({ address: GOV });
    const proposerBefore = await client.getBalance({ address: proposer.address });
    assert.equal(await untilStatus(id, (s) => s !== 'voting-period'), 'vetoed');
    const record = node.app.governance.proposal(Number(id))!;
    assert.equal(record.deposits, 'burned');
    const block = BigInt(record.finalHeight!);
    assert.equal(await client.getBalance({ address: GOV, blockNumber: block }), heldBefore - 10n * ETHER, 'the module no longer holds it');
    assert.equal(await client.getBalance({ address: proposer.address }), proposerBefore, 'nothing returned');
    assert.equal(node.app.governance.global.depositsBurned, burnedBefore + 10n * ETHER);
  });

  it('a vote without quorum fails and burns the deposit; a proposal short of the minimum deposit expires and is refunded', async () => {
    const r = await gov(proposer, 'submitText', ['Quiet', 'Only the delegator votes.'], 10n * ETHER);
    const id = submittedId(r);
    await gov(delegator, 'vote', [id, 1]); // 600 of 2,100 bonded: 28.6%, under 33.4%
    assert.equal(node.app.staking.state.validators().filter((v) => v.status === 'active').reduce((a, v) => a + v.tokens, 0n), 2_100n * ETHER);
    const burnedBefore = node.app.governance.global.depositsBurned;
    assert.equal(await untilStatus(id, (s) => s !== 'voting-period'), 'no-quorum');
    assert.equal(node.app.governance.proposal(Number(id))!.deposits, 'burned');
    assert.equal(node.app.governance.global.depositsBurned, burnedBefore + 10n * ETHER);

    const short = await gov(depositor, 'submitText', ['Underfunded', 'Never reaches 10 tokens.'], 3n * ETHER);
    const shortId = submittedId(short);
    const before = await client.getBalance({ address: depositor.address });
    assert.equal(await untilStatus(shortId, (s) => s !== 'deposit-period'), 'expired');
    assert.equal(node.app.governance.proposal(Number(shortId))!.deposits, 'refunded');
    assert.equal(await client.getBalance({ address: depositor.address }), before + 3n * ETHER);
    await reverts(depositor, 'deposit', [shortId], ETHER, /expired/);
  });

  it('treasury spends pay their recipients to the wei, at once and vested over epochs', async () => {
    const payee = '0x00000000000000000000000000000000000b0b01' as Hex;
    const vested = '0x00000000000000000000000000000000000b0b02' as Hex;
    const amount = 1_234_567_890_123_456_789n;
    const parts = 3;
    const vestedAmount = 1_000_000_000_000_000_001n; // 3 parts of 333...333 and the remainder last
    const a = submittedId(await gov(proposer, 'submitTreasurySpend', ['Grant', 'Pays at once.', payee, amount, 0], 10n * ETHER));
    const b = submittedId(await gov(proposer, 'submitTreasurySpend', ['Vested grant', 'Three epochs.', vested, vestedAmount, parts], 10n * ETHER));
    for (const id of [a, b]) {
      await gov(validatorA, 'vote', [id, 1]);
      await gov(validatorB, 'vote', [id, 1]);
    }
    assert.equal(await untilStatus(a, (s) => s !== 'voting-period'), 'passed');
    assert.equal(await untilStatus(b, (s) => s !== 'voting-period'), 'passed');
    const paidAt = node.app.governance.proposal(Number(a))!.finalHeight!;
    await untilHeight(BigInt(paidAt));
    assert.equal(await client.getBalance({ address: payee, blockNumber: BigInt(paidAt) }), amount, 'paid in the block that executed it');
    assert.equal(await client.getBalance({ address: payee, blockNumber: BigInt(paidAt - 1) }), 0n);
    // The vested one: a part at the first block of each of the next three epochs.
    const execEpoch = Math.floor(node.app.governance.proposal(Number(b))!.finalHeight! / STAKING_PARAMS.epochLengthBlocks);
    const starts = [1, 2, 3].map((k) => BigInt(epochStartHeight(execEpoch + k, STAKING_PARAMS)));
    await untilHeight(starts[2]!);
    const part = vestedAmount / BigInt(parts);
    assert.equal(await client.getBalance({ address: vested, blockNumber: starts[0]! - 1n }), 0n);
    assert.equal(await client.getBalance({ address: vested, blockNumber: starts[0]! }), part);
    assert.equal(await client.getBalance({ address: vested, blockNumber: starts[1]! }), 2n * part);
    assert.equal(await client.getBalance({ address: vested, blockNumber: starts[2]! }), vestedAmount, 'the last part carries the remainder');
    // The treasury's accounts: its balance equals inflows - outflows at the head, and the spends are the outflows.
    const head = await client.getBlockNumber({ cacheTime: 0 });
    await node.app.settled();
    const t = node.app.governance.treasury();
    const [balance, inflows, outflows] = (await client.readContract({ address: GOV, abi: GOV_ABI, functionName: 'getTreasury', blockNumber: head })) as bigint[];
    assert.equal(t.outflows.spends, amount + vestedAmount);
    assert.equal(balance, inflows! - outflows!);
    assert.ok(t.inflows.blockRewards! > 0n);
    assert.equal(await client.getBalance({ address: TREASURY }), node.app.governance.treasury().balance, 'the account holds what the accounts say');
  });

  it('bad calls revert with a reason and change nothing', async () => {
    const next = node.app.governance.global.nextProposalId;
    const cases: [string, unknown[], bigint, RegExp][] = [
      ['submitParameterChange', ['t', 'd', ['compute.noSuchParam'], [1n]], ETHER, /not a governable parameter/],
      ['submitParameterChange', ['t', 'd', ['compute.spotCheckBps'], [10_001n]], ETHER, /must lie in/],
      ['submitParameterChange', ['t', 'd', ['staking.treasuryShareBps'], [9_000n]], ETHER, /above 10000/],
      ['submitParameterChange', ['t', 'd', ['compute.spotCheckBps'], []], ETHER, /names and/],
      ['submitModelRetirement', ['t', 'd', 'svc-nothing@v1.0'], ETHER, /not approved/],
      ['submitTreasurySpend', ['t', 'd', TREASURY, 1n, 0], ETHER, /treasury itself/],
      // Every system module's account (each balance is what its records owe): bridge and rent too.
      ...[STAKING, COMPUTE, GOV, system.bridgeAddress as Hex, system.rentAddress as Hex].map(
        (a): [string, unknown[], bigint, RegExp] => ['submitTreasurySpend', ['t', 'd', a, 1n, 0], ETHER, /system module's account/],
      ),
      ['submitText', ['', 'd'], ETHER, /title is empty/],
      ['vote', [9_999n, 1], 0n, /not found/],
      ['vote', [1n, 1], 0n, /passed/],
      ['vote', [1n, 5], 0n, /passed/],
      ['deposit', [1n], ETHER, /passed/],
    ];
    const before = await client.getBalance({ address: GOV });
    for (const [fn, args, value, reason] of cases) await reverts(proposer, fn, args, value, reason);
    assert.equal(await client.getBalance({ address: GOV }), before, 'no deposit kept from a reverted call');
    assert.equal(node.app.governance.global.nextProposalId, next);
  });

  it('a change of the epoch length applies at an epoch boundary and epochs keep counting from it', async () => {
    const id = submittedId(await gov(proposer, 'submitParameterChange', ['Shorter epochs', '', ['staking.epochLengthBlocks'], [6n]], 10n * ETHER));
    await gov(validatorA, 'vote', [id, 1]);
    await gov(validatorB, 'vote', [id, 1]);
    assert.equal(await untilStatus(id, (s) => s !== 'voting-period'), 'passed');
    const applies = node.app.governance.proposal(Number(id))!.execution!.appliesAtEpoch!;
    const anchor = epochStartHeight(applies, STAKING_PARAMS); // still at 10 blocks an epoch up to here
    await untilHeight(BigInt(anchor + 6 + 1));
    await node.app.settled();
    assert.deepEqual(node.app.live.staking.epochAnchor, { height: anchor, epoch: applies });
    assert.equal(node.app.live.staking.epochLengthBlocks, 6);
    assert.equal(epochStartHeight(applies + 1, node.app.live.staking), anchor + 6);
    assert.ok(node.app.staking.state.currentEpoch >= applies + 1, 'the staking ledger closed the 6-block epoch');
    const epoch = await fetch(node.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'svc_getEpoch', params: [] }),
    }).then((r) => r.json() as Promise<{ result: { number: Hex; startBlock: Hex; lengthBlocks: number } }>);
    assert.equal(epoch.result.lengthBlocks, 6);
    const n = Number(epoch.result.number);
    assert.ok(n >= applies + 1);
    assert.equal(Number(epoch.result.startBlock), anchor + (n - applies) * 6, 'epochs of 6 blocks from the anchor');
  });

  it('a change of the downtime window and threshold applies from the next epoch, and the ledger judges by it', async () => {
    // Validator B never signs a solo block: with the devnet's threshold 0 it is never down.
    assert.equal(node.app.staking.state.validator(validatorB.address.toLowerCase() as Hex)!.status, 'active');
    const id = submittedId(await gov(proposer, 'submitParameterChange', ['Stricter liveness', '', ['staking.signedBlocksWindow', 'staking.minSignedPerWindowBps'], [20n, 9_000n]], 10n * ETHER));
    await gov(validatorA, 'vote', [id, 1]);
    await gov(validatorB, 'vote', [id, 1]);
    assert.equal(await untilStatus(id, (s) => s !== 'voting-period'), 'passed');
    const applies = node.app.governance.proposal(Number(id))!.execution!.appliesAtEpoch!;
    const anchor = epochStartHeight(applies, node.app.live.staking);
    await untilHeight(BigInt(anchor));
    await node.app.settled();
    assert.equal(node.app.live.staking.signedBlocksWindow, 20);
    assert.equal(node.app.live.staking.minSignedPerWindowBps, 9_000);
    // A fresh window of 20 blocks from the change, at most 2 of them missed: B is jailed once 20 are counted.
    await untilHeight(BigInt(anchor + 20));
    await node.app.settled();
    const b = await fetch(node.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'svc_getValidator', params: [validatorB.address] }),
    }).then((r) => r.json() as Promise<{ result: { status: string; uptime: number; slashes?: unknown[] } }>);
    assert.equal(b.result.status, 'jailed', 'jailed for downtime under the new rules');
    assert.equal(b.result.uptime, 0, 'its uptime shows the missed blocks after the jail');
  });

  it('a replay of the blocks into an empty data dir reaches the same state root at every height', async () => {
    const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
    const roots: Hex[] = [];
    for (let h = 1; h <= head; h++) roots[h] = (await client.getBlock({ blockNumber: BigInt(h) })).stateRoot;
    await node.stop();
    replayDir = mkdtempSync(path.join(os.tmpdir(), 'svc-governance-replay-'));
    const replayed: Hex[] = [];
    const result = await replayChain({
      from: dataDir,
      to: path.join(replayDir, 'data'),
      genesis: { spec: devGenesis('devnet'), validators: devGenesisValidators() },
      chainId: 9000,
      stakingParams: STAKING_PARAMS,
      governanceParams: GOVERNANCE,
      log: pino({ level: 'silent' }),
      toHeight: head,
      onBlock: (height, root) => (replayed[height] = `0x${root.toString('hex')}`),
    });
    assert.equal(result.blocks, head);
    for (let h = 1; h <= head; h++) assert.equal(replayed[h], roots[h], `root at height ${h}`);
  });
});
