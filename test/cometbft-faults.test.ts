// Faults on a network of four CometBFT validators: one stopped, the chain goes on and the node
// catches up by block sync when restarted; two stopped, the chain halts without a fork and resumes
// when they return; a validator SIGKILLed while blocks commit comes back, through CometBFT's
// handshake, at the network's height with every block and receipt it had.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../src/chain/dev-accounts.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { basePortFor, blockNumber, startLocalNetwork, waitForHeight, type LocalNetwork } from './support/testnet.js';

const GWEI = 10n ** 9n;
let net: LocalNetwork;
const url = (i: number): string => net.nodes[i]!.url;

before(async () => {
  net = await startLocalNetwork({ validators: 4, blockTimeMs: 100, basePort: basePortFor(2) });
  await waitForHeight(net.nodes.map((n) => n.url), 3, 60_000);
});

after(async () => {
  await net?.dispose();
});

async function blockHash(u: string, h: number): Promise<string> {
  return (await rpc<{ hash: string }>(u, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).hash;
}

/** Every node in `nodes` has the same hash at every height 1..to. */
async function assertSameChain(nodes: number[], to: number): Promise<void> {
  for (let h = 1; h <= to; h++) {
    const hashes = await Promise.all(nodes.map((i) => blockHash(url(i), h)));
    for (const [k, hash] of hashes.entries()) assert.equal(hash, hashes[0], `block ${h}: node ${nodes[k]} differs from node ${nodes[0]}`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('faults on a network of four validators', () => {
  it('goes on with one validator stopped; the restarted one catches up by block sync and agrees', async () => {
    await net.nodes[3]!.kill();
    const at = await blockNumber(url(0));
    await waitForHeight([url(0), url(1), url(2)], at + 10, 60_000);
    await net.nodes[3]!.restart();
    const target = await blockNumber(url(0));
    await waitForHeight([url(3)], target, 60_000);
    await assertSameChain([0, 1, 2, 3], target);
  });

  it('halts with no fork when two of four are stopped, and resumes when they return', async () => {
    await Promise.all([net.nodes[2]!.kill(), net.nodes[3]!.kill()]);
    // A block that had its votes may still commit; after that nothing can.
    await sleep(1_500);
    const halted = Math.max(await blockNumber(url(0)), await blockNumber(url(1)));
    await sleep(4_000);
    assert.ok((await blockNumber(url(0))) <= halted && (await blockNumber(url(1))) <= halted, 'no block without 2/3 of the power');
    await assertSameChain([0, 1], Math.min(await blockNumber(url(0)), await blockNumber(url(1))));
    await Promise.all([net.nodes[2]!.restart(), net.nodes[3]!.restart()]);
    await waitForHeight(net.nodes.map((n) => n.url), halted + 5, 120_000);
    await assertSameChain([0, 1, 2, 3], halted + 5);
  });

  it('brings a validator SIGKILLed while blocks commit back to the network\'s height with nothing lost', async () => {
    const sender = privateKeyToAccount(devAccounts()[8]!.privateKey);
    let nonce = Number(await rpc<string>(url(0), 'eth_getTransactionCount', [sender.address, 'latest']));
    const sent: string[] = [];
    let sending = true;
    // A steady flow of transfers, so that the kills land in blocks that carry transactions.
    const flow = (async () => {
      while (sending) {
        const raw = await sender.signTransaction({ chainId: 9000, type: 'eip1559', nonce: nonce++, to: devAccounts()[1]!.address as `0x${string}`, value: 1n, gas: 21_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI });
        sent.push(await rpc<string>(url(0), 'eth_sendRawTransaction', [raw]));
        await sleep(20);
      }
    })();
    for (let round = 0; round < 3; round++) {
      const h = await blockNumber(url(1));
      await waitFor('a new block on node 1', async () => ((await blockNumber(url(1))) > h ? true : undefined), 30_000, 5);
      // Somewhere in the next block's execution or write.
      await sleep(Math.floor(Math.random() * 120));
      const minedBefore = sent.length;
      await net.nodes[1]!.kill();
      await net.nodes[1]!.restart();
      const target = await blockNumber(url(0));
      await waitForHeight([url(1)], target, 60_000);
      await assertSameChain([0, 1], target);
      // What node 1 had answered before the kill is still there.
      for (const hash of sent.slice(0, minedBefore)) {
        const [a, b] = await Promise.all([0, 1].map((i) => waitFor(`receipt ${hash} on node ${i}`, async () => (await rpc<unknown>(url(i), 'eth_getTransactionReceipt', [hash])) ?? undefined, 30_000)));
        assert.deepEqual(b, a);
      }
    }
    sending = false;
    await flow;
    assert.ok(sent.length > 20, `sent ${sent.length}`);
  });
});
