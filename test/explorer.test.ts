// The explorer's public routes against a real node: real blocks made by transfers, an ERC-20,
// a failing call; every route answers its success case and refuses bad input with the right status.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, createWalletClient, http, parseEther, type Hash, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';
import { explorerClient, type Envelope } from './support/explorer-client.js';

let node: RunningNode;
let dataDir: string;
let base: string;
let client: PublicClient;
const [k0, k1, k2] = devPrivateKeys(3);
const alice = privateKeyToAccount(k0!);
const bob = privateKeyToAccount(k1!);
const carol = privateKeyToAccount(k2!);
let token: Hex;
let transferHash: Hash;
let failedHash: Hash;
let plainHash: Hash;


async function post<T = any>(route: string, payload: unknown): Promise<Envelope<T>> {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  const body = (await res.json()) as { ok: boolean; data: T; error?: string };
  return { status: res.status, ok: body.ok, data: body.data, error: body.error, headers: res.headers };
}

const { get, ok, refused } = explorerClient(() => base);

/** Waits until the index has caught up with the head. */
async function indexed(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await get<{ lag: number }>('/health/ready');
    if (r.status === 200 && r.data.lag === 0) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the index did not catch up');
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-explorer-'));
  const config = devnetConfig(dataDir);
  node = await startNode(config);
  base = `${node.explorerUrl}/api/v1`;
  client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });
  const wallet = (account: typeof alice) => createWalletClient({ account, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl) });

  const erc20 = compileContract('TestToken.sol', 'TestToken');
  const deploy = await wallet(alice).deployContract({ abi: erc20.abi, bytecode: erc20.bytecode, args: [10n ** 24n] });
  token = (await client.waitForTransactionReceipt({ hash: deploy })).contractAddress!.toLowerCase() as Hex;
  transferHash = await wallet(alice).writeContract({ address: token, abi: erc20.abi, functionName: 'transfer', args: [bob.address, 1_000n] });
  await client.waitForTransactionReceipt({ hash: transferHash });
  const toCarol = await wallet(alice).writeContract({ address: token, abi: erc20.abi, functionName: 'transfer', args: [carol.address, 500n] });
  await client.waitForTransactionReceipt({ hash: toCarol });
  plainHash = await wallet(bob).sendTransaction({ to: carol.address, value: parseEther('1') });
  await client.waitForTransactionReceipt({ hash: plainHash });

  const reverter = compileContract('Reverter.sol', 'Reverter');
  const rDeploy = await wallet(alice).deployContract({ abi: reverter.abi, bytecode: reverter.bytecode });
  const rAddress = (await client.waitForTransactionReceipt({ hash: rDeploy })).contractAddress!;
  failedHash = await wallet(alice).writeContract({ address: rAddress, abi: reverter.abi, functionName: 'touch', args: [1n, true], gas: 100_000n });
  await client.waitForTransactionReceipt({ hash: failedHash });
  await indexed();
});

after(async () => {
  await node.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Blocks', () => {
  it('lists blocks newest first with next and prev cursors that page both ways', async () => {
    const first = await ok<{ items: { number: number }[]; next: string; prev: string | null }>('/blocks?limit=3');
    assert.equal(first.items.length, 3);
    assert.ok(first.items[0]!.number > first.items[1]!.number);
    assert.equal(first.prev, null);
    const second = await ok<{ items: { number: number }[]; prev: string }>(`/blocks?limit=3&cursor=${first.next}`);
    assert.equal(second.items[0]!.number, first.items[2]!.number - 1);
    const back = await ok<{ items: { number: number }[] }>(`/blocks?limit=3&cursor=${second.prev}`);
    assert.deepEqual(back.items.map((b) => b.number), first.items.map((b) => b.number));
    await refused('/blocks?limit=0', 400);
    await refused('/blocks?limit=101', 400);
    await refused('/blocks?cursor=garbage!', 400);
  });

  it('shows one block by number, hash or latest with its transactions', async () => {
    const receipt = await client.getTransactionReceipt({ hash: transferHash });
    const byNumber = await ok<{ hash: string; transactions: { hash: string }[]; burntFees: string }>(`/blocks/${receipt.blockNumber}`);
    assert.ok(byNumber.transactions.some((t) => t.hash === transferHash));
    const byHash = await ok<{ number: number }>(`/blocks/${byNumber.hash}`);
    assert.equal(byHash.number, Number(receipt.blockNumber));
    assert.ok((await ok<{ number: number }>('/blocks/latest')).number >= Number(receipt.blockNumber));
    const txs = await ok<{ items: { hash: string }[] }>(`/blocks/${receipt.blockNumber}/transactions`);
    assert.ok(txs.items.some((t) => t.hash === transferHash));
    const transfers = await ok<{ transactionHash: string; value: string }[]>(`/blocks/${receipt.blockNumber}/token-transfers`);
    assert.ok(transfers.some((t) => t.transactionHash === transferHash && t.value === '1000'));
    await refused('/blocks/abc', 400);
    await refused('/blocks/99999999', 404);
    await refused(`/blocks/0x${'11'.repeat(32)}`, 404);
  });
});

describe('Transactions', () => {
  it('lists validated transactions newest first and pending ones', async () => {
    const page = await ok<{ items: { hash: string; blockNumber: number }[] }>('/transactions?limit=10');
    assert.ok(page.items.some((t) => t.hash === failedHash));
    assert.ok(page.items[0]!.blockNumber >= page.items[page.items.length - 1]!.blockNumber);
    // A transaction past a nonce gap stays in the pool: the pending list shows it as the pool holds it.
    const dave = privateKeyToAccount(devPrivateKeys(4)[3]!);
    const gapped = await dave.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce: 3, to: carol.address, value: 7n, gas: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n });
    const gappedHash = await client.request({ method: 'eth_sendRawTransaction', params: [gapped] });
    const pending = await ok<{ hash: string; from: string; to: string; nonce: number; value: string; blockNumber: number | null }[]>('/transactions/pending');
    const shown = pending.find((t) => t.hash === gappedHash);
    assert.ok(shown, 'the queued transaction is listed');
    assert.equal(shown.from.toLowerCase(), dave.address.toLowerCase());
    assert.equal(shown.to.toLowerCase(), carol.address.toLowerCase());
    assert.equal(BigInt(shown.nonce), 3n);
    assert.equal(shown.value, '7');
    assert.equal(shown.blockNumber, null);
    await refused('/transactions?limit=abc', 400);
  });

  it('shows a transaction with logs and token transfers, and a failed one with its decoded revert reason', async () => {
    const tx = await ok<{ status: string; logs: unknown[]; tokenTransfers: { from: string; to: string; value: string }[]; fee: string }>(`/transactions/${transferHash}`);
    assert.equal(tx.status, 'success');
    assert.equal(tx.logs.length, 1);
    assert.equal(tx.tokenTransfers[0]!.to, bob.address);
    assert.equal(tx.tokenTransfers[0]!.value, '1000');
    assert.match(tx.fee, /^\d+$/);
    const failed = await ok<{ status: string; revertReason: string }>(`/transactions/${failedHash}`);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.revertReason, 'Reverter: asked to fail');
    assert.equal((await ok<unknown[]>(`/transactions/${transferHash}/logs`)).length, 1);
    assert.equal((await ok<unknown[]>(`/transactions/${transferHash}/token-transfers`)).length, 1);
    await refused('/transactions/0x1234', 400);
    await refused(`/transactions/0x${'22'.repeat(32)}`, 404);
    await refused(`/transactions/0x${'22'.repeat(32)}/logs`, 404);
  });
});

describe('Addresses', () => {
  it('summarises an address with counters, history, token transfers and balances', async () => {
    const a = await ok<{ balance: string; isContract: boolean; transactions: number; validator: unknown }>(`/addresses/${alice.address}`);
    assert.equal(a.isContract, false);
    assert.ok(BigInt(a.balance) > 0n);
    assert.ok(a.transactions >= 5);
    assert.ok(a.validator, 'dev account 0 is the genesis validator');
    const counters = await ok<{ transactions: number; tokenTransfers: number; blocksProduced: number }>(`/addresses/${alice.address}/counters`);
    assert.ok(counters.tokenTransfers >= 3);
    assert.ok(counters.blocksProduced > 0);
    const history = await ok<{ items: { hash: string; roles: string[] }[] }>(`/addresses/${bob.address}/transactions`);
    assert.ok(history.items.some((t) => t.hash === plainHash && t.roles.includes('from')));
    assert.ok(history.items.some((t) => t.hash === transferHash && t.roles.includes('token')));
    const sent = await ok<{ items: { roles: string[] }[] }>(`/addresses/${bob.address}/transactions?filter=from`);
    assert.ok(sent.items.length > 0 && sent.items.every((t) => t.roles.includes('from')));
    const transfers = await ok<{ items: { value: string }[] }>(`/addresses/${carol.address}/token-transfers`);
    assert.deepEqual(transfers.items.map((t) => t.value), ['500']);
    const balances = await ok<{ token: { symbol: string }; balance: string }[]>(`/addresses/${bob.address}/token-balances`);
    assert.deepEqual(balances.map((b) => [b.token.symbol, b.balance]), [['TST', '1000']]);
    const contract = await ok<{ isContract: boolean; creator: string; token: { symbol: string } }>(`/addresses/${token}`);
    assert.equal(contract.isContract, true);
    assert.equal(contract.creator, alice.address);
    assert.equal(contract.token.symbol, 'TST');
    const logs = await ok<{ items: { address: string }[] }>(`/addresses/${token}/logs?limit=2`);
    assert.equal(logs.items.length, 2);
    await refused('/addresses/0x12', 400);
    await refused(`/addresses/${bob.address}/transactions?filter=sideways`, 400);
  });
});

describe('Tokens', () => {
  it('detects the ERC-20 from its Transfer logs and lists holders and transfers', async () => {
    const list = await ok<{ items: { address: string; type: string }[] }>('/tokens?type=ERC-20');
    assert.ok(list.items.some((t) => t.address.toLowerCase() === token));
    const t = await ok<{ name: string; symbol: string; decimals: number; holders: number; transfers: number }>(`/tokens/${token}`);
    assert.deepEqual([t.name, t.symbol, t.decimals, t.holders, t.transfers], ['Test', 'TST', 18, 3, 3]);
    const holders = await ok<{ items: { address: string; balance: string }[] }>(`/tokens/${token}/holders`);
    assert.deepEqual(holders.items.map((h) => h.address), [alice.address, bob.address, carol.address]);
    assert.equal(holders.items[1]!.balance, '1000');
    const transfers = await ok<{ items: { value: string }[] }>(`/tokens/${token}/transfers?limit=2`);
    assert.deepEqual(transfers.items.map((x) => x.value), ['500', '1000']);
    assert.deepEqual((await ok<{ items: unknown[] }>(`/tokens/${token}/instances`)).items, []);
    await refused(`/tokens/${bob.address}`, 404);
    await refused('/tokens?type=ERC-777', 400);
  });
});

describe('Analytics', () => {
  for (const chart of ['daily-transactions', 'gas-used', 'active-addresses', 'new-addresses', 'average-gas-price', 'block-time']) {
    it(`${chart} has one point per day and refuses bad dates`, async () => {
      const c = await ok<{ points: { date: string; value: string }[] }>(`/analytics/${chart}`);
      assert.equal(c.points.length, 30);
      assert.ok(c.points.every((p) => /^\d{4}-\d{2}-\d{2}$/.test(p.date) && /^\d+$/.test(p.value)));
      await refused(`/analytics/${chart}?from=2025-13-01`, 400);
      await refused(`/analytics/${chart}?from=2025-02-01&to=2025-01-01`, 400);
    });
  }

  it('counts the transactions of the chain day', async () => {
    const c = await ok<{ points: { value: string }[] }>('/analytics/daily-transactions');
    assert.ok(c.points.reduce((s, p) => s + Number(p.value), 0) >= 6);
  });
});

describe('Network, Stats, Gas Oracle, Leaderboard', () => {
  it('show validators, the epoch, this node, totals, supply and gas prices', async () => {
    const validators = await ok<{ address: string; status: string }[]>('/network/validators');
    assert.deepEqual(validators.map((v) => v.address), [alice.address]);
    assert.equal((await ok<{ moniker: string }>(`/network/validators/${alice.address}`)).moniker, 'genesis');
    assert.equal((await ok<{ delegator: string }[]>(`/network/validators/${alice.address}/delegators`))[0]!.delegator, alice.address);
    await refused(`/network/validators/${bob.address}`, 404);
    await refused('/network/validators?status=retired', 400);
    assert.equal(typeof (await ok<{ number: number }>('/network/epoch')).number, 'number');
    assert.equal((await ok<{ chainId: number }>('/network/node')).chainId, 9000);
    const stats = await ok<{ transactions: number; tokens: number; totalSupply: string }>('/stats');
    assert.ok(stats.transactions >= 6);
    assert.equal(stats.tokens, 1);
    // Transactions a second over the last 100 blocks, recomputed from the blocks. The explorer read
    // some head between the two eth_blockNumber answers (or one past the second, which the native
    // port may answer a moment late): one of those heads' figures is the answer.
    const blockAt = (n: number) => client.request({ method: 'eth_getBlockByNumber' as never, params: [`0x${n.toString(16)}`, false] as never }) as Promise<{ timestampMs: string; transactions: string[] } | null>;
    const tpsAt = async (head: number): Promise<number | undefined> => {
      const last = await blockAt(head);
      if (!last) return undefined;
      const oldest = head <= 1 ? 0 : Math.max(1, head - 100);
      let count = 0;
      for (let n = oldest + 1; n <= head; n++) count += (await blockAt(n))!.transactions.length;
      return Number(((count * 1000) / (Number(last.timestampMs) - Number((await blockAt(oldest))!.timestampMs))).toPrecision(6));
    };
    const headBefore = Number(await client.getBlockNumber());
    const tps = (await ok<{ last100Blocks: number }>('/stats/tps')).last100Blocks;
    const headAfter = Number(await client.getBlockNumber());
    const figures: (number | undefined)[] = [];
    for (let h = headBefore; h <= headAfter + 1; h++) figures.push(await tpsAt(h));
    // Within 0.5%: the block times JSON-RPC answers may round differently from the stored ones by a
    // few milliseconds over the window, while one transaction or one block more is 1% or more here.
    const near = (f: number | undefined) => f !== undefined && Math.abs(f - tps) <= 0.005 * f;
    assert.ok(figures.some(near), `${tps} tx/s over the last 100 blocks; heads ${headBefore}..${headAfter + 1} give ${figures.join(', ')}`);
    // Blocks keep minting rewards between the two reads: the supply can only have grown.
    const supply = await ok<{ totalSupply: string; staked: string; stakingModuleBalance: string }>('/stats/supply');
    assert.ok(BigInt(supply.totalSupply) >= BigInt(stats.totalSupply));
    assert.ok(BigInt(supply.stakingModuleBalance) >= BigInt(supply.staked));
    // The oracle's prices are the next base fee plus the 10th, 60th and 90th percentile tips of the
    // recent non-empty blocks, recomputed here from eth_feeHistory at the block it names.
    type Oracle = { lastBlock: number; blocks: number; baseFee: string; safe: string; propose: string; fast: string; SafeGasPrice: string; suggestBaseFee: string };
    let gas!: Oracle;
    for (let attempt = 1; ; attempt++) {
      gas = await ok<Oracle>('/gas-oracle');
      if (Number(await client.getBlockNumber()) === gas.lastBlock || attempt >= 10) break;
    }
    const history = await client.getFeeHistory({ blockCount: gas.blocks, blockNumber: BigInt(gas.lastBlock), rewardPercentiles: [10, 60, 90] });
    const suggested = [0, 1, 2].map((i) => {
      const tips = history.reward!.filter((_, b) => history.gasUsedRatio[b]! > 0).map((r) => r[i]!).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const p = [10, 60, 90][i]!;
      return tips.length === 0 ? 10n ** 9n : tips[Math.floor(((tips.length - 1) * p) / 100)]!;
    });
    const nextBase = history.baseFeePerGas.at(-1)!;
    assert.equal(BigInt(gas.baseFee), nextBase);
    assert.deepEqual([gas.safe, gas.propose, gas.fast].map(BigInt), suggested.map((tip) => nextBase + tip));
    assert.match(gas.SafeGasPrice, /^\d+(\.\d+)?$/);
    assert.equal((await ok<unknown[]>('/gas-oracle/history?blocks=5')).length, 5);
    await refused('/gas-oracle/history?blocks=2000', 400);
    const board = await ok<{ rank: number; address: string }[]>('/leaderboard/validators');
    assert.equal(board[0]!.rank, 1);
    await refused('/leaderboard/validators?limit=0', 400);
    // No miner registered on this node: an empty board, and its limit is checked like the validators'.
    assert.deepEqual(await ok<unknown[]>('/leaderboard/miners'), []);
    await refused('/leaderboard/miners?limit=101', 400);
  });
});

describe('Health and Search', () => {
  it('reports liveness and readiness with the index lag', async () => {
    assert.equal((await ok<{ status: string }>('/health/live')).status, 'ok');
    const ready = await ok<{ ready: boolean; lag: number }>('/health/ready');
    assert.equal(ready.ready, true);
  });

  it('finds blocks, transactions, addresses, tokens and validators', async () => {
    assert.equal((await ok<{ type: string }[]>('/search?q=1'))[0]!.type, 'block');
    assert.equal((await ok<{ type: string }[]>(`/search?q=${transferHash}`))[0]!.type, 'transaction');
    assert.equal((await ok<{ type: string }[]>(`/search?q=${token}`))[0]!.type, 'token');
    assert.ok((await ok<{ type: string }[]>(`/search?q=${alice.address}`)).some((r) => r.type === 'validator'));
    assert.ok((await ok<{ type: string }[]>('/search?q=tst')).some((r) => r.type === 'token'));
    assert.ok((await ok<{ type: string; moniker: string }[]>('/search?q=gene')).some((r) => r.type === 'validator' && r.moniker === 'genesis'));
    await refused('/search', 400);
    await refused(`/search?q=${'x'.repeat(101)}`, 400);
  });
});

describe('Batch', () => {
  it('answers up to 20 requests, each with its own envelope', async () => {
    const r = await post<{ path: string; status: number; body: { ok: boolean } }[]>('/batch', {
      requests: [{ path: '/blocks/0' }, { path: '/transactions/pending' }, { path: '/blocks/abc' }, { path: '/nowhere' }],
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.data.map((x) => [x.status, x.body.ok]), [
      [200, true],
      [200, true],
      [400, false],
      [404, false],
    ]);
    const tooMany = await post('/batch', { requests: Array.from({ length: 21 }, () => ({ path: '/blocks/0' })) });
    assert.equal(tooMany.status, 400);
    assert.equal((await post('/batch', { requests: [] })).status, 400);
    assert.equal((await post('/batch', { calls: [] })).status, 400);
  });
});

describe('Envelope and OpenAPI', () => {
  it('unknown routes are 404 in the envelope; a body that is not JSON is 400', async () => {
    await refused('/no/such/route', 404);
    const res = await fetch(`${base}/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { ok: boolean }).ok, false);
  });

  it('every public route with a path parameter refuses a malformed one with 400', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security: Record<string, unknown>[]; parameters: { name: string; in: string }[] }>>;
    };
    const bad: Record<string, string> = { address: '0x12', hash: '0xnothex', id: 'abc', guid: '!' };
    let checked = 0;
    for (const [p, ops] of Object.entries(doc.paths)) {
      const get = ops.get;
      if (!get || !p.includes('{') || get.security.some((s) => 'bearer' in s)) continue;
      const route = p.replace(/\{(\w+)\}/g, (_m, name: string) => bad[name] ?? 'x');
      await refused(route, 400);
      checked++;
    }
    assert.ok(checked >= 20, `${checked} routes checked`);
  });

  it('documents every route, and every documented GET route without path parameters answers', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    assert.equal(doc.openapi, '3.1.0');
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    assert.equal(operations, 89);
    for (const [p, ops] of Object.entries(doc.paths)) {
      if (!('get' in ops) || p.includes('{') || p.startsWith('/auth') || p.startsWith('/watchlist') || p.startsWith('/api-keys')) continue;
      const res = await fetch(`${base}${p}`);
      assert.ok(res.status !== 404 && res.status !== 405, `${p} answered ${res.status}`);
    }
  });
});
