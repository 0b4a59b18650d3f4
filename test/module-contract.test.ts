// The contract every registered system module keeps (docs/architecture.md, "System modules on one
// kernel"). The test walks the modules the app registers, so a sixth module is held to it without
// an edit here, and fails until its cases are added to the tables below:
//   - the files of its folder: test/layering.test.ts (every module the same file names);
//   - the seam: the SystemModule members the kernel calls, and its calls through the kernel's one path;
//   - its genesis: its part built into the module's state and exported back, and its check refusing a bad part;
//   - its queries: every one answers on a fresh chain and on the recorded busy chain, checked against
//     what happened on that chain;
//   - a replay with it enabled reaches the recorded roots: test/recorded-chain.test.ts.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { encodeFunctionData, getContractAddress, type Abi, type AbiFunction } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { core, type Chain } from '../src/native/index.js';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { createNodeEvents } from '../src/chain/events.js';
import { devGenesisValidators, parseNetworkGenesis, type NetworkGenesis } from '../src/chain/genesis.js';
import { Mempool } from '../src/chain/mempool.js';
import { replayChain } from '../src/chain/replay.js';
import type { ModuleQueries } from '../src/chain/queries.js';
import { rpc as rpcParams, system, type ComputeParams } from '../src/params.js';
import { addressBuffer, revertData, type Address, type ModuleOutcome, type SystemModule } from '../src/modules/kernel/module.js';
import { exportGenesis as exportStaking, type GenesisValidatorJson } from '../src/modules/staking/genesis.js';
import { exportGenesis as exportBridge } from '../src/modules/bridge/genesis.js';
import { exportGenesis as exportCompute } from '../src/modules/compute/genesis.js';
import type { ScoreBreakdown, ScoredValidator, SigningWindowView } from '../src/modules/staking/queries.js';
import type { DelegationView, EpochSnapshot, StakeInfo, StakingTotals, UnbondingView, ValidatorView } from '../src/modules/staking/types.js';
import type { ValidatorChange } from '../src/modules/staking/changes.js';
import type { ApprovedModelView } from '../src/modules/compute/queries.js';
import type { ApprovedModelRecord, MinerRecord, ProofRecord, TaskRecord, ValidatorComputeView } from '../src/modules/compute/types.js';
import type { ProposalEvent, ProposalRecord } from '../src/modules/governance/types.js';
import type { BridgeEvent, DepositRecord, WithdrawalRecord } from '../src/modules/bridge/types.js';
import type { AccountRentInfo, RentEvent } from '../src/modules/rent/types.js';
import { ARCHIVE, CHAIN, COMPUTE, EXPECTED, fixtureDir, GOVERNANCE, RENT, recordedGenesis, STAKING, unpack, type Expected } from './support/recorded-chain.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';

const silent = pino({ level: 'silent' });
const expected = JSON.parse(readFileSync(path.join(fixtureDir(), EXPECTED), 'utf8')) as Expected;
const HEAD = expected.blocks.length;

/** The accounts of the recorded chain (test/support/record-chain.ts names them by these dev keys). */
const [genesisValidator, proposer, , alice, bob, user, absentee, deployer] = devPrivateKeys(8).map((k) => privateKeyToAccount(k).address.toLowerCase() as Address) as [
  Address, Address, Address, Address, Address, Address, Address, Address,
];
/** The contract the recorder deployed first and left without a deposit: dormant, reactivated, dormant again. */
const DORMANT = getContractAddress({ from: deployer, nonce: 0n }).toLowerCase() as Address;
/** The proof the recorder queued for the public task. */
const PROOF_ID = `0x${'07'.repeat(32)}` as const;
const SPEND_RECIPIENT = `0x${'5e'.repeat(20)}`;
const ETHER = 10n ** 18n;
const EPOCH = STAKING.epochLengthBlocks;

/** A chain and the app over it. */
interface Node {
  dir: string;
  chain: Chain;
  app: ChainApp;
}

function openApp(genesis: NetworkGenesis, computeParams: ComputeParams = COMPUTE): Node {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-module-contract-'));
  const chain = core.Chain.open(dir, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
  const mempool = new Mempool({ chain, chainId: genesis.spec.chainId, events: createNodeEvents() });
  const app = new ChainApp(chain, mempool, STAKING, appGenesis(genesis), silent, computeParams, GOVERNANCE, RENT);
  return { dir, chain, app };
}

function closeApp(n: Node | undefined): void {
  n?.chain.close();
  if (n) rmSync(n.dir, { recursive: true, force: true });
}

/** The registered modules: the one list the app hands its registry. */
const registered = (app: ChainApp): readonly SystemModule[] => app.modules.modules;

// ---------------------------------------------------------------------------------------------
// The seam.

/** The members of SystemModule the kernel calls on every module. */
const REQUIRED_MEMBERS = ['execute', 'simulate', 'beginBlock', 'endBlock', 'takeWrites', 'committed', 'reload'] as const;

describe('every registered module implements the kernel seam', () => {
  let fresh: Node;
  before(() => (fresh = openApp(recordedGenesis(expected.bridge))));
  after(() => closeApp(fresh));

  it('has a name, an address in the system range, its ABI file and the members the kernel calls', () => {
    const modules = registered(fresh.app);
    assert.ok(modules.length >= 5, `${modules.length} modules registered`);
    for (const m of modules) {
      assert.match(m.name, /^[a-z]+$/, `module name ${m.name}`);
      assert.match(m.address, /^0x[0-9a-f]{40}$/, `${m.name}'s address is lower-case hex`);
      assert.ok(BigInt(m.address) < 0x10000n, `${m.name}'s address ${m.address} is in the system range`);
      const abi = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', `${m.name}.json`), 'utf8')) as Abi;
      assert.deepEqual(m.abi, abi, `${m.name}'s ABI is abi/${m.name}.json`);
      for (const member of REQUIRED_MEMBERS) assert.equal(typeof m[member], 'function', `${m.name}.${member}`);
      assert.equal(fresh.app.modules.get(m.address), m, `the registry finds ${m.name} by its address`);
    }
  });

  it('has its queries under its name, and no queries without a module', () => {
    assert.deepEqual(Object.keys(fresh.app.queries).sort(), registered(fresh.app).map((m) => m.name).sort());
  });

  /** What the kernel's one path answers for a call the module's ABI cannot decode: the same shape for every module. */
  const refused = (name: string, reason: string, intrinsicGas: bigint): ModuleOutcome => {
    const full = `${name}: ${reason}`;
    return { success: false, gasUsed: intrinsicGas, reason: full, returnData: revertData(full), logs: [], moves: [] };
  };

  it('refuses an unknown selector and a plain transfer through the kernel path, alike in every module', () => {
    const head = fresh.chain.head();
    const ctx = { height: head.number + 1, timeMs: head.timestampMs + 1000 };
    const call = (data: Buffer, value = 0n) => ({ from: alice, value, data, gasLimit: 100_000n, intrinsicGas: 21_064n });
    const shapes = new Set<string>();
    for (const m of registered(fresh.app)) {
      const unknown = fresh.app.simulateModule(addressBuffer(m.address), call(Buffer.from('deadbeef', 'hex')), ctx);
      assert.deepEqual(unknown, refused(m.name, 'unknown function or malformed arguments', 21_064n), `${m.name}: an unknown selector`);
      const transfer = fresh.app.simulateModule(addressBuffer(m.address), call(Buffer.alloc(0), 1n), ctx);
      assert.deepEqual(transfer, refused(m.name, 'plain transfers are refused, call a function', 21_064n), `${m.name}: a plain transfer`);
      shapes.add(unknown!.reason!.replace(`${m.name}: `, ''));
    }
    assert.equal(shapes.size, 1, 'one reason, with the module\'s name in front');
  });

  it('charges a read function the view gas of its table, and refuses it short of that gas or sent value, alike in every module', () => {
    const head = fresh.chain.head();
    const ctx = { height: head.number + 1, timeMs: head.timestampMs + 1000 };
    for (const m of registered(fresh.app)) {
      // A read function, asked with zero arguments: decided or refused, it is charged the same.
      const view = m.abi.find((f): f is AbiFunction => f.type === 'function' && f.stateMutability === 'view' && f.inputs.every((i) => zeroOf(i.type) !== undefined));
      assert.ok(view, `${m.name} has a read function`);
      const data = Buffer.from(encodeFunctionData({ abi: [view], functionName: view.name, args: view.inputs.map((i) => zeroOf(i.type)) }).slice(2), 'hex');
      const intrinsicGas = 21_000n + 16n * BigInt(data.length);
      const call = (gasLimit: bigint, value = 0n) => fresh.app.simulateModule(addressBuffer(m.address), { from: alice, value, data, gasLimit, intrinsicGas }, ctx)!;
      const charged = call(1_000_000n).gasUsed;
      assert.ok(charged > intrinsicGas, `${m.name}.${view.name} costs its view gas on top of the intrinsic`);
      const short = call(charged - 1n);
      assert.deepEqual([short.success, short.reason, short.gasUsed], [false, 'out of gas', charged - 1n], `${m.name}: short of gas`);
      const paid = call(1_000_000n, 1n);
      assert.deepEqual([paid.success, paid.reason, paid.gasUsed], [false, `${m.name}: ${view.name} is not payable`, charged], `${m.name}: value sent to a read function`);
    }
  });
});

/** The zero value of an ABI type without components; undefined for tuples. */
function zeroOf(type: string): unknown {
  if (type.endsWith('[]')) return [];
  if (type === 'address') return `0x${'00'.repeat(20)}`;
  if (/^u?int\d*$/.test(type)) return 0n;
  if (type === 'bool') return false;
  if (type === 'string') return '';
  if (type === 'bytes') return '0x';
  const fixed = /^bytes(\d+)$/.exec(type);
  return fixed ? `0x${'00'.repeat(Number(fixed[1]))}` : undefined;
}

// ---------------------------------------------------------------------------------------------
// Genesis.

/** A genesis file of the dev chain's id with `extra` fields ("validators", "staking", "bridge"). */
const genesisFile = (extra: Record<string, unknown>): Record<string, unknown> => ({ chainId: CHAIN, timestamp: 1_767_225_600, alloc: {}, ...extra });

/** The dev genesis's validator as a genesis file lists it. */
const devValidator = (): GenesisValidatorJson => {
  const [v] = devGenesisValidators();
  return {
    operator: `0x${v!.operator.toString('hex')}`,
    moniker: v!.moniker,
    selfStake: v!.selfStake.toString(),
    commissionBps: v!.commissionBps,
    maxCommissionBps: v!.maxCommissionBps,
    maxChangeBpsPerDay: v!.maxChangeBpsPerDay,
  };
};

/** Two validators, one with a consensus key, the liveness rules and an external chain other than the defaults. */
const CUSTOM = {
  validators: [
    { ...devValidator(), consensusKey: `0x${'1f'.repeat(32)}` },
    { operator: absentee, moniker: 'second', selfStake: (2_500n * ETHER).toString(), commissionBps: 700, maxCommissionBps: 1_500, maxChangeBpsPerDay: 50 },
  ],
  staking: { signedBlocksWindow: 50, minSignedPerWindowBps: 6_000 },
  bridge: { chainId: 5, contract: `0x${'ab'.repeat(20)}`, confirmations: 4, fromBlock: 12 },
};

interface GenesisCase {
  /** The genesis files (and compute parameters) to build the module from. */
  inputs: { name: string; file: Record<string, unknown>; compute?: ComputeParams }[];
  /** The module's part of the genesis as its genesis.ts exports it from the module's state. */
  exported: (q: ModuleQueries) => unknown;
  /** What the export must equal: the input's part (with the defaults it leaves to the node). */
  part: (input: GenesisCase['inputs'][number]) => unknown;
  /** One malformed part, and the error the genesis check gives it. */
  bad: { file: Record<string, unknown>; error: RegExp };
}

const ONE_MODEL: ComputeParams = { ...COMPUTE, approvedModels: [{ id: 'svc-embed-small@v1.0', tier: 'Cold', dims: 384 }] };

/** Each module's genesis; a registered module missing here fails the test. */
const GENESIS: Record<string, GenesisCase> = {
  staking: {
    inputs: [
      { name: 'dev', file: genesisFile({ validators: [devValidator()] }) },
      { name: 'custom', file: genesisFile({ validators: CUSTOM.validators, staking: CUSTOM.staking }) },
    ],
    exported: (q) => exportStaking(q.staking.validators(), q.staking.params),
    part: ({ file }) => ({
      validators: [...(file.validators as GenesisValidatorJson[])].sort((a, b) => (a.operator < b.operator ? -1 : 1)),
      // A genesis without "staking" runs the node's rules.
      staking: file.staking ?? { signedBlocksWindow: STAKING.signedBlocksWindow, minSignedPerWindowBps: STAKING.minSignedPerWindowBps },
    }),
    bad: { file: genesisFile({ validators: [{ ...devValidator(), consensusKey: '0x1234' }] }), error: /validators\[0\]\.consensusKey must be 0x and 64 hex digits/ },
  },
  compute: {
    inputs: [
      { name: 'dev', file: genesisFile({ validators: [devValidator()] }) },
      { name: 'one model', file: genesisFile({ validators: [devValidator()] }), compute: ONE_MODEL },
    ],
    exported: (q) => exportCompute(q.compute.modelRegistry(), q.compute.approvedModels),
    part: ({ compute }) => ({ approvedModels: (compute ?? COMPUTE).approvedModels }),
    // Compute's part comes from the node's parameters: a genesis file has no field for it.
    bad: { file: genesisFile({ compute: { approvedModels: [] } }), error: /unknown field "compute"/ },
  },
  governance: {
    inputs: [{ name: 'dev', file: genesisFile({ validators: [devValidator()] }) }],
    // Governance starts with no proposal, no change and an empty treasury, whatever the genesis.
    exported: (q) => ({ proposals: q.governance.proposals(), pending: q.governance.pendingChanges(), treasury: q.governance.treasury() }),
    part: () => ({
      proposals: [],
      pending: [],
      treasury: { balance: 0n, inflows: {}, outflows: {}, totalInflows: 0n, totalOutflows: 0n, pendingSpends: [], pendingSpendsTotal: 0n, spendsPaid: 0 },
    }),
    bad: { file: genesisFile({ governance: {} }), error: /unknown field "governance"/ },
  },
  bridge: {
    inputs: [
      { name: 'dev', file: genesisFile({ validators: [devValidator()] }) },
      { name: 'custom', file: genesisFile({ validators: CUSTOM.validators, bridge: CUSTOM.bridge }) },
    ],
    exported: (q) => exportBridge(q.bridge.config),
    part: ({ file }) => file.bridge,
    bad: { file: genesisFile({ validators: [devValidator()], bridge: { ...CUSTOM.bridge, chainId: CHAIN } }), error: /bridge\.chainId is this chain's own id/ },
  },
  rent: {
    inputs: [{ name: 'dev', file: genesisFile({ validators: [devValidator()] }) }],
    // Rent starts with no deposit, no account dormant: the recorded chain's contract owes nothing yet.
    exported: (q) => ({ anyDormant: q.rent.anyDormant, contract: q.rent.info(DORMANT, 0) }),
    part: () => ({
      anyDormant: false,
      contract: { address: DORMANT, storageDeposit: '0', storageSlotCount: 0, lastActiveEpoch: 0, isDormant: false, rentOwed: '0', currentEpoch: 0, reactivationFee: RENT.reactivationFee.toString() },
    }),
    bad: { file: genesisFile({ rent: {} }), error: /unknown field "rent"/ },
  },
};

describe("every registered module's genesis round-trips", () => {
  const names = (() => {
    const n = openApp(recordedGenesis(expected.bridge));
    try {
      return registered(n.app).map((m) => m.name);
    } finally {
      closeApp(n);
    }
  })();

  it('has a genesis case for every registered module', () => {
    assert.deepEqual(names.filter((m) => !GENESIS[m]), [], 'registered modules without a genesis case');
  });

  for (const name of names) {
    const c = GENESIS[name];
    if (!c) continue;
    it(`${name}: its genesis part, built into the module and exported back, is what the genesis gave`, () => {
      for (const input of c.inputs) {
        const genesis = parseNetworkGenesis(input.file, CHAIN, `${name} ${input.name}`);
        const n = openApp(genesis, input.compute);
        try {
          assert.deepEqual(c.exported(n.app.queries), c.part(input), `${name}, ${input.name} genesis`);
        } finally {
          closeApp(n);
        }
      }
    });
    it(`${name}: the genesis check refuses a malformed part with a clear error`, () => {
      assert.throws(() => parseNetworkGenesis(c.bad.file, CHAIN, 'bad.json'), (err: Error) => {
        assert.equal(err.name, 'GenesisFileError');
        assert.match(err.message, /^genesis file bad\.json: /);
        assert.match(err.message, c.bad.error);
        return true;
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Queries.

/** What a query's case is asked and checked with. */
interface Env {
  /** The recorded chain replayed to its head, or a fresh chain at genesis. */
  busy: boolean;
  q: ModuleQueries;
  head: number;
}

/** The explorer's way of writing numbers (views take the edge's style). */
const STYLE = { amount: (v: bigint) => v.toString(), height: (n: number) => n, counter: (n: number) => n, quantity: (n: number) => n };

/**
 * One query's case. `args` gives its arguments from what the chain holds (none for a getter), or
 * undefined on the fresh chain where it holds nothing to ask about (the busy chain asks every query).
 * A per-block query (`perBlock`) is asked after every replayed block with that block's height; a
 * watch (`watch`) is made after the first block and its next() asked after every later one: their
 * busy check gets the answers by height.
 */
type QueryCase =
  | { kind: 'plain'; args?: (e: Env) => unknown[] | undefined; check: (answer: never, e: Env) => void }
  | { kind: 'perBlock'; fresh: (answer: never) => void; busy: (byHeight: Map<number, never>) => void }
  | { kind: 'watch'; fresh: (next: never) => void; busy: (byHeight: Map<number, never>) => void }
  /** A private helper of another query's view: asked through that query. */
  | { kind: 'helper'; of: string };

const ask = <T>(c: { args?: (e: Env) => unknown[] | undefined; check: (answer: T, e: Env) => void }): QueryCase => ({ kind: 'plain', ...c }) as QueryCase;
const perBlock = <T>(c: { fresh: (answer: T) => void; busy: (byHeight: Map<number, T>) => void }): QueryCase => ({ kind: 'perBlock', ...c }) as QueryCase;
const watch = <T>(c: { fresh: (next: T) => void; busy: (byHeight: Map<number, T>) => void }): QueryCase => ({ kind: 'watch', ...c }) as QueryCase;

/** Heights at which a per-block answer is not empty. */
const heightsWith = <T>(byHeight: Map<number, T[]>): number[] => [...byHeight].filter(([, a]) => a.length > 0).map(([h]) => h);

const byAddress = (list: readonly ValidatorView[], a: Address) => list.find((v) => v.address === a);

/** Every module's queries, by module and query; a query without a case fails the test. */
const QUERIES: Record<string, Record<string, QueryCase>> = {
  staking: {
    params: ask<typeof STAKING>({ check: (p) => assert.deepEqual(p, STAKING) }),
    currentEpoch: ask<number>({ check: (n, e) => assert.equal(n, e.busy ? Math.floor(HEAD / EPOCH) : 0) }),
    epochOf: ask<number>({ args: () => [25], check: (n) => assert.equal(n, 2) }),
    epochStart: ask<number>({ args: () => [3], check: (n) => assert.equal(n, 30) }),
    validators: ask<ValidatorView[]>({
      check: (list, e) => {
        assert.equal(list.length, e.busy ? 2 : 1);
        const g = byAddress(list, genesisValidator)!;
        assert.equal(g.moniker, 'genesis');
        // The recorder raised the genesis validator's commission from 10% to 11%.
        assert.equal(g.commissionBps, e.busy ? 1_100 : 1_000);
        if (e.busy) assert.equal(g.blocksProduced, HEAD);
      },
    }),
    validator: ask<ValidatorView | undefined>({
      args: () => [absentee],
      check: (v, e) => {
        if (!e.busy) return assert.equal(v, undefined);
        // Jailed for downtime (one slash), unjailed, and active again.
        assert.equal(v!.moniker, 'absentee');
        assert.equal(v!.status, 'active');
        assert.deepEqual(v!.slashes.map((s) => s.reason), ['downtime']);
        assert.equal(v!.blocksProduced, 0);
      },
    }),
    scores: ask<Map<Address, ScoreBreakdown>>({
      check: (scores, e) => {
        assert.deepEqual([...scores.keys()].sort(), (e.busy ? [absentee, genesisValidator] : [genesisValidator]).sort());
        assert.equal(scores.get(genesisValidator)!.uptime, 10_000);
        if (!e.busy) return;
        // The absentee signed nothing; the genesis validator searched shares and carried the proof.
        assert.deepEqual([scores.get(absentee)!.uptime, scores.get(genesisValidator)!.compute], [0, 10_000]);
        assert.ok(scores.get(genesisValidator)!.totalBps > scores.get(absentee)!.totalBps);
      },
    }),
    minersShareBps: ask<number>({ args: () => [0], check: (bps) => assert.equal(bps, STAKING.inferenceMinersShareBps) }),
    scoredValidators: ask<ScoredValidator[]>({
      check: (list, e) => assert.deepEqual(list.map((s) => s.validator.address).sort(), (e.busy ? [absentee, genesisValidator] : [genesisValidator]).sort()),
    }),
    scoredValidator: ask<ScoredValidator | undefined>({
      args: () => [genesisValidator],
      check: (s, e) => {
        assert.equal(s!.validator.address, genesisValidator);
        if (e.busy) assert.ok(s!.score, 'scored once epochs closed');
      },
    }),
    validatorSet: ask<EpochSnapshot | undefined>({
      check: (set, e) => {
        assert.equal(set!.epoch, e.busy ? Math.floor(HEAD / EPOCH) : 0);
        assert.deepEqual(set!.validators.map((v) => v.address).sort(), (e.busy ? [absentee, genesisValidator] : [genesisValidator]).sort());
      },
    }),
    // The recorded chain is a solo devnet: no validator has a consensus key.
    consensusMembers: ask<unknown[]>({ check: (list) => assert.deepEqual(list, []) }),
    totals: ask<StakingTotals>({
      check: (t, e) => {
        if (!e.busy) return assert.equal(t.totalStaked, 1_000n * ETHER);
        // 1000 + 50 self stakes, 30 - 10 and 2 delegated, less the absentee's downtime slash.
        assert.equal(t.totalStaked + t.burned, 1_072n * ETHER);
        assert.ok(t.burned > 0n);
        assert.equal(t.totalUnbonding, 0n);
      },
    }),
    stakeInfo: ask<StakeInfo>({
      args: () => [alice],
      check: (s, e) => {
        assert.equal(s.stakedAmount, e.busy ? 20n * ETHER : 0n);
        // The undelegation was withdrawn.
        assert.equal(s.unstakingAmount, 0n);
      },
    }),
    delegation: ask<DelegationView | undefined>({
      args: () => [bob, absentee],
      check: (d, e) => (e.busy ? assert.equal(d!.delegator, bob) : assert.equal(d, undefined)),
    }),
    delegationsTo: ask<DelegationView[]>({
      args: () => [genesisValidator],
      check: (list, e) => assert.deepEqual(list.map((d) => d.delegator).filter((d) => d !== genesisValidator), e.busy ? [alice] : []),
    }),
    unbondingsOf: ask<UnbondingView[]>({ args: () => [alice], check: (list) => assert.deepEqual(list, []) }),
    signingWindow: ask<SigningWindowView | undefined>({
      args: () => [absentee],
      check: (w, e) => {
        if (!e.busy) return assert.equal(w, undefined);
        assert.equal(w!.windowSize, STAKING.signedBlocksWindow);
        assert.equal(w!.signed, 0, 'the absentee signs nothing');
        assert.equal(w!.missed, w!.counted);
      },
    }),
    epochWatch: watch<EpochSnapshot | undefined>({
      fresh: (next) => assert.equal(next, undefined),
      busy: (byHeight) => {
        // A new set after each epoch's last block.
        const starts = [...byHeight].filter(([, s]) => s !== undefined).map(([h, s]) => [h, s!.epoch]);
        assert.deepEqual(starts, Array.from({ length: Math.floor(HEAD / EPOCH) }, (_, i) => [(i + 1) * EPOCH - 1, i + 1]));
      },
    }),
    validatorWatch: watch<ValidatorChange[]>({
      fresh: (next) => assert.deepEqual(next, []),
      busy: (byHeight) => {
        const statuses = [...byHeight].flatMap(([, changes]) => changes.filter((c) => c.address === absentee).map((c) => c.validator?.status));
        // Registered, jailed for downtime, back after its jail time (inactive until the next epoch), active.
        const path = statuses.filter((s, i) => s !== statuses[i - 1]);
        for (const s of ['active', 'jailed', 'active']) assert.ok(path.includes(s as never), `the absentee's statuses ${path.join(' -> ')}`);
        assert.ok(path.indexOf('jailed') < path.lastIndexOf('active'));
      },
    }),
  },
  compute: {
    params: ask<ComputeParams>({ check: (p) => assert.deepEqual(p, COMPUTE) }),
    headEpoch: ask<{ head: { number: number }; epoch: number }>({
      check: (h, e) => assert.deepEqual([h.head.number, h.epoch], [e.head, Math.floor((e.head + 1) / EPOCH)]),
    }),
    minerStatus: ask<string>({
      args: (e) => {
        const m = e.q.compute.minerList()[0];
        return m ? [m, e.q.compute.headEpoch().head.timestamp, e.q.compute.headEpoch().epoch] : undefined;
      },
      // Registered within the last minerActiveEpochs epochs, never jailed.
      check: (s) => assert.equal(s, 'active'),
    }),
    miner: ask<MinerRecord | undefined>({
      args: (e) => (e.busy ? [e.q.compute.proof(PROOF_ID)!.miner] : [alice]),
      check: (m, e) => {
        if (!e.busy) return assert.equal(m, undefined);
        assert.deepEqual([m!.tier, m!.models, m!.proofsAccepted, m!.tasksCompleted], ['Cold', ['svc-embed-small@v1.0'], 1, 1]);
      },
    }),
    minerList: ask<MinerRecord[]>({ check: (list, e) => assert.equal(list.length, e.busy ? 1 : 0) }),
    activeMiners: ask<MinerRecord[]>({
      args: (e) => [e.q.compute.headEpoch().epoch, e.q.compute.headEpoch().head.timestamp],
      check: (list, e) => assert.equal(list.length, e.busy ? 1 : 0),
    }),
    minersWithRecentProofs: ask<number>({ args: (e) => [3, e.q.compute.headEpoch().head.timestamp], check: (n, e) => assert.equal(n, e.busy ? 1 : 0) }),
    inferenceScoreOf: ask<bigint>({
      args: (e) => (e.busy ? [e.q.compute.minerList()[0]!.window, 3] : [[], 0]),
      check: (score, e) => assert.equal(score, e.busy ? 123_456_789n : 0n),
    }),
    openTasks: ask<TaskRecord[]>({
      check: (list, e) => {
        if (!e.busy) return assert.deepEqual(list, []);
        // The challenge tasks of the last epoch, for the one miner.
        assert.ok(list.length > 0);
        for (const t of list) assert.deepEqual([t.kind, t.modelId], ['challenge', 'svc-embed-small@v1.0']);
      },
    }),
    openTasksOf: ask<TaskRecord[]>({
      args: (e) => [e.busy ? e.q.compute.minerList()[0]!.wallet : alice],
      check: (list, e) => assert.equal(list.length, e.q.compute.openTasks().length),
    }),
    isProofQueued: ask<boolean>({ args: () => [PROOF_ID], check: (queued) => assert.equal(queued, false) }),
    task: ask<TaskRecord | undefined>({
      args: (e) => [e.busy ? e.q.compute.proof(PROOF_ID)!.taskId : PROOF_ID],
      check: (t, e) => {
        if (!e.busy) return assert.equal(t, undefined);
        // The public task bob paid for, completed by the proof.
        assert.deepEqual([t!.kind, t!.submitter, t!.status, t!.proofId], ['public', bob, 'completed', PROOF_ID]);
      },
    }),
    proof: ask<ProofRecord | undefined>({
      args: () => [PROOF_ID],
      check: (p, e) => {
        if (!e.busy) return assert.equal(p, undefined);
        assert.deepEqual([p!.validator, p!.flops, p!.feePaid], [genesisValidator, 123_456_789n, true]);
      },
    }),
    blockActivity: perBlock<{ accepted: string[]; decided: string[] }>({
      fresh: (a) => assert.deepEqual(a, { accepted: [], decided: [] }),
      busy: (byHeight) => {
        const accepted = [...byHeight].filter(([, a]) => a.accepted.length > 0);
        assert.equal(accepted.length, 1);
        assert.deepEqual(accepted[0]![1].accepted, [PROOF_ID]);
      },
    }),
    modelRegistry: ask<ApprovedModelRecord[]>({
      check: (list) => assert.deepEqual(list.map((m) => m.id), COMPUTE.approvedModels.map((m) => m.id).sort()),
    }),
    approvedModels: ask<readonly string[]>({ check: (ids) => assert.deepEqual(ids, COMPUTE.approvedModels.map((m) => m.id)) }),
    isApproved: ask<boolean>({ args: () => ['svc-embed-small@v1.0'], check: (ok) => assert.equal(ok, true) }),
    modelTier: ask<string | undefined>({ args: () => ['svc-classify-small@v1.0'], check: (tier) => assert.equal(tier, 'Warm') }),
    modelDims: ask<number | undefined>({ args: () => ['svc-embed-small@v1.0'], check: (dims) => assert.equal(dims, 384) }),
    modelCounts: ask<Record<string, { assigned: number; completed: number }>>({
      check: (counts, e) => {
        const small = counts['svc-embed-small@v1.0'] ?? { assigned: 0, completed: 0 };
        assert.equal(small.completed, e.busy ? 1 : 0);
      },
    }),
    counters: ask<{ sharesAccepted: number; proofsAccepted: number; publicTasks: number }>({
      check: (c, e) =>
        assert.deepEqual(
          [c.sharesAccepted, c.proofsAccepted, c.publicTasks],
          e.busy ? [expected.contents['compute share'], expected.contents['compute proof'], 1] : [0, 0, 0],
        ),
    }),
    minerPool: ask<bigint>({ check: (pool, e) => (e.busy ? assert.ok(pool > 0n) : assert.equal(pool, 0n)) }),
    spotChecksPending: ask<readonly string[]>({ check: (list) => assert.deepEqual(list, []) }),
    hashrateWindowSeconds: ask<number>({ check: (s, e) => (e.busy ? assert.ok(s > 0) : assert.equal(s, 0)) }),
    validatorCompute: ask<{ mode: string; modeSince: number; sharesAccepted: number } | undefined>({
      args: () => [genesisValidator],
      // The recorder's node searched shares from block 1: every accepted share is its.
      check: (r, e) =>
        e.busy ? assert.deepEqual([r!.mode, r!.modeSince, r!.sharesAccepted], ['pow', 1, expected.contents['compute share']]) : assert.equal(r, undefined),
    }),
    computeViews: ask<Map<Address, ValidatorComputeView>>({
      args: (e) => [[genesisValidator, absentee], e.q.staking.currentEpoch],
      check: (views, e) => {
        assert.deepEqual([...views.keys()], [genesisValidator, absentee]);
        const modes = [...views.values()].map((v) => [v.computeMode, v.providesCompute]);
        assert.deepEqual(modes, e.busy ? [['pow', true], ['none', false]] : [['none', false], ['none', false]]);
      },
    }),
    blockProofs: perBlock<{ accepted: ProofRecord[]; decided: ProofRecord[] }>({
      fresh: (p) => assert.deepEqual(p, { accepted: [], decided: [] }),
      busy: (byHeight) => {
        const blocks = [...byHeight].filter(([, p]) => p.accepted.length > 0);
        assert.deepEqual(blocks.map(([h, p]) => [h, p.accepted.map((x) => x.id)]), [[blocks[0]![1].accepted[0]!.includedAt, [PROOF_ID]]]);
      },
    }),
    approvedModelViews: ask<ApprovedModelView[]>({
      check: (views) => assert.deepEqual(views.map((v) => [v.id, v.status, v.pinnedBy]), COMPUTE.approvedModels.map((m) => [m.id, 'approved', 'registry']).sort()),
    }),
    taskView: ask<{ taskId: string; status: string; fee: string }>({
      args: (e) => (e.busy ? [e.q.compute.task(e.q.compute.proof(PROOF_ID)!.taskId), STYLE] : undefined),
      check: (v) => assert.deepEqual([v.status, v.fee], ['completed', COMPUTE.publicTaskMinFee.toString()]),
    }),
    minerView: ask<{ status: string; proofsAccepted: number; flops: string }>({
      args: (e) => (e.busy ? [e.q.compute.minerList()[0], STYLE] : undefined),
      check: (v) => assert.deepEqual([v.status, v.proofsAccepted, v.flops], ['active', 1, '123456789']),
    }),
  },
  governance: {
    proposal: ask<ProposalRecord | undefined>({
      args: () => [1],
      check: (p, e) => {
        if (!e.busy) return assert.equal(p, undefined);
        assert.deepEqual([p!.content.kind, p!.status, p!.proposer, p!.execution?.result], ['parameter-change', 'passed', proposer, 'applied']);
      },
    }),
    proposals: ask<ProposalRecord[]>({
      check: (list, e) => assert.deepEqual(list.map((p) => [p.id, p.status]), e.busy ? [[2, 'passed'], [1, 'passed']] : []),
    }),
    activeProposals: ask<ProposalRecord[]>({ check: (list) => assert.deepEqual(list, []) }),
    depositsOf: ask<{ depositor: string; amount: bigint }[]>({
      args: () => [1],
      check: (list, e) => assert.deepEqual(list.map((d) => d.amount), e.busy ? [10n * ETHER] : []),
    }),
    votesOf: ask<{ voter: string; option: string }[]>({
      args: () => [2],
      check: (list, e) => assert.deepEqual(list.map((v) => v.voter), e.busy ? [genesisValidator] : []),
    }),
    runningTally: ask<unknown>({
      args: (e) => (e.busy ? [e.q.governance.proposal(2)] : undefined),
      // Tallied and closed: no running tally outside the voting period.
      check: (t) => assert.equal(t, undefined),
    }),
    // The parameter change that passed, in force from epoch 4.
    rules: ask<typeof GOVERNANCE>({ check: (r, e) => assert.deepEqual(r, e.busy ? { ...GOVERNANCE, modelRetirementGraceBlocks: 50 } : GOVERNANCE) }),
    paramValue: ask<bigint>({
      args: () => ['governance.modelRetirementGraceBlocks'],
      // The parameter change that passed: 50 blocks from epoch 4.
      check: (v, e) => assert.equal(v, e.busy ? 50n : BigInt(GOVERNANCE.modelRetirementGraceBlocks)),
    }),
    pendingChanges: ask<unknown[]>({ check: (list) => assert.deepEqual(list, []) }),
    treasury: ask<{ spendsPaid: number; totalOutflows: bigint; pendingSpends: unknown[] }>({
      check: (t, e) => assert.deepEqual([t.spendsPaid, t.totalOutflows, t.pendingSpends], e.busy ? [1, ETHER / 2n, []] : [0, 0n, []]),
    }),
    blockEvents: perBlock<ProposalEvent[]>({
      fresh: (list) => assert.deepEqual(list, []),
      busy: (byHeight) => {
        const kinds = [...byHeight.values()].flat().map((ev) => ev.type);
        for (const k of ['submitted', 'deposit', 'voting-started', 'vote', 'finished', 'executed', 'param-changed', 'spend-paid']) assert.ok(kinds.includes(k as never), `a ${k} event`);
        // The two-part spend: paid in two blocks.
        assert.equal(kinds.filter((k) => k === 'spend-paid').length, 2);
      },
    }),
    proposalSummary: ask<{ id: number; status: string; content: { recipient?: string; amount?: string }; tally: { yes: string; final: boolean } }>({
      args: (e) => (e.busy ? [e.q.governance.proposal(2), STYLE] : undefined),
      check: (v) => {
        assert.deepEqual([v.id, v.status, v.content.recipient?.toLowerCase(), v.content.amount, v.tally.final], [2, 'passed', SPEND_RECIPIENT, (ETHER / 2n).toString(), true]);
        assert.ok(BigInt(v.tally.yes) > 0n);
      },
    }),
    proposalView: ask<{ id: number; description: string }>({
      args: (e) => (e.busy ? [e.q.governance.proposal(1), STYLE] : undefined),
      check: (v) => assert.deepEqual([v.id, v.description], [1, 'Miners need 50 blocks to finish.']),
    }),
    paramsView: ask<{ blockNumber: number; params: { name: string; value: string }[] }>({
      args: () => [STYLE],
      check: (v, e) => {
        assert.equal(v.blockNumber, e.head);
        assert.equal(v.params.find((p) => p.name === 'governance.modelRetirementGraceBlocks')!.value, e.busy ? '50' : String(GOVERNANCE.modelRetirementGraceBlocks));
      },
    }),
    treasuryView: ask<{ balance: string; totalInflows: string; spendsPaid: number; blockNumber: number }>({
      args: () => [STYLE],
      check: (v, e) => {
        assert.deepEqual([v.spendsPaid, v.blockNumber], [e.busy ? 1 : 0, e.head]);
        // balance = what came in less what went out.
        assert.equal(BigInt(v.balance), BigInt(v.totalInflows) - (e.busy ? ETHER / 2n : 0n));
      },
    }),
    contentView: { kind: 'helper', of: 'proposalSummary' },
    tallyView: { kind: 'helper', of: 'proposalSummary' },
  },
  bridge: {
    config: ask<unknown>({ check: (c) => assert.deepEqual(c, expected.bridge) }),
    deposit: ask<DepositRecord | undefined>({
      args: () => [1],
      check: (d, e) => {
        if (!e.busy) return assert.equal(d, undefined);
        // The ETH deposit there, attested by the genesis validator and minted to the user here.
        assert.ok(d!.minted);
        assert.deepEqual(d!.attestations.map((a) => [a.fields.recipient, a.fields.amount, a.attesters]), [[user, ETHER, [genesisValidator]]]);
      },
    }),
    deposits: ask<DepositRecord[]>({ check: (list, e) => assert.deepEqual(list.map((d) => d.nonce), e.busy ? [1] : []) }),
    withdrawal: ask<WithdrawalRecord | undefined>({
      args: () => [1],
      check: (w, e) => {
        if (!e.busy) return assert.equal(w, undefined);
        assert.deepEqual([w!.from, w!.amount, w!.releaseAttesters], [user, (4n * ETHER) / 10n, [genesisValidator]]);
        assert.ok(w!.releasedHeight !== null && w!.readyHeight !== null && w!.releasedHeight > w!.readyHeight);
      },
    }),
    withdrawals: ask<WithdrawalRecord[]>({ check: (list, e) => assert.deepEqual(list.map((w) => w.id), e.busy ? [1] : []) }),
    blockEvents: perBlock<BridgeEvent[]>({
      fresh: (list) => assert.deepEqual(list, []),
      busy: (byHeight) => {
        const at = (kind: string) => [...byHeight].filter(([, list]) => list.some((ev) => ev.kind === kind)).map(([h]) => h);
        // Minted, then the withdrawal signed (ready) and released, each in one block.
        assert.equal(at('deposit-minted').length, 1);
        assert.equal(at('withdrawal-ready').length, 1);
        assert.equal(at('withdrawal-released').length, 1);
        assert.ok(at('deposit-minted')[0]! < at('withdrawal-ready')[0]! && at('withdrawal-ready')[0]! < at('withdrawal-released')[0]!);
      },
    }),
  },
  rent: {
    info: ask<AccountRentInfo>({
      args: (e) => [DORMANT, e.q.staking.currentEpoch],
      check: (i, e) => {
        // Dormant again at the head: its 100 slots owe rent once more since the reactivation.
        assert.equal(i.isDormant, e.busy);
        assert.equal(i.storageSlotCount, e.busy ? 100 : 0);
        if (e.busy) assert.ok(BigInt(i.rentOwed) >= RENT.dormancyOwedLimit);
      },
    }),
    // A system module's account never owes rent.
    isExempt: ask<boolean>({ args: () => [system.stakingAddress], check: (exempt) => assert.equal(exempt, true) }),
    anyDormant: ask<boolean>({ check: (any, e) => assert.equal(any, e.busy) }),
    blockEvents: perBlock<RentEvent[]>({
      fresh: (list) => assert.deepEqual(list, []),
      busy: (byHeight) => {
        const events = [...byHeight].flatMap(([h, list]) => list.map((ev) => [h, ev.kind, ev.account] as const));
        // Dormant, reactivated by bob, dormant again.
        assert.deepEqual(events.map(([, kind, account]) => [kind, account]), [['dormant', DORMANT], ['reactivated', DORMANT], ['dormant', DORMANT]]);
        assert.ok(heightsWith(byHeight).every((h) => h > 0));
      },
    }),
  },
};

/** Every query of a module's queries object: its methods and getters, by name. */
function queryNames(queries: object): { name: string; getter: boolean }[] {
  const proto = Object.getPrototypeOf(queries) as object;
  const own = Object.entries(Object.getOwnPropertyDescriptors(queries)).filter(([, d]) => typeof d.value === 'function' || d.get);
  const inherited = Object.entries(Object.getOwnPropertyDescriptors(proto)).filter(([n, d]) => n !== 'constructor' && (typeof d.value === 'function' || d.get));
  return [...own, ...inherited].map(([name, d]) => ({ name, getter: d.get !== undefined }));
}

/** Asks a plain query (or reads a getter) with its case's arguments; undefined args: not asked. */
function askQuery(queries: object, name: string, getter: boolean, args: unknown[] | undefined): { asked: boolean; answer?: unknown } {
  if (getter) return { asked: true, answer: (queries as Record<string, unknown>)[name] };
  if (args === undefined) return { asked: false };
  return { asked: true, answer: ((queries as Record<string, (...a: unknown[]) => unknown>)[name]!).apply(queries, args) };
}

describe("every registered module's queries answer on a fresh chain and on the recorded busy chain", () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'svc-module-contract-busy-'));
  let fresh: Node;
  before(() => (fresh = openApp(recordedGenesis(expected.bridge))));
  after(() => {
    closeApp(fresh);
    rmSync(work, { recursive: true, force: true });
  });

  it('has a case for every query of every registered module', () => {
    const missing: string[] = [];
    const stale: string[] = [];
    for (const m of registered(fresh.app)) {
      const queries = (fresh.app.queries as unknown as Record<string, object>)[m.name]!;
      const cases = QUERIES[m.name] ?? {};
      const names = queryNames(queries).map((q) => q.name);
      for (const n of names) if (!cases[n]) missing.push(`${m.name}.${n}`);
      for (const n of Object.keys(cases)) if (!names.includes(n)) stale.push(`${m.name}.${n}`);
      for (const [n, c] of Object.entries(cases)) if (c.kind === 'helper') assert.ok(cases[c.of] && c.of !== n, `${m.name}.${n} is asked through ${c.of}`);
    }
    assert.deepEqual(missing, [], 'queries without a case (add one to QUERIES)');
    assert.deepEqual(stale, [], 'cases of queries that no longer exist');
  });

  it('answers every query at genesis', () => {
    const e: Env = { busy: false, q: fresh.app.queries, head: fresh.chain.head().number };
    assert.equal(e.head, 0);
    const failures: string[] = [];
    for (const m of registered(fresh.app)) {
      const queries = (e.q as unknown as Record<string, object>)[m.name]!;
      for (const { name, getter } of queryNames(queries)) {
        const c = QUERIES[m.name]?.[name];
        if (!c || c.kind === 'helper') continue;
        const where = `${m.name}.${name} at genesis`;
        try {
          if (c.kind === 'plain') {
            const r = askQuery(queries, name, getter, getter ? [] : c.args ? c.args(e) : []);
            if (r.asked) c.check(r.answer as never, e);
          } else if (c.kind === 'perBlock') {
            c.fresh(askQuery(queries, name, false, [0]).answer as never);
          } else {
            const w = askQuery(queries, name, false, []).answer as { next(): unknown };
            c.fresh(w.next() as never);
          }
        } catch (err) {
          failures.push(`${where}: ${(err as Error).message}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('answers every query on the recorded chain, replayed with every module active', async () => {
    unpack(readFileSync(path.join(fixtureDir(), ARCHIVE)), path.join(work, 'recorded'));
    /** Per-block and watch answers, by module.query, by height. */
    const byHeight = new Map<string, Map<number, unknown>>();
    const watches = new Map<string, { next(): unknown }>();
    const streamed = (m: string, name: string) => {
      const key = `${m}.${name}`;
      if (!byHeight.has(key)) byHeight.set(key, new Map());
      return byHeight.get(key)!;
    };
    let asked = 0;
    const failures: string[] = [];
    let app!: ChainApp;
    const result = await replayChain({
      from: path.join(work, 'recorded'),
      to: path.join(work, 'replayed'),
      genesis: recordedGenesis(expected.bridge),
      chainId: CHAIN,
      stakingParams: STAKING,
      computeParams: COMPUTE,
      governanceParams: GOVERNANCE,
      rentParams: RENT,
      log: silent,
      onBlock: (height, _root, replaying) => {
        app = replaying;
        for (const m of registered(app)) {
          const queries = (app.queries as unknown as Record<string, object>)[m.name]!;
          for (const [name, c] of Object.entries(QUERIES[m.name] ?? {})) {
            if (c.kind === 'perBlock') streamed(m.name, name).set(height, askQuery(queries, name, false, [height]).answer);
            if (c.kind === 'watch') {
              const w = watches.get(`${m.name}.${name}`);
              if (w) streamed(m.name, name).set(height, w.next());
              else watches.set(`${m.name}.${name}`, askQuery(queries, name, false, []).answer as { next(): unknown });
            }
          }
        }
        if (height !== HEAD) return;
        // The head: every plain query, while the replaying app is open.
        const e: Env = { busy: true, q: app.queries, head: height };
        for (const m of registered(app)) {
          const queries = (app.queries as unknown as Record<string, object>)[m.name]!;
          for (const { name, getter } of queryNames(queries)) {
            const c = QUERIES[m.name]?.[name];
            if (!c || c.kind !== 'plain') continue;
            const args = getter ? [] : c.args ? c.args(e) : [];
            assert.ok(args !== undefined, `${m.name}.${name}: the busy chain holds what to ask it`);
            try {
              c.check(askQuery(queries, name, getter, args).answer as never, e);
              asked++;
            } catch (err) {
              failures.push(`${m.name}.${name} at the head: ${(err as Error).message}`);
            }
          }
        }
      },
    });
    assert.equal(result.blocks, HEAD);
    assert.ok(asked > 50, `${asked} queries asked at the head`);
    for (const m of registered(app)) {
      for (const [name, c] of Object.entries(QUERIES[m.name] ?? {})) {
        if (c.kind !== 'perBlock' && c.kind !== 'watch') continue;
        const answers = byHeight.get(`${m.name}.${name}`);
        assert.ok(answers && answers.size > 0, `${m.name}.${name} asked after the blocks`);
        try {
          c.busy(answers as Map<number, never>);
        } catch (err) {
          failures.push(`${m.name}.${name} over the replayed blocks: ${(err as Error).message}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });
});
