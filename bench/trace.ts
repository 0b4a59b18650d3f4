// bench:trace — how fast debug tracing re-executes a block (docs/rpc.md, debug): one block of 1,000
// ERC-20 transfers (OpenZeppelin's ERC20, from 10 senders to fresh recipients) is made in this
// process, then traced whole with callTracer, with the struct logger (stack and storage, no memory),
// and with noopTracer (re-execution alone, the peer), each several times; the figure is transactions
// per second of the traced block (the native call, as debug_traceBlockByNumber runs it, and the JSON
// it returns), beside the time the block took to make.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { encodeFunctionData, getContractAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { createNodeEvents } from '../src/chain/events.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { Mempool } from '../src/chain/mempool.js';
import { core } from '../src/native/index.js';
import { rpc as rpcParams, staking as stakingParams } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from '../test/support/dev-accounts.js';
import { compileContracts } from '../test/support/solc.js';
import { loadLine, machineLine } from './support/machine.js';

const USAGE = `usage: node dist/bench/trace.js [options]   (npm run bench:trace -- [options])
  --transfers <n>  ERC-20 transfers in the traced block (default 1000)
  --runs <n>       traces of the block per tracer (default 5)
  --help`;
const { values } = parseArgs({ options: { transfers: { type: 'string' }, runs: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const TRANSFERS = Number(values.transfers ?? 1_000);
const RUNS = Number(values.runs ?? 5);
if (!Number.isInteger(TRANSFERS) || TRANSFERS < 10 || !Number.isInteger(RUNS) || RUNS < 1) {
  console.error(USAGE);
  process.exit(2);
}
const progress = (line: string) => process.stderr.write(`[bench:trace] ${line}\n`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-trace-'));
try {
  const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
  const chain = core.Chain.open(dir, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
  const mempool = new Mempool({ chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
  const app = new ChainApp(chain, mempool, stakingParams, appGenesis(genesis), pino({ level: 'silent' }));
  const token = compileContracts('TestToken.sol').TestToken!;
  const senders = devPrivateKeys(10).map((k) => privateKeyToAccount(k));
  const nonces = senders.map(() => 0);
  const coinbase = genesis.validators[0]!.operator;
  let height = 0;
  const block = async () => {
    height += 1;
    const started = performance.now();
    const built = await app.produceBlock({ timestampMs: (1_900_000_000 + height) * 1000, coinbase, extraData: Buffer.alloc(0), maxTxs: 100_000, signers: [coinbase] });
    return { ms: performance.now() - started, included: built.produced.included.length, number: built.produced.head.number };
  };
  const send = async (k: number, to: Hex | undefined, data: Hex, gas: bigint) => {
    const raw = await senders[k]!.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce: nonces[k]!, ...(to ? { to } : {}), data, gas, maxFeePerGas: 100n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n });
    nonces[k]! += 1;
    mempool.add(Buffer.from(raw.slice(2), 'hex'));
  };
  // One token per sender, so that every sender holds a balance to transfer.
  const tokens: Hex[] = [];
  for (let k = 0; k < senders.length; k++) {
    tokens.push(getContractAddress({ from: senders[k]!.address, nonce: BigInt(nonces[k]!) }));
    const data = (token.bytecode + encodeFunctionData({ abi: [{ type: 'function', name: 'x', inputs: [{ type: 'uint256' }], outputs: [] }], functionName: 'x', args: [10n ** 30n] }).slice(10)) as Hex;
    await send(k, undefined, data, 2_000_000n);
  }
  await block();
  for (let i = 0; i < TRANSFERS; i++) {
    const k = i % senders.length;
    const recipient = `0x${(0xbe000000 + i).toString(16).padStart(40, '0')}` as Hex;
    await send(k, tokens[k]!, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [recipient, 1_000n] }), 100_000n);
  }
  const made = await block();
  if (made.included !== TRANSFERS) throw new Error(`the block holds ${made.included} of ${TRANSFERS} transfers`);
  progress(`block ${made.number}: ${made.included} transfers, made in ${made.ms.toFixed(1)} ms`);

  const tracers: [string, Record<string, unknown>][] = [
    ['noopTracer (re-execution, the peer)', { tracer: 'noopTracer' }],
    ['callTracer', { tracer: 'callTracer' }],
    ['struct logger (stack, storage)', {}],
  ];
  console.log(machineLine());
  console.log(loadLine('before'));
  console.log(`block of ${TRANSFERS} ERC-20 transfers: made in ${made.ms.toFixed(1)} ms (${((TRANSFERS / made.ms) * 1000).toFixed(0)} tx/s, execution, roots and write)`);
  for (const [name, options] of tracers) {
    const times: number[] = [];
    let bytes = 0;
    for (let r = 0; r < RUNS; r++) {
      const started = performance.now();
      const json = await chain.debugTraceBlock(made.number, null, JSON.stringify(options));
      times.push(performance.now() - started);
      bytes = json.length;
      const parsed = JSON.parse(json.toString('utf8')) as unknown[];
      if (parsed.length !== TRANSFERS) throw new Error(`${name}: ${parsed.length} traces`);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(`${name.padEnd(36)} median ${median.toFixed(1)} ms per block: ${((TRANSFERS / median) * 1000).toFixed(0)} tx/s traced; ${(bytes / 1e6).toFixed(2)} MB of JSON`);
  }
  console.log(loadLine('after'));
  chain.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
