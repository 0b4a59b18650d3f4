// The explorer's index after SIGKILL: the node is killed while it takes transactions and indexes
// them, restarted on the same data dir, and the index must then agree with the chain itself:
// transaction counts with eth_getBlockByNumber, address histories with the blocks' senders and
// recipients, token transfers with eth_getLogs.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { encodeDeployData, encodeFunctionData, parseGwei, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { compileContract } from './support/solc.js';

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const MAX_FEE = parseGwei('10');
const TIP = parseGwei('1');

interface FullBlock {
  transactions: { hash: Hex; from: Hex; to: Hex | null }[];
}

describe('explorer index across SIGKILL', { timeout: 300_000 }, () => {
  let node: NodeProcess | undefined;
  const senders: PrivateKeyAccount[] = devPrivateKeys(5)
    .slice(1)
    .map((k) => privateKeyToAccount(k));
  const nonces = new Map<string, number>();
  let token: Hex;

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: 200 });
  });
  afterEach((t) => dumpLogsOnFailure(t, node));
  after(async () => {
    await node?.dispose();
  });

  async function api<T>(route: string): Promise<{ status: number; data: T }> {
    const res = await fetch(`${node!.explorerUrl}/api/v1${route}`);
    const body = (await res.json()) as { data: T };
    return { status: res.status, data: body.data };
  }

  async function send(from: PrivateKeyAccount, tx: { to: Hex; data?: Hex; value?: bigint; gas: bigint }): Promise<void> {
    const nonce = nonces.get(from.address) ?? Number(await rpc<Hex>(node!.url, 'eth_getTransactionCount', [from.address, 'pending']));
    const raw = await from.signTransaction({ type: 'eip1559', chainId: DEV_CHAIN_ID, nonce, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: TIP, ...tx });
    await rpc(node!.url, 'eth_sendRawTransaction', [raw]);
    nonces.set(from.address, nonce + 1);
  }

  /** Value transfers and token transfers in a ring among the senders, until the node dies. */
  async function traffic(rounds: number): Promise<void> {
    const erc20 = compileContract('TestToken.sol', 'TestToken');
    for (let r = 0; r < rounds; r++) {
      try {
        for (const [i, from] of senders.entries()) {
          const to = senders[(i + 1) % senders.length]!.address;
          await send(from, { to, value: 1n, gas: 21_000n });
          if (i === 0) {
            await send(from, { to: token, gas: 100_000n, data: encodeFunctionData({ abi: erc20.abi, functionName: 'transfer', args: [to, BigInt(r + 1)] }) });
          }
        }
      } catch {
        return;
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  it('matches the chain after two kills and restarts', async () => {
    const erc20 = compileContract('TestToken.sol', 'TestToken');
    const deployer = senders[0]!;
    const raw = await deployer.signTransaction({
      type: 'eip1559',
      chainId: DEV_CHAIN_ID,
      nonce: 0,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: TIP,
      gas: 3_000_000n,
      data: encodeDeployData({ abi: erc20.abi, bytecode: erc20.bytecode, args: [10n ** 24n] }),
    });
    const hash = await rpc<Hex>(node!.url, 'eth_sendRawTransaction', [raw]);
    nonces.set(deployer.address, 1);
    const receipt = await waitFor('the token deployment', async () => (await rpc<{ contractAddress: Hex } | null>(node!.url, 'eth_getTransactionReceipt', [hash])) ?? undefined, 20_000);
    token = receipt.contractAddress;

    for (let kill = 0; kill < 2; kill++) {
      const stream = traffic(1_000);
      await new Promise((res) => setTimeout(res, 2_500));
      await node!.kill();
      await stream;
      await node!.restart();
      nonces.clear();
    }
    // Quiet: transactions the pool journal kept across the kills are mined, and the index reaches the head.
    const head = await waitFor(
      'the pool to empty and the index to reach the head',
      async () => {
        const pending = await api<unknown[]>('/transactions/pending');
        if (pending.data.length > 0) return undefined;
        const ready = await api<{ lag: number; indexed: number; head: number }>('/health/ready');
        return ready.status === 200 && ready.data.lag === 0 ? ready.data : undefined;
      },
      60_000,
    );

    let total = 0;
    const expected = new Map<string, Set<string>>();
    for (let n = 0; n <= head.indexed; n++) {
      const block = await rpc<FullBlock>(node!.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      total += block.transactions.length;
      for (const tx of block.transactions) {
        for (const party of [tx.from, tx.to]) {
          if (!party) continue;
          const set = expected.get(party.toLowerCase()) ?? new Set<string>();
          set.add(tx.hash);
          expected.set(party.toLowerCase(), set);
        }
      }
    }
    const stats = await api<{ transactions: number; indexedBlock: number }>('/stats');
    assert.ok(stats.data.indexedBlock >= head.indexed);
    // Transactions after head.indexed may have been indexed since; count up to the same block.
    const indexedTotal = await countIndexedTransactions(head.indexed);
    assert.equal(indexedTotal, total);
    assert.ok(total > 20, `traffic made ${total} transactions`);

    for (const s of senders) {
      const seen = new Set<string>();
      let cursor: string | null = '';
      while (cursor !== null) {
        const page: { data: { items: { hash: string; blockNumber: number; roles: string[] }[]; next: string | null } } = await api(
          `/addresses/${s.address}/transactions?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        );
        for (const t of page.data.items) if (t.blockNumber <= head.indexed && !(t.roles.length === 1 && t.roles[0] === 'token')) seen.add(t.hash);
        cursor = page.data.next;
      }
      assert.deepEqual([...seen].sort(), [...(expected.get(s.address.toLowerCase()) ?? [])].sort(), `history of ${s.address}`);
    }

    const logs = await rpc<unknown[]>(node!.url, 'eth_getLogs', [{ address: token, topics: [TRANSFER_TOPIC], fromBlock: '0x0', toBlock: `0x${head.indexed.toString(16)}` }]);
    const transfers = await api<{ transfers: number }>(`/tokens/${token}`);
    assert.equal(transfers.data.transfers, logs.length);
  });

  /** Transactions the index holds up to `block`, from its paged list. */
  async function countIndexedTransactions(block: number): Promise<number> {
    let count = 0;
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { data: { items: { blockNumber: number }[]; next: string | null } } = await api(`/transactions?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      count += page.data.items.filter((t) => t.blockNumber <= block).length;
      cursor = page.data.next;
    }
    return count;
  }
});
