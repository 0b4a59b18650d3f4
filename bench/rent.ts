// bench:rent — what the rent rules cost a block as the state grows (docs/rent.md). Two chains are
// built in this process, one with 1,000 and one with 100,000 contracts whose storage the rent
// module keeps a record of (each written once through blocks, so each holds a deposit record and a
// dormancy check due); then both make the same blocks: each writes a new slot in 200 of the first
// 1,000 contracts (their deposits move and their records settle at the next block) and moves value
// between accounts, with an epoch start every 5 blocks (the dormancy checks due then run). The
// figure is the time to make a block (the app's hooks, the EVM, the root, the write), median and
// mean over the measured blocks, for both sizes side by side: per-block cost should follow the 200
// accounts touched, not the records held.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { encodeFunctionData, getAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { createNodeEvents } from '../src/chain/events.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { Mempool } from '../src/chain/mempool.js';
import { core } from '../src/native/index.js';
import { rent as defaultRent, rpc as rpcParams, staking as defaultStaking, type RentParams, type StakingParams } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from '../test/support/dev-accounts.js';
import { compileContracts } from '../test/support/solc.js';
import { loadLine, machineLine } from './support/machine.js';

const USAGE = `usage: node dist/bench/rent.js [options]   (npm run bench:rent -- [options])
  --small <n>    contracts with storage in the small state (default 1000)
  --large <n>    contracts with storage in the large state (default 100000)
  --blocks <n>   measured blocks per state (default 40)
  --help`;
const { values } = parseArgs({ options: { small: { type: 'string' }, large: { type: 'string' }, blocks: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const SMALL = Number(values.small ?? 1_000);
const LARGE = Number(values.large ?? 100_000);
const BLOCKS = Number(values.blocks ?? 40);
if (![SMALL, LARGE, BLOCKS].every((n) => Number.isInteger(n) && n > 0) || SMALL < 1_000 || LARGE < SMALL) {
  console.error(USAGE);
  process.exit(2);
}
const TOUCHED = 200;
const FILL_BATCH = 1_000;
const STAKING: StakingParams = { ...defaultStaking, epochLengthBlocks: 5 };
// The network's rent rules: a deposit per slot, rent for the uncovered ones (these contracts hold no
// balance), a dormancy check due for each record (far beyond the run, so no account goes dormant in it).
const RENT: RentParams = defaultRent;
const progress = (line: string) => process.stderr.write(`[bench:rent] ${line}\n`);

const contracts = compileContracts('RentTarget.sol');
const targetCode = Buffer.from(contracts.RentTarget!.deployedBytecode.slice(2), 'hex');
const fanoutCode = Buffer.from(contracts.RentFanout!.deployedBytecode.slice(2), 'hex');
const FANOUT = Buffer.from('00000000000000000000000000000000fa11fa11', 'hex');
const targetAddress = (i: number): Buffer => {
  const b = Buffer.alloc(20);
  b.writeUInt32BE(0xbe17, 0);
  b.writeUInt32BE(i, 16);
  return b;
};
const hex = (b: Buffer) => getAddress(`0x${b.toString('hex')}`);

interface Measured {
  size: number;
  rentOn: boolean;
  records: number;
  fillSeconds: number;
  blockMs: number[];
  /** Time in the rent module's hooks per block (what the rules themselves cost). */
  rentMs: number[];
  /** The native builder's share: execution, the roots (the records' storage trie among them). */
  executeMs: number[];
  rootMs: number[];
}

async function run(size: number, rentOn: boolean): Promise<Measured> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-rent-'));
  try {
    const spec = devGenesis('devnet');
    spec.alloc.push({ address: FANOUT, balance: 0n, code: fanoutCode });
    for (let i = 0; i < size; i++) spec.alloc.push({ address: targetAddress(i), balance: 0n, code: targetCode });
    spec.alloc.sort((a, b) => Buffer.compare(a.address, b.address));
    const genesis = { spec, validators: devGenesisValidators() };
    const chain = core.Chain.open(dir, spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    const mempool = new Mempool({ chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
    const app = new ChainApp(chain, mempool, STAKING, appGenesis(genesis), pino({ level: 'silent' }), undefined, undefined, RENT);
    // The rent module's own share of each block: its hooks, timed.
    let rentMs = 0;
    const timed = <A extends unknown[], R>(f: (...a: A) => R) => (...a: A): R => {
      const t = performance.now();
      try {
        return f(...a);
      } finally {
        rentMs += performance.now() - t;
      }
    };
    app.rent.beginBlock = timed(app.rent.beginBlock.bind(app.rent));
    app.rent.endBlock = timed(app.rent.endBlock.bind(app.rent));
    app.rent.takeWrites = timed(app.rent.takeWrites.bind(app.rent));
    const keys = devPrivateKeys(10).slice(2).map((k) => privateKeyToAccount(k));
    const nonces = keys.map(() => 0);
    const coinbase = genesis.validators[0]!.operator;
    let height = 0;
    let time = 1_900_000_000_000;
    const native = { executeMs: 0, rootMs: 0 };
    const block = async (): Promise<number> => {
      height += 1;
      time += 1_000;
      const started = performance.now();
      const built = await app.produceBlock({ timestampMs: time, coinbase, extraData: Buffer.alloc(0), maxTxs: 10_000, signers: [coinbase] });
      const ms = performance.now() - started;
      native.executeMs = built.produced.timings.executeMs;
      native.rootMs = built.produced.timings.rootMs;
      if (built.produced.rejected.length > 0) throw new Error(`block ${height} refused ${built.produced.rejected[0]!.reason}`);
      return ms;
    };
    const send = async (k: number, to: Hex, data: Hex, value = 0n) => {
      const raw = await keys[k]!.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce: nonces[k]!, to, data, value, gas: 40_000_000n, maxFeePerGas: 100n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n });
      nonces[k]! += 1;
      mempool.add(Buffer.from(raw.slice(2), 'hex'));
    };
    const touch = (from: number, to: number, slot: number) =>
      encodeFunctionData({
        abi: contracts.RentFanout!.abi,
        functionName: 'touch',
        args: [Array.from({ length: to - from }, (_, j) => hex(targetAddress(from + j))), BigInt(slot), 1n, 1n],
      });

    // Fill: every contract writes slot 0 through blocks (its record is made at the next block).
    const fillStart = performance.now();
    for (let from = 0; from < size; ) {
      for (let k = 0; k < keys.length && from < size; k++, from += FILL_BATCH) await send(k, hex(FANOUT), touch(from, Math.min(size, from + FILL_BATCH), 0));
      await block();
    }
    await block();
    const fillSeconds = (performance.now() - fillStart) / 1000;
    const records = app.rent.global.accounts;
    progress(`${size} contracts: ${records} rent records after ${height} blocks (${fillSeconds.toFixed(1)} s)`);

    if (!rentOn) {
      const off = () => ({ moves: [], preMoves: [], minted: 0n, burned: 0n });
      app.rent.beginBlock = off;
      app.rent.endBlock = off;
    }
    // Measure: the same blocks on either state.
    const blockMs: number[] = [];
    const rentPerBlock: number[] = [];
    const executeMs: number[] = [];
    const rootMs: number[] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const first = (b * TOUCHED) % 1_000;
      await send(0, hex(FANOUT), touch(first, first + TOUCHED, 1 + b));
      for (let k = 1; k < keys.length; k++) await send(k, keys[(k % (keys.length - 1)) + 1]!.address, '0x', 1n);
      rentMs = 0;
      blockMs.push(await block());
      rentPerBlock.push(rentMs);
      executeMs.push(native.executeMs);
      rootMs.push(native.rootMs);
    }
    chain.close();
    return { size, rentOn, records, fillSeconds, blockMs, rentMs: rentPerBlock, executeMs, rootMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

console.log(machineLine());
console.log(loadLine('before'));
const small = await run(SMALL, true);
const large = await run(LARGE, true);
const smallPeer = await run(SMALL, false);
const peer = await run(LARGE, false);
console.log(loadLine('after'));
console.log(`blocks measured per state: ${BLOCKS}, each writing a new slot in ${TOUCHED} contracts (deposits, activity, records settled at the next block) plus ${9} transfers; an epoch start every ${STAKING.epochLengthBlocks} blocks`);
for (const m of [small, smallPeer, large, peer]) {
  console.log(
    `${m.rentOn ? 'rent on ' : 'rent off'} ${String(m.size).padStart(7)} contracts, ${String(m.records).padStart(7)} rent records: block median ${median(m.blockMs).toFixed(1)} ms, mean ${mean(m.blockMs).toFixed(1)} ms; rent hooks median ${median(m.rentMs).toFixed(2)} ms, mean ${mean(m.rentMs).toFixed(2)} ms; native execute ${median(m.executeMs).toFixed(1)} ms, roots ${median(m.rootMs).toFixed(1)} ms (fill ${m.fillSeconds.toFixed(1)} s)`,
  );
}
console.log(
  `rent's share of a block (rent on - rent off, medians): ${(median(small.blockMs) - median(smallPeer.blockMs)).toFixed(1)} ms with ${SMALL} records, ${(median(large.blockMs) - median(peer.blockMs)).toFixed(1)} ms with ${LARGE}`,
);
console.log(`large / small median block time: ${(median(large.blockMs) / median(small.blockMs)).toFixed(2)}; rent hooks: ${(median(large.rentMs) / median(small.rentMs)).toFixed(2)} (${LARGE / SMALL}x the records)`);
