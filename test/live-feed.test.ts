// The explorer's live feed on a real node (RocksDB in a temp dir, 100 ms blocks): a socket.io client
// joins each room and receives, for the objects of a token transfer, pending transaction and new
// validator, exactly what the REST route answers for the same object.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { io as connect, type Socket } from 'socket.io-client';
import { createPublicClient, createWalletClient, http, parseEther, parseGwei, type Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { attachLiveFeed, type LiveFeed } from '../src/explorer/live/feed.js';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { system } from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const silent = pino({ level: 'silent' });
const keys = devPrivateKeys(6);
const token = compileContract('TestToken.sol', 'TestToken');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

type Obj = Record<string, unknown>;

/** One event as the client received it: its payload and the room it was published to. */
interface Received {
  payload: Obj;
  room: string;
}

let node: RunningNode;
let dataDir: string;
let feed: LiveFeed;
let ownsFeed = false;
let socket: Socket;
let tokenAddress: Address;
const received = new Map<string, Received[]>();
const publicClient = () => createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 });
const wallet = (i: number) => createWalletClient({ account: privateKeyToAccount(keys[i]!), chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
const events = (name: string, room?: string): Obj[] =>
  (received.get(name) ?? []).filter((r) => room === undefined || r.room === room).map((r) => r.payload);

/** The `data` of a REST answer. */
async function rest<T = Obj>(route: string): Promise<T> {
  const res = await fetch(`${node.explorerUrl}/api/v1${route}`);
  const body = (await res.json()) as { ok: boolean; data: T; error?: string };
  assert.equal(body.ok, true, `${route}: ${body.error}`);
  return body.data;
}

async function join(room: unknown): Promise<{ ok: boolean; data?: { room: string }; error?: string }> {
  return socket.timeout(5_000).emitWithAck('join', room);
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-live-feed-'));
  const config = devnetConfig(dataDir, { blockTimeMs: 100 });
  node = await startNode(config, { log: silent });
  // The node's own feed once src/node.ts attaches it (two socket.io servers cannot share one HTTP server).
  const own = (node as { liveFeed?: LiveFeed }).liveFeed;
  feed = own ?? attachLiveFeed(node.explorer, silent);
  ownsFeed = own === undefined;
  const hash = await wallet(0).deployContract({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 24n] });
  tokenAddress = (await publicClient().waitForTransactionReceipt({ hash })).contractAddress!;

  socket = connect(node.explorerUrl, { transports: ['websocket'] });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  socket.onAny((name: string, payload: Obj, room: string) => {
    const list = received.get(name) ?? [];
    list.push({ payload, room });
    received.set(name, list);
  });
});

after(async () => {
  socket?.disconnect();
  if (ownsFeed) await feed.close();
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('joining rooms', () => {
  it('acknowledges known rooms, lowercasing addresses', async () => {
    assert.deepEqual(await join('blocks:new_block'), { ok: true, data: { room: 'blocks:new_block' } });
    const mixed = privateKeyToAccount(keys[2]!).address;
    assert.deepEqual(await join(`addresses:${mixed}`), { ok: true, data: { room: `addresses:${mixed.toLowerCase()}` } });
  });

  it('refuses unknown rooms and non-strings with the reason', async () => {
    for (const bad of ['blocks:old_block', 'addresses:0x12', 42, null]) {
      const ack = await join(bad);
      assert.equal(ack.ok, false);
      assert.match(ack.error!, /room/);
    }
  });
});

describe('each room receives what the REST route answers for the same object', () => {
  it('blocks, transactions, pending transactions, addresses and tokens', { timeout: 30_000 }, async () => {
    const recipient = privateKeyToAccount(keys[2]!).address;
    const addressRoom = `addresses:${recipient.toLowerCase()}`;
    const tokenRoom = `tokens:${tokenAddress.toLowerCase()}`;
    for (const room of ['transactions:new_transaction', 'transactions:new_pending_transaction', addressRoom, tokenRoom]) {
      assert.equal((await join(room)).ok, true, room);
    }

    // A transaction with a nonce gap stays in the pool, so the REST route shows it pending too.
    const gapped = privateKeyToAccount(keys[3]!);
    const nonce = await publicClient().getTransactionCount({ address: gapped.address, blockTag: 'pending' });
    const pendingHash = await wallet(3).sendTransaction({
      to: recipient,
      value: 1n,
      gas: 21_000n,
      nonce: nonce + 5,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
    } as never);

    const hash = await wallet(0).writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [recipient, 12_345n], gas: 100_000n } as never);
    const receipt = await publicClient().waitForTransactionReceipt({ hash });
    const n = Number(receipt.blockNumber);
    await until('the events of the transfer', () =>
      events('new_block').some((b) => b.number === n) &&
      events('new_transaction').some((t) => t.hash === hash) &&
      events('transaction', addressRoom).some((t) => t.hash === hash) &&
      events('token_transfer', addressRoom).some((t) => t.transactionHash === hash) &&
      events('token_transfer', tokenRoom).some((t) => t.transactionHash === hash) &&
      events('new_pending_transaction').some((t) => t.hash === pendingHash),
    );

    const block = events('new_block').find((b) => b.number === n)!;
    const restBlock = await rest(`/blocks/${n}`);
    for (const [field, value] of Object.entries(block)) assert.deepEqual(value, restBlock[field], `block ${field}`);
    const [restList] = (await rest<{ items: Obj[] }>(`/blocks?limit=50`)).items.filter((b) => b.number === n);
    assert.deepEqual(block, restList);

    const tx = events('new_transaction').find((t) => t.hash === hash)!;
    assert.deepEqual(tx, (await rest<{ items: Obj[] }>(`/blocks/${n}/transactions`)).items.find((t) => t.hash === hash));

    const addressTx = events('transaction', addressRoom).find((t) => t.hash === hash)!;
    assert.deepEqual(addressTx, (await rest<{ items: Obj[] }>(`/addresses/${recipient}/transactions`)).items.find((t) => t.hash === hash));
    const addressTransfer = events('token_transfer', addressRoom).find((t) => t.transactionHash === hash)!;
    assert.deepEqual(
      addressTransfer,
      (await rest<{ items: Obj[] }>(`/addresses/${recipient}/token-transfers`)).items.find((t) => t.transactionHash === hash),
    );
    assert.equal(addressTransfer.value, '12345');
    const tokenTransfer = events('token_transfer', tokenRoom).find((t) => t.transactionHash === hash)!;
    assert.deepEqual(tokenTransfer, (await rest<{ items: Obj[] }>(`/tokens/${tokenAddress}/transfers`)).items.find((t) => t.transactionHash === hash));

    const pending = events('new_pending_transaction').find((t) => t.hash === pendingHash)!;
    assert.deepEqual(pending, await rest(`/transactions/${pendingHash}`));

    // Every block since joining, in order, none missed.
    const numbers = events('new_block').map((b) => b.number as number);
    assert.deepEqual(numbers, Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i));
  });

  it('validators:changes reports a registration and the entry into the active set', { timeout: 30_000 }, async () => {
    assert.equal((await join('validators:changes')).ok, true);
    const operator = privateKeyToAccount(keys[4]!);
    const abi = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;
    const hash = await wallet(4).writeContract({
      address: system.stakingAddress as Hex,
      abi,
      functionName: 'registerValidator',
      args: ['live-feed', 1_000, 2_000, 500],
      value: parseEther('50'),
      gas: 300_000n,
    } as never);
    const receipt = await publicClient().waitForTransactionReceipt({ hash });
    const mine = () => events('validator_change').filter((c) => c.address === operator.address);
    await until('the validator to join the active set', () => mine().some((c) => (c.changes as string[]).includes('joinedActiveSet')));
    const [registered, joined] = mine();
    assert.deepEqual(registered!.changes, ['registered']);
    assert.equal(registered!.blockNumber, Number(receipt.blockNumber));
    assert.equal(registered!.previousStatus, null);
    assert.deepEqual(joined!.changes, ['joinedActiveSet']);
    assert.equal(joined!.previousStatus, 'inactive');

    const listed = (await rest<Obj[]>('/network/validators')).find((v) => v.address === operator.address)!;
    const view = joined!.validator as Obj;
    assert.deepEqual(Object.keys(view).sort(), Object.keys(listed).sort());
    for (const field of ['address', 'moniker', 'commission', 'status', 'totalStake']) assert.deepEqual(view[field], listed[field], field);
  });

  it('stops sending a room after leave', async () => {
    assert.deepEqual(await socket.timeout(5_000).emitWithAck('leave', 'blocks:new_block'), { ok: true, data: { room: 'blocks:new_block' } });
    await sleep(150);
    const count = events('new_block').length;
    await sleep(500);
    assert.equal(events('new_block').length, count);
  });
});
