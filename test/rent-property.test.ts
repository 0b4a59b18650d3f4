// The rent rules' invariant (docs/rent.md), checked after every block of a random run: storage
// writes and frees on several contracts, transfers to them, rent payments, slot covers and
// reactivations, with epochs passing and accounts going dormant. After every block: the supply is
// the sum of every balance (the deposits are the rent module's balance, and equal the records'),
// no slot is lost (the native count and the values read are the writes made, dormant or not), each
// record's deposit is its covered slots' deposit, and the rent collected is exactly the rent paid
// in the block's logs. Seed: SVC_PROPERTY_SEED.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { decodeEventLog, encodeFunctionData, getContractAddress, parseAbi, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { createNodeEvents } from '../src/chain/events.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { Mempool } from '../src/chain/mempool.js';
import { replayChain } from '../src/chain/replay.js';
import { core, type Chain } from '../src/native/index.js';
import { rent as defaultRent, rpc as rpcParams, staking as defaultStaking, system, type RentParams, type StakingParams } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { prng } from './support/prng.js';
import { compileContracts } from './support/solc.js';

const STAKING: StakingParams = { ...defaultStaking, epochLengthBlocks: 3 };
const RENT: RentParams = { ...defaultRent, depositPerSlot: 1_000n, rentPerSlotPerEpoch: 7n, dormancyOwedLimit: 200n, dormancyEpochs: 4, reactivationFee: 5_000n };
const RENT_ABI = parseAbi([
  'function reactivate(address account) payable',
  'function payRent(address account) payable returns (uint256)',
  'function coverSlots(address account) payable returns (uint256)',
  'event AccountReactivated(address indexed account, address indexed payer, uint256 rentPaid, uint256 fee)',
  'event RentPaid(address indexed account, address indexed payer, uint256 amount, uint256 rentOwed)',
  'event SlotsCovered(address indexed account, address indexed payer, uint256 slots, uint256 deposit)',
]);
const BLOCKS = 150;
const SLOTS = 24;
const buf = (a: string) => Buffer.from(a.slice(2), 'hex');

describe('rent invariant over random blocks', { timeout: 300_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps supply, deposits, slots and rent paid exact after every block', async () => {
    const seed = BigInt(process.env.SVC_PROPERTY_SEED ?? '20261126');
    const next = prng(seed);
    const rand = () => Number(next() >> 11n) / 2 ** 53;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-rent-property-'));
    dirs.push(dir);
    const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
    const chain: Chain = core.Chain.open(dir, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    const mempool = new Mempool({ chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
    const app = new ChainApp(chain, mempool, STAKING, appGenesis(genesis), pino({ level: 'silent' }), undefined, undefined, RENT);
    const target = compileContracts('RentTarget.sol').RentTarget!;
    const keys = devPrivateKeys(8);
    const senders: PrivateKeyAccount[] = [4, 5, 6, 7].map((i) => privateKeyToAccount(keys[i]!));
    const nonces = new Map<string, number>(senders.map((s) => [s.address, 0]));
    const coinbase = genesis.validators[0]!.operator;
    let height = 0;
    const tracked = new Set<string>(genesis.spec.alloc.map((a) => `0x${a.address.toString('hex')}`));

    const sign = async (from: PrivateKeyAccount, to: Address | null, data: Hex, value: bigint): Promise<{ raw: Buffer; hash: Hex }> => {
      const nonce = nonces.get(from.address)!;
      const signed = await from.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce, ...(to ? { to } : {}), data, value, gas: 3_000_000n, maxFeePerGas: 100n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n });
      return { raw: Buffer.from(signed.slice(2), 'hex'), hash: signed as Hex };
    };
    /** Offers a transaction to the pool; true when admitted (its nonce is then used). */
    const offer = async (from: PrivateKeyAccount, to: Address | null, data: Hex, value: bigint, dormant: boolean): Promise<boolean> => {
      const { raw } = await sign(from, to, data, value);
      try {
        mempool.add(raw);
      } catch (err) {
        assert.ok(dormant && /is dormant/.test((err as Error).message), `refused: ${(err as Error).message}`);
        return false;
      }
      assert.ok(!dormant, `a transaction to the dormant ${to} was admitted`);
      nonces.set(from.address, nonces.get(from.address)! + 1);
      return true;
    };
    const block = async () => {
      height += 1;
      const built = await app.produceBlock({ timestampMs: (1_900_000_000 + height) * 1000, coinbase, extraData: Buffer.alloc(0), maxTxs: 200, signers: [coinbase] });
      assert.equal(built.produced.head.number, height);
      assert.deepEqual(built.produced.rejected, [], 'no admitted transaction is refused');
      return built.produced;
    };

    // Four contracts, written and read by the model below.
    const contracts: Address[] = [];
    for (const [i, s] of senders.entries()) {
      const address = getContractAddress({ from: s.address, nonce: BigInt(nonces.get(s.address)!) });
      await offer(s, null, target.bytecode, 0n, false);
      contracts.push(address.toLowerCase() as Address);
      tracked.add(address.toLowerCase());
      if (i === 3) await block();
    }
    const model = new Map<Address, Map<number, bigint>>(contracts.map((c) => [c, new Map()]));
    let paidInLogs = 0n;
    let feesInLogs = 0n;

    for (let n = 0; n < BLOCKS; n++) {
      const ops = Math.floor(rand() * 4);
      // Dormancy changes at an epoch's first block: a transaction admitted to a contract just before
      // it may be refused by it (as it should), which the model leaves out by not sending one then.
      const epochStart = (height + 1) % STAKING.epochLengthBlocks === 0;
      const writes: { c: Address; start: number; count: number; value: bigint }[] = [];
      for (let k = 0; k < ops; k++) {
        const from = pick(senders);
        const c = pick(contracts);
        const dormant = app.rent.isDormant(c);
        const kind = epochStart ? 0.65 + rand() * 0.35 : rand();
        if (kind < 0.5) {
          const start = Math.floor(rand() * SLOTS);
          const count = 1 + Math.floor(rand() * 6);
          const value = rand() < 0.4 ? 0n : BigInt(1 + Math.floor(rand() * 1000));
          const data = encodeFunctionData({ abi: target.abi, functionName: 'set', args: [BigInt(start), BigInt(count), value] });
          if (await offer(from, c, data, 0n, dormant)) writes.push({ c, start, count, value });
        } else if (kind < 0.65) {
          await offer(from, c, '0x', BigInt(Math.floor(rand() * 5_000)), dormant);
        } else if (kind < 0.8) {
          const fn = rand() < 0.5 ? 'payRent' : 'coverSlots';
          await offer(from, system.rentAddress as Address, encodeFunctionData({ abi: RENT_ABI, functionName: fn, args: [c] }), BigInt(Math.floor(rand() * 3_000)), false);
        } else if (dormant) {
          await offer(from, system.rentAddress as Address, encodeFunctionData({ abi: RENT_ABI, functionName: 'reactivate', args: [c] }), RENT.reactivationFee + 100_000n, false);
        }
      }
      const produced = await block();
      // The model: writes of the block, in order (every admitted write is included and succeeds).
      for (const w of writes) {
        const slots = model.get(w.c)!;
        for (let s = w.start; s < w.start + w.count; s++) {
          if (w.value === 0n) slots.delete(s);
          else slots.set(s, w.value);
        }
      }
      for (const hash of produced.included) {
        const receipt = chain.getTransactionReceipt(hash) as { logs: { address: string; topics: Hex[]; data: Hex }[] } | null;
        for (const l of receipt?.logs ?? []) {
          if (l.address.toLowerCase() !== system.rentAddress.toLowerCase()) continue;
          const e = decodeEventLog({ abi: RENT_ABI, topics: l.topics as [Hex], data: l.data });
          if (e.eventName === 'RentPaid') paidInLogs += e.args!.amount;
          if (e.eventName === 'AccountReactivated') {
            paidInLogs += e.args!.rentPaid;
            feesInLogs += e.args!.fee;
          }
        }
      }

      // Supply = every balance (the rent module's included).
      let balances = 0n;
      for (const a of tracked) balances += chain.getAccount(buf(a), height).balance;
      assert.equal(balances, app.supply(), `block ${height}: supply`);
      // Deposits: the module's balance, the total and the records agree; a record's deposit is its covered slots'.
      const g = app.rent.global;
      assert.equal(chain.getAccount(buf(system.rentAddress), height).balance, g.deposits, `block ${height}: the module holds the deposits`);
      let deposits = 0n;
      for (const c of contracts) {
        const r = app.rent.record(c);
        const count = model.get(c)!.size;
        // No slot lost: the native count and the values are the writes made.
        assert.equal(chain.storageSlotCount(buf(c)), count, `block ${height}: ${c} slots`);
        for (const [slot, value] of model.get(c)!) {
          const word = chain.getStorageAt(buf(c), Buffer.from(slot.toString(16).padStart(64, '0'), 'hex'), height);
          assert.equal(BigInt(`0x${word.toString('hex') || '0'}`), value, `block ${height}: ${c} slot ${slot}`);
        }
        if (!r) continue;
        deposits += r.deposit;
        assert.equal(r.deposit, BigInt(r.covered) * RENT.depositPerSlot, `block ${height}: ${c} deposit`);
        assert.ok(r.covered <= r.slots && r.owed >= 0n, `block ${height}: ${c} record ${JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
        assert.equal(r.dormant, app.rent.isDormant(c));
      }
      assert.equal(deposits, g.deposits, `block ${height}: deposits by record`);
      // Rent collected = rent paid in the logs; fees likewise; the treasury took both.
      assert.equal(g.rentCollected, paidInLogs, `block ${height}: rent collected`);
      assert.equal(g.feesCollected, feesInLogs, `block ${height}: fees collected`);
      assert.equal(app.governance.treasury().inflows.rent ?? 0n, paidInLogs + feesInLogs, `block ${height}: treasury inflows`);
    }
    // The run made accounts dormant, reactivated some and collected rent (else it proved little).
    assert.ok(feesInLogs > 0n && paidInLogs > 0n, `seed ${seed}: rent paid ${paidInLogs}, fees ${feesInLogs}`);
    const head = chain.head();
    chain.close();

    // The same chain from block data alone, to the same roots.
    const to = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-rent-property-replay-')), 'chain');
    dirs.push(path.dirname(to));
    const replayed = await replayChain({ from: dir, to, genesis, chainId: DEV_CHAIN_ID, stakingParams: STAKING, rentParams: RENT, log: pino({ level: 'silent' }) });
    assert.equal(replayed.head.stateRoot.toString('hex'), head.stateRoot.toString('hex'));
  });
});
