// One answer per question: rules that two places of the node apply are one function, and both
// places give the same answer. The gas price the explorer's oracle proposes is eth_gasPrice, on an
// idle and on a busy chain; the header rules of a proposal and the pool's checks of a transaction
// are the native builder's; a truncated ERC-1155 TransferBatch is no transfer (the index's decoder,
// which the explorer calls); and the node's proof intake and the block refuse the same proofs, an
// expired task as TASK_EXPIRED.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { createNodeEvents } from '../src/chain/events.js';
import { GasPriceOracle } from '../src/chain/gas-price.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { Mempool } from '../src/chain/mempool.js';
import { TxPoolError } from '../src/chain/pool.js';
import { ComputeIntake, ComputeRejectedError } from '../src/compute/intake.js';
import { gasOracleHandlers } from '../src/explorer/handlers/gas-oracle.js';
import { transfersOf } from '../src/explorer/transfers.js';
import { ComputeHooks } from '../src/modules/compute/hooks.js';
import type { ComputeModule } from '../src/modules/compute/module.js';
import type { ProofRecordRejection } from '../src/modules/compute/proof-rules.js';
import { emptyTaken, type QueuedProof } from '../src/modules/compute/queues.js';
import { ComputeStore } from '../src/modules/compute/store.js';
import type { Address, MinerRecord, TaskRecord } from '../src/modules/compute/types.js';
import type { ComputeViews } from '../src/modules/compute/views.js';
import { core, type Chain } from '../src/native/index.js';
import { chain as chainParams, compute as defaultCompute, rpc as rpcParams, staking as defaultStaking } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';

const GWEI = 10n ** 9n;
/** The head's block gas limit (the devnet genesis's). */
const chainParamsLimit = () => chainParams.blockGasLimit;

describe('one answer per question', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  let chain: Chain;
  let app: ChainApp;
  let mempool: Mempool;
  let height = 0;
  const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
  const coinbase = genesis.validators[0]!.operator;
  const block = () => {
    height += 1;
    return app.produceBlock({ timestampMs: (1_900_000_000 + height) * 1000, coinbase, extraData: Buffer.alloc(0), maxTxs: 200, signers: [coinbase] });
  };

  before(() => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-one-answer-'));
    dirs.push(dir);
    chain = core.Chain.open(dir, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    mempool = new Mempool({ chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
    app = new ChainApp(chain, mempool, defaultStaking, appGenesis(genesis), pino({ level: 'silent' }));
  });
  after(() => {
    chain?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('the explorer proposes eth_gasPrice, on an idle chain and on a busy one', async () => {
    const proposed = () => BigInt((gasOracleHandlers.getGasOracle!({} as never, { node: { chain } } as never) as { propose: string }).propose);
    for (let i = 0; i < 3; i++) await block();
    assert.equal(proposed(), new GasPriceOracle(chain).suggestGasPrice(), 'idle: no block carried a transaction');
    assert.equal(proposed(), chain.nextBaseFee() + rpcParams.defaultPriorityFee);

    // Busy: blocks whose transactions pay tips of 1 to 9 gwei, spread so that percentiles differ.
    const senders = devPrivateKeys(8).slice(2).map((k) => privateKeyToAccount(k));
    for (let b = 0; b < 4; b++) {
      for (const [i, s] of senders.entries()) {
        const tip = BigInt(1 + ((i * 3 + b * 2) % 9)) * GWEI;
        const raw = await s.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce: b, to: s.address, value: 1n, gas: 21_000n, maxFeePerGas: 200n * GWEI, maxPriorityFeePerGas: tip });
        mempool.add(Buffer.from(raw.slice(2), 'hex'));
      }
      await block();
    }
    const oracle = new GasPriceOracle(chain);
    assert.ok(oracle.suggestTipCap() > rpcParams.defaultPriorityFee, `a busy chain's tip (${oracle.suggestTipCap()})`);
    assert.equal(proposed(), oracle.suggestGasPrice(), 'busy');
  });

  it("a proposal's header is refused by the native builder's rules, and its time raised by them", async () => {
    const parent = chain.head();
    const p = app.prepareProposal({ timestampMs: 0, coinbase, extraData: Buffer.alloc(0), maxTxs: 0, signers: [coinbase] });
    assert.equal(p.timestampMs, core.blockTimeMs(0, parent.timestampMs));
    assert.equal(p.timestampMs, parent.timestampMs + 1, 'a time not after the parent is raised to the parent + 1 ms');
    assert.deepEqual(await app.processProposal(p), { accept: true });
    for (const [change, reason] of [
      [{ timestampMs: parent.timestampMs }, `time ${parent.timestampMs} ms is not after the parent's ${parent.timestampMs} ms`],
      [{ extraData: Buffer.alloc(33) }, 'extra data too long: 33 bytes, limit 32'],
    ] as const) {
      const bad = { ...p, ...change };
      assert.equal(core.headerProblem(parent.timestampMs, bad.timestampMs, bad.extraData.length), reason);
      assert.deepEqual(await app.processProposal(bad), { accept: false, reason });
    }
    assert.equal(core.headerProblem(parent.timestampMs, p.timestampMs, 32), null);
  });

  it("the pool refuses by the block builder's checks: each with geth's pool text, the calldata floor and initcode size too", async () => {
    const sender = privateKeyToAccount(devPrivateKeys(2)[1]!);
    const poor = privateKeyToAccount(generatePrivateKey());
    const nonce = Number(mempool.pendingNonce(Buffer.from(sender.address.slice(2), 'hex')));
    const sign = (from: typeof sender, tx: { gas: bigint; maxFeePerGas?: bigint; data?: Hex; create?: boolean }) =>
      from.signTransaction({
        chainId: DEV_CHAIN_ID, type: 'eip1559', nonce: from === sender ? nonce : 0, ...(tx.create ? {} : { to: sender.address }),
        data: tx.data ?? '0x', value: 0n, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas ?? 100n * GWEI, maxPriorityFeePerGas: 0n,
      });
    const calldata = `0x${'ff'.repeat(1_000)}` as Hex; // intrinsic 37,000, floor 61,000 (EIP-7623)
    const initcode = `0x${'ff'.repeat(50_000)}` as Hex; // over 49,152 bytes (EIP-3860)
    const cases: [string, Hex, string, RegExp][] = [
      ['gas above the block limit', await sign(sender, { gas: BigInt(chainParamsLimit()) + 1n }), 'gas-above-block-limit', /^exceeds block gas limit$/],
      ['fee cap below the base fee', await sign(sender, { gas: 21_000n, maxFeePerGas: 1n }), 'fee-cap-below-base-fee', /^max fee per gas less than block base fee: address 0x[0-9a-fA-F]{40}, maxFeePerGas: 1, baseFee: \d+$/],
      ['no funds', await sign(poor, { gas: 21_000n }), 'insufficient-funds', /^insufficient funds for gas \* price \+ value: balance 0, tx cost \d+, overshot \d+$/],
      ['below the intrinsic gas', await sign(sender, { gas: 20_999n }), 'intrinsic-gas', /^intrinsic gas too low: gas 20999, minimum needed 21000$/],
      ['below the calldata floor', await sign(sender, { gas: 40_000n, data: calldata }), 'floor-data-gas', /^insufficient gas for floor data gas cost: gas 40000, minimum needed 61000$/],
      ['initcode too large', await sign(sender, { gas: 3_000_000n, data: initcode, create: true }), 'initcode-size', /^max initcode size exceeded: code size 50000, limit 49152$/],
    ];
    for (const [name, raw, rule, text] of cases) {
      const bytes = Buffer.from(raw.slice(2), 'hex');
      const from = Buffer.from((name === 'no funds' ? poor : sender).address.slice(2), 'hex');
      const account = chain.getAccount(from, chain.head().number);
      // The block builder's verdict on the same transaction, on the sender's account as it is.
      const block = core.precheckTransaction(bytes, from, {
        chainId: DEV_CHAIN_ID, gasLimit: chainParamsLimit(), gasUsed: 0, baseFeePerGas: chain.nextBaseFee(), nonce: account.nonce, balance: account.balance,
      });
      assert.deepEqual([block.verdict, block.rule], ['reject', rule], `${name}: the block builder`);
      assert.throws(() => mempool.add(bytes), (err: Error) => err instanceof TxPoolError && text.test(err.message), `${name}: the pool`);
    }
  });

  it('reads a TransferBatch whole or not at all: a truncated one is no transfer', () => {
    const word = (n: bigint) => n.toString(16).padStart(64, '0');
    const topic = (a: string) => `0x${a.slice(2).padStart(64, '0')}` as Hex;
    const [from, to] = ['0x' + 'aa'.repeat(20), '0x' + 'bb'.repeat(20)];
    const log = (data: string) => ({
      address: ('0x' + '70'.repeat(20)) as Hex,
      topics: ['0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d4cbcf3f7ce4b1d4d', topic('0x' + '00'.repeat(20)), topic(from), topic(to)] as Hex[],
      data: `0x${data}` as Hex,
      logIndex: '0x0' as Hex,
      transactionHash: ('0x' + '11'.repeat(32)) as Hex,
    });
    const full = [0x40n, 0xa0n, 2n, 1n, 2n, 2n, 10n, 20n].map(word).join('');
    assert.deepEqual(transfersOf(log(full)), [
      { type: 'ERC-1155', from, to, tokenId: 1n, value: 10n },
      { type: 'ERC-1155', from, to, tokenId: 2n, value: 20n },
    ]);
    assert.deepEqual(transfersOf(log(full.slice(0, -64))), [], 'the last value missing: dropped, not read as 0');
    assert.deepEqual(transfersOf(log(full.slice(0, -2))), [], 'one byte short');
  });

  it('refuses the same proofs at intake and in the block; an expired task is TASK_EXPIRED', async () => {
    const MODEL = defaultCompute.approvedModels[0]!.id;
    const EPOCH = 7;
    const HEIGHT = 500;
    const NOW = 1_900_000_500;
    const miner = ('0x' + 'a1'.repeat(20)) as Address;
    const other = ('0x' + 'b2'.repeat(20)) as Address;
    const key = ('0x' + '11'.repeat(32)) as Hex;
    const validator = ('0x' + 'c3'.repeat(20)) as Address;
    const taskId = ('0x' + '22'.repeat(32)) as Hex;
    const inputHash = ('0x' + '33'.repeat(32)) as Hex;
    const fakeChain = { getAppValue: () => null, getAppEntries: () => [] } as unknown as Chain;
    const minerRecord = (): MinerRecord => ({
      wallet: miner, publicKey: key, tier: 'Hot', models: [MODEL], sequence: 1, registeredAt: 1, lastActiveEpoch: EPOCH, jailedUntil: 0,
      tasksCompleted: 0, proofsAccepted: 0, spotChecksPassed: 0, spotChecksFailed: 0, flops: 0n, blockRewards: 0n, feeRewards: 0n, window: [],
    });
    const taskRecord = (): TaskRecord => ({
      id: taskId, kind: 'challenge', modelId: MODEL, input: 'a challenge', inputHash, fee: 0n, submitter: null, createdAt: 400, createdEpoch: EPOCH - 1,
      status: 'assigned', assignedTo: miner, assignedEpoch: EPOCH - 1, deadlineEpoch: EPOCH, proofId: null, completedAt: null, reassignments: 0, refunded: 0n,
    });
    type Setup = { store: ComputeStore; m: MinerRecord; t: TaskRecord };
    const cases: [string, (s: Setup) => void, ProofRecordRejection | null][] = [
      ['an assigned task within its deadline', () => {}, null],
      ['a challenge that expired at an epoch start', ({ t }) => Object.assign(t, { status: 'expired', deadlineEpoch: EPOCH - 1 }), 'TASK_EXPIRED'],
      ['an assignment past its deadline', ({ t }) => Object.assign(t, { deadlineEpoch: EPOCH - 1 }), 'TASK_EXPIRED'],
      ['a public task past its time to live', ({ t }) => Object.assign(t, { kind: 'public', status: 'expired', assignedTo: null, deadlineEpoch: null }), 'TASK_EXPIRED'],
      ["another miner's task", ({ t }) => Object.assign(t, { assignedTo: other }), 'NOT_ASSIGNED'],
      ['a challenge taken back before its deadline', ({ t }) => Object.assign(t, { status: 'expired' }), 'NOT_ASSIGNED'],
      ['a completed task', ({ t }) => Object.assign(t, { status: 'completed' }), 'REPLAYED'],
      ['another model', ({ t }) => Object.assign(t, { modelId: 'svc-embed-other@v1.0' }), 'MODEL_MISMATCH'],
      ['another input', ({ t }) => Object.assign(t, { inputHash: '0x' + '44'.repeat(32) }), 'INPUT_HASH_MISMATCH'],
      ['another key', ({ m }) => Object.assign(m, { publicKey: '0x' + '55'.repeat(32) }), 'KEY_MISMATCH'],
      ['a jailed miner', ({ m }) => Object.assign(m, { jailedUntil: NOW + 1 }), 'MINER_JAILED'],
      ['an unregistered miner', ({ store }) => store.miners.delete(miner), 'MINER_NOT_REGISTERED'],
      ['an unknown task', ({ store }) => store.open.delete(taskId), 'UNKNOWN_TASK'],
      ['a model not approved', ({ store }) => (store.global.approvedModels = []), 'MODEL_NOT_APPROVED'],
      ['a model retired from this block', ({ store }) => (store.global.registry![MODEL]!.refusedFromHeight = HEIGHT), 'MODEL_NOT_APPROVED'],
    ];
    for (const [name, change, expected] of cases) {
      const setup = (): ComputeStore => {
        const store = new ComputeStore(fakeChain, defaultCompute);
        const s = { store, m: minerRecord(), t: taskRecord() };
        store.miners.set(miner, s.m);
        store.open.set(taskId, s.t);
        change(s);
        return store;
      };
      // The node's intake: the reason it answers (a later, non-record check means the records accepted it).
      const store = setup();
      const compute = {
        miner: (w: Address) => store.miner(w),
        task: (id: Hex) => store.task(id),
        isApproved: (id: string) => store.isApproved(id),
        modelRegistry: () => Object.values(store.global.registry ?? {}),
        isProofQueued: () => false,
        modelDims: () => 0,
        get approvedModels() {
          return store.global.approvedModels;
        },
      } as unknown as ComputeModule;
      const intake = new ComputeIntake(compute, DEV_CHAIN_ID, validator, null, () => ({ number: HEIGHT - 1, timestamp: NOW, epoch: EPOCH }), pino({ level: 'silent' }));
      const proof = {
        validator, miner, public_key: key, task_id: taskId, model_id: MODEL, input_hash: inputHash, output_hash: '0x' + '66'.repeat(32),
        quantized: '0x', execution_time_ms: 5, flops: 1000, signature: '0x' + '77'.repeat(64),
      };
      const refusal = await intake.submitProof(proof).then(
        () => assert.fail(`${name}: accepted without a model`),
        (err: unknown) => (err as ComputeRejectedError).reason,
      );
      const recordReasons: string[] = ['MODEL_NOT_APPROVED', 'MINER_NOT_REGISTERED', 'KEY_MISMATCH', 'MINER_JAILED', 'UNKNOWN_TASK', 'REPLAYED', 'TASK_EXPIRED', 'NOT_ASSIGNED', 'MODEL_MISMATCH', 'INPUT_HASH_MISMATCH'];
      assert.equal(recordReasons.includes(refusal) ? refusal : null, expected, `${name}: intake answered ${refusal}`);

      // The block: the same proof, queued, is accepted or dropped.
      const blockStore = setup();
      const hooks = new ComputeHooks(blockStore, {} as ComputeViews, defaultCompute, new Map());
      const queued: QueuedProof = {
        id: ('0x' + '88'.repeat(32)) as Hex, taskId, validator, miner, publicKey: key, modelId: MODEL, inputHash, outputHash: ('0x' + '66'.repeat(32)) as Hex,
        quantized: '0x' as Hex, executionTimeMs: 5, flops: 1000n, claimedFlops: 1000n, signature: ('0x' + '77'.repeat(64)) as Hex,
      };
      const ctx = { height: HEIGHT, now: NOW, nowMs: NOW * 1000, epoch: EPOCH, epochLengthBlocks: 100, isEpochStart: false, parentHash: Buffer.alloc(32, 9) };
      const end = hooks.closeBlock(ctx, { ...emptyTaken(), proofs: [queued] }, 0n, validator, undefined, () => undefined);
      assert.equal(end.accepted.length, expected === null ? 1 : 0, `${name}: the block ${end.accepted.length ? 'accepted' : 'dropped'} it`);
    }
  });
});
