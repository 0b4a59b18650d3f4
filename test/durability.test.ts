// Crash safety: SIGKILL the node while it takes transactions and makes blocks, restart it on the
// same RocksDB, and check that nothing it ever reported was lost and the books still balance.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { parseGwei, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { isConnectionFailure, rpc, waitFor } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';

/** Fees go to an address outside the dev accounts so that they don't blur the balance check. */
const COINBASE = '0x000000000000000000000000000000000000c0DE';
const KILLS = 2;
const MAX_FEE = parseGwei('10');
const TIP = parseGwei('1');

interface RpcBlock {
  number: Hex;
  hash: Hex;
  transactions: Hex[];
}
interface RpcFullBlock {
  number: Hex;
  hash: Hex;
  transactions: { hash: Hex; from: Hex; to: Hex | null; value: Hex }[];
}
interface RpcReceipt {
  transactionHash: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  status: Hex;
  gasUsed: Hex;
  effectiveGasPrice: Hex;
}

describe('durability across SIGKILL', { timeout: 300_000 }, () => {
  let node: NodeProcess | undefined;
  const senders: PrivateKeyAccount[] = devPrivateKeys(9)
    .slice(5)
    .map((k) => privateKeyToAccount(k));
  /** Every block the node reported: number -> hash and transactions. */
  const reported = new Map<number, RpcBlock>();
  const nonces = new Map<string, bigint>();
  let sentOk = 0;

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: 200, extraArgs: ['--validator-address', COINBASE] });
  });

  afterEach((t) => dumpLogsOnFailure(t, node));

  after(async () => {
    await node?.dispose();
  });

  /** Record every block from the last recorded one up to the head. */
  async function observe(url: string): Promise<void> {
    const head = Number(await rpc<Hex>(url, 'eth_blockNumber'));
    for (let n = (reported.size === 0 ? -1 : Math.max(...reported.keys())) + 1; n <= head; n++) {
      const block = await rpc<RpcBlock | null>(url, 'eth_getBlockByNumber', [toHex(n), false]);
      assert.ok(block, `block ${n} exists at or below the reported head ${head}`);
      reported.set(n, { number: block.number, hash: block.hash, transactions: block.transactions });
    }
  }

  /** Send value transfers in a ring among the senders until `stop` says so; an error ends the stream and is returned. */
  async function sendStream(url: string, stop: () => boolean): Promise<unknown> {
    let round = 0;
    while (!stop()) {
      round++;
      const sends = senders.map(async (from, i) => {
        const to = senders[(i + 1) % senders.length]!.address;
        const first = nonces.get(from.address)!;
        // A sender's transactions go one after another: the journaled pool never holds a nonce gap after a kill.
        for (const k of [0, 1, 2]) {
          const nonce = first + BigInt(k);
          const raw = await from.signTransaction({
            type: 'eip1559',
            chainId: DEV_CHAIN_ID,
            nonce: Number(nonce),
            to,
            value: BigInt(1_000 * round + 7 * i + k),
            gas: 21_000n,
            maxFeePerGas: MAX_FEE,
            maxPriorityFeePerGas: TIP,
          });
          await rpc(url, 'eth_sendRawTransaction', [raw]);
          sentOk++;
        }
      });
      for (const from of senders) nonces.set(from.address, nonces.get(from.address)! + 3n);
      const results = await Promise.allSettled(sends);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) return failed.reason;
      await new Promise((r) => setTimeout(r, 40));
    }
    return undefined;
  }

  async function syncNonces(url: string): Promise<void> {
    for (const s of senders) nonces.set(s.address, BigInt(await rpc<Hex>(url, 'eth_getTransactionCount', [s.address, 'pending'])));
  }

  /** Every block reported so far is still there, unchanged, and every transaction in it has its receipt. */
  async function assertReportedBlocksIntact(url: string): Promise<void> {
    const head = Number(await rpc<Hex>(url, 'eth_blockNumber'));
    const lastReported = Math.max(...reported.keys());
    assert.ok(head >= lastReported, `head ${head} >= last reported block ${lastReported}`);
    for (const [n, block] of reported) {
      const now = await rpc<RpcBlock | null>(url, 'eth_getBlockByNumber', [toHex(n), false]);
      assert.ok(now, `block ${n} survived`);
      assert.equal(now.hash, block.hash, `block ${n} has the hash reported before the crash`);
      assert.deepEqual(now.transactions, block.transactions, `block ${n} has the same transactions`);
      for (const hash of block.transactions) {
        const receipt = await rpc<RpcReceipt | null>(url, 'eth_getTransactionReceipt', [hash]);
        assert.ok(receipt, `receipt of ${hash} (block ${n}) survived`);
        assert.equal(receipt.blockHash, block.hash);
        assert.equal(Number(receipt.blockNumber), n);
        assert.equal(receipt.status, '0x1');
      }
    }
  }

  it(`keeps every reported block, receipt and balance through ${KILLS} SIGKILLs`, async (t) => {
    assert.ok(node);
    let minedBeforeKills = 0;
    for (let segment = 0; segment <= KILLS; segment++) {
      const url = node.url;
      await syncNonces(url);
      let stopped = false;
      let killed = false;
      const streamDone = sendStream(url, () => stopped);
      const observeDone = (async () => {
        while (!stopped) {
          try {
            await observe(url);
          } catch (err) {
            // Only the kill may end the observer (a refused or cut connection); a missing block or any other failure fails the test.
            if (killed && isConnectionFailure(err)) return;
            throw err;
          }
          await new Promise((r) => setTimeout(r, 30));
        }
      })();

      // Run long enough for several blocks with transactions, then kill at an arbitrary moment.
      await new Promise((r) => setTimeout(r, 2_000 + Math.floor(Math.random() * 1_500)));
      if (segment < KILLS) {
        killed = true;
        await node.kill();
        stopped = true;
        const [streamError] = await Promise.all([streamDone, observeDone]);
        assert.ok(streamError === undefined || isConnectionFailure(streamError), `only the kill ends the stream: ${String(streamError)}`);
        minedBeforeKills = [...reported.values()].reduce((sum, b) => sum + b.transactions.length, 0);
        await node.restart();
        await assertReportedBlocksIntact(node.url);
        // Production resumes on the recovered chain.
        const headAfter = Number(await rpc<Hex>(node.url, 'eth_blockNumber'));
        await waitFor('blocks after restart', async () =>
          Number(await rpc<Hex>(node!.url, 'eth_blockNumber')) >= headAfter + 3 ? true : undefined,
        );
      } else {
        stopped = true;
        const [streamError] = await Promise.all([streamDone, observeDone]);
        assert.equal(streamError, undefined, `a live node accepts every transaction: ${String(streamError)}`);
      }
    }
    assert.ok(minedBeforeKills > 0, 'transactions were mined before the crashes');
    assert.ok(sentOk > 0);

    const url = node.url;
    // Let the pool drain: every sender's pending nonce equals its mined nonce.
    await waitFor(
      'the pool to drain',
      async () => {
        for (const s of senders) {
          const [pending, latest] = await Promise.all([
            rpc<Hex>(url, 'eth_getTransactionCount', [s.address, 'pending']),
            rpc<Hex>(url, 'eth_getTransactionCount', [s.address, 'latest']),
          ]);
          if (pending !== latest) return undefined;
        }
        return true;
      },
      30_000,
    );
    await observe(url);
    await assertReportedBlocksIntact(url);

    // Rebuild every sender's balance from genesis and the receipts of the whole chain.
    const head = Math.max(...reported.keys());
    const expected = new Map<string, bigint>();
    const sentCount = new Map<string, bigint>();
    for (const s of senders) {
      expected.set(s.address.toLowerCase(), BigInt(await rpc<Hex>(url, 'eth_getBalance', [s.address, '0x0'])));
      sentCount.set(s.address.toLowerCase(), 0n);
    }
    let mined = 0;
    for (let n = 1; n <= head; n++) {
      const block = await rpc<RpcFullBlock>(url, 'eth_getBlockByNumber', [toHex(n), true]);
      assert.equal(block.hash, reported.get(n)!.hash);
      for (const tx of block.transactions) {
        mined++;
        const receipt = await rpc<RpcReceipt>(url, 'eth_getTransactionReceipt', [tx.hash]);
        const from = tx.from.toLowerCase();
        const to = tx.to?.toLowerCase();
        assert.ok(expected.has(from), `only the test's senders transact (saw ${from})`);
        const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
        expected.set(from, expected.get(from)! - BigInt(tx.value) - fee);
        sentCount.set(from, sentCount.get(from)! + 1n);
        if (to && expected.has(to)) expected.set(to, expected.get(to)! + BigInt(tx.value));
      }
    }
    assert.ok(mined >= minedBeforeKills && mined > 0);
    t.diagnostic(`${reported.size} blocks, ${mined} transactions mined (${minedBeforeKills} before the last kill), ${sentOk} accepted by the pool`);
    for (const s of senders) {
      const addr = s.address.toLowerCase();
      const balance = BigInt(await rpc<Hex>(url, 'eth_getBalance', [s.address, toHex(head)]));
      assert.equal(balance, expected.get(addr), `balance of ${s.address} at block ${head}`);
      const nonce = BigInt(await rpc<Hex>(url, 'eth_getTransactionCount', [s.address, toHex(head)]));
      assert.equal(nonce, sentCount.get(addr), `nonce of ${s.address} counts its mined transactions`);
    }

    // After a clean stop and start the chain is the same, and grows.
    assert.equal(await node.stop(), 0, 'SIGTERM ends the node with exit code 0');
    await node.restart();
    await assertReportedBlocksIntact(node.url);
    await waitFor('blocks after a clean restart', async () =>
      Number(await rpc<Hex>(node!.url, 'eth_blockNumber')) > head + 2 ? true : undefined,
    );
  });
});

function toHex(n: number): Hex {
  return `0x${n.toString(16)}`;
}
