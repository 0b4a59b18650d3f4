// JSON-RPC over WebSocket on a real node (RocksDB in a temp dir, 100 ms blocks): viem's and ethers'
// WebSocket clients receive every block, log and pending transaction of a 50-block run, in order;
// the svc subscription kinds report epochs and validator changes; and the limits of
// docs/realtime.md hold (subscriptions per connection, slow consumers, bad frames, rate limit, pings).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, describe, it } from 'node:test';
import { Contract, Network, WebSocketProvider, type ContractEventPayload, type InterfaceAbi } from 'ethers';
import pino from 'pino';
import {
  createPublicClient,
  createWalletClient,
  http,
  parseEther,
  parseGwei,
  webSocket,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Transport,
  type Chain,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, system, ws as wsParams } from '../src/params.js';
import { TOO_SLOW_REASON } from '../src/rpc/ws/connection.js';
import { startWsServer, type WsServer } from '../src/rpc/ws/server.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const BLOCK_TIME_MS = 100;
const RUN_BLOCKS = 52;
const SUPPLY = 1_000_000n * 10n ** 18n;
const MiB = 1024 * 1024;
const silent = pino({ level: 'silent' });

v8.setFlagsFromString('--expose-gc');
/** A full collection, so memory readings show what is held rather than what is not yet collected. */
const gc = vm.runInNewContext('gc') as () => void;
const heldMemory = (): number => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface Message {
  jsonrpc: string;
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  method?: string;
  params?: { subscription: string; result: unknown };
}

/** A JSON-RPC client on a raw `ws` socket, to look at the wire: answers by id, notifications by subscription. */
class RawClient {
  private nextId = 1;
  readonly answers: Message[] = [];
  readonly notifications = new Map<string, unknown[]>();
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const parsed = JSON.parse(String(data)) as Message | Message[];
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
        if (m.method === 'eth_subscription' && m.params) {
          const list = this.notifications.get(m.params.subscription) ?? [];
          list.push(m.params.result);
          this.notifications.set(m.params.subscription, list);
        } else {
          this.answers.push(m);
        }
      }
    });
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static async connect(url: string, options: WebSocket.ClientOptions = {}): Promise<RawClient> {
    const socket = new WebSocket(url, options);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  /** Sends one request and waits for the answer with its id. */
  async call(method: string, params: unknown[] = []): Promise<Message> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.answerTo(id);
  }

  async answerTo(id: unknown, timeoutMs = 5_000): Promise<Message> {
    let found: Message | undefined;
    await until(`the answer to ${String(id)}`, () => (found = this.answers.find((m) => m.id === id)) !== undefined, timeoutMs);
    return found!;
  }

  async subscribe(...params: unknown[]): Promise<string> {
    const answer = await this.call('eth_subscribe', params);
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    return answer.result as string;
  }

  close(): void {
    this.socket.close();
  }
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as Message;
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

let node: RunningNode;
let dataDir: string;
let server: WsServer;
let wsUrl: string;
let publicClient: PublicClient<Transport, Chain>;
const keys = devPrivateKeys(10);
const token = compileContract('TestToken.sol', 'TestToken');
let tokenAddress: Address;

/** Resolves at the next committed block. */
const nextBlock = () => new Promise<number>((resolve) => node.services.events.once('block', (b) => resolve(b.head.number)));

function wallet(index: number): WalletClient<Transport, Chain, PrivateKeyAccount> {
  return createWalletClient({ account: privateKeyToAccount(keys[index]!), chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-ws-rpc-'));
  const config = devnetConfig(dataDir, { blockTimeMs: BLOCK_TIME_MS });
  node = await startNode(config, { log: silent });
  server = await startWsServer(node.services, silent);
  wsUrl = `ws://127.0.0.1:${server.port}`;
  publicClient = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 });
  const hash = await wallet(0).deployContract({ abi: token.abi, bytecode: token.bytecode, args: [SUPPLY] });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  tokenAddress = receipt.contractAddress!;
});

after(async () => {
  await server?.close();
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('viem and ethers over WebSocket receive every event, in order, over 50 blocks', () => {
  it('delivers each new head, Transfer log and pending transaction exactly once', { timeout: 60_000 }, async () => {
    const viemClient = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: webSocket(wsUrl) });
    const viemBlocks: { number: bigint; hash: Hash }[] = [];
    const viemLogs: { blockNumber: bigint; logIndex: number; transactionHash: Hash }[] = [];
    const viemPending: Hash[] = [];
    const errors: Error[] = [];
    const unwatch = [
      viemClient.watchBlocks({ onBlock: (b) => viemBlocks.push({ number: b.number, hash: b.hash }), onError: (e) => errors.push(e) }),
      viemClient.watchContractEvent({
        address: tokenAddress,
        abi: token.abi,
        eventName: 'Transfer',
        onLogs: (logs) => viemLogs.push(...logs.map((l) => ({ blockNumber: l.blockNumber!, logIndex: l.logIndex!, transactionHash: l.transactionHash! }))),
        onError: (e) => errors.push(e),
      }),
      viemClient.watchPendingTransactions({ onTransactions: (hashes) => viemPending.push(...hashes), onError: (e) => errors.push(e) }),
    ];

    const provider = new WebSocketProvider(wsUrl, new Network('svc-devnet', CHAIN_ID.devnet));
    const ethersBlocks: number[] = [];
    const ethersLogs: { blockNumber: number; logIndex: number; transactionHash: string }[] = [];
    await provider.on('block', (n: number) => ethersBlocks.push(n));
    const contract = new Contract(tokenAddress, token.abi as InterfaceAbi, provider);
    await contract.on('Transfer', (...args: unknown[]) => {
      const { log } = args[args.length - 1] as ContractEventPayload;
      ethersLogs.push({ blockNumber: log.blockNumber, logIndex: log.index, transactionHash: log.transactionHash });
    });

    try {
      // viem: heads, logs, pending; ethers: heads, logs.
      await until('five subscriptions', () => server.stats().subscriptions >= 5);
      const firstBlock = (await nextBlock()) + 1;

      const sender = wallet(0);
      let nonce = await publicClient.getTransactionCount({ address: sender.account.address, blockTag: 'pending' });
      const sent: Hash[] = [];
      const transfer = async (amount: bigint) => {
        const hash = await sender.writeContract({
          address: tokenAddress,
          abi: token.abi,
          functionName: 'transfer',
          args: [privateKeyToAccount(keys[1]!).address, amount],
          nonce: nonce++,
          gas: 100_000n,
          maxFeePerGas: parseGwei('20'),
          maxPriorityFeePerGas: parseGwei('1'),
        } as never);
        sent.push(hash);
      };
      // One transfer per block, two in every fifth, for RUN_BLOCKS blocks.
      for (let i = 0; i < RUN_BLOCKS; i++) {
        await transfer(BigInt(i + 1));
        if (i % 5 === 0) await transfer(BigInt(1_000 + i));
        await nextBlock();
      }
      const receipts = await Promise.all(sent.map((hash) => publicClient.waitForTransactionReceipt({ hash })));
      assert.ok(receipts.every((r) => r.status === 'success'));
      const lastBlock = Number(receipts.reduce((m, r) => (r.blockNumber > m ? r.blockNumber : m), 0n)) + 1;
      await until('the block after the last transfer', () => node.services.chain.head().number >= lastBlock);

      const expected = (
        await publicClient.getContractEvents({ address: tokenAddress, abi: token.abi, eventName: 'Transfer', fromBlock: BigInt(firstBlock), toBlock: BigInt(lastBlock) })
      ).map((l) => ({ blockNumber: l.blockNumber, logIndex: l.logIndex, transactionHash: l.transactionHash }));
      assert.equal(expected.length, sent.length);

      await until(
        'every client to reach the last block and log',
        () =>
          Number(viemBlocks.at(-1)?.number ?? 0n) >= lastBlock &&
          (ethersBlocks.at(-1) ?? 0) >= lastBlock &&
          viemLogs.length >= expected.length &&
          ethersLogs.length >= expected.length,
      );
      assert.deepEqual(errors, []);

      // Heads: consecutive numbers covering the whole run, with the chain's hashes.
      const viemNumbers = viemBlocks.map((b) => Number(b.number)).filter((n) => n >= firstBlock && n <= lastBlock);
      const range = Array.from({ length: lastBlock - firstBlock + 1 }, (_, i) => firstBlock + i);
      assert.ok(range.length >= 50, `the run spans ${range.length} blocks`);
      assert.deepEqual(viemNumbers, range);
      assert.deepEqual(ethersBlocks.filter((n) => n >= firstBlock && n <= lastBlock), range);
      for (const b of viemBlocks.filter((x) => x.number >= BigInt(firstBlock) && x.number <= BigInt(lastBlock))) {
        assert.equal(b.hash, node.services.chain.getBlock({ number: Number(b.number) }, false)!.hash);
      }

      // Logs: exactly eth_getLogs' answer for the run, in (block, index) order.
      assert.deepEqual(viemLogs, expected);
      assert.deepEqual(
        ethersLogs,
        expected.map((l) => ({ blockNumber: Number(l.blockNumber), logIndex: l.logIndex, transactionHash: l.transactionHash })),
      );

      // Pending transactions: every hash sent, in the order the pool admitted them.
      const ours = new Set(sent);
      assert.deepEqual(
        viemPending.filter((h) => ours.has(h)),
        sent,
      );
    } finally {
      for (const stop of unwatch) stop();
      await provider.destroy();
      await (await viemClient.transport.getRpcClient()).close();
    }
  });
});

describe('eth_subscribe on the wire', () => {
  let client: RawClient;
  before(async () => {
    client = await RawClient.connect(wsUrl);
  });
  after(() => client.close());

  it('answers requests with id null, batches, and every HTTP method', async () => {
    client.socket.send(JSON.stringify({ jsonrpc: '2.0', id: null, method: 'eth_chainId', params: [] }));
    const answer = await client.answerTo(null);
    assert.equal(answer.result, '0x2328');
    client.socket.send(JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'net_version', params: [] },
      { jsonrpc: '2.0', id: 'b', method: 'svc_getValidators', params: [] },
    ]));
    assert.equal((await client.answerTo('a')).result, String(CHAIN_ID.devnet));
    assert.ok(Array.isArray((await client.answerTo('b')).result));
  });

  it('sends newHeads as geth does: the header, without the body', async () => {
    const id = await client.subscribe('newHeads');
    assert.match(id, /^0x[0-9a-f]{32}$/);
    await until('a head', () => (client.notifications.get(id)?.length ?? 0) > 0);
    const head = client.notifications.get(id)![0] as Record<string, unknown>;
    const block = await rpc<Record<string, unknown>>(node.rpcUrl, 'eth_getBlockByNumber', [head.number, false]);
    for (const field of ['transactions', 'uncles', 'size', 'totalDifficulty', 'withdrawals']) assert.equal(field in head, false, field);
    const { transactions: _t, uncles: _u, size: _s, totalDifficulty: _d, withdrawals: _w, ...header } = block;
    assert.deepEqual(head, header);
    assert.deepEqual((await client.call('eth_unsubscribe', [id])).result, true);
  });

  it('sends logs one per notification, filtered by address and topics', async () => {
    const to = privateKeyToAccount(keys[2]!).address;
    const topic2 = `0x${to.slice(2).toLowerCase().padStart(64, '0')}`;
    const id = await client.subscribe('logs', { address: tokenAddress, topics: [null, null, topic2] });
    const other = await client.subscribe('logs', { address: tokenAddress, topics: [null, null, `0x${'11'.repeat(32)}`] });
    const hash = await wallet(0).writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [to, 7n], gas: 100_000n } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    await until('the log', () => (client.notifications.get(id)?.length ?? 0) > 0);
    const got = client.notifications.get(id)!;
    assert.equal(got.length, 1);
    const [expected] = await rpc<unknown[]>(node.rpcUrl, 'eth_getLogs', [{ blockHash: receipt.blockHash, address: tokenAddress }]);
    assert.deepEqual(got[0], expected);
    assert.equal(client.notifications.get(other), undefined);
  });

  it('sends pending transactions as hashes, or as objects when asked', async () => {
    const hashes = await client.subscribe('newPendingTransactions');
    const full = await client.subscribe('newPendingTransactions', true);
    const hash = await wallet(3).sendTransaction({ to: privateKeyToAccount(keys[4]!).address, value: 1n, gas: 21_000n } as never);
    await until('both notifications', () => (client.notifications.get(hashes)?.includes(hash) ?? false) && (client.notifications.get(full)?.length ?? 0) > 0);
    const tx = (client.notifications.get(full) as Record<string, unknown>[]).find((t) => t.hash === hash)!;
    assert.equal(tx.blockHash, null);
    assert.equal(String(tx.from).toLowerCase(), privateKeyToAccount(keys[3]!).address.toLowerCase());
    await publicClient.waitForTransactionReceipt({ hash });
  });

  it('accepts syncing and svcInferenceProofs, which send nothing on a solo devnet', async () => {
    assert.match(await client.subscribe('syncing'), /^0x/);
    assert.match(await client.subscribe('svcInferenceProofs'), /^0x/);
    assert.match(await client.subscribe('svcInferenceProofs', { address: privateKeyToAccount(keys[0]!).address }), /^0x/);
  });

  it('refuses unknown kinds, bad filters and unknown ids with geth codes', async () => {
    const unknown = await client.call('eth_subscribe', ['newBlocks']);
    assert.deepEqual(unknown.error, { code: -32601, message: 'no "newBlocks" subscription in eth namespace' });
    const badFilter = await client.call('eth_subscribe', ['logs', { address: '0x12' }]);
    assert.equal(badFilter.error?.code, -32602);
    const tooMany = await client.call('eth_subscribe', ['newHeads', {}]);
    assert.equal(tooMany.error?.code, -32602);
    const notFound = await client.call('eth_unsubscribe', ['0x0123']);
    assert.deepEqual(notFound.error, { code: -32000, message: 'subscription not found' });
  });
});

describe("the node's own WebSocket endpoint shares the HTTP endpoint's state", () => {
  it('a filter installed over HTTP is polled over WebSocket', async () => {
    const id = await rpc<string>(node.rpcUrl, 'eth_newBlockFilter');
    await nextBlock();
    const client = await RawClient.connect(node.wsUrl);
    try {
      const changes = await client.call('eth_getFilterChanges', [id]);
      assert.ok(Array.isArray(changes.result) && (changes.result as unknown[]).length >= 1, JSON.stringify(changes));
    } finally {
      client.close();
    }
  });
});

describe('svc subscriptions', () => {
  it('report a registered validator, its entry into the active set, and the new epoch', { timeout: 30_000 }, async () => {
    const client = await RawClient.connect(wsUrl);
    try {
      const epochs = await client.subscribe('svcNewEpochs');
      const operator = privateKeyToAccount(keys[5]!);
      const statuses = await client.subscribe('svcValidatorStatus', { address: operator.address });
      const everyone = await client.subscribe('svcValidatorStatus');
      const abi = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;
      const hash = await wallet(5).writeContract({
        address: system.stakingAddress as Hex,
        abi,
        functionName: 'registerValidator',
        args: ['ws-test', 1_000, 2_000, 500],
        value: parseEther('100'),
        gas: 300_000n,
      } as never);
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      type Change = { address: string; changes: string[]; status: string; blockNumber: string };
      await until('the validator to join the active set', () =>
        ((client.notifications.get(statuses) ?? []) as Change[]).some((c) => c.changes.includes('joinedActiveSet')),
      );
      const changes = client.notifications.get(statuses) as Change[];
      assert.deepEqual(
        changes.map((c) => [c.address, c.changes, c.status]),
        [
          [operator.address, ['registered'], 'inactive'],
          [operator.address, ['joinedActiveSet'], 'active'],
        ],
      );
      assert.equal(changes[0]!.blockNumber, `0x${receipt.blockNumber.toString(16)}`);
      assert.ok((client.notifications.get(everyone) as Change[]).length >= 2);

      const joinedAt = changes[1]!.blockNumber;
      const epoch = (client.notifications.get(epochs) as Record<string, unknown>[]).find((e) => e.blockNumber === joinedAt)!;
      assert.ok(epoch, 'an epoch starts in the block the validator joins');
      const set = await rpc<Record<string, unknown>>(node.rpcUrl, 'svc_getValidatorSet', [epoch.epoch]);
      const { blockNumber: _n, blockHash, ...rest } = epoch;
      assert.deepEqual(rest, set);
      assert.equal(blockHash, (await publicClient.getBlock({ blockNumber: BigInt(joinedAt as string) })).hash);
      assert.ok((set.validators as { address: string }[]).some((v) => v.address === operator.address));
    } finally {
      client.close();
    }
  });
});

describe('limits', () => {
  it(`refuses subscription ${wsParams.maxSubscriptionsPerConnection + 1} on one connection with -32005`, async () => {
    const client = await RawClient.connect(wsUrl);
    try {
      const ids: string[] = [];
      for (let i = 0; i < wsParams.maxSubscriptionsPerConnection; i++) ids.push(await client.subscribe('newHeads'));
      const refused = await client.call('eth_subscribe', ['newHeads']);
      assert.equal(refused.error?.code, -32005);
      assert.match(refused.error!.message, /too many subscriptions on this connection \(max 50\)/);
      // Room again after an unsubscribe; another connection has its own 50.
      assert.equal((await client.call('eth_unsubscribe', [ids[0]])).result, true);
      assert.match(await client.subscribe('logs', {}), /^0x/);
      const second = await RawClient.connect(wsUrl);
      assert.match(await second.subscribe('newHeads'), /^0x/);
      second.close();
    } finally {
      client.close();
    }
  });

  it('answers a malformed frame with -32700 and keeps the connection', async () => {
    const client = await RawClient.connect(wsUrl);
    try {
      client.socket.send('{"jsonrpc":"2.0","id":1,"method":');
      const answer = await client.answerTo(null);
      assert.equal(answer.error?.code, -32700);
      assert.equal((await client.call('eth_chainId')).result, '0x2328');
    } finally {
      client.close();
    }
  });

  it('closes a connection that sends a message over the size cap with 1009', async () => {
    const client = await RawClient.connect(wsUrl);
    client.socket.send(`"${'x'.repeat(wsParams.maxMessageBytes)}"`);
    assert.equal((await client.closed).code, 1009);
  });

  it('answers a plain HTTP request with 426', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/`);
    assert.equal(res.status, 426);
  });

  it('closes a consumer that stops reading with 1008, and the node does not hold its backlog', { timeout: 60_000 }, async (t) => {
    const client = await RawClient.connect(wsUrl);
    for (let i = 0; i < wsParams.maxSubscriptionsPerConnection; i++) await client.subscribe('newPendingTransactions', true);
    const slowDisconnects = async () => {
      const metric = await node.services.metrics.getSingleMetric('svc_ws_disconnects_total')!.get();
      return metric.values.find((v) => v.labels.reason === 'slow')?.value ?? 0;
    };
    const before = await slowDisconnects();
    const baseline = heldMemory();
    client.socket.pause();

    // Transfers from five accounts: each enters the pool and is sent as a full object 50 times (~35 KB).
    const senders = [6, 7, 8, 9, 0].map((i) => privateKeyToAccount(keys[i]!));
    const nonces = await Promise.all(senders.map((s) => publicClient.getTransactionCount({ address: s.address, blockTag: 'pending' })));
    let flooded = 0;
    let generated = 0;
    let atCut: number | undefined;
    for (let round = 0; round < 40; round++) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const s = i % senders.length;
          return senders[s]!.signTransaction({
            chainId: CHAIN_ID.devnet,
            type: 'eip1559',
            to: privateKeyToAccount(keys[1]!).address,
            value: 1n,
            gas: 21_000n,
            nonce: nonces[s]!++,
            maxFeePerGas: parseGwei('20'),
            maxPriorityFeePerGas: parseGwei('1'),
          });
        }),
      );
      const res = await fetch(node.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch.map((raw, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [raw] }))),
      });
      const answers = (await res.json()) as Message[];
      assert.ok(answers.every((a) => a.error === undefined), JSON.stringify(answers.find((a) => a.error)));
      generated += batch.length * wsParams.maxSubscriptionsPerConnection;
      // Keep going a while after the cut, to show that nothing more is queued for the closed client.
      if (atCut === undefined && (await slowDisconnects()) > before) atCut = heldMemory();
      if (atCut !== undefined && ++flooded >= 5) break;
    }
    assert.ok(atCut !== undefined, `the client was not cut after ${generated} notifications`);
    const end = heldMemory();
    t.diagnostic(
      `${generated} notifications generated; held memory grew ${((atCut - baseline) / MiB).toFixed(1)} MiB up to the cut, ` +
        `${((end - atCut) / MiB).toFixed(1)} MiB over the ${flooded - 1} rounds after it`,
    );
    // Up to the cut: the client's send buffer, plus the flood's own traces (pool, HTTP); after it: flat.
    assert.ok(atCut - baseline < wsParams.maxSendBufferBytes + 32 * MiB, `memory grew by ${((atCut - baseline) / MiB).toFixed(1)} MiB`);
    assert.ok(end - atCut < 8 * MiB, `memory grew by ${((end - atCut) / MiB).toFixed(1)} MiB after the cut`);

    client.socket.resume();
    const closed = await client.closed;
    assert.deepEqual(closed, { code: 1008, reason: TOO_SLOW_REASON });
  });

  it('applies the per-IP rate limit with -32005 and keeps the connection', async () => {
    const services = { ...node.services, config: { ...node.services.config, rpcRateLimit: 5, rateLimitExemptLoopback: false } };
    const limited = await startWsServer(services, silent);
    const client = await RawClient.connect(`ws://127.0.0.1:${limited.port}`);
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => client.call('eth_chainId')));
      assert.equal(answers.filter((a) => a.result === '0x2328').length, 5);
      const refused = answers.filter((a) => a.error !== undefined);
      assert.equal(refused.length, 3);
      for (const a of refused) assert.deepEqual(a.error, { code: -32005, message: 'rate limit exceeded' });
      await sleep(1_100);
      assert.equal((await client.call('eth_chainId')).result, '0x2328');
    } finally {
      client.close();
      await limited.close();
    }
  });

  it('pings idle connections and cuts a peer that does not answer', async () => {
    const pinging = await startWsServer(node.services, silent, { limits: { pingIntervalMs: 100 } });
    const dead = await RawClient.connect(`ws://127.0.0.1:${pinging.port}`, { autoPong: false });
    const alive = await RawClient.connect(`ws://127.0.0.1:${pinging.port}`);
    try {
      assert.equal((await dead.closed).code, 1006);
      await sleep(300);
      assert.equal(alive.socket.readyState, WebSocket.OPEN);
      assert.equal((await alive.call('eth_chainId')).result, '0x2328');
    } finally {
      alive.close();
      await pinging.close();
    }
  });
});
