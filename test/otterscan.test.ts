// The Otterscan namespace through a node (docs/rpc.md, ots): each ots_* method against the shapes
// Erigon and reth answer (alloy-rpc-types-trace otterscan.rs), with values computed from what the
// transactions did: a contract that creates with CREATE and CREATE2 (with value), pays an address
// and self-destructs a child; a revert; pages of a block and of an address's history.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, createWalletClient, encodeErrorResult, encodeFunctionData, getContractAddress, http, parseAbi, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { compileContracts } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

type Json = Record<string, unknown>;
interface Page {
  txs: Json[];
  receipts: Json[];
  firstPage: boolean;
  lastPage: boolean;
}

const keys = (o: object | null | undefined) => Object.keys(o ?? {}).sort();
const lower = (a: string) => a.toLowerCase();

describe('Otterscan (ots_*)', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let url: string;
  const contracts = compileContracts('Operations.sol');
  const account = privateKeyToAccount(devPrivateKeys(10)[6]!);
  const payee: Address = '0x0000000000000000000000000000000000c0ffee';
  const salt = toHex(9n, { size: 32 });
  const sent: { hash: Hex; block: number; nonce: number }[] = [];
  let spawner: Address;
  let spawn: { hash: Hex; block: number };
  let fail: Hex;
  let deploy: Hex;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-ots-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    url = node.rpcUrl;
    const chain = svcDevnet(url);
    const client = createPublicClient({ chain, transport: http(url), pollingInterval: 25 });
    const wallet = createWalletClient({ account, chain, transport: http(url), pollingInterval: 25 });
    const send = async (args: { to?: Address; data?: Hex; value?: bigint; gas: bigint; nonce?: number }) => {
      const hash = await wallet.sendTransaction(args as never);
      const receipt = await client.waitForTransactionReceipt({ hash });
      const tx = await client.getTransaction({ hash });
      sent.push({ hash, block: Number(receipt.blockNumber), nonce: tx.nonce });
      return { hash, receipt };
    };
    const deployed = await send({ data: contracts.Spawner!.bytecode, gas: 2_000_000n });
    deploy = deployed.hash;
    spawner = deployed.receipt.contractAddress!;
    const spawned = await send({ to: spawner, data: encodeFunctionData({ abi: contracts.Spawner!.abi, functionName: 'spawn', args: [salt, payee] }), value: 12n, gas: 1_000_000n });
    spawn = { hash: spawned.hash, block: Number(spawned.receipt.blockNumber) };
    fail = (await send({ to: spawner, data: encodeFunctionData({ abi: contracts.Spawner!.abi, functionName: 'fail' }), gas: 100_000n })).hash;
    // Three transfers sent together: a block of several transactions, most likely.
    const nonce = await client.getTransactionCount({ address: account.address });
    const hashes = await Promise.all([0, 1, 2].map((i) => wallet.sendTransaction({ to: payee, value: 1n, gas: 21_000n, nonce: nonce + i })));
    for (const [i, hash] of hashes.entries()) {
      const receipt = await client.waitForTransactionReceipt({ hash });
      sent.push({ hash, block: Number(receipt.blockNumber), nonce: nonce + i });
    }
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const c1 = () => lower(getContractAddress({ from: spawner, nonce: 1n }));
  const c2 = () => lower(getContractAddress({ opcode: 'CREATE2', from: spawner, salt, bytecode: contracts.Child!.bytecode }));

  it('answers API level 8 and whether an address has code at a block', async () => {
    assert.equal(await rpc(url, 'ots_getApiLevel'), 8);
    assert.equal(await rpc(url, 'ots_hasCode', [spawner, 'latest']), true);
    assert.equal(await rpc(url, 'ots_hasCode', [spawner, toHex(sent[0]!.block - 1)]), false, 'not before its creation');
    assert.equal(await rpc(url, 'ots_hasCode', [payee, 'latest']), false);
  });

  it('lists the value moves, creations and self-destructs below the top call', async () => {
    const ops = await rpc<Json[]>(url, 'ots_getInternalOperations', [spawn.hash]);
    for (const op of ops) assert.deepEqual(keys(op), ['from', 'to', 'type', 'value']);
    const s = lower(spawner);
    assert.deepEqual(
      ops.map((op) => [op.type, lower(op.from as string), lower(op.to as string), op.value]),
      [
        [2, s, c1(), '0x4'],
        [3, s, c2(), '0x4'],
        [0, s, payee, '0x4'],
        [1, c1(), payee, '0x4'],
      ],
    );
    assert.deepEqual(await rpc(url, 'ots_getInternalOperations', [sent.at(-1)!.hash]), [], 'a plain transfer has none');
  });

  it('gives the revert data of a reverted transaction and 0x otherwise', async () => {
    const reason = encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['nope'] });
    assert.equal(await rpc(url, 'ots_getTransactionError', [fail]), reason);
    assert.equal(await rpc(url, 'ots_getTransactionError', [spawn.hash]), '0x');
    assert.equal(await rpc(url, 'ots_getTransactionError', [`0x${'cd'.repeat(32)}`]), null);
  });

  it('traces a transaction as a flat list of frames with their depths', async () => {
    const entries = await rpc<Json[]>(url, 'ots_traceTransaction', [spawn.hash]);
    for (const e of entries) assert.deepEqual(keys(e), ['depth', 'from', 'input', 'output', 'to', 'type', 'value']);
    const s = lower(spawner);
    assert.deepEqual(
      entries.map((e) => [e.type, e.depth, lower(e.from as string), lower(e.to as string), e.value]),
      [
        ['CALL', 0, lower(account.address), s, '0xc'],
        ['CREATE', 1, s, c1(), '0x4'],
        ['CREATE2', 1, s, c2(), '0x4'],
        ['CALL', 1, s, payee, '0x4'],
        ['CALL', 1, s, c1(), '0x0'],
        ['SELFDESTRUCT', 2, c1(), payee, '0x4'],
      ],
    );
    assert.equal(entries[1]!.input, contracts.Child!.bytecode);
  });

  it('gives block details without transactions or bloom, with the fees paid', async () => {
    const details = await rpc<{ block: Json; issuance: Json; totalFees: string }>(url, 'ots_getBlockDetails', [spawn.block]);
    assert.deepEqual(keys(details), ['block', 'issuance', 'totalFees']);
    const block = await rpc<Json>(url, 'eth_getBlockByNumber', [toHex(spawn.block), false]);
    const { transactions, ...header } = block as Json & { transactions: string[] };
    assert.deepEqual(details.block, { ...header, logsBloom: null, transactionCount: transactions.length });
    assert.deepEqual(details.issuance, { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' });
    const receipts = await rpc<{ gasUsed: string; effectiveGasPrice: string }[]>(url, 'eth_getBlockReceipts', [toHex(spawn.block)]);
    assert.equal(details.totalFees, toHex(receipts.reduce((sum, r) => sum + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n)));
    assert.deepEqual(await rpc(url, 'ots_getBlockDetailsByHash', [block.hash]), details);
  });

  it('pages a block transactions from its end, inputs cut to the selector, receipts without logs', async () => {
    const number = sent.at(-1)!.block;
    const block = await rpc<Json & { transactions: Json[]; timestamp: string }>(url, 'eth_getBlockByNumber', [toHex(number), true]);
    const receipts = await rpc<Json[]>(url, 'eth_getBlockReceipts', [toHex(number)]);
    const n = block.transactions.length;
    for (const page of [0, 1]) {
      const answer = await rpc<{ fullblock: Json & { transactions: Json[] }; receipts: Json[] }>(url, 'ots_getBlockTransactions', [number, page, 2]);
      const end = Math.max(0, n - page * 2);
      const start = Math.max(0, end - 2);
      assert.equal(answer.fullblock.transactionCount, n);
      assert.deepEqual(
        answer.fullblock.transactions,
        block.transactions.slice(start, end).map((tx) => ({ ...tx, input: (tx.input as string).slice(0, 10) })),
      );
      assert.deepEqual(answer.receipts, receipts.slice(start, end).map((r) => ({ ...r, logs: null, logsBloom: null, timestamp: block.timestamp })));
    }
    const spawnPage = await rpc<{ fullblock: { transactions: Json[] } }>(url, 'ots_getBlockTransactions', [spawn.block, 0, 25]);
    const own = spawnPage.fullblock.transactions.find((t) => t.hash === spawn.hash)!;
    assert.equal((own.input as string).length, 10, 'the input is its 4-byte selector');
    await assert.rejects(rpc(url, 'ots_getBlockTransactions', [number, 0, 0]), (err: unknown) => err instanceof JsonRpcError && err.code === -32602);
  });

  it('finds a transaction by sender and nonce', async () => {
    for (const s of sent) assert.equal(await rpc(url, 'ots_getTransactionBySenderAndNonce', [account.address, s.nonce]), s.hash);
    assert.equal(await rpc(url, 'ots_getTransactionBySenderAndNonce', [account.address, sent.at(-1)!.nonce + 1]), null);
  });

  it('names the creator of a contract, made by an account or by a contract', async () => {
    assert.deepEqual(await rpc(url, 'ots_getContractCreator', [spawner]), { hash: deploy, creator: lower(account.address) });
    const made = await rpc<{ hash: string; creator: string }>(url, 'ots_getContractCreator', [c2()]);
    assert.deepEqual({ ...made, creator: lower(made.creator) }, { hash: spawn.hash, creator: lower(spawner) });
    assert.equal(await rpc(url, 'ots_getContractCreator', [payee]), null, 'no code');
    assert.equal(await rpc(url, 'ots_getContractCreator', [c1()]), null, 'self-destructed');
  });

  it("pages an address's transactions before and after a block, whole blocks, newest first", async () => {
    const newestFirst = [...sent].reverse().map((s) => s.hash);
    const before: string[] = [];
    let page = await rpc<Page>(url, 'ots_searchTransactionsBefore', [account.address, 0, 2]);
    assert.equal(page.firstPage, true);
    for (;;) {
      assert.deepEqual(keys(page), ['firstPage', 'lastPage', 'receipts', 'txs']);
      assert.deepEqual(page.receipts.map((r) => r.transactionHash), page.txs.map((t) => t.hash));
      for (const r of page.receipts) assert.equal(typeof r.timestamp, 'string');
      before.push(...page.txs.map((t) => t.hash as string));
      if (page.lastPage) break;
      page = await rpc<Page>(url, 'ots_searchTransactionsBefore', [account.address, Number(BigInt(page.txs.at(-1)!.blockNumber as string)), 2]);
      assert.equal(page.firstPage, false);
    }
    assert.deepEqual(before, newestFirst);

    const afterPages: string[][] = [];
    page = await rpc<Page>(url, 'ots_searchTransactionsAfter', [account.address, 0, 2]);
    assert.equal(page.lastPage, true);
    for (;;) {
      afterPages.push(page.txs.map((t) => t.hash as string));
      if (page.firstPage) break;
      page = await rpc<Page>(url, 'ots_searchTransactionsAfter', [account.address, Number(BigInt(page.txs[0]!.blockNumber as string)), 2]);
    }
    assert.deepEqual(afterPages.reverse().flat(), newestFirst);
    const empty = await rpc<Page>(url, 'ots_searchTransactionsBefore', [payee.replace('c0ffee', 'c0ffef'), 0, 5]);
    assert.deepEqual(empty, { txs: [], receipts: [], firstPage: true, lastPage: true });
  });
});
