// A network of four validators behind CometBFT on loopback (svc-node testnet init, then each
// validator's svc-node, which runs its CometBFT): transactions sent round-robin to all four nodes
// are gossiped and mined, and every node has the same chain: block hashes, state roots, receipts
// and validators at every height.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../src/chain/dev-accounts.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { basePortFor, startLocalNetwork, waitForHeight, type LocalNetwork } from './support/testnet.js';

const CHAIN_ID = 9000;
const TARGET_HEIGHT = 200;
const GWEI = 10n ** 9n;

interface RpcBlock {
  number: string;
  hash: string;
  stateRoot: string;
  miner: string;
  transactions: string[];
  timestampMs?: string;
}

let net: LocalNetwork;
let urls: string[];

before(async () => {
  net = await startLocalNetwork({ validators: 4, blockTimeMs: 100, basePort: basePortFor(1) });
  urls = net.nodes.map((n) => n.url);
});

after(async () => {
  await net?.dispose();
});

/** Signs a transfer of 1 gwei from a dev account to itself + 1. */
async function transfer(from: number, nonce: number): Promise<`0x${string}`> {
  const account = privateKeyToAccount(devAccounts()[from]!.privateKey);
  return account.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    to: devAccounts()[(from + 1) % devAccounts().length]!.address as `0x${string}`,
    value: GWEI,
    gas: 21_000n,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
}

describe('a network of four CometBFT validators', () => {
  const sent: string[] = [];

  it('gossips a transaction sent to one node to the others before a block carries it', async () => {
    // A nonce gap keeps the first transaction pending (queued) until the gap is filled: it must
    // reach node D's pool through CometBFT's mempool while no block can carry it.
    const from = 9;
    const base = Number(await rpc<string>(urls[0]!, 'eth_getTransactionCount', [devAccounts()[from]!.address, 'latest']));
    const later = await transfer(from, base + 1);
    const laterHash = await rpc<string>(urls[0]!, 'eth_sendRawTransaction', [later]);
    const pendingOnD = await waitFor('the transaction in node D\'s pool', async () => {
      const tx = await rpc<{ blockNumber: string | null } | null>(urls[3]!, 'eth_getTransactionByHash', [laterHash]);
      return tx ?? undefined;
    }, 20_000);
    assert.equal(pendingOnD.blockNumber, null, 'pending on node D, not mined');
    const poolOfD = await rpc<{ queued: Record<string, { hash: string }> }>(urls[3]!, 'txpool_contentFrom', [devAccounts()[from]!.address]);
    assert.equal(poolOfD.queued[String(base + 1)]?.hash, laterHash, 'queued behind its nonce gap in node D\'s txpool');
    const first = await rpc<string>(urls[1]!, 'eth_sendRawTransaction', [await transfer(from, base)]);
    sent.push(first, laterHash);
    for (const hash of [first, laterHash]) {
      const receipt = await waitFor(`receipt of ${hash}`, async () => (await rpc<{ status: string } | null>(urls[2]!, 'eth_getTransactionReceipt', [hash])) ?? undefined, 30_000);
      assert.equal(receipt.status, '0x1');
    }
  });

  it('gossips a JSON-RPC batch of 60 transactions sent to one node to every other node\'s pool', async () => {
    // Held behind a nonce gap again (the pool allows 64), so that only gossip can put them in the other pools.
    const from = 8;
    const base = Number(await rpc<string>(urls[0]!, 'eth_getTransactionCount', [devAccounts()[from]!.address, 'latest']));
    const raws = await Promise.all(Array.from({ length: 60 }, (_, i) => transfer(from, base + 1 + i)));
    const res = await fetch(urls[1]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }))),
    });
    const answers = (await res.json()) as { result?: string; error?: unknown }[];
    const hashes = answers.map((a) => a.result!);
    assert.ok(answers.every((a) => typeof a.result === 'string'), JSON.stringify(answers.find((a) => a.error)));
    for (const u of [urls[0]!, urls[2]!, urls[3]!]) {
      await waitFor(`60 transactions in ${u}'s pool`, async () => {
        const pending = new Set(await rpc<string[]>(u, 'svc_getPendingTransactions', []));
        return hashes.every((h) => pending.has(h)) ? true : undefined;
      }, 30_000, 100);
    }
    sent.push(await rpc<string>(urls[2]!, 'eth_sendRawTransaction', [await transfer(from, base)]), ...hashes);
    await waitFor('the batch mined', async () => ((await rpc<unknown>(urls[3]!, 'eth_getTransactionReceipt', [hashes[59]])) ? true : undefined), 60_000);
  });

  it(`mines transactions sent round-robin to all four nodes and agrees on every block to height ${TARGET_HEIGHT}`, async () => {
    const senders = [4, 5, 6, 7];
    const nonces = await Promise.all(senders.map(async (s) => Number(await rpc<string>(urls[0]!, 'eth_getTransactionCount', [devAccounts()[s]!.address, 'latest']))));
    let round = 0;
    // Keep sending while the chain grows: each round one transfer per sender, each to another node.
    while ((await Promise.all(urls.map((u) => rpc<string>(u, 'eth_blockNumber')))).some((h) => Number(h) < TARGET_HEIGHT - 20)) {
      await Promise.all(
        senders.map(async (s, i) => {
          const raw = await transfer(s, nonces[i]!++);
          sent.push(await rpc<string>(urls[(i + round) % urls.length]!, 'eth_sendRawTransaction', [raw]));
        }),
      );
      round++;
      await new Promise((r) => setTimeout(r, 150));
    }
    await waitForHeight(urls, TARGET_HEIGHT, 180_000);

    // Every node has the same block at every height.
    for (let h = 1; h <= TARGET_HEIGHT; h++) {
      const blocks = await Promise.all(urls.map((u) => rpc<RpcBlock>(u, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])));
      for (const [i, b] of blocks.entries()) {
        assert.equal(b.hash, blocks[0]!.hash, `block ${h}: node ${i}'s hash`);
        assert.equal(b.stateRoot, blocks[0]!.stateRoot, `block ${h}: node ${i}'s state root`);
      }
    }
    // Proposers rotate: all four validators sealed blocks.
    const miners = new Set<string>();
    for (let h = 1; h <= TARGET_HEIGHT; h++) miners.add((await rpc<RpcBlock>(urls[0]!, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).miner.toLowerCase());
    assert.equal(miners.size, 4, `proposers: ${[...miners].join(', ')}`);

    // Every transaction mined, with the same receipt on every node.
    assert.ok(sent.length > 100, `sent ${sent.length}`);
    for (const hash of sent) {
      const receipts = await Promise.all(urls.map((u) => waitFor(`receipt ${hash}`, async () => (await rpc<Record<string, unknown> | null>(u, 'eth_getTransactionReceipt', [hash])) ?? undefined, 30_000)));
      for (const r of receipts) assert.deepEqual(r, receipts[0]);
      assert.equal(receipts[0]!.status, '0x1');
    }

    // The same validators, with the same stake and liveness, everywhere.
    // (The nodes answer at their own heads, which move on: asked until all four answer at one head.)
    const validators = await waitFor('svc_getValidators at one head', async () => {
      const answers = await Promise.all(urls.map((u) => rpc<unknown>(u, 'svc_getValidators', [])));
      return answers.every((a) => isDeepStrictEqual(a, answers[0])) ? answers[0] : undefined;
    }, 30_000, 10);
    assert.ok(Array.isArray(validators) && validators.length === 4, 'four validators');
  });
});
