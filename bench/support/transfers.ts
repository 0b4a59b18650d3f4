// Sustained ERC-20 transfer throughput: deploy and fund, pre-sign, submit (single or batched), count what gets mined.
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseEther, parseGwei, type Address, type Hex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { bytesToHex } from 'viem';
import { DEV_CHAIN_ID, DEV_MNEMONIC } from '../../test/support/dev-accounts.js';
import type { CompiledContract } from '../../test/support/solc.js';
import { svcDevnet } from '../../test/support/viem-chain.js';
import { RpcHttpClient } from './http-client.js';

const TOKEN_SUPPLY = 10n ** 30n;
const TRANSFER_GAS = 60_000n;
/** High enough to ride out base fee growth while blocks are full. */
const MAX_FEE = parseGwei('100');
const TIP = parseGwei('1');

export interface TransferFixture {
  token: Address;
  senders: PrivateKeyAccount[];
  /** One fresh recipient per sender, so that its token balance counts that sender's successful transfers. */
  sinks: Address[];
}

export interface TransferRun {
  submitted: number;
  rejected: number;
  errors: string[];
  mined: number;
  submitSeconds: number;
  /** From the first submission to the poll that saw the last transfer mined. */
  seconds: number;
  perSecond: number;
}

/** The first `count` accounts of the test mnemonic (Hardhat funds 20; the svc devnet 10). */
export function mnemonicAccounts(count: number): PrivateKeyAccount[] {
  return Array.from({ length: count }, (_, i) =>
    privateKeyToAccount(bytesToHex(mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!)),
  );
}

/** Deploy the token from sender 0, then give every other sender ether (if it lacks it) and tokens. */
export async function deployAndFund(url: string, token: CompiledContract, senders: PrivateKeyAccount[]): Promise<TransferFixture> {
  const chain = svcDevnet(url);
  const pub = createPublicClient({ chain, transport: http(url), pollingInterval: 50 });
  const owner = senders[0]!;
  const wallet = createWalletClient({ account: owner, chain, transport: http(url) });
  const deployHash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode, args: [TOKEN_SUPPLY] });
  const deployed = await pub.waitForTransactionReceipt({ hash: deployHash, timeout: 60_000 });
  if (deployed.status !== 'success' || !deployed.contractAddress) throw new Error('token deployment failed');
  const address = deployed.contractAddress;
  let nonce = await pub.getTransactionCount({ address: owner.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (const s of senders.slice(1)) {
    if ((await pub.getBalance({ address: s.address })) < parseEther('20')) {
      hashes.push(await wallet.sendTransaction({ to: s.address, value: parseEther('20'), nonce: nonce++, gas: 21_000n, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: TIP }));
    }
    const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [s.address, TOKEN_SUPPLY / 1000n] });
    hashes.push(await wallet.sendTransaction({ to: address, data, nonce: nonce++, gas: 100_000n, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: TIP }));
  }
  for (const hash of hashes) {
    const r = await pub.waitForTransactionReceipt({ hash, timeout: 60_000 });
    if (r.status !== 'success') throw new Error(`funding transaction ${hash} failed`);
  }
  const sinks = senders.map((_, i) => `0x${(0x5e000000 + i).toString(16).padStart(40, '0')}` as Address);
  return { token: address, senders, sinks };
}

/**
 * Sign `perSender` transfers of 1 token unit from each sender, starting at its pending nonce: the
 * k-th transfer of sender i goes to `recipient(i, k)` (default: the sender's sink).
 */
export async function presignTransfers(
  url: string,
  fixture: TransferFixture,
  token: CompiledContract,
  perSender: number,
  recipient: (sender: number, k: number) => Address = (i) => fixture.sinks[i]!,
  onSender?: (done: number) => void,
): Promise<Hex[][]> {
  const client = new RpcHttpClient(url, 4);
  const signed: Hex[][] = [];
  for (const [i, sender] of fixture.senders.entries()) {
    const start = Number(await client.call<Hex>('eth_getTransactionCount', [sender.address, 'pending']));
    const txs: Hex[] = [];
    for (let k = 0; k < perSender; k++) {
      const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [recipient(i, k), 1n] });
      txs.push(
        await sender.signTransaction({
          type: 'eip1559',
          chainId: DEV_CHAIN_ID,
          nonce: start + k,
          to: fixture.token,
          data,
          gas: TRANSFER_GAS,
          maxFeePerGas: MAX_FEE,
          maxPriorityFeePerGas: TIP,
        }),
      );
    }
    signed.push(txs);
    onSender?.(i + 1);
  }
  client.close();
  return signed;
}

/** How transactions go out: single requests from `workers` connections, or batches holding one transaction per sender. */
export type Submission = { kind: 'single'; workers: number } | { kind: 'batch'; size: number };

/**
 * Submit every sender's transactions in nonce order, while counting mined ones by sender nonces.
 * Hardhat's automine refuses nonce gaps and runs a batch's items concurrently, so a sender's next
 * transaction is sent only once its previous one was answered, and a batch never holds two from one sender.
 */
export async function submitAndCount(url: string, fixture: TransferFixture, signed: Hex[][], submission: Submission, stallMs = 30_000): Promise<TransferRun> {
  const lanes = submission.kind === 'single' ? submission.workers : Math.ceil(signed.length / submission.size);
  const submitter = new RpcHttpClient(url, lanes);
  const watcher = new RpcHttpClient(url, 1);
  const nonceCalls = fixture.senders.map((s) => ({ method: 'eth_getTransactionCount', params: [s.address, 'latest'] }));
  const readNonces = async () => (await watcher.batch(nonceCalls)).map((r) => Number(r.result as Hex));
  const startNonces = await readNonces();
  const total = signed.reduce((n, txs) => n + txs.length, 0);
  const rounds = Math.max(...signed.map((txs) => txs.length));
  const errors = new Set<string>();
  let rejected = 0;
  let submitDone = false;
  const refuse = (count: number, message: string) => {
    rejected += count;
    if (errors.size < 5) errors.add(message);
  };

  // Lane l owns senders l, l + lanes, ... (single) or one block of `size` consecutive senders (batch).
  const laneSenders = (lane: number): number[] =>
    submission.kind === 'single'
      ? signed.map((_, i) => i).filter((i) => i % lanes === lane)
      : signed.map((_, i) => i).filter((i) => Math.floor(i / submission.size) === lane);

  const started = performance.now();
  const submitting = Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const mine = laneSenders(lane);
      for (let round = 0; round < rounds; round++) {
        const raws = mine.map((i) => signed[i]![round]).filter((raw): raw is Hex => raw !== undefined);
        if (submission.kind === 'single') {
          for (const raw of raws) {
            try {
              await submitter.call('eth_sendRawTransaction', [raw]);
            } catch (err) {
              refuse(1, (err as Error).message);
            }
          }
        } else if (raws.length > 0) {
          try {
            const answers = await submitter.batch(raws.map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })));
            for (const a of answers) if (a.error) refuse(1, a.error.message);
          } catch (err) {
            refuse(raws.length, (err as Error).message);
          }
        }
      }
    }),
  ).then(() => {
    submitDone = true;
    return performance.now();
  });

  let mined = 0;
  let lastAt = started;
  for (;;) {
    const nonces = await readNonces();
    const now = performance.now();
    const count = nonces.reduce((sum, n, i) => sum + (n - startNonces[i]!), 0);
    if (count > mined) {
      mined = count;
      lastAt = now;
    }
    if (submitDone && mined >= total - rejected) break;
    if (now - lastAt > stallMs) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const submitEnded = await submitting;
  submitter.close();
  watcher.close();
  const seconds = (lastAt - started) / 1000;
  return {
    submitted: total,
    rejected,
    errors: [...errors],
    mined,
    submitSeconds: (submitEnded - started) / 1000,
    seconds,
    perSecond: seconds > 0 ? mined / seconds : 0,
  };
}

/** Token balance of every sink: the number of transfers to it that succeeded. */
export async function sinkBalances(url: string, fixture: TransferFixture, token: CompiledContract): Promise<bigint[]> {
  const client = new RpcHttpClient(url, 1);
  const answers = await client.batch(
    fixture.sinks.map((sink) => ({
      method: 'eth_call',
      params: [{ to: fixture.token, data: encodeFunctionData({ abi: token.abi, functionName: 'balanceOf', args: [sink] }) }, 'latest'],
    })),
  );
  client.close();
  return answers.map((a) => {
    if (a.error) throw new Error(`balanceOf: ${a.error.message}`);
    return BigInt(a.result as Hex);
  });
}
