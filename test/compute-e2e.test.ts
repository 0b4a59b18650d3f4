// Proof-of-contribution compute end to end: an in-process node in inference mode (svc-embed-small on
// the CPU, 200 ms blocks, 10-block epochs) and the real `svc-miner` program with the real model,
// talking JSON-RPC over HTTP. The miner registers, gets challenge tasks at each epoch's first block,
// proves them; the proofs are accepted through the genesis validator, whose inferenceScore,
// tasksCompleted and compute score rise, and the miner's wallet is paid its block rewards. Two public
// tasks are paid from dev wallets (viem writeContract, and a signed transaction through
// svc_submitInferenceTask); their results are the model's output, and each fee is split 70% miner /
// 20% validator / 10% treasury to the wei, checked on balances at the exact block that paid it and
// on svc_getInferenceStats' totals. A svcInferenceProofs WebSocket subscription sees every proof.
// Skipped, with the reason, where the inference addon or the svc-embed-small files are absent.
//
// The staking parameters pin the block-reward multiplier at 1x (as test/staking.test.ts does), so
// the treasury's share of each block reward is a known constant and a fee's treasury part can be
// read off the treasury's balance at the paying block. Everything else is the devnet's defaults
// (spot-checks at 5%: a fee is paid one block after its proof, or when a drawn check passes).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  concat,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  keccak256,
  parseEventLogs,
  parseEther,
  toHex,
  type Abi,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { startNode, type RunningNode } from '../src/node.js';
import { staking as defaultStaking, system, type StakingParams } from '../src/params.js';
import { bytesOf, hexOf, inputHash, outputHash } from '../src/modules/compute/wire.js';
import { inferenceAddon } from '../src/native/inference.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { SVC_MINER, spawnCli, type CliProcess } from './support/cli-process.js';
import { SMALL, missingSmallModel, requireOrSkip, testModelDir } from './support/inference.js';
import { rpc as rpcAt, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { svcDevnet } from './support/viem-chain.js';

const ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'compute.json'), 'utf8')) as Abi;
const COMPUTE = system.computeAddress as Hex;
const TREASURY = system.treasuryAddress as Hex;
const BPS = 10_000n;
const MINER_BPS = 7_000n;
const VALIDATOR_BPS = 2_000n;

/** Devnet staking with the reward multiplier pinned at 1x: every block mints exactly `blockReward`. */
const STAKING: StakingParams = { ...defaultStaking, rewardMultiplierMinBps: 10_000, rewardMultiplierMaxBps: 10_000 };
/** The treasury's share of every block's reward (10% of 2 tokens). */
const TREASURY_PER_BLOCK = (STAKING.blockReward * BigInt(STAKING.treasuryShareBps)) / BPS;

const keys = devPrivateKeys(3);
/** Dev account 0: the genesis validator, the solo driver's coinbase. */
const validator = privateKeyToAccount(keys[0]!);
/** Pays a public task with viem's writeContract. */
const alice = privateKeyToAccount(keys[1]!);
/** Pays a public task with a transaction signed here and sent through svc_submitInferenceTask. */
const bob = privateKeyToAccount(keys[2]!);

const PUBLIC_INPUTS = [
  'Proof of contribution: a public inference task, paid in SVC and computed by a miner.',
  'Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.',
];
/** 0.01 token, and 0.0123 token plus 7 wei so the 70/20/10 split has rounding to give to the treasury. */
const FEES = [parseEther('0.01'), parseEther('0.0123') + 7n];

/** Skipped where the addon or svc-embed-small is absent; in CI that fails instead. */
const skip = requireOrSkip(missingSmallModel());

// ---------------------------------------------------------------------------------------------
// Shapes of the svc_* answers this test reads (docs/compute.md).

interface Stats {
  computeMode: string;
  blockNumber: number;
  epoch: number;
  models: { id: string; servedByThisNode: boolean; tasksAssigned: number; tasksCompleted: number }[];
  tasks: { created: number; public: number; challenge: number; assigned: number; completed: number; expired: number; open: number; waiting: number };
  proofs: { submitted: number; accepted: number; rejected: number; rejectedAtSubmission: number; failedSpotCheck: number; dropped: number; rejectedByReason: Record<string, number> };
  spotChecks: { selected: number; passed: number; failed: number; pending: number };
  totalFlops: string;
  rewardsPaid: Record<'blockRewards' | 'taskFeesToMiners' | 'taskFeesToValidators' | 'taskFeesToTreasury' | 'refunded' | 'minerPool', Hex>;
  miners: { registered: number; active: number; jailed: number };
}

interface MinerInfo {
  wallet: string;
  registered: boolean;
  status: string;
  publicKey?: Hex;
  tier?: string;
  models?: string[];
  inferenceScore?: string;
  tasksCompleted: string;
  proofsAccepted: string;
  spotChecksFailed?: number;
  flops?: string;
  blockRewards?: Hex;
  feeRewards?: Hex;
  rewards: Hex;
}

interface ValidatorInfo {
  address: string;
  computeMode: string;
  providesCompute: boolean;
  inferenceScore: string;
  tasksCompleted: string;
  scoreBreakdown?: { compute: number };
}

interface TaskView {
  taskId: Hex;
  kind: string;
  modelId: string;
  input: string;
  inputHash: Hex;
  fee: Hex;
  submitter: string | null;
  status: string;
  createdAt: Hex;
  assignedTo: string | null;
  assignedEpoch: number | null;
  completedAt: Hex | null;
  result: { proofId: Hex; miner: string; validator: string; outputHash: Hex; quantized: Hex; spotCheck: string } | null;
}

interface ProofView {
  proofId: Hex;
  taskId: Hex;
  taskKind: string;
  validator: string;
  miner: string;
  modelId: string;
  inputHash: Hex;
  outputHash: Hex;
  quantized: Hex;
  flops: string;
  includedAt: Hex;
  blockReward: Hex;
  fee: { miner: Hex; validator: Hex; treasury: Hex; paid: boolean };
  spotCheck: string;
  spotCheckResult: { checkedAt: Hex } | null;
}

interface ProofEvent extends ProofView {
  event: 'accepted' | 'spotCheckPassed' | 'spotCheckFailed';
  blockNumber: Hex;
}

// ---------------------------------------------------------------------------------------------
// State shared by the tests, which run in order against one chain.

let node: RunningNode;
let dataDir: string;
let client: PublicClient;
let ws: WebSocket | undefined;
const proofEvents: ProofEvent[] = [];
/** The highest newHeads notification received on the subscription's connection. */
let wsHead = -1;
let wallet: { address: Hex; privateKey: Hex; publicKey: Hex; walletKey: Hex };
let miner: CliProcess | undefined;
/** The public tasks: how each was sent, its transaction, id and fee. */
const publicTasks: { via: string; submitter: PrivateKeyAccount; input: string; fee: bigint; txHash: Hash; taskId: Hex }[] = [];
const started = Date.now();
/** Figures for the report at the end. */
const figures: Record<string, unknown> = {};

const rpc = <T>(method: string, params: unknown[] = []): Promise<T> => rpcAt<T>(node.rpcUrl, method, params);
const stats = () => rpc<Stats>('svc_getInferenceStats');
const minerInfo = () => rpc<MinerInfo>('svc_getInferenceMiner', [wallet.address]);
const genesisValidator = async () => (await rpc<ValidatorInfo[]>('svc_getValidators')).find((v) => v.address === validator.address)!;
const balanceAt = async (address: string, block: number) => BigInt(await rpc<Hex>('eth_getBalance', [address, toHex(block)]));
const head = async () => Number(await rpc<Hex>('eth_blockNumber'));
const same = (a: string | null | undefined, b: string) => a?.toLowerCase() === b.toLowerCase();

/** What the miner printed so far, for failure messages. */
const minerOutput = () => (miner ? `--- svc-miner stderr ---\n${miner.stderr().slice(-6000)}\n--- stdout ---\n${miner.stdout()}` : '(no miner)');

/** Waits (generously: a 2-core machine runs the node, the miner and the model) and says what the miner was doing on a timeout. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 40_000): Promise<T> {
  try {
    return await waitFor(what, probe, timeoutMs, 100);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${minerOutput()}`);
  }
}

/** `read` evaluated with the head unchanged from before to after it: the value is the state at that block. */
async function atOneBlock<T>(read: () => Promise<T>): Promise<{ block: number; value: T }> {
  for (let i = 0; i < 50; i++) {
    const before = await head();
    const value = await read();
    if ((await head()) === before) return { block: before, value };
  }
  throw new Error('the head kept moving while reading');
}

async function generateWallet(): Promise<typeof wallet> {
  const p = spawnCli(SVC_MINER, ['--generate-wallet']);
  const code = await p.exit;
  const out = p.stdout();
  assert.equal(code, 0, p.stderr());
  return JSON.parse(out) as typeof wallet;
}

function startMiner(): CliProcess {
  const args = [
    '--wallet', wallet.address, '--private-key', wallet.privateKey, '--validator-rpc', node.rpcUrl,
    '--model-dir', testModelDir(), '--backend', 'cpu', '--poll-interval', '500', '--verbose',
  ];
  return spawnCli(SVC_MINER, args);
}

/**
 * A node-side svcInferenceProofs subscription, collected in proofEvents, and newHeads on the same
 * connection: a block's notifications go out in order (head, then its proofs), so once the head of
 * block N+1 is in, every proof event of block N is too.
 */
async function subscribeProofs(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const answers = new Map<number, (msg: { result?: string; error?: { message: string } }) => void>();
  const subs = new Map<string, 'svcInferenceProofs' | 'newHeads'>();
  socket.on('message', (data: WebSocket.RawData) => {
    const msg = JSON.parse(data.toString()) as {
      id?: number; result?: string; error?: { message: string }; method?: string; params?: { subscription: string; result: unknown };
    };
    if (msg.id !== undefined) answers.get(msg.id)?.(msg);
    else if (msg.method === 'eth_subscription' && msg.params) {
      const kind = subs.get(msg.params.subscription);
      if (kind === 'svcInferenceProofs') proofEvents.push(msg.params.result as ProofEvent);
      else if (kind === 'newHeads') wsHead = Math.max(wsHead, Number((msg.params.result as { number: Hex }).number));
    }
  });
  let nextId = 1;
  for (const kind of ['newHeads', 'svcInferenceProofs'] as const) {
    const id = nextId++;
    const sub = await new Promise<string>((resolve, reject) => {
      answers.set(id, (msg) => (msg.error ? reject(new Error(msg.error.message)) : resolve(msg.result!)));
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params: [kind] }));
    });
    assert.match(sub, /^0x[0-9a-f]+$/);
    subs.set(sub, kind);
  }
  return socket;
}

/** Waits until the subscription has delivered everything up to and including block `n`. */
const eventsThrough = (n: number) => until(`the WebSocket notifications of block ${n}`, async () => (wsHead > n ? true : undefined));

/** The block whose start paid a proof's fee: the next one when not drawn, the verdict's when checked. */
function paidAt(p: ProofView): number {
  if (p.spotCheck === 'passed') return Number(p.spotCheckResult!.checkedAt);
  assert.equal(p.spotCheck, 'not-selected', `proof ${p.proofId}: its fee can only be paid after the draw or a passed check`);
  return Number(p.includedAt) + 1;
}

// ---------------------------------------------------------------------------------------------

describe('compute end to end: a node in inference mode and a real svc-miner', { skip, timeout: 180_000 }, () => {
  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-compute-e2e-'));
    node = await startNode(
      devnetConfig(dataDir, { computeMode: 'inference', modelDir: testModelDir(), models: [SMALL], inferenceBackend: 'cpu', blockTimeMs: 200 }),
      { stakingParams: STAKING },
    );
    client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 100 });
    ws = await subscribeProofs(node.wsUrl);
    wallet = await generateWallet();
  });

  after(async () => {
    if (miner && miner.child.exitCode === null && miner.child.signalCode === null) miner.child.kill('SIGKILL');
    ws?.close();
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    figures.wallSeconds = Math.round((Date.now() - started) / 100) / 10;
    process.stdout.write(`compute-e2e figures: ${JSON.stringify(figures)}\n`);
  });

  it('runs the node in inference mode, serving svc-embed-small, with nothing mined yet', async () => {
    const s = await stats();
    assert.equal(s.computeMode, 'inference');
    const small = s.models.find((m) => m.id === SMALL);
    assert.ok(small?.servedByThisNode, 'the node serves svc-embed-small');
    assert.equal(s.proofs.accepted, 0);
    assert.equal(s.miners.registered, 0);
    // The first block records the node's mode for its validator.
    const v = await until('the validator announced as inference', async () => {
      const g = await genesisValidator();
      return g.computeMode === 'inference' ? g : undefined;
    });
    assert.equal(v.providesCompute, false, 'no proof yet');
    assert.equal(v.inferenceScore, '0');
    assert.equal(v.tasksCompleted, '0');
    assert.equal((await minerInfo()).registered, false);
    assert.equal(await client.getBalance({ address: wallet.address }), 0n, 'a fresh wallet');
  });

  it('the miner registers through the node with its key, tier and model', async () => {
    miner = startMiner();
    const m = await until('the registration in force', async () => {
      const info = await minerInfo();
      return info.registered ? info : undefined;
    });
    assert.equal(m.status, 'active');
    assert.equal(m.wallet, wallet.address);
    assert.equal(m.publicKey, wallet.publicKey);
    assert.equal(m.tier, inferenceAddon().detectHardware('cpu').tier);
    assert.deepEqual(m.models, [SMALL], 'the one pinned model its tier runs (svc-classify-small needs Warm)');
    const s = await stats();
    assert.equal(s.miners.registered, 1);
    assert.equal(s.miners.active, 1);
  });

  it('takes public tasks paid by wallets: writeContract, and a signed transaction through svc_submitInferenceTask', async () => {
    // Alice: viem's writeContract, gas estimated by the node.
    const aliceWallet = createWalletClient({ account: alice, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
    const txA = await aliceWallet.writeContract({ address: COMPUTE, abi: ABI, functionName: 'submitTask', args: [SMALL, PUBLIC_INPUTS[0]!], value: FEES[0]! });
    // Bob: a raw transaction prepared by viem, signed here, pooled by svc_submitInferenceTask.
    const bobWallet = createWalletClient({ account: bob, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
    const request = await bobWallet.prepareTransactionRequest({
      to: COMPUTE,
      value: FEES[1]!,
      data: encodeFunctionData({ abi: ABI, functionName: 'submitTask', args: [SMALL, PUBLIC_INPUTS[1]!] }),
    });
    const raw = await bob.signTransaction(request as Parameters<typeof bob.signTransaction>[0]);
    const answer = await rpc<{ transactionHash: Hash; taskId: Hex }>('svc_submitInferenceTask', [raw]);
    assert.equal(answer.transactionHash, keccak256(raw));
    assert.equal(answer.taskId, keccak256(concat([toHex('svc/public-task'), answer.transactionHash])), 'keccak256("svc/public-task" || tx hash)');

    for (const [i, { account, hash }] of [{ account: alice, hash: txA }, { account: bob, hash: answer.transactionHash }].entries()) {
      const receipt = await client.waitForTransactionReceipt({ hash, timeout: 20_000 });
      assert.equal(receipt.status, 'success');
      const taskId = keccak256(concat([toHex('svc/public-task'), hash]));
      const [log] = parseEventLogs({ abi: ABI, logs: receipt.logs, eventName: 'TaskSubmitted' }) as unknown as {
        address: Hex;
        topics: Hex[];
        args: { taskId: Hex; submitter: Hex; modelId: string; fee: bigint };
      }[];
      assert.ok(log, 'a TaskSubmitted log');
      assert.equal(log.address.toLowerCase(), COMPUTE);
      assert.equal(log.topics[1], taskId, 'the task id is the first indexed argument');
      assert.equal(log.args.taskId, taskId);
      assert.equal(log.args.submitter, account.address);
      assert.equal(log.args.modelId, SMALL);
      assert.equal(log.args.fee, FEES[i]);
      publicTasks.push({ via: i === 0 ? 'writeContract' : 'svc_submitInferenceTask', submitter: account, input: PUBLIC_INPUTS[i]!, fee: FEES[i]!, txHash: hash, taskId });
    }
    assert.equal(publicTasks[1]!.taskId, answer.taskId);
    for (const t of publicTasks) {
      const view = await rpc<TaskView>('svc_getInferenceTask', [t.taskId]);
      assert.equal(view.kind, 'public');
      assert.equal(view.modelId, SMALL);
      assert.equal(view.input, t.input);
      assert.equal(view.inputHash, hexOf(inputHash(t.input)));
      assert.equal(BigInt(view.fee), t.fee);
      assert.equal(view.submitter, t.submitter.address);
      assert.ok(['pending', 'assigned', 'completed'].includes(view.status), view.status);
    }
    figures.publicTasks = publicTasks.map((t) => ({ via: t.via, taskId: t.taskId, fee: t.fee.toString() }));
  });

  it('assigns challenge tasks at an epoch start and accepts the miner\'s proofs through the validator', async () => {
    const s = await until('proofs accepted', async () => {
      const x = await stats();
      return x.proofs.accepted >= 4 ? x : undefined;
    }, 50_000);
    assert.ok(s.tasks.assigned > 0 && s.tasks.challenge > 0, JSON.stringify(s.tasks));
    assert.ok(s.proofs.submitted >= s.proofs.accepted);
    assert.equal(s.proofs.rejectedAtSubmission, 0, JSON.stringify(s.proofs.rejectedByReason));
    assert.equal(s.proofs.dropped, 0);
    assert.equal(s.proofs.failedSpotCheck, 0);
    assert.ok(BigInt(s.totalFlops) > 0n);
    const m = await minerInfo();
    assert.ok(Number(m.proofsAccepted) >= 4, m.proofsAccepted);
    assert.ok(Number(m.tasksCompleted) >= 4);
    assert.ok(BigInt(m.inferenceScore!) > 0n);
    assert.ok(BigInt(m.flops!) > 0n);
    // Every accepted challenge task was created and assigned at an epoch's first block, to this miner.
    await eventsThrough(s.blockNumber);
    const challenges = proofEvents.filter((e) => e.event === 'accepted' && e.taskKind === 'challenge');
    assert.ok(challenges.length > 0);
    for (const e of challenges.slice(0, 8)) {
      const t = await rpc<TaskView>('svc_getInferenceTask', [e.taskId]);
      assert.equal(t.status, 'completed');
      assert.equal(Number(t.createdAt) % STAKING.epochLengthBlocks, 0, `task ${t.taskId} created at ${Number(t.createdAt)}`);
      assert.equal(t.assignedEpoch, Number(t.createdAt) / STAKING.epochLengthBlocks);
      assert.ok(same(t.assignedTo, wallet.address));
      assert.equal(t.result?.proofId, e.proofId);
    }
  });

  it('raises the validator\'s inferenceScore, tasksCompleted and compute score, and the miner\'s counts and rewards', async () => {
    const first = await until('validator contribution', async () => {
      const v = await genesisValidator();
      return BigInt(v.tasksCompleted) > 0n ? v : undefined;
    });
    assert.equal(first.computeMode, 'inference');
    assert.equal(first.providesCompute, true);
    assert.ok(BigInt(first.inferenceScore) > 0n);
    const detail = await rpc<ValidatorInfo>('svc_getValidator', [validator.address]);
    assert.ok(detail.scoreBreakdown!.compute > 0, `compute part ${detail.scoreBreakdown!.compute}`);
    const m1 = await minerInfo();
    assert.ok(BigInt(m1.blockRewards!) > 0n, 'block rewards paid from the miners\' pool');

    // A later epoch's proofs: everything keeps rising.
    const m2 = await until('proofs of a later epoch', async () => {
      const m = await minerInfo();
      return Number(m.proofsAccepted) >= Number(m1.proofsAccepted) + 4 ? m : undefined;
    }, 40_000);
    const second = await genesisValidator();
    assert.ok(BigInt(second.tasksCompleted) > BigInt(first.tasksCompleted));
    assert.ok(BigInt(second.inferenceScore) > 0n);
    assert.ok(BigInt(m2.blockRewards!) > BigInt(m1.blockRewards!));
    assert.ok(BigInt(m2.rewards) > BigInt(m1.rewards));
    assert.ok(BigInt(m2.flops!) > BigInt(m1.flops!));
    figures.validator = { inferenceScore: second.inferenceScore, tasksCompleted: second.tasksCompleted, computeScorePart: detail.scoreBreakdown!.compute };
  });

  it('completes the public tasks with the model\'s own output, readable by RPC and getTask', async () => {
    const model = await inferenceAddon().loadModel(SMALL, testModelDir(), 'cpu');
    const exact: boolean[] = [];
    for (const t of publicTasks) {
      const view = await until(`public task ${t.via} completed`, async () => {
        const v = await rpc<TaskView>('svc_getInferenceTask', [t.taskId]);
        return v.status === 'completed' && v.result !== null ? v : undefined;
      });
      const r = view.result!;
      assert.ok(same(view.assignedTo, wallet.address));
      assert.equal(r.miner, wallet.address);
      assert.equal(r.validator, validator.address);
      const quantized = bytesOf(r.quantized);
      assert.equal(quantized.length, 384);
      assert.equal(r.outputHash, hexOf(outputHash(SMALL, inputHash(t.input), quantized)), 'outputHash(model, inputHash(input), quantized)');
      // The addon's own run of the input: the same vector, within docs/inference.md's tolerance.
      const [mine] = await model.infer([t.input]);
      const claim = { modelId: SMALL, inputHash: inputHash(t.input), quantized: new Int8Array(quantized.buffer, quantized.byteOffset, quantized.length), outputHash: bytesOf(r.outputHash) };
      const verdict = inferenceAddon().verifyOutput(claim, { modelId: SMALL, inputHash: mine!.inputHash, quantized: mine!.quantized, outputHash: mine!.outputHash });
      assert.ok(verdict.accepted && verdict.hashMatches && verdict.sameTask, JSON.stringify(verdict));
      exact.push(Buffer.from(mine!.quantized.buffer, mine!.quantized.byteOffset, mine!.quantized.length).equals(quantized));

      const [status, modelId, fee, minerAddress, outHash] = (await client.readContract({
        address: COMPUTE, abi: ABI, functionName: 'getTask', args: [t.taskId],
      })) as [string, string, bigint, Hex, Hex];
      assert.deepEqual([status, modelId, fee, minerAddress, outHash], ['completed', SMALL, t.fee, wallet.address, r.outputHash]);
    }
    figures.publicResultsBitIdentical = exact;
  });

  it('splits each public fee 70% miner / 20% validator / 10% treasury, to the wei, at the block that pays it', async () => {
    const proofs: ProofView[] = [];
    for (const t of publicTasks) {
      const { result } = await rpc<TaskView>('svc_getInferenceTask', [t.taskId]);
      const p = await until(`fee of ${t.via} paid`, async () => {
        const x = await rpc<ProofView>('svc_getInferenceProof', [result!.proofId]);
        return x.fee.paid ? x : undefined;
      });
      const minerPart = (t.fee * MINER_BPS) / BPS;
      const validatorPart = (t.fee * VALIDATOR_BPS) / BPS;
      assert.equal(p.taskKind, 'public');
      assert.equal(p.taskId, t.taskId);
      assert.equal(BigInt(p.fee.miner), minerPart);
      assert.equal(BigInt(p.fee.validator), validatorPart);
      assert.equal(BigInt(p.fee.treasury), t.fee - minerPart - validatorPart);
      proofs.push(p);
    }
    // Fee parts paid at each block (both fees may be paid by the same one).
    const byBlock = new Map<number, { miner: bigint; validator: bigint; treasury: bigint }>();
    for (const p of proofs) {
      const b = paidAt(p);
      const e = byBlock.get(b) ?? { miner: 0n, validator: 0n, treasury: 0n };
      byBlock.set(b, { miner: e.miner + BigInt(p.fee.miner), validator: e.validator + BigInt(p.fee.validator), treasury: e.treasury + BigInt(p.fee.treasury) });
    }
    await eventsThrough(Math.max(...byBlock.keys()));
    const deltas: Record<string, Record<string, string>> = {};
    for (const [b, fees] of byBlock) {
      const block = await client.getBlock({ blockNumber: BigInt(b) });
      assert.equal(block.transactions.length, 0, `block ${b} carries no transaction, so the validator's balance moves by its fee part alone`);
      // The miner's balance also takes its share of the block-reward pool for proofs accepted in that block.
      const poolPart = proofEvents
        .filter((e) => e.event === 'accepted' && Number(e.blockNumber) === b && same(e.miner, wallet.address))
        .reduce((s, e) => s + BigInt(e.blockReward), 0n);
      const dMiner = (await balanceAt(wallet.address, b)) - (await balanceAt(wallet.address, b - 1));
      const dValidator = (await balanceAt(validator.address, b)) - (await balanceAt(validator.address, b - 1));
      const dTreasury = (await balanceAt(TREASURY, b)) - (await balanceAt(TREASURY, b - 1));
      assert.equal(dMiner, fees.miner + poolPart, `miner at block ${b}`);
      assert.equal(dValidator, fees.validator, `validator at block ${b}`);
      assert.equal(dTreasury, TREASURY_PER_BLOCK + fees.treasury, `treasury at block ${b}`);
      deltas[b] = { miner: dMiner.toString(), minerPoolPart: poolPart.toString(), validator: dValidator.toString(), treasury: dTreasury.toString(), treasuryBlockShare: TREASURY_PER_BLOCK.toString() };
    }

    // The module's totals are exactly the sums over the public tasks (challenge tasks carry no fee).
    const s = await stats();
    const sum = (k: 'miner' | 'validator' | 'treasury') => proofs.reduce((a, p) => a + BigInt(p.fee[k]), 0n);
    assert.equal(BigInt(s.rewardsPaid.taskFeesToMiners), sum('miner'));
    assert.equal(BigInt(s.rewardsPaid.taskFeesToValidators), sum('validator'));
    assert.equal(BigInt(s.rewardsPaid.taskFeesToTreasury), sum('treasury'));
    assert.equal(sum('miner') + sum('validator') + sum('treasury'), FEES.reduce((a, f) => a + f, 0n));
    assert.equal(BigInt(s.rewardsPaid.refunded), 0n);
    assert.equal(s.tasks.public, 2);
    assert.equal(BigInt((await minerInfo()).feeRewards!), sum('miner'));
    figures.feeSplit = {
      perTask: proofs.map((p, i) => ({ fee: publicTasks[i]!.fee.toString(), miner: BigInt(p.fee.miner).toString(), validator: BigInt(p.fee.validator).toString(), treasury: BigInt(p.fee.treasury).toString(), spotCheck: p.spotCheck, includedAt: Number(p.includedAt), paidAt: paidAt(p) })),
      balanceDeltas: deltas,
      totals: { taskFeesToMiners: sum('miner').toString(), taskFeesToValidators: sum('validator').toString(), taskFeesToTreasury: sum('treasury').toString() },
    };
  });

  it('the miner\'s wallet holds exactly its reported block rewards and fee rewards; the module holds the pool', async () => {
    const { block, value: m } = await atOneBlock(() => minerInfo());
    const balance = await balanceAt(wallet.address, block);
    assert.equal(BigInt(m.rewards), BigInt(m.blockRewards!) + BigInt(m.feeRewards!));
    assert.equal(balance, BigInt(m.rewards), `wallet balance at block ${block}`);
    // svc_getInferenceStats answers from one head: the compute module's balance is the undistributed pool.
    const s = await stats();
    assert.equal(await balanceAt(COMPUTE, s.blockNumber), BigInt(s.rewardsPaid.minerPool), 'the module holds the pool (every fee paid)');
    figures.miner = { proofsAccepted: m.proofsAccepted, blockRewards: BigInt(m.blockRewards!).toString(), feeRewards: BigInt(m.feeRewards!).toString(), balance: balance.toString(), atBlock: block };
  });

  it('svcInferenceProofs delivers an accepted event for every proof, with the proof\'s view', async () => {
    const s = await stats();
    await eventsThrough(s.blockNumber);
    const accepted = () => proofEvents.filter((e) => e.event === 'accepted' && Number(e.blockNumber) <= s.blockNumber);
    const events = accepted();
    assert.equal(events.length, s.proofs.accepted);
    assert.equal(new Set(events.map((e) => e.proofId)).size, events.length, 'each proof once');
    let pool = 0n;
    for (const e of events) {
      assert.equal(e.blockNumber, e.includedAt);
      assert.equal(e.miner, wallet.address);
      assert.equal(e.validator, validator.address);
      assert.equal(e.modelId, SMALL);
      assert.equal(e.spotCheck, 'undrawn', 'as included');
      assert.equal(e.outputHash, hexOf(outputHash(SMALL, bytesOf(e.inputHash), bytesOf(e.quantized))));
      pool += BigInt(e.blockReward);
    }
    assert.deepEqual(
      events.filter((e) => e.taskKind === 'public').map((e) => e.taskId).sort(),
      publicTasks.map((t) => t.taskId).sort(),
    );
    // The pool paid out by FLOPs, proof by proof, is what the module counts and what the miner got.
    assert.equal(pool, BigInt(s.rewardsPaid.blockRewards));
    for (const e of proofEvents.filter((x) => x.event !== 'accepted')) assert.equal(e.event, 'spotCheckPassed');
    // Each block lists what it accepted and decided: the same proofs as the events, block by block.
    const blocks = [...new Set(proofEvents.filter((e) => Number(e.blockNumber) <= s.blockNumber).map((e) => Number(e.blockNumber)))];
    for (const n of blocks) {
      const listed = await rpc<{ blockNumber: string; accepted: { proofId: string }[]; spotChecksDecided: { proofId: string }[] }>(
        'svc_getInferenceProofs',
        [`0x${n.toString(16)}`],
      );
      const at = proofEvents.filter((e) => Number(e.blockNumber) === n);
      assert.deepEqual(listed.accepted.map((p) => p.proofId).sort(), at.filter((e) => e.event === 'accepted').map((e) => e.proofId).sort());
      assert.deepEqual(listed.spotChecksDecided.map((p) => p.proofId).sort(), at.filter((e) => e.event !== 'accepted').map((e) => e.proofId).sort());
    }
    figures.proofs = { accepted: s.proofs.accepted, acceptedEvents: events.length, spotChecks: s.spotChecks, blockRewardsPaid: BigInt(s.rewardsPaid.blockRewards).toString(), tasks: s.tasks };
  });

  it('exports the compute series on /metrics, in step with svc_getInferenceStats', async () => {
    const before = await stats();
    const text = await (await fetch(new URL('/metrics', node.rpcUrl))).text();
    const after = await stats();
    const value = (series: string): number => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      assert.ok(line, `${series} in /metrics`);
      return Number(line.slice(series.length + 1));
    };
    const accepted = value('svc_compute_proofs{outcome="accepted"}');
    assert.ok(accepted >= before.proofs.accepted && accepted <= after.proofs.accepted, `accepted ${accepted}`);
    assert.ok(accepted > 0);
    const passed = value('svc_compute_spot_checks{state="passed"}');
    assert.ok(passed >= before.spotChecks.passed && passed <= after.spotChecks.passed, `passed ${passed}`);
    assert.equal(value('svc_compute_spot_checks{state="failed"}'), 0);
    assert.equal(value('svc_compute_proofs{outcome="failed_spot_check"}'), 0);
    assert.ok(value('svc_compute_queue{kind="proofs"}') >= 0);
    assert.equal(value('svc_compute_pow_hashrate'), 0, 'no proof-of-work search in inference mode');
  });

  it('svc-miner stops on SIGINT with exit 0 and a summary of its work', async () => {
    assert.ok(miner);
    const m = await minerInfo();
    miner.child.kill('SIGINT');
    const code = await miner.exit;
    assert.equal(code, 0, minerOutput());
    const line = /svc-miner: mined for (?:\d+m )?\d+s: (\d+) tasks done, (\d+) proofs accepted, (\d+) rejected, earned ([\d.]+) SVC/.exec(miner.stdout());
    assert.ok(line, minerOutput());
    const [, done, accepted, rejected, earned] = line;
    assert.equal(Number(rejected), 0);
    assert.ok(Number(done) >= Number(m.proofsAccepted), `tasks done ${done}, accepted on chain ${m.proofsAccepted}`);
    assert.ok(Number(accepted) >= 4 && Number(accepted) <= Number(done));
    assert.ok(Number(earned) > 0);
    figures.minerSummary = line[0];
  });
});
