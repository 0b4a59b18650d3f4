// bench:user-operations — the node's ERC-4337 bundler end to end, beside plain ETH transfers in the
// same run on the same node: N SimpleAccounts (v0.7, deployed and funded before timing) each send one
// user operation (an ETH transfer through execute), submitted with eth_sendUserOperation and counted
// when eth_getUserOperationReceipt answers; N EOAs each send one signed ETH transfer, submitted with
// eth_sendRawTransaction and counted when eth_getTransactionReceipt answers. Both from the first
// submission to the last receipt read, R rounds each (the next round at the next nonce), with the
// median and the ratio user operations/s ÷ transfers/s. Prints tables; asserts nothing (the exit
// code is 1 when a round lost an operation or a transfer).
import { parseArgs } from 'node:util';
import {
  createPublicClient,
  encodeFunctionData,
  http,
  keccak256,
  parseGwei,
  stringToHex,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { entryPoint07Abi, entryPoint07Address, getUserOperationHash, type UserOperation } from 'viem/account-abstraction';
import { toSimpleSmartAccount } from 'permissionless/accounts';
import { bundler as bundlerParams } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from '../test/support/dev-accounts.js';
import { NodeProcess } from '../test/support/node-process.js';
import { SIMPLE_ACCOUNT_FACTORY_ABI } from '../test/support/simple-account.js';
import { svcDevnet } from '../test/support/viem-chain.js';
import { cpuSeconds } from './support/cpu.js';
import { RpcHttpClient } from './support/http-client.js';
import { loadLine, machineLine } from './support/machine.js';

/** SimpleAccountFactory v0.7 in the built-in genesis (src/chain/account-abstraction.ts). */
const FACTORY = '0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985' as const;
/** The bundler's caps (src/params.ts), for the ceiling printed beside the figures. */
const MAX_BUNDLE_OPERATIONS = bundlerParams.maxBundleOperations;
const MAX_BUNDLES_IN_FLIGHT = bundlerParams.maxBundlesInFlight;
const TRANSFER_GAS = 21_000n;
/** What each transfer and each operation moves. */
const VALUE = parseGwei('1');
const TIP = parseGwei('1');
/** Each smart account's and EOA's ether, for fees of every round. */
const FUNDING = 10n ** 18n;
/** Receipts asked for in one batch (an operation's receipt carries its whole bundle's transaction receipt). */
const RECEIPT_BATCH = 32;
/** Connections those batches go out on at once. */
const RECEIPT_CONNECTIONS = 4;

const USAGE = `usage: node dist/bench/user-operations.js [options]   (npm run bench:user-operations -- [options])
  --accounts <n>        smart accounts (SimpleAccount v0.7), and as many EOAs for the transfers (default 256)
  --rounds <n>          measured rounds; each sends one transfer per EOA, then one operation per account (default 3)
  --block-time-ms <ms>  svc-node block time (default 500)
  --concurrency <n>     requests in flight while submitting, the same for transfers and operations (default 16)
  --poll-ms <ms>        how often the client asks eth_blockNumber; on each new block it asks for every receipt it waits for (default 20)
  --help`;

const progress = (line: string) => process.stderr.write(`[bench:user-operations] ${line}\n`);

function intOption(value: string | undefined, name: string, min = 1): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return n;
}

const hex = (n: bigint | number): Hex => `0x${n.toString(16)}`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-');

/** A deterministic key per role and index (not the dev mnemonic's: its index 101 is the node's bundler key). */
function benchKey(role: string, i: number): Hex {
  return keccak256(stringToHex(`svc bench:user-operations ${role} ${i}`));
}

/** One item to submit: the JSON-RPC call and the hash its receipt is asked by. */
interface Item {
  method: 'eth_sendRawTransaction' | 'eth_sendUserOperation';
  params: unknown[];
  hash: Hex;
}

interface Receipt {
  /** performance.now() of the answer that carried it. */
  at: number;
  success: boolean;
  blockNumber: number;
  transactionHash: Hex;
  /** A transfer's gasUsed, or an operation's actualGasUsed. */
  gasUsed: bigint;
  /** The transaction's gasUsed (the bundle's, for an operation). */
  txGasUsed: bigint;
}

interface RoundRun {
  submitted: number;
  refused: number;
  errors: string[];
  /** The first refused request, as sent. */
  firstRefusedRequest?: string;
  received: number;
  succeeded: number;
  /** First submission to the answer that carried the last receipt. */
  seconds: number;
  perSecond: number;
  /** First submission to the last submission's answer. */
  submitSeconds: number;
  blocks: number;
  /** Blocks made from the head at the first submission to the block of the last receipt. */
  blocksSpanned: number;
  /** Items per transaction (per bundle, for operations), in block order. */
  perTransaction: number[];
  transactions: number;
  maxPerTransaction: number;
  gasPerItem: number;
  /** Transactions' gasUsed over the items they carried. */
  txGasPerItem: number;
  /** Send answered -> receipt read, p50 and max, ms. */
  latencyP50: number;
  latencyMax: number;
  /** Block numbers from the head at the first submission (excluded) to the block of the last receipt. */
  span: [number, number];
  /** The node's CPU during the round, seconds. */
  serverCpu: number;
  /** Receipt requests (null answers included) and the time spent waiting for their answers. */
  receiptCalls: number;
  receiptSeconds: number;
  /** Bytes of an answer that carried a receipt, about (its batch's size over its items). */
  receiptBytes: number;
}

/**
 * Submits every item (`concurrency` requests in flight, single requests) and, meanwhile, watches the
 * head every `pollMs`: on each new block (or after two block times without one) it asks for the
 * receipt of every item the node acknowledged and that has none yet, in batches. The round ends when
 * every acknowledged item has a receipt, or after `stallMs` without a new one.
 */
async function runRound(
  url: string,
  pid: number | undefined,
  items: Item[],
  receiptMethod: 'eth_getTransactionReceipt' | 'eth_getUserOperationReceipt',
  concurrency: number,
  pollMs: number,
  blockTimeMs: number,
  stallMs: number,
): Promise<RoundRun> {
  const submitter = new RpcHttpClient(url, concurrency);
  const watcher = new RpcHttpClient(url, RECEIPT_CONNECTIONS);
  const acked = new Map<Hex, number>();
  const receipts = new Map<Hex, Receipt>();
  const errors = new Set<string>();
  let refused = 0;
  let firstRefusedRequest: string | undefined;
  // Start just after a block, so that every round starts at the same point of the block time.
  let headAtStart = Number(await watcher.call<Hex>('eth_blockNumber'));
  for (const before = headAtStart; headAtStart === before; ) {
    await new Promise((r) => setTimeout(r, 5));
    headAtStart = Number(await watcher.call<Hex>('eth_blockNumber'));
  }
  const cpu0 = cpuSeconds(pid);
  const started = performance.now();
  let next = 0;
  const submitting = Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        try {
          const answer = await submitter.call<Hex>(item.method, item.params);
          if (answer.toLowerCase() !== item.hash.toLowerCase()) throw new Error(`${item.method} answered ${answer}, expected ${item.hash}`);
          acked.set(item.hash, performance.now());
        } catch (err) {
          refused++;
          firstRefusedRequest ??= JSON.stringify({ method: item.method, params: item.params });
          if (errors.size < 5) errors.add((err as Error).message);
        }
      }
    }),
  ).then(() => performance.now());
  let submitDone = false;
  void submitting.then(() => (submitDone = true));

  let foundAnswerBytes = 0;
  let foundCount = 0;
  let receiptCalls = 0;
  let receiptMs = 0;
  let head = -1;
  let lastAsked = 0;
  let lastProgress = performance.now();
  let lastAt = started;
  for (;;) {
    await new Promise((r) => setTimeout(r, pollMs));
    const now = performance.now();
    const number = Number(await watcher.call<Hex>('eth_blockNumber'));
    const waiting = [...acked.keys()].filter((h) => !receipts.has(h));
    if (waiting.length > 0 && (number > head || now - lastAsked > 2 * blockTimeMs)) {
      head = number;
      lastAsked = now;
      const parts = Array.from({ length: Math.ceil(waiting.length / RECEIPT_BATCH) }, (_, k) => waiting.slice(k * RECEIPT_BATCH, (k + 1) * RECEIPT_BATCH));
      const asked = performance.now();
      await Promise.all(
        parts.map(async (part) => {
          const body = JSON.stringify(part.map((h, j) => ({ jsonrpc: '2.0', id: j, method: receiptMethod, params: [h] })));
          const answer = await watcher.post(Buffer.from(body));
          const at = performance.now();
          const json = JSON.parse(answer.text) as { id: number; result?: unknown; error?: { message: string } }[] | { error?: { message: string } };
          if (!Array.isArray(json)) throw new Error(`${receiptMethod} batch refused: ${json.error?.message ?? answer.text.slice(0, 200)}`);
          receiptCalls += part.length;
          for (const a of json) {
            const hash = part[a.id]!;
            if (a.error) throw new Error(`${receiptMethod} ${hash}: ${a.error.message}`);
            if (a.result === null || a.result === undefined) continue;
            receipts.set(hash, toReceipt(a.result, receiptMethod, at));
            lastAt = Math.max(lastAt, at);
            lastProgress = at;
          }
          const found = json.filter((a) => a.result).length;
          if (found > 0) {
            foundAnswerBytes += (Buffer.byteLength(answer.text) * found) / json.length;
            foundCount += found;
          }
        }),
      );
      receiptMs += performance.now() - asked;
    } else if (number > head) head = number;
    if (submitDone && receipts.size === acked.size) break;
    if (performance.now() - lastProgress > stallMs) {
      progress(`no receipt for ${stallMs / 1000} s; ${acked.size - receipts.size} of ${acked.size} acknowledged still without one`);
      break;
    }
  }
  const submitEnded = await submitting;
  const serverCpu = (cpuSeconds(pid) ?? NaN) - (cpu0 ?? NaN);
  submitter.close();
  watcher.close();

  const all = [...receipts.entries()];
  const byTx = new Map<Hex, Receipt[]>();
  for (const [, r] of all) byTx.set(r.transactionHash, [...(byTx.get(r.transactionHash) ?? []), r]);
  const seconds = (lastAt - started) / 1000;
  const latencies = all.map(([h, r]) => r.at - acked.get(h)!);
  const txGas = [...byTx.values()].reduce((s, rs) => s + rs[0]!.txGasUsed, 0n);
  return {
    submitted: items.length,
    refused,
    errors: [...errors],
    firstRefusedRequest,
    received: all.length,
    succeeded: all.filter(([, r]) => r.success).length,
    seconds,
    perSecond: all.length > 0 && seconds > 0 ? all.length / seconds : 0,
    submitSeconds: (submitEnded - started) / 1000,
    blocks: new Set(all.map(([, r]) => r.blockNumber)).size,
    blocksSpanned: all.length ? Math.max(...all.map(([, r]) => r.blockNumber)) - headAtStart : 0,
    span: [headAtStart + 1, all.length ? Math.max(...all.map(([, r]) => r.blockNumber)) : headAtStart],
    perTransaction: [...byTx.values()].sort((a, b) => a[0]!.blockNumber - b[0]!.blockNumber).map((rs) => rs.length),
    transactions: byTx.size,
    maxPerTransaction: Math.max(0, ...[...byTx.values()].map((rs) => rs.length)),
    gasPerItem: all.length ? Number(all.reduce((s, [, r]) => s + r.gasUsed, 0n)) / all.length : NaN,
    txGasPerItem: all.length ? Number(txGas) / all.length : NaN,
    latencyP50: median(latencies),
    latencyMax: Math.max(...latencies),
    serverCpu,
    receiptCalls,
    receiptSeconds: receiptMs / 1000,
    receiptBytes: foundCount ? foundAnswerBytes / foundCount : NaN,
  };
}

function toReceipt(result: unknown, method: string, at: number): Receipt {
  if (method === 'eth_getTransactionReceipt') {
    const r = result as { status: Hex; blockNumber: Hex; transactionHash: Hex; gasUsed: Hex };
    return { at, success: r.status === '0x1', blockNumber: Number(r.blockNumber), transactionHash: r.transactionHash, gasUsed: BigInt(r.gasUsed), txGasUsed: BigInt(r.gasUsed) };
  }
  const r = result as { success: boolean; actualGasUsed: Hex; receipt: { blockNumber: Hex; transactionHash: Hex; gasUsed: Hex } };
  return {
    at,
    success: r.success === true,
    blockNumber: Number(r.receipt.blockNumber),
    transactionHash: r.receipt.transactionHash,
    gasUsed: BigInt(r.actualGasUsed),
    txGasUsed: BigInt(r.receipt.gasUsed),
  };
}

/** Sends each lane's signed transactions one at a time (nonce order), then waits for every receipt. */
async function sendAndWait(url: string, lanes: Hex[][], what: string): Promise<void> {
  const client = new RpcHttpClient(url, lanes.length);
  const hashes = (
    await Promise.all(
      lanes.map(async (raws) => {
        const out: Hex[] = [];
        for (const raw of raws) out.push(await client.call<Hex>('eth_sendRawTransaction', [raw]));
        return out;
      }),
    )
  ).flat();
  const deadline = Date.now() + 120_000;
  let waiting = hashes;
  while (waiting.length > 0) {
    if (Date.now() > deadline) throw new Error(`${what}: ${waiting.length} transactions not mined within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
    const still: Hex[] = [];
    for (let i = 0; i < waiting.length; i += 500) {
      const part = waiting.slice(i, i + 500);
      const answers = await client.batch(part.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })));
      for (const [j, a] of answers.entries()) {
        const r = a.result as { status: Hex } | null | undefined;
        if (a.error) throw new Error(`${what}: eth_getTransactionReceipt: ${a.error.message}`);
        if (!r) still.push(part[j]!);
        else if (r.status !== '0x1') throw new Error(`${what}: transaction ${part[j]} failed`);
      }
    }
    waiting = still;
  }
  client.close();
}

/** eth_call of `data` at `to` for each item, in batches; returns the results. */
async function callEach(client: RpcHttpClient, to: Address, datas: Hex[]): Promise<Hex[]> {
  const out: Hex[] = [];
  for (let i = 0; i < datas.length; i += 500) {
    const answers = await client.batch(datas.slice(i, i + 500).map((data) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] })));
    for (const a of answers) {
      if (a.error) throw new Error(`eth_call ${to}: ${a.error.message}`);
      out.push(a.result as Hex);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      accounts: { type: 'string', default: '256' },
      rounds: { type: 'string', default: '3' },
      'block-time-ms': { type: 'string', default: '500' },
      concurrency: { type: 'string', default: '16' },
      'poll-ms': { type: 'string', default: '20' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const count = intOption(values.accounts, 'accounts');
  const rounds = intOption(values.rounds, 'rounds');
  const blockTimeMs = intOption(values['block-time-ms'], 'block-time-ms', 50);
  const concurrency = intOption(values.concurrency, 'concurrency');
  const pollMs = intOption(values['poll-ms'], 'poll-ms');
  const stallMs = Math.max(30_000, 40 * blockTimeMs);

  process.stdout.write(`${machineLine()}\n${loadLine('before')}\n`);

  // The bundler's refusals and drops, as the node logs them (info and above, module "bundler").
  const bundlerLog: string[] = [];
  let bundlerLogCount = 0;
  const produced = new Map<number, { txs: number; ms: number }>();
  const onLogLine = (line: string) => {
    if (line.includes('"block produced"')) {
      try {
        const entry = JSON.parse(line) as { number: number; txs: number; ms: number };
        produced.set(entry.number, { txs: entry.txs, ms: entry.ms });
      } catch {
        // Not a JSON line.
      }
      return;
    }
    if (!line.includes('"module":"bundler"')) return;
    bundlerLogCount++;
    if (bundlerLog.length < 5) bundlerLog.push(line.length > 400 ? `${line.slice(0, 400)}...` : line);
  };
  progress(`starting svc-node (devnet, fresh data dir, rate limit off, ${blockTimeMs} ms blocks)`);
  const node = await NodeProcess.start({ blockTimeMs, extraArgs: ['--rpc-rate-limit', '0'], readyTimeoutMs: 120_000, onLogLine });
  process.once('SIGINT', () => void node.dispose().then(() => process.exit(130)));
  try {
    const url = node.url;
    const chain = svcDevnet(url);
    const client = createPublicClient({ chain, transport: http(url) });
    const rpc = new RpcHttpClient(url, 4);

    // Setup, not timed: keys, accounts deployed through the factory by a dev account, ether for all.
    const owners = Array.from({ length: count }, (_, i) => privateKeyToAccount(benchKey('owner', i)));
    const eoas = Array.from({ length: count }, (_, i) => privateKeyToAccount(benchKey('eoa', i)));
    const [deployer, funder1, funder2] = devPrivateKeys(3).map((k) => privateKeyToAccount(k)) as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount];
    const addresses = (
      await callEach(rpc, FACTORY, owners.map((o) => encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [o.address, 0n] })))
    ).map((r) => `0x${r.slice(-40)}` as Address);
    const accounts = await Promise.all(
      owners.map((owner, i) => toSimpleSmartAccount({ client, owner, address: addresses[i]!, entryPoint: { address: entryPoint07Address, version: '0.7' } })),
    );
    const baseFee = async () => BigInt((await rpc.call<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', ['latest', false])).baseFeePerGas);
    const setupFee = { maxFeePerGas: (await baseFee()) * 2n + TIP, maxPriorityFeePerGas: TIP };
    const createData = (i: number) => encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owners[i]!.address, 0n] });
    const createGas = (BigInt(await rpc.call<Hex>('eth_estimateGas', [{ from: deployer.address, to: FACTORY, data: createData(0) }])) * 3n) / 2n;
    const signLane = async (from: PrivateKeyAccount, txs: { to: Address; value: bigint; data?: Hex; gas: bigint }[]): Promise<Hex[]> => {
      let nonce = Number(await rpc.call<Hex>('eth_getTransactionCount', [from.address, 'pending']));
      const out: Hex[] = [];
      for (const tx of txs) out.push(await from.signTransaction({ ...tx, ...setupFee, chainId: DEV_CHAIN_ID, type: 'eip1559', nonce: nonce++ }));
      return out;
    };
    progress(`setup: deploying ${count} SimpleAccounts (factory createAccount from a dev account, ${createGas} gas each), funding them and ${count} EOAs with 1 ETH each`);
    const setupStarted = performance.now();
    await sendAndWait(
      url,
      [
        await signLane(deployer, owners.map((_, i) => ({ to: FACTORY, value: 0n, data: createData(i), gas: createGas }))),
        await signLane(funder1, addresses.map((to) => ({ to, value: FUNDING, gas: 100_000n }))),
        await signLane(funder2, eoas.map((e) => ({ to: e.address, value: FUNDING, gas: TRANSFER_GAS }))),
      ],
      'setup',
    );
    const codes = await rpc.batch(addresses.map((a) => ({ method: 'eth_getCode', params: [a, 'latest'] })));
    const missing = codes.filter((c) => c.error || c.result === '0x').length;
    if (missing > 0) throw new Error(`setup: ${missing} of ${count} smart accounts have no code after createAccount`);
    progress(`setup took ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

    // One estimate for all: the first account's operation at its current nonce, with the stub signature.
    const callData = await Promise.all(accounts.map((a, i) => a.encodeCalls([{ to: eoas[i]!.address, value: VALUE }])));
    const entryNonces = async () =>
      (await callEach(rpc, entryPoint07Address, addresses.map((a) => encodeFunctionData({ abi: entryPoint07Abi, functionName: 'getNonce', args: [a, 0n] })))).map((r) => BigInt(r));
    let fee = { maxFeePerGas: (await baseFee()) * 2n + TIP, maxPriorityFeePerGas: TIP };
    const firstNonce = (await entryNonces())[0]!;
    const estimate = await rpc.call<Record<string, Hex>>('eth_estimateUserOperationGas', [
      {
        sender: addresses[0],
        nonce: hex(firstNonce),
        callData: callData[0],
        callGasLimit: '0x0',
        verificationGasLimit: '0x0',
        preVerificationGas: '0x0',
        maxFeePerGas: hex(fee.maxFeePerGas),
        maxPriorityFeePerGas: hex(fee.maxPriorityFeePerGas),
        signature: await accounts[0]!.getStubSignature(),
      },
      entryPoint07Address,
    ]);
    // One estimate serves every account: preVerificationGas +1,000 (operations differ in their zero
    // bytes: nonce, addresses, signature); verificationGasLimit and callGasLimit as estimated.
    const gas = {
      preVerificationGas: BigInt(estimate.preVerificationGas!) + 1_000n,
      verificationGasLimit: BigInt(estimate.verificationGasLimit!),
      callGasLimit: BigInt(estimate.callGasLimit!),
    };
    progress(
      `eth_estimateUserOperationGas: preVerificationGas ${BigInt(estimate.preVerificationGas!)}, verificationGasLimit ${BigInt(estimate.verificationGasLimit!)}, ` +
        `callGasLimit ${BigInt(estimate.callGasLimit!)}; used ${gas.preVerificationGas} / ${gas.verificationGasLimit} / ${gas.callGasLimit}`,
    );

    const results: { transfers: RoundRun; ops: RoundRun }[] = [];
    for (let round = 1; round <= rounds; round++) {
      // Signed before timing: each EOA pays the next EOA; each account pays its EOA (both recipients exist).
      fee = { maxFeePerGas: (await baseFee()) * 2n + TIP, maxPriorityFeePerGas: TIP };
      const txNonces = await rpc.batch(eoas.map((e) => ({ method: 'eth_getTransactionCount', params: [e.address, 'pending'] })));
      const transfers: Item[] = [];
      for (const [i, e] of eoas.entries()) {
        const raw = await e.signTransaction({
          chainId: DEV_CHAIN_ID,
          type: 'eip1559',
          nonce: Number(txNonces[i]!.result as Hex),
          to: eoas[(i + 1) % count]!.address,
          value: VALUE,
          gas: TRANSFER_GAS,
          ...fee,
        });
        transfers.push({ method: 'eth_sendRawTransaction', params: [raw], hash: keccak256(raw) });
      }
      const nonces = await entryNonces();
      const ops: Item[] = [];
      for (const [i, account] of accounts.entries()) {
        const op: UserOperation<'0.7'> = { sender: addresses[i]!, nonce: nonces[i]!, callData: callData[i]!, ...gas, ...fee, signature: '0x' };
        op.signature = await account.signUserOperation({ ...op, chainId: DEV_CHAIN_ID });
        const hash = getUserOperationHash({ chainId: DEV_CHAIN_ID, entryPointAddress: entryPoint07Address, entryPointVersion: '0.7', userOperation: op });
        const json = Object.fromEntries(Object.entries(op).map(([k, v]) => [k, typeof v === 'bigint' ? hex(v) : v]));
        ops.push({ method: 'eth_sendUserOperation', params: [json, entryPoint07Address], hash });
      }

      progress(`round ${round}: ${count} ETH transfers (eth_sendRawTransaction)`);
      const t = await runRound(url, node.pid, transfers, 'eth_getTransactionReceipt', concurrency, pollMs, blockTimeMs, stallMs);
      progress(`round ${round}: ${t.received}/${t.submitted} transfer receipts in ${t.seconds.toFixed(2)} s = ${t.perSecond.toFixed(0)}/s`);
      progress(`round ${round}: ${count} user operations (eth_sendUserOperation, EntryPoint v0.7)`);
      const o = await runRound(url, node.pid, ops, 'eth_getUserOperationReceipt', concurrency, pollMs, blockTimeMs, stallMs);
      progress(`round ${round}: ${o.received}/${o.submitted} user operation receipts in ${o.seconds.toFixed(2)} s = ${o.perSecond.toFixed(0)}/s`);
      results.push({ transfers: t, ops: o });
    }
    rpc.close();

    const rows = [
      '| round | ETH transfers/s | user operations/s | ratio | transfers: s, blocks | user operations: s, bundles (largest), blocks | eth_sendUserOperation answered/s | eth_sendRawTransaction answered/s |',
      '|---|---|---|---|---|---|---|---|',
    ];
    for (const [i, { transfers: t, ops: o }] of results.entries()) {
      rows.push(
        `| ${i + 1} | ${fmt(t.perSecond)} | ${fmt(o.perSecond)} | ${(o.perSecond / t.perSecond).toFixed(2)}x | ${t.seconds.toFixed(2)} s, ${t.blocks} | ` +
          `${o.seconds.toFixed(2)} s, ${o.transactions} (${o.maxPerTransaction}), ${o.blocks} | ${fmt(o.submitted / o.submitSeconds)} | ${fmt(t.submitted / t.submitSeconds)} |`,
      );
    }
    const medT = median(results.map((r) => r.transfers.perSecond));
    const medO = median(results.map((r) => r.ops.perSecond));
    rows.push(
      `| median | ${fmt(medT)} | ${fmt(medO)} | ${(medO / medT).toFixed(2)}x | | | ${fmt(median(results.map((r) => r.ops.submitted / r.ops.submitSeconds)))} | ` +
        `${fmt(median(results.map((r) => r.transfers.submitted / r.transfers.submitSeconds)))} |`,
    );
    process.stdout.write(
      `\n# bench:user-operations: ${count} SimpleAccounts (v0.7) and ${count} EOAs, ${rounds} rounds, --block-time-ms ${blockTimeMs}, ${concurrency} requests in flight\n` +
        rows.join('\n') +
        '\n\n',
    );

    const blocksIn = ([from, to]: [number, number]) => Array.from({ length: Math.max(0, to - from + 1) }, (_, k) => produced.get(from + k)).filter((b) => b !== undefined);
    const details: string[] = [];
    for (const [i, { transfers: t, ops: o }] of results.entries()) {
      for (const [name, r, unit] of [
        ['transfers', t, 'transfer'],
        ['user operations', o, 'operation'],
      ] as const) {
        let line =
          `round ${i + 1} ${name}: ${r.received}/${r.submitted} receipts (${r.succeeded} successful) in ${r.seconds.toFixed(2)} s, submission ${r.submitSeconds.toFixed(2)} s, ` +
          `in ${r.blocks} of the ${r.blocksSpanned} blocks made meanwhile${name === 'user operations' ? ` (bundles of ${r.perTransaction.join(', ')} operations)` : ''}; ` +
          `send answered -> receipt read p50 ${fmt(r.latencyP50)} ms, max ${fmt(r.latencyMax)} ms; gas per ${unit} ${fmt(r.gasPerItem)}` +
          (name === 'user operations' ? ` (actualGasUsed; the bundles' gasUsed per operation ${fmt(r.txGasPerItem)})` : '') +
          `; ${r.receiptCalls} receipt requests, waited ${r.receiptSeconds.toFixed(2)} s for their answers, ${fmt(r.receiptBytes / 1024, 1)} KiB a receipt` +
          `; node CPU ${fmt((r.serverCpu * 1000) / Math.max(1, r.received), 2)} ms per ${unit}` +
          `; longest block production ${fmt(Math.max(0, ...blocksIn(r.span).map((b) => b.ms)))} ms (node log)`;
        if (r.refused > 0) line += `; ${r.refused} refused (${r.errors.join('; ')}); first refused request: ${r.firstRefusedRequest}`;
        details.push(line);
      }
    }
    const gasOp = median(results.map((r) => r.ops.gasPerItem));
    const gasBundle = median(results.map((r) => r.ops.txGasPerItem));
    details.push(
      `gas: a user operation ${fmt(gasOp)} (actualGasUsed, median of rounds) = ${(gasOp / Number(TRANSFER_GAS)).toFixed(1)}x a transfer's ${TRANSFER_GAS}; ` +
        `the chain spent ${fmt(gasBundle)} per operation (the bundles' handleOps gasUsed / operations; actualGasUsed, which the account pays, counts preVerificationGas in full)`,
    );
    details.push(
      `gas limits: eth_estimateUserOperationGas answered preVerificationGas ${BigInt(estimate.preVerificationGas!)}, verificationGasLimit ${BigInt(estimate.verificationGasLimit!)}, ` +
        `callGasLimit ${BigInt(estimate.callGasLimit!)}; every operation sent ${gas.preVerificationGas} / ${gas.verificationGasLimit} / ${gas.callGasLimit} ` +
        `(preVerificationGas +1,000; the others as estimated)`,
    );
    details.push(
      `ceiling: ${MAX_BUNDLES_IN_FLIGHT} bundles of at most ${MAX_BUNDLE_OPERATIONS} operations per EntryPoint in flight, one block per ${blockTimeMs} ms: ` +
        `${fmt((MAX_BUNDLES_IN_FLIGHT * MAX_BUNDLE_OPERATIONS * 1000) / blockTimeMs)} operations/s at most`,
    );
    details.push(`node log lines of the bundler (info and above): ${bundlerLogCount}${bundlerLog.length ? `, first: ${bundlerLog.join(' | ')}` : ''}`);
    process.stdout.write(details.map((d) => `  ${d}`).join('\n') + '\n\n');
    process.stdout.write(
      [
        machineLine(),
        `Setup (not timed): ${count} SimpleAccounts v0.7 deployed by dev account 0 calling SimpleAccountFactory.createAccount(owner, 0) at ${FACTORY},`,
        `each funded with 1 ETH by dev account 1 (no deposit in the EntryPoint: the account pays its prefund), and ${count} EOAs funded by dev account 2; keys derived by keccak256 of a label.`,
        `Each round, signed before timing: EOA i sends ${VALUE} wei to EOA i+1 (21,000 gas, eth_sendRawTransaction); smart account i sends ${VALUE} wei to EOA i through`,
        `execute (eth_sendUserOperation to EntryPoint v0.7, signed by its owner, gas from one eth_estimateUserOperationGas call before round 1, with margins; the same fees as the transfers).`,
        `Each round starts just after a block. Submitted as single requests, ${concurrency} in flight; the node simulates each operation before it answers.`,
        `A client asks eth_blockNumber every ${pollMs} ms and, on each new block, every receipt it still waits for (eth_getTransactionReceipt / eth_getUserOperationReceipt,`,
        `batches of ${RECEIPT_BATCH} on ${RECEIPT_CONNECTIONS} connections); per second = receipts / (last receipt read - first submission).`,
        `Each round sends one item per sender, all at once: the transfers fit in one or two blocks, so transfers/s here is about N per block time rather than the node's`,
        `transfer throughput (bench:rpc measures that); the operations go in bundles, up to ${MAX_BUNDLES_IN_FLIGHT} per EntryPoint in flight, each sent as soon as the one before it is (the first carries the first operation alone).`,
        `The node (svc-node CLI, one process) and this client share the cores.`,
        loadLine('after'),
      ].join('\n') + '\n',
    );
    if (results.some((r) => r.transfers.received < r.transfers.submitted || r.ops.received < r.ops.submitted || r.transfers.succeeded < r.transfers.received || r.ops.succeeded < r.ops.received)) {
      process.exitCode = 1;
    }
  } finally {
    await node.dispose();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:user-operations] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
