// The module kernel: the one record codec, the registry's routing and hook order, and the state
// root's cover of module records, through real chains (two data dirs on one genesis).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { encodeFunctionData, keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { core, type Chain } from '../src/native/index.js';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { createNodeEvents } from '../src/chain/events.js';
import { Mempool } from '../src/chain/mempool.js';
import { compute as computeParams, rpc as rpcParams, staking as stakingParams, system } from '../src/params.js';
import { encodeMessage } from '../src/modules/kernel/messages.js';
import { STAKING_ABI } from '../src/modules/staking/module.js';
import { ModuleRegistry } from '../src/modules/kernel/registry.js';
import { decodeRecord, encodeRecord, RecordChanges, RecordCodecError } from '../src/modules/kernel/records.js';
import { noChange, type BlockInfo, type HookResult, type SystemModule } from '../src/modules/kernel/module.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';

describe('the record codec', () => {
  it('gives the same bytes whatever order the fields were assigned in', () => {
    const a = { tokens: 5n, moniker: 'v', window: { missed: 1, bitmap: 'ff' }, list: [{ b: 1, a: 2n }] };
    const b = { list: [{ a: 2n, b: 1 }], window: { bitmap: 'ff', missed: 1 }, moniker: 'v', tokens: 5n };
    assert.deepEqual(encodeRecord(a), encodeRecord(b));
    assert.equal(encodeRecord(a).toString('utf8'), '{"list":[{"a":{"$n":"2"},"b":1}],"moniker":"v","tokens":{"$n":"5"},"window":{"bitmap":"ff","missed":1}}');
  });

  it('round-trips bigints (negative and beyond 2^64), and leaves out undefined fields', () => {
    const value = { big: 2n ** 200n, neg: -7n, n: 3, s: '$n', none: undefined };
    const back = decodeRecord<Record<string, unknown>>(encodeRecord(value));
    assert.deepEqual(back, { big: 2n ** 200n, neg: -7n, n: 3, s: '$n' });
  });

  it('refuses what has no one text: NaN, infinities, integers beyond 2^53, binary', () => {
    assert.throws(() => encodeRecord({ score: Number.NaN }), RecordCodecError);
    assert.throws(() => encodeRecord({ score: Number.POSITIVE_INFINITY }), RecordCodecError);
    assert.equal(encodeRecord({ cosine: 0.1 + 0.2 }).toString(), '{"cosine":0.30000000000000004}');
    assert.throws(() => encodeRecord({ n: 2 ** 60 }), RecordCodecError);
    assert.throws(() => encodeRecord({ b: Buffer.from('ab') }), RecordCodecError);
    assert.throws(() => decodeRecord(Buffer.from('{nope')), RecordCodecError);
  });

  it('lists a block\'s changes sorted by key, the last write of a key winning', () => {
    const changes = new RecordChanges('0x00000000000000000000000000000000000000aa');
    changes.put(Buffer.from('m/b'), Buffer.from('1'));
    changes.put(Buffer.from('m/a'), Buffer.from('2'));
    changes.delete(Buffer.from('m/b'));
    const writes = changes.take();
    assert.deepEqual(
      writes.map((w) => [w.key.toString(), w.value?.toString() ?? null, w.module.toString('hex')]),
      [
        ['m/a', '2', '00000000000000000000000000000000000000aa'],
        ['m/b', null, '00000000000000000000000000000000000000aa'],
      ],
    );
    assert.equal(changes.take().length, 0);
  });
});

/** A module that records the hooks called on it. */
function fakeModule(name: string, address: string, calls: string[], minted = 0n): SystemModule {
  const hook = (which: string) => (block: BlockInfo): HookResult => {
    calls.push(`${name}.${which}@${block.height}`);
    return { ...noChange(), minted };
  };
  return {
    name,
    address: address as `0x${string}`,
    abi: [],
    execute: () => assert.fail('not called'),
    simulate: () => assert.fail('not called'),
    beginBlock: hook('begin'),
    endBlock: hook('end'),
    takeWrites: () => [{ module: Buffer.from(address.slice(2), 'hex'), key: Buffer.from(`${name}/k`) }],
    committed: () => calls.push(`${name}.committed`),
    reload: () => calls.push(`${name}.reload`),
  };
}

const blockInfo = (height: number): BlockInfo => ({
  height,
  now: 1000 + height,
  nowMs: (1000 + height) * 1000,
  epoch: 0,
  epochLengthBlocks: 100,
  isEpochStart: height % 100 === 0,
  parentHash: Buffer.alloc(32),
  proposer: '0x00000000000000000000000000000000000000c0',
  signers: [],
  supplyAtParent: 0n,
  extraData: Buffer.alloc(0),
});

describe('the module registry', () => {
  it('routes by address in any case and runs the hooks in the declared orders', () => {
    const calls: string[] = [];
    const a = fakeModule('a', '0x00000000000000000000000000000000000000AA', calls, 2n);
    const b = fakeModule('b', '0x00000000000000000000000000000000000000bb', calls, 3n);
    const registry = new ModuleRegistry([a, b], { begin: ['b', 'a'], end: ['a', 'b'] });
    assert.equal(registry.get(Buffer.from('00000000000000000000000000000000000000aa', 'hex')), a);
    assert.equal(registry.get('0x00000000000000000000000000000000000000BB'), b);
    assert.equal(registry.isModule(Buffer.alloc(20)), false);
    assert.equal(registry.isModule(null), false);
    assert.equal(registry.beginBlock(blockInfo(7)).minted, 5n);
    registry.endBlock(blockInfo(7));
    assert.deepEqual(calls, ['b.begin@7', 'a.begin@7', 'a.end@7', 'b.end@7']);
    assert.deepEqual(
      registry.takeWrites().map((w) => w.key.toString()),
      ['a/k', 'b/k'],
    );
  });

  it('refuses two modules at one address, an unknown name, or an order that leaves a module out', () => {
    const calls: string[] = [];
    const a = fakeModule('a', '0x00000000000000000000000000000000000000aa', calls);
    const twin = fakeModule('twin', '0x00000000000000000000000000000000000000AA', calls);
    const b = fakeModule('b', '0x00000000000000000000000000000000000000bb', calls);
    assert.throws(() => new ModuleRegistry([a, twin], { begin: ['a', 'twin'], end: ['a', 'twin'] }), /share the address/);
    assert.throws(() => new ModuleRegistry([a, b], { begin: ['a', 'c'], end: ['a', 'b'] }), /names c/);
    assert.throws(() => new ModuleRegistry([a, b], { begin: ['a'], end: ['a', 'b'] }), /every module once/);
  });
});

/** A devnet chain in a fresh data dir with the app on top; blocks are made with fixed times. */
class Node {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'svc-kernel-'));
  chain!: Chain;
  mempool!: Mempool;
  app!: ChainApp;

  constructor() {
    this.open();
  }

  open(): void {
    this.chain = core.Chain.open(this.dir, devGenesis('devnet'), { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    this.mempool = new Mempool({ chain: this.chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
    const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
    this.app = new ChainApp(this.chain, this.mempool, stakingParams, appGenesis(genesis), pino({ level: 'silent' }));
  }

  restart(): void {
    this.chain.close();
    this.open();
  }

  async block(height: number): Promise<Hex> {
    const coinbase = devGenesisValidators()[0]!.operator;
    const built = await this.app.produceBlock({ timestampMs: (1_900_000_000 + height) * 1000, coinbase, extraData: Buffer.alloc(0), maxTxs: 100, signers: [coinbase] });
    assert.equal(built.produced.head.number, height);
    return `0x${built.produced.head.stateRoot.toString('hex')}`;
  }

  close(): void {
    this.chain.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function delegateTx(amount: bigint, nonce = 0, gas = 200_000n): Promise<Buffer> {
  const account = privateKeyToAccount(devPrivateKeys(4)[3]!);
  const validator = `0x${devGenesisValidators()[0]!.operator.toString('hex')}` as const;
  const raw = await account.signTransaction({
    chainId: DEV_CHAIN_ID,
    type: 'eip1559',
    nonce,
    to: system.stakingAddress,
    value: amount,
    data: encodeFunctionData({ abi: STAKING_ABI, functionName: 'delegate', args: [validator] }),
    gas,
    maxFeePerGas: 100n * 10n ** 9n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  return Buffer.from(raw.slice(2), 'hex');
}

describe('one root over EVM state and module records', () => {
  const nodes: Node[] = [];
  after(() => {
    for (const n of nodes) n.close();
  });

  it('equal blocks give equal roots, one module record apart gives another root, and a restart recomputes the same root', async () => {
    const [a, twin, other] = [new Node(), new Node(), new Node()];
    nodes.push(a, twin, other);
    const roots1 = [await a.block(1), await twin.block(1), await other.block(1)];
    assert.equal(new Set(roots1).size, 1, 'three nodes on one genesis agree on block 1');

    // The same delegation on all three; on the third, one staking record's bytes are changed as the
    // block is written (the EVM state is the same): only the root can tell it apart.
    for (const n of [a, twin, other]) n.mempool.add(await delegateTx(10n ** 18n));
    const takeWrites = other.app.modules.takeWrites.bind(other.app.modules);
    let tampered = '';
    other.app.modules.takeWrites = () =>
      takeWrites().map((w) => {
        if (tampered !== '' || !w.value || !w.key.toString('latin1').startsWith('staking/')) return w;
        tampered = w.key.toString('latin1');
        return { ...w, value: Buffer.concat([w.value, Buffer.from(' ')]) };
      });
    const [ra, rt, ro] = [await a.block(2), await twin.block(2), await other.block(2)];
    assert.equal(ra, rt);
    assert.notEqual(tampered, '');
    assert.notEqual(ra, ro, `the record ${tampered} differs: another state root`);
    for (const who of [a.chain, other.chain]) assert.equal(who.getAccount(Buffer.from(system.stakingAddress.slice(2), 'hex'), 2).balance, a.chain.getAccount(Buffer.from(system.stakingAddress.slice(2), 'hex'), 2).balance);

    // Every staking record is committed in the staking account's storage: slot keccak256(key) holds keccak256(value).
    const records = a.chain.getAppEntries(Buffer.from('staking/'));
    assert.ok(records.length >= 3, `expected validator, delegation and globals records, got ${records.length}`);
    const staking = Buffer.from(system.stakingAddress.slice(2), 'hex');
    for (const r of records) {
      const slot = Buffer.from(keccak256(r.key).slice(2), 'hex');
      assert.equal(`0x${a.chain.getStorageAt(staking, slot, 2).toString('hex')}`, keccak256(r.value), `record ${r.key.toString('latin1')}`);
    }
    assert.equal(a.chain.getAccount(staking, 2).nonce, 1n);

    // Restarting a reloads the modules from disk; its next roots are its twin's.
    a.restart();
    for (let h = 3; h <= 5; h++) assert.equal(await a.block(h), await twin.block(h), `block ${h} after the restart`);
  });

  it('processProposal refuses messages that do not decode, name no module, are malformed or exceed a block\'s limits', async () => {
    const n = new Node();
    nodes.push(n);
    const head = n.chain.head();
    const proposal = (messages: Buffer[]) => ({
      height: head.number + 1,
      timestampMs: head.timestampMs + 1000,
      coinbase: devGenesisValidators()[0]!.operator,
      extraData: Buffer.alloc(0),
      signers: [],
      txs: [],
      messages,
    });
    const share = { validator: `0x${'01'.repeat(20)}`, blockHash: `0x${'02'.repeat(32)}`, nonce: 5n, hash: `0x${'03'.repeat(32)}` };
    const cases: [Buffer[], RegExp][] = [
      [[Buffer.from('{nope')], /message 0 does not decode/],
      [[encodeMessage({ module: 'bank', kind: 'send', body: {} })], /"bank", which is not a module/],
      [[encodeMessage({ module: 'staking', kind: 'x', body: {} })], /staking: unknown message kind x/],
      [[encodeMessage({ module: 'staking', kind: 'evidence', body: { validator: '0xAB', height: 1 } })], /evidence has exactly a lowercase 0x validator and a height/],
      [[encodeMessage({ module: 'compute', kind: 'tip', body: {} })], /unknown kind "tip"/],
      [[encodeMessage({ module: 'compute', kind: 'share', body: { ...share, nonce: -1n } })], /share: field nonce is missing or malformed/],
      [[encodeMessage({ module: 'compute', kind: 'share', body: { ...share, extra: 1 } })], /unknown field extra/],
      [Array.from({ length: computeParams.maxSharesPerBlock + 1 }, () => encodeMessage({ module: 'compute', kind: 'share', body: share })), /shares, limit/],
    ];
    for (const [messages, reason] of cases) {
      const verdict = await n.app.processProposal(proposal(messages));
      assert.equal(verdict.accept, false);
      assert.match((verdict as { reason: string }).reason, reason);
    }
    assert.deepEqual(await n.app.processProposal(proposal([encodeMessage({ module: 'compute', kind: 'share', body: share })])), { accept: true });
    assert.equal(n.chain.head().number, head.number, 'processing changes nothing');
  });
});

describe('the solo path and the ABCI steps make the same block', () => {
  const nodes: Node[] = [];
  after(() => {
    for (const n of nodes) n.close();
  });

  /**
   * Jobs the block lane has taken so far. Counted when a job is queued: a job's promise can settle
   * before the lane's thread counts it completed, so `completed` read just after an await may lag by one.
   */
  const blockJobs = () => core.laneStats().find((l) => l.name === 'block')!.accepted;

  it('produceBlock runs one job on the block lane; prepare, process, finalize and commit run two; the blocks are equal', async () => {
    const [solo, abci] = [new Node(), new Node()];
    nodes.push(solo, abci);
    for (const n of [solo, abci]) n.mempool.add(await delegateTx(10n ** 18n));
    const coinbase = devGenesisValidators()[0]!.operator;
    const template = { timestampMs: 1_900_000_001_000, coinbase, extraData: Buffer.alloc(0), maxTxs: 100, signers: [coinbase] };

    // One crossing of the event loop for the solo driver's block: execute and write in one job.
    const before = blockJobs();
    const built = await solo.app.produceBlock(template);
    assert.equal(blockJobs() - before, 1);

    const between = blockJobs();
    const proposal = abci.app.prepareProposal(template);
    assert.deepEqual(await abci.app.processProposal(proposal), { accept: true });
    await abci.app.finalizeBlock(proposal);
    const committed = await abci.app.commit();
    assert.equal(blockJobs() - between, 2);

    assert.equal(built.produced.included.length, 1, 'the delegation is in the block');
    assert.deepEqual(committed.produced.head, built.produced.head, 'same header, hash and roots either way');
    assert.deepEqual(committed.produced.included, built.produced.included);
    assert.equal(solo.mempool.size, 0, 'the pool moved to the block');
    assert.equal(abci.mempool.size, 0);
    // The modules moved to the block too: the next block on each is again the same.
    const next = { ...template, timestampMs: template.timestampMs + 1000 };
    assert.deepEqual((await solo.app.produceBlock(next)).produced.head, (await abci.app.produceBlock(next)).produced.head);
  });
});

describe('the transaction precheck: one copy, in the core', () => {
  const nodes: Node[] = [];
  after(() => {
    for (const n of nodes) n.close();
  });

  it('refuses a system transaction the block builder would refuse before its module decides it (a nonce gap), with geth\'s text', async () => {
    const n = new Node();
    nodes.push(n);
    await n.block(1);
    const head = n.chain.head();
    const delegator = privateKeyToAccount(devPrivateKeys(4)[3]!).address.toLowerCase();
    const gapped = await delegateTx(10n ** 18n, 3);
    const coinbase = devGenesisValidators()[0]!.operator;
    const proposal = { height: 2, timestampMs: head.timestampMs + 1000, coinbase, extraData: Buffer.alloc(0), signers: [coinbase], txs: [gapped], messages: [] };
    assert.deepEqual(await n.app.processProposal(proposal), { accept: true });
    await n.app.finalizeBlock(proposal);
    const built = await n.app.commit();
    assert.equal(built.produced.included.length, 0);
    assert.match(built.produced.rejected.map((r) => r.reason).join('; '), /^nonce too high: address 0x[0-9a-fA-F]{40}, tx: 3 state: 0$/);
    // The module never ran it: no delegation record, no staked value moved.
    assert.equal(n.app.staking.state.delegationsTo(`0x${coinbase.toString('hex')}`).filter((d) => d.delegator.toLowerCase() === delegator).length, 0);
  });

  it('gives the builder\'s verdicts and effective gas price', async () => {
    const tx = await delegateTx(10n ** 18n, 0, 100_000n);
    const sender = Buffer.from(privateKeyToAccount(devPrivateKeys(4)[3]!).address.slice(2), 'hex');
    const block = { chainId: DEV_CHAIN_ID, gasLimit: 30_000_000, gasUsed: 0, baseFeePerGas: 7n * 10n ** 9n, nonce: 0n, balance: 10n ** 24n };
    const ok = core.precheckTransaction(tx, sender, block);
    assert.deepEqual({ ...ok }, { verdict: 'include', effectiveGasPrice: 8n * 10n ** 9n });
    // min(maxFeePerGas, baseFee + tip): at a base fee of 99.5 gwei the cap of 100 gwei binds.
    assert.equal(core.precheckTransaction(tx, sender, { ...block, baseFeePerGas: 995n * 10n ** 8n }).effectiveGasPrice, 100n * 10n ** 9n);
    assert.equal(core.precheckTransaction(tx, sender, { ...block, gasUsed: 29_950_000 }).verdict, 'defer');
    const poor = core.precheckTransaction(tx, sender, { ...block, balance: 1n });
    assert.equal(poor.verdict, 'reject');
    assert.match(poor.reason!, /^insufficient funds for gas \* price \+ value: address 0x[0-9a-fA-F]{40} have 1 want \d+$/);
    assert.match(core.precheckTransaction(tx, sender, { ...block, baseFeePerGas: 101n * 10n ** 9n }).reason!, /^max fee per gas less than block base fee/);
    assert.match(core.precheckTransaction(tx, sender, { ...block, chainId: 1 }).reason!, /^invalid chain id for signer: have 9000 want 1$/);
    assert.match(core.precheckTransaction(tx, sender, { ...block, nonce: 1n }).reason!, /^nonce too low/);
  });
});
