// Random compute operations through real blocks of an in-process node: miners registered through
// the module's queue (the signature intake has its own tests), public tasks paid by signed
// transactions to the compute module (some refused), proofs for assigned tasks queued as the intake
// would queue them (some that the block must drop), and spot-check verdicts. After every block:
// the EVM balance of every account adds up to the supply (genesis + minted - burned), nothing is
// negative, the compute module holds exactly the miners' pool plus the fees of public tasks not yet
// paid nor refunded, the pool paid in the block is split by FLOPs to the wei (floor shares, the
// remainder to the most FLOPs), and each miner's wallet moved by exactly its rewards and fee
// payouts of the block. Which proofs the block accepts is predicted from the state before it. The
// miners' share of the minted reward follows the rule of docs/staking.md (it grows with the miners
// that had a proof accepted in the score window, up to its cap), and a block after failed
// spot-checks slashes the validator the proofs came through (the node's) by exactly 5% and jails it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeFunctionData, keccak256, type Hex as ViemHex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { faucetAccount } from '../src/chain/genesis.js';
import { bundlerAccount } from '../src/chain/dev-accounts.js';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import {
  CHAIN_ID,
  chain as chainParams,
  compute as defaultCompute,
  staking as defaultStaking,
  system,
  type ComputeParams,
  type StakingParams,
} from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { COMPUTE_ABI, publicTaskId } from '../src/modules/compute/module.js';
import { drawnForSpotCheck } from '../src/modules/compute/hooks.js';
import type { QueuedProof, QueuedRegistration } from '../src/modules/compute/queues.js';
import { canRun } from '../src/modules/compute/assign.js';
import { TIERS, hexOf, inputHash, proofId, proofMessage, type GpuTierName, type Hex } from '../src/modules/compute/wire.js';
import type { Address, TaskRecord } from '../src/modules/compute/types.js';
import { epochOfHeight } from '../src/modules/staking/epoch.js';
import { prng } from './support/prng.js';

const OPERATIONS = 420;
const SMALL = 'svc-embed-small@v1.0';
const MEDIUM = 'svc-embed-medium@v1.0'; // no miner loads it: its tasks wait and are refunded
const CLASSIFY = 'svc-classify-small@v1.0'; // Warm

/** The miners' share grows from 15% by 1.5 points per active miner beyond the first, up to 19.5% (4 miners): the test's few miners reach the cap. */
const STAKING: StakingParams = {
  ...defaultStaking,
  epochLengthBlocks: 5,
  inferenceMinersShareBaseMiners: 1,
  inferenceMinersShareStepBps: 150,
  inferenceMinersShareMaxBps: 1_950,
};
const COMPUTE: ComputeParams = {
  ...defaultCompute,
  spotCheckBps: 3_000,
  minerJailSeconds: 20,
  publicTaskTtlEpochs: 6,
  challengeTasksPerMiner: 2,
  maxOpenTasksPerMiner: 10,
  // Some drawn checks get no verdict: closed as expired (fee paid) after this many blocks.
  spotCheckTimeoutBlocks: 12,
};
const TIER_OF = new Map(COMPUTE.approvedModels.map((m) => [m.id, m.tier as GpuTierName]));
const DIMS = new Map(COMPUTE.approvedModels.map((m) => [m.id, m.dims]));


const buf = (h: string): Buffer => Buffer.from(h.startsWith('0x') ? h.slice(2) : h, 'hex');

let node: RunningNode;
let dataDir: string;
let clockMs = chainParams.genesisTimestamp.devnet * 1000;

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-compute-prop-'));
  const config = devnetConfig(dataDir, { blockTimeMs: chainParams.maxBlockTimeMs, computeMode: 'pow', powThreads: 0 });
  node = await startNode(config, { stakingParams: STAKING, computeParams: COMPUTE, now: () => clockMs });
});

after(async () => {
  await node.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

type ProofKind = 'valid' | 'wrong-miner' | 'completed-task' | 'bad-input-hash' | 'bad-model' | 'unknown-task' | 'zero-flops' | 'wrong-key' | 'late';

describe('random compute operations through blocks keep the supply and split every reward to the wei', () => {
  it(`${OPERATIONS} operations`, async (t) => {
    const seed = BigInt(process.env.SVC_PROPERTY_SEED ?? '20261124');
    const rand = prng(seed);
    const below = (n: number): number => Number(rand() % BigInt(n));
    const pick = <T>(list: readonly T[]): T => list[below(list.length)]!;
    const bytes = (n: number): Buffer => {
      const out = Buffer.alloc(n);
      for (let i = 0; i < n; i++) out[i] = Number(rand() & 0xffn);
      return out;
    };

    const { chain } = node.services;
    const mempool = node.mempool;
    const app = node.app;
    const compute = app.compute;
    const validator = `0x${node.coinbase.toString('hex')}` as Address;
    const accounts: PrivateKeyAccount[] = devPrivateKeys(10).map((k) => privateKeyToAccount(k));
    const submitters = accounts.slice(1);
    const minerWallets: Address[] = [];
    const everyone = (): string[] => [
      ...accounts.map((a) => a.address),
      system.stakingAddress,
      system.treasuryAddress,
      system.computeAddress,
      chainParams.multicall3Address,
      faucetAccount().address,
      bundlerAccount().address,
      ...minerWallets,
    ];
    const balanceOf = (a: string, height: number): bigint => chain.getAccount(buf(a), height).balance;

    // ---- what the test sent, and what it expects ----
    const nonces = new Map<string, number>();
    /** Transactions in the pool: hash -> whether submitTask should succeed, and the task it pays. */
    const sentTxs = new Map<string, { expectOk: boolean; from: Address; fee: bigint; modelId: string; input: string }>();
    /** Public tasks created: id -> fee and submitter. */
    const publicTasks = new Map<Hex, { fee: bigint; submitter: Address }>();
    /** Accepted proofs whose public-task fee is not yet paid. */
    const unpaid = new Set<Hex>();
    /** Tasks that had an accepted proof (for 'completed-task' proofs). */
    const completedTasks: Hex[] = [];
    /** Proofs whose fee is paid or spot-check passed/not selected: final, a verdict for them is ignored. */
    const finalProofs: Hex[] = [];

    // The node's queues for the next block, mirrored.
    let queuedProofs: { proof: QueuedProof; kind: ProofKind }[] = [];
    let queuedVerdicts: { proofId: Hex; passed: boolean; pendingBefore: boolean }[] = [];
    let queuedRegs = new Map<Address, QueuedRegistration>();
    /** Failed spot-checks decided in the last block: the next block slashes the validator they came through. */
    let failedLastBlock: Hex[] = [];

    const counts = {
      blocks: 0,
      txs: 0,
      txOk: 0,
      txReverted: 0,
      registrations: 0,
      staleRegistrations: 0,
      proofsQueued: 0,
      invalidQueued: 0,
      accepted: 0,
      dropped: 0,
      uncertain: 0,
      multiProofBlocks: 0,
      remainderWei: 0n,
      feesPaid: 0,
      verdictsPassed: 0,
      verdictsFailed: 0,
      verdictsIgnored: 0,
      checksExpired: 0,
      validatorSlashes: 0,
      sharesByMiners: new Map<number, number>(),
      refunds: 0,
      publicAssigned: 0,
      challengeAssigned: 0,
      poolCarried: 0,
    };

    // ---- operations ----

    const register = () => {
      const fresh = minerWallets.length < 3 || (minerWallets.length < 8 && below(3) === 0);
      const wallet = fresh ? (hexOf(bytes(20)) as Address) : pick(minerWallets);
      if (fresh) minerWallets.push(wallet);
      const stored = compute.miner(wallet);
      const queued = queuedRegs.get(wallet);
      const current = Math.max(stored?.sequence ?? 0, queued?.sequence ?? 0);
      const stale = stored !== undefined && below(5) === 0;
      const sequence = stale ? stored.sequence - below(2) : current + 1 + below(3);
      const profiles: { tier: GpuTierName; models: string[] }[] = [
        { tier: 'Cold', models: [SMALL] },
        { tier: 'Cold', models: [SMALL] },
        // Lists a Warm model above its tier (the intake would refuse it): the coordinator must still never give it one.
        { tier: 'Cold', models: [SMALL, CLASSIFY] },
        { tier: 'Warm', models: [SMALL, CLASSIFY] },
        { tier: 'Hot', models: [CLASSIFY, 'svc-unapproved@v9.9'] },
      ];
      const profile = pick(profiles);
      const rotate = stored === undefined || below(4) === 0;
      const publicKey = rotate ? hexOf(bytes(32)) : queued && queued.sequence > stored!.sequence ? queued.publicKey : stored!.publicKey;
      // As the intake queues what it verified; the node's own proposals are not verified again, so the signatures are not read.
      const r: QueuedRegistration = { wallet, publicKey, tier: profile.tier, models: profile.models, sequence, signature: `0x${'00'.repeat(64)}`, walletSignature: `0x${'00'.repeat(65)}` };
      compute.queueRegistration(r);
      queuedRegs.set(wallet, r);
      counts.registrations++;
      if (stale) counts.staleRegistrations++;
    };

    const submitTask = async () => {
      const from = pick(submitters);
      const variant = below(10);
      let modelId = pick([SMALL, SMALL, SMALL, CLASSIFY, CLASSIFY, MEDIUM]);
      const words = 1 + below(30);
      let input = Array.from({ length: words }, () => pick(['alpha', 'beta', 'gamma', 'délta', '世界', '{"$n":"5"}', 'x'])).join(' ');
      let fee = COMPUTE.publicTaskMinFee + rand() % (10n ** 16n);
      if (variant === 0) fee = rand() % COMPUTE.publicTaskMinFee; // below the minimum
      if (variant === 1) modelId = 'svc-not-approved@v1.0';
      if (variant === 2) input = '';
      if (variant === 3) input = 'y'.repeat(COMPUTE.publicTaskMaxInputBytes + 1);
      const expectOk = variant > 3;
      const nonce = nonces.get(from.address) ?? Number(chain.getAccount(buf(from.address), chain.head().number).nonce);
      const raw = await from.signTransaction({
        type: 'eip1559',
        chainId: CHAIN_ID.devnet,
        nonce,
        to: system.computeAddress as ViemHex,
        data: encodeFunctionData({ abi: COMPUTE_ABI, functionName: 'submitTask', args: [modelId, input] } as never),
        value: fee,
        gas: 400_000n,
        maxFeePerGas: 100n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
      mempool.add(buf(raw));
      nonces.set(from.address, nonce + 1);
      sentTxs.set(keccak256(raw), { expectOk, from: from.address.toLowerCase() as Address, fee, modelId, input });
      counts.txs++;
    };

    const newFlops = (): bigint => {
      switch (below(4)) {
        case 0:
          return 1_000_000n; // equal FLOPs in one block: the remainder goes to the lowest proof id
        case 1:
          return 1n + (rand() % 1_000n); // tiny: floors lose much, the remainder is large
        default:
          return 1n + (rand() % (1n << 44n));
      }
    };

    const makeProof = (task: TaskRecord, miner: Address, publicKey: Hex, flops: bigint, over: Partial<QueuedProof> = {}): QueuedProof => {
      const outHash = bytes(32);
      const message = proofMessage({
        chainId: CHAIN_ID.devnet,
        taskId: buf(task.id),
        validator: buf(validator),
        miner: buf(miner),
        modelId: task.modelId,
        inputHash: buf(task.inputHash),
        outputHash: outHash,
        executionTimeMs: 7,
        flops,
      });
      return {
        id: hexOf(proofId(message)),
        taskId: task.id,
        validator,
        miner,
        publicKey,
        modelId: task.modelId,
        inputHash: task.inputHash,
        outputHash: hexOf(outHash),
        quantized: hexOf(bytes(DIMS.get(task.modelId) ?? 384)),
        executionTimeMs: 7,
        flops,
        claimedFlops: flops,
        signature: hexOf(bytes(64)),
        ...over,
      };
    };

    const queue = (proof: QueuedProof, kind: ProofKind) => {
      compute.queueProof(proof);
      queuedProofs.push({ proof, kind });
      counts.proofsQueued++;
      if (kind !== 'valid') counts.invalidQueued++;
    };

    const assignedOpen = (): TaskRecord[] => compute.openTasks().filter((x) => x.status === 'assigned').sort((a, b) => (a.id < b.id ? -1 : 1));

    const queueValidProofs = () => {
      const open = assignedOpen();
      if (open.length === 0) return;
      const n = 1 + below(4);
      for (let i = 0; i < n; i++) {
        const task = pick(open); // the same task twice in a block: the second proof is dropped
        const m = compute.miner(task.assignedTo!)!;
        queue(makeProof(task, m.wallet, m.publicKey, newFlops()), 'valid');
      }
    };

    const queueInvalidProof = () => {
      const open = assignedOpen();
      const kinds: ProofKind[] = ['wrong-miner', 'completed-task', 'bad-input-hash', 'bad-model', 'unknown-task', 'zero-flops', 'wrong-key', 'late'];
      const kind = pick(kinds);
      const task = open.length > 0 ? pick(open) : undefined;
      const m = task ? compute.miner(task.assignedTo!)! : undefined;
      switch (kind) {
        case 'wrong-miner': {
          const others = minerWallets.filter((w) => w !== task?.assignedTo && compute.miner(w));
          if (!task || others.length === 0) return;
          const other = compute.miner(pick(others))!;
          return queue(makeProof(task, other.wallet, other.publicKey, newFlops()), kind);
        }
        case 'completed-task': {
          const done = completedTasks.map((id) => compute.task(id)!).filter((x) => x.status === 'completed');
          if (done.length === 0) return;
          const x = pick(done);
          const proof = compute.proof(x.proofId!)!;
          const miner = compute.miner(proof.miner)!;
          return queue(makeProof(x, miner.wallet, miner.publicKey, newFlops()), kind);
        }
        case 'bad-input-hash':
          if (!task || !m) return;
          return queue(makeProof(task, m.wallet, m.publicKey, newFlops(), { inputHash: hexOf(inputHash('something else')) }), kind);
        case 'bad-model':
          if (!task || !m) return;
          return queue(makeProof(task, m.wallet, m.publicKey, newFlops(), { modelId: task.modelId === SMALL ? MEDIUM : SMALL }), kind);
        case 'unknown-task':
          if (!task || !m) return;
          return queue(makeProof(task, m.wallet, m.publicKey, newFlops(), { taskId: hexOf(bytes(32)) }), kind);
        case 'zero-flops':
          if (!task || !m) return;
          return queue(makeProof(task, m.wallet, m.publicKey, 0n), kind);
        case 'wrong-key':
          if (!task || !m) return;
          return queue(makeProof(task, m.wallet, hexOf(bytes(32)), newFlops()), kind);
        case 'late': {
          // A challenge task past its deadline, just before the epoch start that expires it.
          const h = chain.head().number + 1;
          const late = open.filter((x) => x.kind === 'challenge' && x.deadlineEpoch! < epochOfHeight(h, STAKING));
          if (late.length === 0) return;
          const x = pick(late);
          const lm = compute.miner(x.assignedTo!)!;
          return queue(makeProof(x, lm.wallet, lm.publicKey, newFlops()), kind);
        }
      }
    };

    const queueVerdict = () => {
      const queuedIds = new Set(queuedVerdicts.map((v) => v.proofId));
      const pending = compute.spotChecksPending.filter((id) => !queuedIds.has(id));
      if (below(5) === 0 && finalProofs.length > 0) {
        // A verdict for a proof that is not waiting for one: ignored.
        const id = pick(finalProofs);
        if (queuedIds.has(id)) return;
        const passed = below(2) === 0;
        compute.queueVerdict({ proofId: id, passed, result: { cosinePpm: passed ? 1_000_000 : 0, maxAbsDiff: passed ? 0 : 100, hashMatches: passed } });
        queuedVerdicts.push({ proofId: id, passed, pendingBefore: false });
        return;
      }
      if (pending.length === 0) return;
      const id = pick(pending);
      const passed = below(10) < 7;
      compute.queueVerdict({ proofId: id, passed, result: { cosinePpm: passed ? 999_900 : 512_000, maxAbsDiff: passed ? 1 : 60, hashMatches: true } });
      queuedVerdicts.push({ proofId: id, passed, pendingBefore: true });
    };

    // ---- a block, predicted and checked ----

    const openAssignedOf = (w: Address) => compute.openTasks().filter((x) => x.status === 'assigned' && x.assignedTo === w);

    const produceBlock = async () => {
      const parent = chain.head();
      const h = parent.number + 1;
      const epoch = epochOfHeight(h, STAKING);
      const epochStart = h % STAKING.epochLengthBlocks === 0;
      clockMs += Number(1n + (rand() % 4n)) * 1000;
      const now = Math.max(Math.floor(clockMs / 1000), parent.timestamp + 1);

      // The state before the block, as the checks need it.
      const supplyBefore = app.supply();
      const poolBefore = compute.minerPool;
      const counters = { ...compute.counters };
      const minerBefore = new Map(
        minerWallets.map((w) => {
          const m = compute.miner(w);
          return [w, { balance: balanceOf(w, parent.number), record: m ? structuredClone(m) : undefined, open: structuredClone(openAssignedOf(w)) }] as const;
        }),
      );
      const pendingBefore = new Set(compute.spotChecksPending);
      const burnedBefore = app.staking.state.totals().burned;
      const stakeBefore = structuredClone(app.staking.state.validator(validator)!);
      // Active miners for the reward split: an accepted proof in this epoch or the one before, not jailed at the block's time.
      const activeMiners = [...minerBefore.values()].filter(
        ({ record: m }) => m !== undefined && m.jailedUntil <= now && m.window.some((w) => w.epoch > epoch - COMPUTE.scoreWindowEpochs && w.epoch <= epoch && w.flops > 0n),
      ).length;
      const shareBps = BigInt(
        Math.min(STAKING.inferenceMinersShareMaxBps, STAKING.inferenceMinersShareBps + STAKING.inferenceMinersShareStepBps * Math.max(0, activeMiners - STAKING.inferenceMinersShareBaseMiners)),
      );
      // Drawn checks nobody decided in time: closed by this block's beginBlock, before any verdict.
      const timingOut = new Set([...pendingBefore].filter((id) => compute.proof(id)!.includedAt + COMPUTE.spotCheckTimeoutBlocks <= h));
      const parentProofs = [...proofsOfBlock(parent.number)];

      // Which queued proofs the block must accept.
      const failing = new Set(
        queuedVerdicts.filter((v) => v.pendingBefore && !v.passed && pendingBefore.has(v.proofId) && !timingOut.has(v.proofId)).map((v) => compute.proof(v.proofId)!.miner),
      );
      const keyAtEnd = (w: Address): Hex | undefined => {
        const stored = compute.miner(w);
        const r = queuedRegs.get(w);
        if (r && (!stored || r.sequence > stored.sequence)) return r.publicKey;
        return stored?.publicKey;
      };
      const predicted = new Set<Hex>();
      const uncertain = new Set<Hex>();
      const uncertainTasks = new Set<Hex>();
      const claimed = new Set<Hex>();
      for (const { proof: qp } of queuedProofs) {
        const task = compute.task(qp.taskId);
        const m = compute.miner(qp.miner);
        // At an epoch start a public task waiting (or past its deadline) may be handed out in beginBlock, maybe to this
        // miner: the test does not predict proofs for it.
        if (
          uncertainTasks.has(qp.taskId) ||
          (task &&
            epochStart &&
            task.kind === 'public' &&
            epoch < task.createdEpoch + COMPUTE.publicTaskTtlEpochs &&
            (task.status === 'pending' || (task.status === 'assigned' && task.deadlineEpoch! < epoch)))
        ) {
          uncertain.add(qp.id);
          uncertainTasks.add(qp.taskId);
          continue;
        }
        const ok =
          task !== undefined &&
          task.status === 'assigned' &&
          task.assignedTo === qp.miner &&
          task.inputHash === qp.inputHash &&
          task.modelId === qp.modelId &&
          task.deadlineEpoch! >= epoch &&
          !(epochStart && task.kind === 'public' && epoch >= task.createdEpoch + COMPUTE.publicTaskTtlEpochs) &&
          m !== undefined &&
          keyAtEnd(qp.miner) === qp.publicKey &&
          m.jailedUntil <= now &&
          !failing.has(qp.miner) &&
          qp.flops > 0n &&
          !claimed.has(qp.taskId);
        if (ok) {
          predicted.add(qp.id);
          claimed.add(qp.taskId);
        }
      }
      const queuedNow = queuedProofs;
      const verdictsNow = queuedVerdicts;
      const regsNow = queuedRegs;
      queuedProofs = [];
      queuedVerdicts = [];
      queuedRegs = new Map();

      const { head, included } = await node.driver.produceNext();
      assert.equal(head.number, h);
      assert.equal(head.timestamp, now);
      counts.blocks++;
      const where = `block ${h} (seed ${seed})`;
      const events = app.lastComputeEvents!;
      assert.equal(events.height, h);
      const accepted = events.accepted.map((p) => ({ ...p }));
      const decided = events.decided.map((p) => ({ ...p }));

      // Transactions: each submitTask succeeded or reverted as expected; created tasks carry their fee.
      for (const hash of included) {
        const key = hexOf(hash);
        const sent = sentTxs.get(key);
        assert.ok(sent, `unexpected transaction ${key}`);
        sentTxs.delete(key);
        const receipt = chain.getTransactionReceipt(hash) as { status: string } | null;
        const ok = receipt?.status === '0x1';
        assert.equal(ok, sent.expectOk, `${where}: submitTask(${sent.modelId}, ${sent.input.length} chars) fee ${sent.fee}`);
        if (ok) {
          counts.txOk++;
          const id = publicTaskId(hash);
          const task = compute.task(id);
          assert.ok(task, `${where}: task ${id}`);
          assert.equal(task.fee, sent.fee);
          assert.equal(task.submitter, sent.from);
          assert.equal(task.kind, 'public');
          assert.equal(task.input, sent.input);
          assert.equal(task.createdEpoch, epoch);
          publicTasks.set(id, { fee: sent.fee, submitter: sent.from });
        } else counts.txReverted++;
      }

      // Proofs: exactly the predicted ones were accepted, the rest dropped.
      const acceptedIds = new Set(accepted.map((p) => p.id));
      for (const { proof, kind } of queuedNow) {
        if (uncertain.has(proof.id)) {
          counts.uncertain++;
          // Whoever the task went to, a proof with a bad hash, model, key or FLOPs never passes.
          if (kind !== 'valid' && kind !== 'wrong-miner') assert.ok(!acceptedIds.has(proof.id), `${where}: ${kind} proof accepted`);
          continue;
        }
        assert.equal(acceptedIds.has(proof.id), predicted.has(proof.id), `${where}: ${kind} proof ${proof.id} for task ${proof.taskId}`);
        if (kind !== 'valid') assert.ok(!acceptedIds.has(proof.id), `${where}: ${kind} proof accepted`);
      }
      for (const id of acceptedIds) assert.ok(queuedNow.some((q) => q.proof.id === id), `${where}: accepted ${id} was never queued`);
      assert.equal(compute.counters.proofsAccepted - counters.proofsAccepted, accepted.length);
      assert.equal(compute.counters.proofsDropped - counters.proofsDropped, queuedNow.length - accepted.length, `${where}: dropped count`);
      counts.accepted += accepted.length;
      counts.dropped += queuedNow.length - accepted.length;
      for (const p of accepted) {
        const task = compute.task(p.taskId)!;
        assert.equal(task.status, 'completed');
        assert.equal(task.proofId, p.id);
        assert.equal(p.includedAt, h);
        completedTasks.push(task.id);
        const fee = task.kind === 'public' ? task.fee : 0n;
        // 70% / 20% / the rest, computed here independently of splitTaskFee.
        assert.equal(p.feeMiner, (fee * 7_000n) / 10_000n);
        assert.equal(p.feeValidator, (fee * 2_000n) / 10_000n);
        assert.equal(p.feeMiner + p.feeValidator + p.feeTreasury, fee);
        if (fee > 0n) unpaid.add(p.id);
      }

      // The miners' pool: this block's share of the minted reward (grown with the active miners) plus what earlier blocks left.
      const burned = app.staking.state.totals().burned - burnedBefore;
      const minted = app.supply() - supplyBefore + BigInt(head.gasUsed) * head.baseFeePerGas + burned;
      assert.ok(minted > 0n, `${where}: minted ${minted}`);
      const pool = poolBefore + (minted * shareBps) / 10_000n;
      counts.sharesByMiners.set(activeMiners, (counts.sharesByMiners.get(activeMiners) ?? 0) + 1);

      // The validator the last block's failed proofs came through (this node's) loses exactly 5% of its stake and is jailed 6 hours; no other block slashes it.
      const stake = app.staking.state.validator(validator)!;
      if (failedLastBlock.length > 0) {
        const cut = (stakeBefore.tokens * BigInt(STAKING.spotCheckSlashBps)) / 10_000n;
        assert.equal(stake.tokens, stakeBefore.tokens - cut, `${where}: the relaying validator loses 5% of its stake`);
        assert.equal(burned, cut, `${where}: the slash is burned`);
        assert.equal(stake.slashes.length, stakeBefore.slashes.length + 1, `${where}: one slash for the block's failed proofs`);
        const slash = stake.slashes.at(-1)!;
        assert.equal(slash.height, h);
        assert.equal(slash.fractionBps, STAKING.spotCheckSlashBps);
        assert.equal(slash.infractionHeight, Math.min(...failedLastBlock.map((id) => compute.proof(id)!.includedAt)));
        assert.ok(slash.reason.includes(failedLastBlock[0]!), `${where}: reason ${slash.reason}`);
        assert.equal(stake.status, 'jailed');
        assert.equal(stake.jailedUntil, Math.max(stakeBefore.jailedUntil, now + STAKING.spotCheckJailSeconds));
        counts.validatorSlashes++;
      } else {
        assert.equal(stake.tokens, stakeBefore.tokens, `${where}: no failed spot-check, no slash`);
        assert.equal(stake.slashes.length, stakeBefore.slashes.length);
        assert.equal(burned, 0n);
      }
      const rewards = accepted.reduce((s, p) => s + p.blockReward, 0n);
      if (accepted.length > 0) {
        assert.equal(rewards, pool, `${where}: the whole pool is paid`);
        assert.equal(compute.minerPool, 0n);
        const total = accepted.reduce((s, p) => s + p.flops, 0n);
        const holder = [...accepted].sort((a, b) => (a.flops !== b.flops ? (a.flops > b.flops ? -1 : 1) : a.id < b.id ? -1 : 1))[0]!;
        const floors = accepted.reduce((s, p) => s + (pool * p.flops) / total, 0n);
        for (const p of accepted) {
          const floor = (pool * p.flops) / total;
          assert.equal(p.blockReward, p.id === holder.id ? floor + (pool - floors) : floor, `${where}: reward of proof ${p.id} (${p.flops} of ${total} FLOPs)`);
        }
        assert.ok(pool - floors < BigInt(accepted.length));
        counts.remainderWei += pool - floors;
        if (accepted.length > 1) counts.multiProofBlocks++;
      } else {
        assert.equal(compute.minerPool, pool, `${where}: the pool is carried`);
        counts.poolCarried++;
      }
      assert.equal(compute.counters.blockRewardsPaid - counters.blockRewardsPaid, rewards);

      // Spot-checks: the parent's proofs are drawn by its hash; verdicts decide the pending ones.
      for (const id of parentProofs) {
        const p = compute.proof(id)!;
        const drawn = drawnForSpotCheck(parent.hash, id, COMPUTE.spotCheckBps);
        assert.equal(p.spotCheck, drawn ? 'pending' : 'not-selected', `${where}: draw of ${id}`);
        if (drawn) assert.ok(compute.spotChecksPending.includes(id));
        else finalProofs.push(id);
      }
      const decidedIds = new Set(decided.map((p) => p.id));
      for (const id of timingOut) {
        const p = compute.proof(id)!;
        assert.equal(p.spotCheck, 'expired', `${where}: undecided check of ${id} (block ${p.includedAt}) closed`);
        assert.ok(!compute.spotChecksPending.includes(id));
        finalProofs.push(id);
      }
      counts.checksExpired += timingOut.size;
      assert.equal((compute.counters.spotChecksExpired ?? 0) - (counters.spotChecksExpired ?? 0), timingOut.size);
      for (const id of compute.spotChecksPending) {
        const p = compute.proof(id)!;
        assert.equal(p.spotCheck, 'pending');
        assert.ok(p.includedAt + COMPUTE.spotCheckTimeoutBlocks > h, `${where}: check of ${id} open past its timeout`);
      }
      for (const v of verdictsNow) {
        if (!v.pendingBefore || timingOut.has(v.proofId)) {
          assert.ok(!decidedIds.has(v.proofId), `${where}: verdict for a proof not waiting for one was applied`);
          counts.verdictsIgnored++;
          continue;
        }
        assert.ok(decidedIds.has(v.proofId), `${where}: verdict ${v.proofId} not applied`);
        const p = compute.proof(v.proofId)!;
        assert.equal(p.spotCheck, v.passed ? 'passed' : 'failed');
        assert.ok(!compute.spotChecksPending.includes(v.proofId));
        if (v.passed) {
          counts.verdictsPassed++;
          finalProofs.push(v.proofId);
        } else {
          counts.verdictsFailed++;
          const m = compute.miner(p.miner)!;
          assert.ok(m.jailedUntil >= now + COMPUTE.minerJailSeconds, `${where}: miner jailed`);
          assert.equal(openAssignedOf(p.miner).length, 0, `${where}: a jailed miner holds no task`);
          const task = compute.task(p.taskId)!;
          if (task.kind === 'public') {
            assert.equal(task.status, 'pending', `${where}: a failed public task waits again`);
            assert.equal(task.proofId, null);
          }
          assert.equal(p.feePaid, false);
          unpaid.delete(p.id);
        }
      }
      assert.equal(decided.length, verdictsNow.filter((v) => v.pendingBefore && !timingOut.has(v.proofId)).length);
      failedLastBlock = decided.filter((p) => p.spotCheck === 'failed').map((p) => p.id);
      for (const id of failedLastBlock) assert.equal(compute.proof(id)!.validator, validator);

      // Fees paid in this block: only past the draw (not selected) or after a passed check.
      const paid = new Map<Hex, { miner: Address; feeMiner: bigint; feeValidator: bigint; feeTreasury: bigint }>();
      for (const id of [...unpaid]) {
        const p = compute.proof(id)!;
        if (!p.feePaid) continue;
        unpaid.delete(id);
        const passedNow = decidedIds.has(id) && p.spotCheck === 'passed';
        const undrawnNow = p.includedAt === h - 1 && p.spotCheck === 'not-selected';
        const closedNow = timingOut.has(id) && p.spotCheck === 'expired';
        assert.ok(passedNow || undrawnNow || closedNow, `${where}: fee of ${id} paid with spot-check ${p.spotCheck}`);
        paid.set(id, { miner: p.miner, feeMiner: p.feeMiner, feeValidator: p.feeValidator, feeTreasury: p.feeTreasury });
      }
      for (const id of unpaid) {
        const p = compute.proof(id)!;
        assert.ok(p.includedAt === h || p.spotCheck === 'pending', `${where}: fee of ${id} (${p.spotCheck}) still unpaid`);
      }
      counts.feesPaid += paid.size;
      const sumPaid = (k: 'feeMiner' | 'feeValidator' | 'feeTreasury') => [...paid.values()].reduce((s, x) => s + x[k], 0n);
      assert.equal(compute.counters.feesPaidMiners - counters.feesPaidMiners, sumPaid('feeMiner'));
      assert.equal(compute.counters.feesPaidValidators - counters.feesPaidValidators, sumPaid('feeValidator'));
      assert.equal(compute.counters.feesPaidTreasury - counters.feesPaidTreasury, sumPaid('feeTreasury'));

      // Each miner's wallet moved by exactly its rewards and fee payouts of this block.
      for (const w of minerWallets) {
        const delta = balanceOf(w, h) - (minerBefore.get(w)?.balance ?? 0n);
        const expected =
          accepted.filter((p) => p.miner === w).reduce((s, p) => s + p.blockReward, 0n) +
          [...paid.values()].filter((x) => x.miner === w).reduce((s, x) => s + x.feeMiner, 0n);
        assert.equal(delta, expected, `${where}: wallet of miner ${w}`);
      }

      // Registrations: a newer sequence replaces the record, an old one is ignored.
      for (const [w, r] of regsNow) {
        const before = minerBefore.get(w)?.record;
        const m = compute.miner(w)!;
        if (before && r.sequence <= before.sequence) {
          assert.equal(m.sequence, before.sequence, `${where}: stale registration of ${w}`);
          assert.equal(m.publicKey, before.publicKey);
        } else {
          assert.equal(m.sequence, r.sequence);
          assert.equal(m.publicKey, r.publicKey);
          assert.deepEqual(m.models, r.models.filter((id) => TIER_OF.has(id)));
          assert.equal(m.lastActiveEpoch, epoch);
        }
      }
      // Jail: only a failed spot-check jails, for minerJailSeconds of block time; registrations keep it.
      for (const w of minerWallets) {
        const before = minerBefore.get(w)?.record;
        const m = compute.miner(w);
        if (!before || !m) continue;
        const jail = failing.has(w) ? Math.max(before.jailedUntil, now + COMPUTE.minerJailSeconds) : before.jailedUntil;
        assert.equal(m.jailedUntil, jail, `${where}: jail of ${w}`);
      }

      // Assignment at an epoch start: only to miners that could take the task, within their room.
      if (epochStart) {
        for (const w of minerWallets) {
          const before = minerBefore.get(w)!;
          const m = before.record;
          // What the epoch start gave it: still open, or already completed by a proof of this block (a public task
          // waiting before the block, with a proof the test could not predict).
          const completedHere = accepted
            .map((p) => compute.task(p.taskId)!)
            .filter((x) => x.assignedTo === w && x.assignedEpoch === epoch);
          const mine = [...openAssignedOf(w).filter((x) => x.assignedEpoch === epoch), ...completedHere];
          if (!m) {
            assert.equal(mine.length, 0);
            continue;
          }
          const eligible = m.jailedUntil <= now && m.lastActiveEpoch > epoch - COMPUTE.minerActiveEpochs;
          if (!eligible) assert.equal(mine.length, 0, `${where}: miner ${w} (jailed or inactive) got tasks`);
          for (const x of mine) {
            assert.ok(canRun(m, x.modelId, TIER_OF), `${where}: ${m.tier} miner ${w} with ${m.models.join(',')} got ${x.modelId}`);
            assert.ok(m.models.includes(x.modelId) && TIERS.indexOf(m.tier) >= TIERS.indexOf(TIER_OF.get(x.modelId)!));
          }
          const challenges = mine.filter((x) => x.kind === 'challenge');
          const runnable = m.models.some((id) => canRun(m, id, TIER_OF));
          if (eligible && runnable && !failing.has(w)) {
            // Room: what it held that the epoch start left open, plus the public tasks it just got, within the limit.
            const kept = before.open.filter((x) => x.deadlineEpoch! >= epoch && !(x.kind === 'public' && epoch >= x.createdEpoch + COMPUTE.publicTaskTtlEpochs));
            const room = COMPUTE.maxOpenTasksPerMiner - kept.length - (mine.length - challenges.length);
            assert.equal(challenges.length, Math.max(0, Math.min(COMPUTE.challengeTasksPerMiner, room)), `${where}: challenge tasks of ${w}`);
          }
          counts.publicAssigned += mine.length - challenges.length;
          counts.challengeAssigned += challenges.length;
        }
      }
      for (const w of minerWallets) assert.ok(openAssignedOf(w).length <= COMPUTE.maxOpenTasksPerMiner, `${where}: open tasks of ${w}`);

      check(h, where, counters.feesRefunded);
    };

    /** Proofs included in the parent block: this block draws them. */
    function* proofsOfBlock(parentHeight: number): Generator<Hex> {
      const events = app.lastComputeEvents;
      if (events && events.height === parentHeight) for (const p of events.accepted) yield p.id;
    }

    /** Supply and the module's balance, after every block. */
    const check = (height: number, where: string, refundedBefore: bigint) => {
      let sum = 0n;
      for (const a of everyone()) {
        const balance = balanceOf(a, height);
        assert.ok(balance >= 0n);
        sum += balance;
      }
      assert.equal(sum, app.supply(), `${where}: supply`);

      let held = 0n;
      let refunded = 0n;
      for (const [id, info] of publicTasks) {
        const task = compute.task(id)!;
        assert.equal(task.fee, info.fee);
        if (task.status === 'pending' || task.status === 'assigned') held += task.fee;
        else if (task.status === 'completed') {
          const p = compute.proof(task.proofId!)!;
          if (!p.feePaid) held += task.fee;
        } else {
          assert.equal(task.refunded, task.fee, `${where}: expired task ${id} refunded`);
          refunded += task.fee;
        }
      }
      const moduleBalance = balanceOf(system.computeAddress, height);
      assert.equal(moduleBalance, compute.minerPool + held, `${where}: compute module balance = pool ${compute.minerPool} + fees held ${held}`);
      assert.equal(compute.counters.feesRefunded, refunded, `${where}: refunds`);
      if (compute.counters.feesRefunded > refundedBefore) counts.refunds++;

      const miners = minerWallets.map((w) => compute.miner(w)).filter((m) => m !== undefined);
      assert.equal(miners.reduce((s, m) => s + m.blockRewards, 0n), compute.counters.blockRewardsPaid);
      assert.equal(miners.reduce((s, m) => s + m.feeRewards, 0n), compute.counters.feesPaidMiners);
      for (const m of miners) assert.ok(m.blockRewards >= 0n && m.feeRewards >= 0n && m.flops >= 0n);
    };

    check(chain.head().number, 'genesis', 0n);
    for (let op = 0; op < OPERATIONS; op++) {
      const r = below(20);
      if (r < 2) register();
      else if (r < 6) await submitTask();
      else if (r < 12) queueValidProofs();
      else if (r < 14) queueInvalidProof();
      else if (r < 17) queueVerdict();
      if (below(3) === 0 || op === OPERATIONS - 1) await produceBlock();
    }
    // Drain the pool; a few more blocks draw and pay the last proofs.
    for (let i = 0; i < 3 || mempool.stats().pending > 0; i++) await produceBlock();
    assert.equal(sentTxs.size, 0, 'every transaction was mined');

    t.diagnostic(
      `seed ${seed}: ${counts.blocks} blocks; ${counts.txs} submitTask (${counts.txOk} ok, ${counts.txReverted} reverted); ` +
        `${counts.registrations} registrations (${counts.staleRegistrations} stale), ${minerWallets.length} miners; ` +
        `${counts.proofsQueued} proofs queued (${counts.invalidQueued} invalid): ${counts.accepted} accepted, ${counts.dropped} dropped, ${counts.uncertain} not predicted; ` +
        `${counts.multiProofBlocks} blocks split among several proofs (${counts.remainderWei} wei of remainders), ${counts.poolCarried} carried the pool; ` +
        `${counts.feesPaid} fees paid; verdicts ${counts.verdictsPassed} passed, ${counts.verdictsFailed} failed, ${counts.verdictsIgnored} ignored, ${counts.checksExpired} checks closed undecided; ` +
        `${counts.refunds} blocks with refunds; assigned ${counts.publicAssigned} public, ${counts.challengeAssigned} challenge; ` +
        `${counts.validatorSlashes} slashes of the relaying validator; blocks by active miners ${JSON.stringify(Object.fromEntries([...counts.sharesByMiners].sort((a, b) => a[0] - b[0])))}`,
    );
    // The share rule was exercised at its base, on its way up and at its cap; every failing block was followed by a slash.
    const seen = [...counts.sharesByMiners.keys()];
    assert.ok(seen.some((n) => n <= STAKING.inferenceMinersShareBaseMiners), 'blocks at the base share');
    assert.ok(seen.some((n) => n > STAKING.inferenceMinersShareBaseMiners && n < 4), 'blocks with a grown share below the cap');
    assert.ok(seen.some((n) => n >= 4), 'blocks at the cap');
    assert.ok(counts.validatorSlashes > 0, 'the relaying validator was slashed');
    assert.ok(counts.blocks >= 100, `${counts.blocks} blocks`);
    assert.ok(counts.accepted > 50 && counts.dropped > 10, 'proofs accepted and dropped');
    assert.ok(counts.multiProofBlocks > 5);
    assert.ok(counts.txOk > 20 && counts.txReverted > 5);
    assert.ok(counts.verdictsPassed > 0 && counts.verdictsFailed > 0 && counts.verdictsIgnored > 0 && counts.checksExpired > 0);
    assert.ok(counts.feesPaid > 0 && counts.refunds > 0 && counts.publicAssigned > 0);
  });
});
