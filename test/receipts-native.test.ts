// Receipts, mined transactions and block receipts are answered by the native JSON-RPC port, off the
// event loop that block production shares: the same objects the dispatcher gives, and answered
// while JavaScript is busy (wallets polling for receipts cannot hold a block back).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, chain as chainParams } from '../src/params.js';
import { devnetConfig } from './support/node-config.js';
import { rpc as call } from './support/json-rpc.js';
import { compileContract } from './support/solc.js';

const account = mnemonicToAccount(chainParams.devMnemonic);
/** Slots long enough that every block in these tests is produced by the test itself. */
const BLOCK_TIME_MS = 3_600_000;

let dataDir: string;
let node: RunningNode;
let url: string;

const rpc = (method: string, params: unknown[] = []): Promise<any> => call(url, method, params);

/** What the dispatcher answers: the addon's object as JSON.stringify writes it. */
const dispatcherJson = (value: unknown) => JSON.parse(JSON.stringify(value));

let nonce = 0;
async function send(tx: { to?: Hex; data?: Hex; gas?: bigint }): Promise<Hex> {
  const raw = await account.signTransaction({
    chainId: CHAIN_ID.devnet,
    type: 'eip1559',
    nonce: nonce++,
    gas: tx.gas ?? 200_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 1n,
    ...tx,
  });
  return rpc('eth_sendRawTransaction', [raw]);
}

let transfers: Hex[] = [];

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-receipts-test-'));
  node = await startNode(devnetConfig(dataDir, { blockTimeMs: BLOCK_TIME_MS }));
  url = `http://127.0.0.1:${node.rpcPort}/`;
  const token = compileContract('TestToken.sol', 'TestToken');
  const deploy = await send({ data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 24n] }), gas: 3_000_000n });
  await node.driver.produceNext();
  const address = (await rpc('eth_getTransactionReceipt', [deploy])).contractAddress as Hex;
  // Three transfers with a log each, after a plain ether transfer with none: block-wide log indexes 0, 1, 2.
  transfers = [await send({ to: '0x000000000000000000000000000000000000dEaD', gas: 21_000n })];
  for (let i = 0; i < 3; i++) {
    const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [`0x${(0xbe00 + i).toString(16).padStart(40, '0')}`, 7n] });
    transfers.push(await send({ to: address, data }));
  }
  await node.driver.produceNext();
});

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('receipts and mined transactions from the native port', () => {
  it('give the objects the dispatcher gives, with block-wide log indexes and per-transaction gas', async () => {
    const chain = node.services.chain;
    for (const hash of transfers) {
      const receipt = await rpc('eth_getTransactionReceipt', [hash]);
      assert.deepEqual(receipt, dispatcherJson(chain.getTransactionReceipt(Buffer.from(hash.slice(2), 'hex'))));
      const tx = await rpc('eth_getTransactionByHash', [hash]);
      assert.deepEqual(tx, dispatcherJson(chain.getTransactionByHash(Buffer.from(hash.slice(2), 'hex'))));
    }
    const receipts = await rpc('eth_getBlockReceipts', ['latest']);
    assert.equal(receipts.length, 4);
    assert.deepEqual(receipts, dispatcherJson(chain.getBlockReceipts({ number: chain.head().number })));
    assert.deepEqual(
      receipts.map((r: any) => r.logs.map((l: any) => l.logIndex)),
      [[], ['0x0'], ['0x1'], ['0x2']],
    );
    assert.equal(receipts[0].gasUsed, '0x5208');
    assert.equal(BigInt(receipts[3].cumulativeGasUsed) - BigInt(receipts[2].cumulativeGasUsed), BigInt(receipts[3].gasUsed));
    assert.deepEqual(receipts.map((r: any) => r.transactionHash), transfers);
    for (const full of [false, true]) {
      const block = await rpc('eth_getBlockByNumber', ['latest', full]);
      assert.deepEqual(block, dispatcherJson(chain.getBlock({ number: chain.head().number }, full)));
      assert.equal(block.transactions.length, 4);
    }
  });

  it('a pending transaction is still found by hash (in the pool), and has no receipt yet', async () => {
    const hash = await send({ to: '0x000000000000000000000000000000000000dEaD', gas: 21_000n });
    assert.equal(await rpc('eth_getTransactionReceipt', [hash]), null);
    const pending = await rpc('eth_getTransactionByHash', [hash]);
    assert.equal(pending.hash, hash);
    assert.equal(pending.blockNumber, null);
    await node.driver.produceNext();
    assert.equal((await rpc('eth_getTransactionReceipt', [hash])).status, '0x1');
  });

  it('are answered while the event loop is busy', async () => {
    // Another process asks for a receipt while this one blocks its event loop for 3 s; the answer
    // must come from the native port before the loop is free again.
    const hash = transfers[1]!;
    const script = `
      const started = Date.now();
      const ask = () => fetch(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [${JSON.stringify(hash)}] }) })
        .then((r) => r.json());
      process.stdout.write('asking\\n');
      ask().then((j) => process.stdout.write(JSON.stringify({ at: Date.now(), hash: j.result && j.result.transactionHash }) + '\\n'));
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    // Wait (without blocking) until the child is about to ask, then block.
    const deadline = Date.now() + 30_000;
    while (!out.includes('asking') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.ok(out.includes('asking'), 'the child process started');
    const blockedUntil = Date.now() + 3_000;
    while (Date.now() < blockedUntil) {
      // Busy: no callback of this process runs, the dispatcher included.
    }
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const answer = JSON.parse(out.split('\n').find((l) => l.startsWith('{'))!) as { at: number; hash: string };
    assert.equal(answer.hash, hash);
    assert.ok(answer.at < blockedUntil, `answered ${answer.at - blockedUntil} ms after the event loop was free again`);
  });
});
