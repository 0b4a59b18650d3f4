// State sync's restore through the ABCI handler, without a network: a chain with a large state
// (a genesis with many funded accounts and a contract with many storage slots) takes a snapshot;
// a fresh node is offered it and applies its chunks as CometBFT sends them (LoadSnapshotChunk from
// the source, ApplySnapshotChunk one at a time). The restore and its verification run on a native
// worker thread, so the event loop keeps turning throughout (a timer keeps firing: the ABCI socket,
// health and every reader are answered meanwhile); a chunk that does not hash to what the
// metadata lists is fetched again; and the restored node reaches the source's root and makes the
// next block with the same root.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { core, type Chain } from '../src/native/index.js';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { devGenesis, devGenesisValidators, type NetworkGenesis } from '../src/chain/genesis.js';
import { createNodeEvents } from '../src/chain/events.js';
import { Mempool } from '../src/chain/mempool.js';
import { createMetrics } from '../src/metrics.js';
import { BlockProduction } from '../src/consensus/production.js';
import { CometApplication } from '../src/consensus/cometbft/application.js';
import { SnapshotStore, SNAPSHOT_FORMAT } from '../src/consensus/cometbft/snapshots.js';
import { ResponseApplySnapshotChunk_Result, ResponseOfferSnapshot_Result } from '../src/consensus/cometbft/proto/tendermint/abci/types_pb.js';
import { rpc as rpcParams, staking as stakingParams, CLIENT_NAME } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';

const GWEI = 10n ** 9n;
const T0 = 1_900_000_000;
const log = pino({ level: 'silent' });
const proposer = devGenesisValidators()[0]!.operator;

/** Accounts funded at genesis beside the devnet's, and storage slots of one contract: a state whose restore takes well over 100 ms. */
const FUNDED = 30_000;
const SLOTS = 60_000;

function largeGenesis(): NetworkGenesis {
  const spec = devGenesis('devnet');
  const word = (tag: string, i: number) => Buffer.from(keccak256(toBytes(`${tag} ${i}`)).slice(2), 'hex');
  const alloc = [...spec.alloc];
  for (let i = 0; i < FUNDED; i++) alloc.push({ address: word('account', i).subarray(12), balance: BigInt(i + 1) * GWEI });
  alloc.push({
    address: word('contract', 0).subarray(12),
    balance: 0n,
    code: Buffer.from('600035600055', 'hex'), // PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE
    storage: Array.from({ length: SLOTS }, (_, i) => ({ slot: word('slot', i), value: word('value', i) })),
  });
  alloc.sort((a, b) => Buffer.compare(a.address, b.address));
  return { spec: { ...spec, alloc }, validators: devGenesisValidators() };
}

/** One ABCI request to `abci` and its response's value. */
async function ask<T>(abci: CometApplication, kind: Parameters<CometApplication['handle']>[0], request: object): Promise<T> {
  const response = await abci.handle(kind, request as never);
  return response!.value as T;
}

interface Listed {
  height: bigint;
  format: number;
  chunks: number;
  hash: Uint8Array;
  metadata: Uint8Array;
}

/** A node's chain, pool, app and ABCI application in a fresh data dir. */
class Node {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'svc-restore-'));
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly app: ChainApp;
  readonly snapshots: SnapshotStore;
  readonly abci: CometApplication;

  constructor(genesis: NetworkGenesis, snapshotInterval = 0) {
    this.chain = core.Chain.open(path.join(this.dir, 'data'), genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    this.mempool = new Mempool({ chain: this.chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
    this.app = new ChainApp(this.chain, this.mempool, stakingParams, appGenesis(genesis), log);
    this.snapshots = new SnapshotStore({ dir: path.join(this.dir, 'snapshots'), interval: snapshotInterval, keep: 1 }, this.chain, log);
    this.abci = new CometApplication({
      app: this.app,
      chain: this.chain,
      mempool: this.mempool,
      events: createNodeEvents(),
      metrics: createMetrics(this.mempool),
      log,
      production: new BlockProduction(1000),
      chainId: `svc-${DEV_CHAIN_ID}`,
      snapshots: this.snapshots,
    });
  }

  /** The next block with fixed inputs: the same on every node at the same state. */
  async block(): Promise<string> {
    const height = this.chain.head().number + 1;
    const built = await this.app.produceBlock({ timestampMs: (T0 + height) * 1000, coinbase: proposer, extraData: Buffer.from(CLIENT_NAME), maxTxs: 1000, signers: [proposer] });
    return built.produced.head.stateRoot.toString('hex');
  }

  close(): void {
    this.chain.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('state sync restore', { timeout: 300_000 }, () => {
  const nodes: Node[] = [];
  after(() => {
    for (const n of nodes) n.close();
  });

  it('runs off the event loop: a timer keeps firing while the chunks are restored and verified, and the root is the source’s', async () => {
    const genesis = largeGenesis();
    const HEIGHT = 3;
    const source = new Node(genesis, HEIGHT);
    nodes.push(source);
    for (let h = 1; h <= HEIGHT; h++) await source.block();
    const root = source.chain.head().stateRoot;

    // The snapshot the source takes after committing block HEIGHT, as ListSnapshots serves it.
    source.snapshots.committed(HEIGHT);
    const deadline = Date.now() + 60_000;
    let listed: Listed | undefined;
    while (!listed && Date.now() < deadline) {
      listed = (await ask<{ snapshots: Listed[] }>(source.abci, 'listSnapshots', {})).snapshots.find((s) => s.height === BigInt(HEIGHT));
      if (!listed) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(listed, 'the source lists its snapshot');
    const snapshot: Listed = listed;
    assert.equal(snapshot.format, SNAPSHOT_FORMAT);

    const target = new Node(genesis);
    nodes.push(target);
    const offered = await ask<{ result: ResponseOfferSnapshot_Result }>(target.abci, 'offerSnapshot', { snapshot: snapshot, appHash: root });
    assert.equal(offered.result, ResponseOfferSnapshot_Result.ACCEPT);

    // The event loop while the chunks are applied: a 5 ms timer and the loop's delay histogram.
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 5);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    let applyMs = 0;
    let lastApplyMs = 0;
    try {
      delay.enable();
      for (let index = 0; index < snapshot.chunks; index++) {
        const loaded: { chunk: Uint8Array } = await ask(source.abci, 'loadSnapshotChunk', { height: snapshot.height, format: snapshot.format, chunk: index });
        const chunk = loaded.chunk;
        assert.ok(chunk.length > 0, `chunk ${index} is served`);
        if (index === 0) {
          // A chunk that does not hash to what the metadata lists: fetched again, its sender rejected, nothing written.
          const tampered = Buffer.from(chunk);
          tampered[tampered.length - 1]! ^= 1;
          const refused: { result: ResponseApplySnapshotChunk_Result; refetchChunks: number[]; rejectSenders: string[] } = await ask(target.abci, 'applySnapshotChunk', { index, chunk: tampered, sender: 'bad-peer' });
          assert.deepEqual(refused, { result: ResponseApplySnapshotChunk_Result.RETRY, refetchChunks: [0], rejectSenders: ['bad-peer'] });
        }
        const started = performance.now();
        ticks.length = 0;
        ticks.push(started);
        const applied: { result: ResponseApplySnapshotChunk_Result } = await ask(target.abci, 'applySnapshotChunk', { index, chunk, sender: 'peer' });
        const ended = performance.now();
        ticks.push(ended);
        assert.equal(applied.result, ResponseApplySnapshotChunk_Result.ACCEPT, `chunk ${index} accepted`);
        applyMs += ended - started;
        lastApplyMs = ended - started;
        const longestGap = Math.max(...ticks.slice(1).map((t, i) => t - ticks[i]!));
        // A restore run on the event loop leaves no turn free while it runs: the gap is the whole call.
        assert.ok(longestGap < Math.max(100, (ended - started) / 2), `chunk ${index} (of ${snapshot.chunks}): the event loop stalled ${longestGap.toFixed(0)} ms of its ${(ended - started).toFixed(0)} ms restore`);
      }
    } finally {
      clearInterval(timer);
      delay.disable();
    }
    const maxDelayMs = delay.max / 1e6;
    console.log(`restore of ${snapshot.chunks} chunk(s) (${FUNDED} accounts, ${SLOTS} slots): ${applyMs.toFixed(0)} ms, last chunk with verification ${lastApplyMs.toFixed(0)} ms; event loop delay max ${maxDelayMs.toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms`);
    assert.ok(lastApplyMs > 100, `the last chunk and the verification take over 100 ms (${lastApplyMs.toFixed(0)} ms): the state is large enough to show a stall`);
    assert.ok(maxDelayMs < Math.max(100, lastApplyMs / 2), `event loop delay max ${maxDelayMs.toFixed(0)} ms during a ${lastApplyMs.toFixed(0)} ms restore`);

    // The restored node holds the source's head and state, and makes the next block with the same root.
    assert.equal(target.chain.head().number, HEIGHT);
    assert.ok(target.chain.head().stateRoot.equals(root), 'restored root equals the source’s');
    assert.equal(target.chain.stateFrom(), HEIGHT);
    const alice = privateKeyToAccount(devPrivateKeys(3)[2]!);
    const raw = await alice.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce: 0, to: `0x${Buffer.from(keccak256(toBytes('account 7')).slice(2), 'hex').subarray(12).toString('hex')}`, value: 12_345n, gas: 21_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI });
    for (const n of [source, target]) n.mempool.add(Buffer.from(raw.slice(2), 'hex'));
    assert.equal(await target.block(), await source.block(), `block ${HEIGHT + 1} has the same root on the restored node`);
  });
});
