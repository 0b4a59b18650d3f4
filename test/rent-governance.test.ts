// A governance change of the rent rules reaches every account the same way (docs/rent.md, "Changes
// of the rules"): two contracts idle since long before dormancyEpochs drops to 1 go dormant at the
// first block of the epoch the change applies from, a third party's payRent(A, 0) in that block
// changes nothing, and a contract written after the change goes dormant on the rule's own schedule;
// the chain replays from block data to the same root. Blocks are made one at a time on the app.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { encodeFunctionData, getContractAddress, keccak256, parseAbi, type Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { createNodeEvents } from '../src/chain/events.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { Mempool } from '../src/chain/mempool.js';
import { replayChain } from '../src/chain/replay.js';
import { epochOfHeight, epochStartHeight } from '../src/modules/staking/epoch.js';
import { owedAt } from '../src/modules/rent/module.js';
import { core, type Chain } from '../src/native/index.js';
import {
  governance as defaultGovernance,
  rent as defaultRent,
  rpc as rpcParams,
  staking as defaultStaking,
  system,
  type GovernanceParams,
  type RentParams,
  type StakingParams,
} from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';
import { compileContracts } from './support/solc.js';

const STAKING: StakingParams = { ...defaultStaking, epochLengthBlocks: 3 };
const GOVERNANCE: GovernanceParams = { ...defaultGovernance, votingPeriodSeconds: 3 };
// 10 uncovered slots owe 70 an epoch: past the limit after one epoch; dormancy only after 1,000 idle epochs, until governance says 1.
const RENT: RentParams = { ...defaultRent, depositPerSlot: 1_000n, rentPerSlotPerEpoch: 7n, dormancyOwedLimit: 50n, dormancyEpochs: 1_000, reactivationFee: 5_000n };
const GOV_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'governance.json'), 'utf8')) as Abi;
const RENT_ABI = parseAbi(['function payRent(address account) payable returns (uint256)']);
const ETHER = 10n ** 18n;

describe('a governance change of the rent rules', { timeout: 240_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('reaches idle accounts and new ones by the same rule, whoever touches them, and replays', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-rent-governance-'));
    dirs.push(dir);
    const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
    const chain: Chain = core.Chain.open(dir, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    const mempool = new Mempool({ chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
    const app = new ChainApp(chain, mempool, STAKING, appGenesis(genesis), pino({ level: 'silent' }), undefined, GOVERNANCE, RENT);
    const target = compileContracts('RentTarget.sol').RentTarget!;
    const keys = devPrivateKeys(6);
    const validator = privateKeyToAccount(keys[0]!);
    const [owner, proposer, stranger] = [4, 3, 5].map((i) => privateKeyToAccount(keys[i]!)) as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount];
    const nonces = new Map<string, number>();
    const coinbase = genesis.validators[0]!.operator;
    let height = 0;

    const send = async (from: PrivateKeyAccount, to: Address | null, data: Hex, value = 0n): Promise<Hex> => {
      const nonce = nonces.get(from.address) ?? 0;
      nonces.set(from.address, nonce + 1);
      const signed = await from.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce, ...(to ? { to } : {}), data, value, gas: 3_000_000n, maxFeePerGas: 100n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n });
      mempool.add(Buffer.from(signed.slice(2), 'hex'));
      return signed;
    };
    const block = async () => {
      height += 1;
      const built = await app.produceBlock({ timestampMs: (1_900_000_000 + height) * 1000, coinbase, extraData: Buffer.alloc(0), maxTxs: 200, signers: [coinbase] });
      return built.produced;
    };
    /** Deploys a RentTarget and writes 10 slots in the next block (the contract holds nothing: no deposit). */
    const written = async (): Promise<Address> => {
      const c = getContractAddress({ from: owner.address, nonce: BigInt(nonces.get(owner.address) ?? 0) }).toLowerCase() as Address;
      await send(owner, null, target.bytecode);
      await send(owner, c, encodeFunctionData({ abi: target.abi, functionName: 'set', args: [0n, 10n, 1n] }));
      await block();
      await block(); // the block after the write files its record
      return c;
    };
    /** The epoch start at which the rule makes `c` dormant, from its record now (the first e > now with owed > limit and e - lastActive >= dormancyEpochs). */
    const ruleEpoch = (c: Address, dormancyEpochs: number): number => {
      const r = app.rent.record(c)!;
      for (let e = epochOfHeight(height, STAKING) + 1; ; e++) {
        if (owedAt(r, e, RENT.rentPerSlotPerEpoch) > RENT.dormancyOwedLimit && e - r.lastActiveEpoch >= dormancyEpochs) return e;
      }
    };

    const a = await written();
    const b = await written();
    for (let i = 0; i < 6; i++) await block();
    assert.ok(!app.rent.isDormant(a) && !app.rent.isDormant(b), 'idle for a few epochs, far from 1,000');

    // dormancyEpochs = 1, passed by the genesis validator's vote; it applies from the next epoch.
    const id = app.governance.global.nextProposalId;
    await send(proposer, system.governanceAddress as Address, encodeFunctionData({ abi: GOV_ABI, functionName: 'submitParameterChange', args: ['Dormancy', 'One idle epoch.', ['rent.dormancyEpochs'], [1n]] }), 10n * ETHER);
    await block();
    await send(validator, system.governanceAddress as Address, encodeFunctionData({ abi: GOV_ABI, functionName: 'vote', args: [BigInt(id), 1] }));
    while (app.governance.proposal(id)?.status !== 'passed') {
      assert.ok(height < 60, `proposal ${id}: ${app.governance.proposal(id)?.status}`);
      await block();
    }
    const applies = app.governance.proposal(id)!.execution!.appliesAtEpoch!;
    const first = epochStartHeight(applies, STAKING);
    while (height < first - 1) await block();
    assert.ok(!app.rent.isDormant(a) && !app.rent.isDormant(b));

    // The change's first block: both idle contracts by the rule, and a stranger's payRent(A, 0) in that block changes nothing.
    const paid = await send(stranger, system.rentAddress as Address, encodeFunctionData({ abi: RENT_ABI, functionName: 'payRent', args: [a] }));
    await block();
    assert.equal(height, first);
    assert.equal(app.live.rent.dormancyEpochs, 1);
    assert.equal(app.rent.isDormant(a), true, 'an account idle since before the change goes dormant at its first epoch start');
    assert.equal(app.rent.isDormant(b), true, 'and one nobody touched, at the same block');
    const events = app.rent.lastBlockEvents.filter((e) => e.kind === 'dormant').map((e) => e.account);
    assert.deepEqual(events.sort(), [a, b].sort());
    const receipt = chain.getTransactionReceipt(Buffer.from(keccak256(paid).slice(2), 'hex')) as { status: string; blockNumber: string } | null;
    assert.deepEqual([receipt?.status, Number(receipt?.blockNumber)], ['0x0', first], 'payRent(A, 0) in that block finds A dormant: it reverts');

    // A contract written after the change: dormant at the epoch the rule gives, not before.
    const c = await written();
    const due = ruleEpoch(c, 1);
    while (!app.rent.isDormant(c)) {
      assert.ok(height < first + 30, `${c} is not dormant by block ${height} (the rule says epoch ${due})`);
      await block();
    }
    assert.deepEqual([epochOfHeight(height, STAKING), height], [due, epochStartHeight(due, STAKING)], 'dormant at the first block of the epoch the rule gives');

    const head = chain.head();
    chain.close();
    const to = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-rent-governance-replay-')), 'chain');
    dirs.push(path.dirname(to));
    const replayed = await replayChain({ from: dir, to, genesis, chainId: DEV_CHAIN_ID, stakingParams: STAKING, governanceParams: GOVERNANCE, rentParams: RENT, log: pino({ level: 'silent' }) });
    assert.equal(replayed.head.stateRoot.toString('hex'), head.stateRoot.toString('hex'));
  });
});
