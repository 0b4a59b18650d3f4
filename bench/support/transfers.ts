// ERC-20 transfer throughput as users see it: deploy and fund, sign natively, submit (as fast as the
// node answers, or at a fixed offered rate), and count a transfer as mined when its receipt can be
// read, as a wallet does. Latency is from the request that carried a transfer to the poll that saw
// its receipt.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex, createPublicClient, createWalletClient, encodeFunctionData, http, parseEther, parseGwei, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { DEV_CHAIN_ID, DEV_MNEMONIC } from '../../test/support/dev-accounts.js';
import type { CompiledContract } from '../../test/support/solc.js';
import { svcDevnet } from '../../test/support/viem-chain.js';
import { RpcHttpClient } from './http-client.js';

const TOKEN_SUPPLY = 10n ** 30n;
const TRANSFER_GAS = 60_000n;
/** High enough to ride out base fee growth while blocks are full. */
const MAX_FEE = parseGwei('100');
const TIP = parseGwei('1');

/** An account whose key the native signer is given. */
export type KeyedAccount = PrivateKeyAccount & { privateKey: Hex };

export interface TransferFixture {
  token: Address;
  senders: KeyedAccount[];
  /** One fresh recipient per sender, so that its token balance counts that sender's successful transfers. */
  sinks: Address[];
}

/** Signed transfers of one sender, in nonce order, with their hashes. */
export interface SenderTxs {
  raws: Hex[];
  hashes: Hex[];
}

/** Quantiles of a list of milliseconds. */
export interface Latency {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

export interface TransferRun {
  submitted: number;
  rejected: number;
  errors: string[];
  /** Transfers whose receipt was read. */
  mined: number;
  /** Of those, receipts with status 1. */
  succeeded: number;
  submitSeconds: number;
  /** From the first submission to the poll that read the last receipt. */
  seconds: number;
  perSecond: number;
  /** Send -> receipt read, over every mined transfer. */
  latency: Latency;
  /** Blocks that held the run's transfers, and the most in one. */
  blocks: number;
  maxPerBlock: number;
}

export function latencyOf(ms: number[]): Latency {
  if (ms.length === 0) return { p50: NaN, p99: NaN, max: NaN, count: 0 };
  const sorted = Float64Array.from(ms).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]!, count: sorted.length };
}

/**
 * The first `count` accounts of the test mnemonic (Hardhat funds 20; the svc devnet 10), derived
 * from one seed (deriving the seed per account costs a PBKDF2 run each).
 */
export function mnemonicAccounts(count: number): KeyedAccount[] {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC));
  return Array.from({ length: count }, (_, i) => {
    const privateKey = bytesToHex(root.derive(`m/44'/60'/0'/0/${i}`).privateKey!);
    return Object.assign(privateKeyToAccount(privateKey), { privateKey });
  });
}

/** Deploy the token from sender 0, then give every other sender ether (if it lacks it) and tokens. */
export async function deployAndFund(url: string, token: CompiledContract, senders: KeyedAccount[]): Promise<TransferFixture> {
  const chain = svcDevnet(url);
  const pub = createPublicClient({ chain, transport: http(url), pollingInterval: 50 });
  const owner = senders[0]!;
  const wallet = createWalletClient({ account: owner, chain, transport: http(url) });
  const deployHash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode, args: [TOKEN_SUPPLY] });
  const deployed = await pub.waitForTransactionReceipt({ hash: deployHash, timeout: 60_000 });
  if (deployed.status !== 'success' || !deployed.contractAddress) throw new Error('token deployment failed');
  const address = deployed.contractAddress;
  const client = new RpcHttpClient(url, 4);
  const balances = await inBatches(senders.slice(1), 500, async (part) =>
    (await client.batch(part.map((s) => ({ method: 'eth_getBalance', params: [s.address, 'latest'] })))).map((a) => BigInt(a.result as Hex)),
  );
  let nonce = await pub.getTransactionCount({ address: owner.address, blockTag: 'pending' });
  const raws: Hex[] = [];
  for (const [i, s] of senders.slice(1).entries()) {
    const base = { chainId: DEV_CHAIN_ID, type: 'eip1559' as const, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: TIP };
    if (balances[i]! < parseEther('5')) raws.push(await owner.signTransaction({ ...base, to: s.address, value: parseEther('5'), nonce: nonce++, gas: 21_000n }));
    const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [s.address, TOKEN_SUPPLY / 10_000n] });
    raws.push(await owner.signTransaction({ ...base, to: address, data, nonce: nonce++, gas: 100_000n }));
  }
  // One at a time: Hardhat's automine refuses a nonce beyond the next one, and a batch's items run concurrently.
  const hashes: Hex[] = [];
  for (const raw of raws) hashes.push(await client.call<Hex>('eth_sendRawTransaction', [raw]));
  for (const hash of hashes) {
    const r = await pub.waitForTransactionReceipt({ hash, timeout: 120_000 });
    if (r.status !== 'success') throw new Error(`funding transaction ${hash} failed`);
  }
  client.close();
  const sinks = senders.map((_, i) => `0x${(0x5e000000 + i).toString(16).padStart(40, '0')}` as Address);
  return { token: address, senders, sinks };
}

async function inBatches<T, R>(items: T[], size: number, run: (part: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await run(items.slice(i, i + size))));
  return out;
}

/**
 * Sign `perSender` transfers of 1 token unit from each of `senders` (indexes into the fixture's
 * senders; default all), starting at its pending nonce, with the native signer (`svc-loadgen
 * sign`): the k-th transfer of sender i goes to `recipient(i, k)` (default: the sender's sink;
 * recipients repeat with period `recipientsPerSender`).
 */
export async function presignTransfers(
  url: string,
  fixture: TransferFixture,
  token: CompiledContract,
  perSender: number,
  generator: string,
  options: { senders?: number[]; recipient?: (sender: number, k: number) => Address; recipientsPerSender?: number } = {},
): Promise<SenderTxs[]> {
  const which = options.senders ?? fixture.senders.map((_, i) => i);
  const recipient = options.recipient ?? ((i: number) => fixture.sinks[i]!);
  const period = Math.max(1, Math.min(options.recipientsPerSender ?? 1, perSender));
  const client = new RpcHttpClient(url, 4);
  const nonces = await inBatches(which, 500, async (part) =>
    (await client.batch(part.map((i) => ({ method: 'eth_getTransactionCount', params: [fixture.senders[i]!.address, 'pending'] })))).map((a) => {
      if (a.error) throw new Error(`eth_getTransactionCount: ${a.error.message}`);
      return Number(a.result as Hex);
    }),
  );
  client.close();
  const spec = {
    chainId: DEV_CHAIN_ID,
    to: fixture.token,
    gas: TRANSFER_GAS.toString(),
    maxFeePerGas: MAX_FEE.toString(),
    maxPriorityFeePerGas: TIP.toString(),
    senders: which.map((i, j) => ({
      key: fixture.senders[i]!.privateKey,
      nonce: nonces[j],
      count: perSender,
      data: Array.from({ length: period }, (_, k) => encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [recipient(i, k), 1n] })),
    })),
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-sign-'));
  try {
    const specFile = path.join(dir, 'spec.json');
    const outFile = path.join(dir, 'signed.txt');
    writeFileSync(specFile, JSON.stringify(spec));
    const r = spawnSync(generator, ['sign', specFile, outFile], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`svc-loadgen sign failed (${r.status ?? r.signal}): ${r.stderr}`);
    const lines = readFileSync(outFile, 'utf8').trimEnd().split('\n');
    if (lines.length !== which.length * perSender) throw new Error(`svc-loadgen sign wrote ${lines.length} transactions, expected ${which.length * perSender}`);
    return which.map((_, j) => {
      const mine = lines.slice(j * perSender, (j + 1) * perSender).map((l) => l.split(' '));
      return { raws: mine.map((m) => m[0] as Hex), hashes: mine.map((m) => m[1] as Hex) };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Follows the chain from the head at start, as a wallet or indexer does with methods every node
 * serves: every 10 ms it reads the block number; for each new block, its transaction hashes
 * (eth_getBlockByNumber), then the receipts of the expected ones among them
 * (eth_getTransactionReceipt, in batches). A transaction counts once its receipt was read.
 */
export class ReceiptWatcher {
  private readonly client: RpcHttpClient;
  private readonly sentAt = new Map<string, number>();
  private next = -1;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  mined = 0;
  succeeded = 0;
  lastAt = 0;
  readonly latencies: number[] = [];
  /** Expected transactions per block that held any. */
  readonly perBlock = new Map<number, number>();
  error: Error | undefined;

  constructor(
    url: string,
    private readonly pollMs = 10,
  ) {
    this.client = new RpcHttpClient(url, 2);
  }

  async start(): Promise<void> {
    this.next = Number(await this.client.call<Hex>('eth_blockNumber')) + 1;
    this.running = true;
    this.loop = this.run().catch((err: unknown) => {
      this.error = err instanceof Error ? err : new Error(String(err));
    });
  }

  /** Transactions sent at `at` (performance.now()) whose receipts to wait for. */
  expect(hashes: readonly Hex[], at: number): void {
    for (const h of hashes) this.sentAt.set(h, at);
  }

  /** Forget transactions the node refused. */
  forget(hashes: readonly Hex[]): void {
    for (const h of hashes) this.sentAt.delete(h);
  }

  get waiting(): number {
    return this.sentAt.size;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.client.close();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const head = Number(await this.client.call<Hex>('eth_blockNumber'));
      while (this.next <= head) {
        const last = Math.min(head, this.next + 19);
        const numbers = Array.from({ length: last - this.next + 1 }, (_, i) => this.next + i);
        const blocks = await this.client.batch(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })));
        for (const [i, b] of blocks.entries()) {
          if (b.error || b.result === null) throw new Error(`eth_getBlockByNumber ${numbers[i]}: ${b.error?.message ?? 'null'}`);
          const ours = (b.result as { transactions: string[] }).transactions.filter((h) => this.sentAt.has(h));
          await this.readReceipts(numbers[i]!, ours);
        }
        this.next = last + 1;
      }
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  private async readReceipts(number: number, hashes: string[]): Promise<void> {
    for (let i = 0; i < hashes.length; i += 500) {
      const part = hashes.slice(i, i + 500);
      const answers = await this.client.batch(part.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })));
      const now = performance.now();
      for (const [j, a] of answers.entries()) {
        const r = a.result as { status: string } | null | undefined;
        if (a.error || !r) throw new Error(`eth_getTransactionReceipt ${part[j]} of block ${number}: ${a.error?.message ?? 'no receipt for a mined transaction'}`);
        const sent = this.sentAt.get(part[j]!)!;
        this.sentAt.delete(part[j]!);
        this.mined++;
        if (r.status === '0x1') this.succeeded++;
        this.latencies.push(now - sent);
      }
      this.lastAt = now;
    }
    if (hashes.length > 0) this.perBlock.set(number, (this.perBlock.get(number) ?? 0) + hashes.length);
  }
}

/** How transactions go out: single requests from `workers` connections, or batches holding one transaction per sender. */
export type Submission = { kind: 'single'; workers: number } | { kind: 'batch'; size: number };

export interface SubmitOptions {
  /** Offered load in transfers per second; absent: each lane sends its next request as soon as the previous one is answered. */
  ratePerSecond?: number;
  /** Stop waiting when no receipt arrived for this long. */
  stallMs?: number;
}

/**
 * Submit every sender's transactions in nonce order and count them mined by their receipts.
 * Hardhat's automine refuses nonce gaps and runs a batch's items concurrently, so a sender's next
 * transaction is sent only once its previous one was answered, and a batch never holds two from
 * one sender. With a rate, lane l sends its k-th request no earlier than its place in an even
 * schedule of `ratePerSecond` transfers a second.
 */
export async function submitAndWatch(url: string, signed: SenderTxs[], submission: Submission, options: SubmitOptions = {}): Promise<TransferRun> {
  const stallMs = options.stallMs ?? 30_000;
  const lanes = submission.kind === 'single' ? submission.workers : Math.ceil(signed.length / submission.size);
  const submitter = new RpcHttpClient(url, lanes);
  const watcher = new ReceiptWatcher(url);
  await watcher.start();
  const total = signed.reduce((n, s) => n + s.raws.length, 0);
  const rounds = Math.max(...signed.map((s) => s.raws.length));
  const errors = new Set<string>();
  let rejected = 0;
  let submitDone = false;
  const refuse = (hashes: Hex[], message: string) => {
    rejected += hashes.length;
    watcher.forget(hashes);
    if (errors.size < 5) errors.add(message);
  };

  // Lane l owns senders l, l + lanes, ... (single) or one block of `size` consecutive senders (batch).
  const laneSenders = (lane: number): number[] =>
    submission.kind === 'single'
      ? signed.map((_, i) => i).filter((i) => i % lanes === lane)
      : signed.map((_, i) => i).filter((i) => Math.floor(i / submission.size) === lane);

  const started = performance.now();
  const pace = async (sentBefore: number) => {
    if (!options.ratePerSecond) return;
    const due = started + (sentBefore / options.ratePerSecond) * 1000;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  };
  const submitting = Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const mine = laneSenders(lane);
      // Transfers all lanes send before this lane's k-th request, in the even schedule.
      let scheduled = lane * (submission.kind === 'single' ? 1 : mine.length);
      for (let round = 0; round < rounds; round++) {
        const items = mine.filter((i) => round < signed[i]!.raws.length).map((i) => ({ raw: signed[i]!.raws[round]!, hash: signed[i]!.hashes[round]! }));
        if (submission.kind === 'single') {
          for (const item of items) {
            await pace(scheduled);
            scheduled += lanes;
            watcher.expect([item.hash], performance.now());
            try {
              await submitter.call('eth_sendRawTransaction', [item.raw]);
            } catch (err) {
              refuse([item.hash], (err as Error).message);
            }
          }
        } else if (items.length > 0) {
          await pace(scheduled);
          scheduled += signed.length;
          watcher.expect(items.map((x) => x.hash), performance.now());
          try {
            const answers = await submitter.batch(items.map((x) => ({ method: 'eth_sendRawTransaction', params: [x.raw] })));
            for (const [i, a] of answers.entries()) if (a.error) refuse([items[i]!.hash], a.error.message);
          } catch (err) {
            refuse(items.map((x) => x.hash), (err as Error).message);
          }
        }
      }
    }),
  ).then(() => {
    submitDone = true;
    return performance.now();
  });

  let lastProgress = performance.now();
  let seen = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 20));
    if (watcher.error) throw watcher.error;
    const now = performance.now();
    if (watcher.mined > seen) {
      seen = watcher.mined;
      lastProgress = now;
    }
    if (submitDone && watcher.waiting === 0) break;
    if (now - lastProgress > stallMs) break;
  }
  const submitEnded = await submitting;
  await watcher.stop();
  submitter.close();
  const seconds = (watcher.lastAt - started) / 1000;
  return {
    submitted: total,
    rejected,
    errors: [...errors],
    mined: watcher.mined,
    succeeded: watcher.succeeded,
    submitSeconds: (submitEnded - started) / 1000,
    seconds,
    perSecond: seconds > 0 ? watcher.mined / seconds : 0,
    latency: latencyOf(watcher.latencies),
    blocks: watcher.perBlock.size,
    maxPerBlock: [...watcher.perBlock.values()].reduce((a, b) => Math.max(a, b), 0),
  };
}

export interface PollerRun {
  clients: number;
  mined: number;
  requests: number;
  latency: Latency;
}

/**
 * `clients` wallets, each sending its transfers one at a time and, like viem's
 * waitForTransactionReceipt, asking for the receipt every `pollMs` until it is there; for
 * `durationMs`, until `stop` is aborted, or until their transfers run out.
 */
export async function runReceiptPollers(url: string, txs: SenderTxs[], durationMs: number, pollMs = 10, stop?: AbortSignal): Promise<PollerRun> {
  const client = new RpcHttpClient(url, txs.length);
  const latencies: number[] = [];
  let requests = 0;
  const until = performance.now() + durationMs;
  await Promise.all(
    txs.map(async (mine) => {
      for (let k = 0; k < mine.raws.length && performance.now() < until && !stop?.aborted; k++) {
        const sent = performance.now();
        await client.call('eth_sendRawTransaction', [mine.raws[k]]);
        const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [mine.hashes[k]] }));
        for (;;) {
          requests++;
          const answer = await client.post(body);
          if (!answer.text.includes('"result":null')) {
            if (!answer.text.includes('"transactionHash"')) throw new Error(`eth_getTransactionReceipt: ${answer.text.slice(0, 200)}`);
            latencies.push(performance.now() - sent);
            break;
          }
          await new Promise((r) => setTimeout(r, pollMs));
        }
      }
    }),
  );
  client.close();
  return { clients: txs.length, mined: latencies.length, requests, latency: latencyOf(latencies) };
}

/** Token balance of every sink: the number of transfers to it that succeeded. */
export async function sinkBalances(url: string, fixture: TransferFixture, token: CompiledContract): Promise<bigint[]> {
  const client = new RpcHttpClient(url, 1);
  const answers = await inBatches(fixture.sinks, 500, (part) =>
    client.batch(
      part.map((sink) => ({
        method: 'eth_call',
        params: [{ to: fixture.token, data: encodeFunctionData({ abi: token.abi, functionName: 'balanceOf', args: [sink] }) }, 'latest'],
      })),
    ),
  );
  client.close();
  return answers.map((a) => {
    if (a.error) throw new Error(`balanceOf: ${a.error.message}`);
    return BigInt(a.result as Hex);
  });
}
