// A validator restarted again and again under a light transfer load (its node and its CometBFT):
// after every restart its signature reaches a later commit (CometBFT's own /block last_commit), so
// its peers did not connect before its consensus reactor started (testnet init's p2p config:
// persistent peers only, no PEX), and the chain never stops while three of four are up. The first
// restart comes after a longer absence: the node block-syncs, says so from its first answer, and
// reports the network's height from its peers. Then an epoch's duration is the chain's block time.
//
// SVC_RESTARTS sets the restarts (default 5, about 2 minutes here; SVC_RESTARTS=20 is the full check).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../src/chain/dev-accounts.js';
import { consensusAddress } from '../src/consensus/cometbft/home.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { basePortFor, blockNumber, startLocalNetwork, waitForHeight, type LocalNetwork } from './support/testnet.js';

const RESTARTS = Number(process.env.SVC_RESTARTS ?? 5);
const BLOCK_TIME_MS = 100;
/** The longest the network's head may stand still while three of four validators are up. */
const MAX_STALL_MS = 10_000;
const GWEI = 10n ** 9n;
/** The validator restarted. */
const R = 3;

let net: LocalNetwork;
const url = (i: number): string => net.nodes[i]!.url;
const cometUrl = (i: number): string => `http://127.0.0.1:${net.manifest.nodes[i]!.cometRpcPort}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  assert.ok(Number.isInteger(RESTARTS) && RESTARTS > 0, `SVC_RESTARTS=${process.env.SVC_RESTARTS} is not a positive count`);
  // A wide downtime window: the restarts' absences (10-20 blocks each) add up to more than half of
  // the default 100-block window by the fifth restart, and the chain then rightly jails the
  // validator and takes it out of CometBFT's set, after which it signs nothing. What is checked here
  // is the restart itself, so the window is made wide enough for 20 of them.
  net = await startLocalNetwork({ validators: 4, blockTimeMs: BLOCK_TIME_MS, basePort: basePortFor(17), initArgs: ['--signed-blocks-window', '10000'] });
  await waitForHeight(net.nodes.map((n) => n.url), 3, 60_000);
});

after(async () => {
  await net?.dispose();
});

interface CometCommitSig {
  block_id_flag: number;
  validator_address: string;
}

/** CometBFT's block `height` as node `i`'s CometBFT has it: the signers of its last commit (the commit of height - 1). */
async function lastCommitSigners(i: number, height: number): Promise<string[] | undefined> {
  const res = await fetch(`${cometUrl(i)}/block?height=${height}`);
  const body = (await res.json()) as { result?: { block: { last_commit: { signatures: CometCommitSig[] } } } };
  // block_id_flag 2: BLOCK_ID_FLAG_COMMIT, a precommit for the block.
  return body.result?.block.last_commit.signatures.filter((s) => s.block_id_flag === 2).map((s) => s.validator_address.toUpperCase());
}

async function cometHeight(i: number): Promise<number> {
  const res = await fetch(`${cometUrl(i)}/status`);
  return Number(((await res.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
}

describe('a validator restarted many times under load', () => {
  it(`signs a later commit after each of ${RESTARTS} restarts, and the chain never stops with three of four up`, async () => {
    const address = consensusAddress(Buffer.from(net.manifest.nodes[R]!.consensusKey.slice(2), 'hex')).toString('hex').toUpperCase();

    // A light transfer load on the three that stay up.
    const sender = privateKeyToAccount(devAccounts()[7]!.privateKey);
    let nonce = Number(await rpc<string>(url(0), 'eth_getTransactionCount', [sender.address, 'latest']));
    let running = true;
    let sent = 0;
    const load = (async () => {
      while (running) {
        const raw = await sender.signTransaction({ chainId: 9000, type: 'eip1559', nonce, to: devAccounts()[2]!.address as `0x${string}`, value: 1n, gas: 21_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI });
        await rpc<string>(url(sent % 3), 'eth_sendRawTransaction', [raw]);
        nonce++;
        sent++;
        await sleep(100);
      }
    })();

    // The head of node 0 is watched throughout: the longest it stood still.
    let longestStallMs = 0;
    const watch = (async () => {
      let last = await blockNumber(url(0));
      let since = Date.now();
      while (running) {
        await sleep(200);
        const h = await blockNumber(url(0));
        if (h > last) {
          last = h;
          since = Date.now();
        }
        longestStallMs = Math.max(longestStallMs, Date.now() - since);
      }
    })();

    try {
      for (let round = 1; round <= RESTARTS; round++) {
        const started = Date.now();
        await net.nodes[R]!.stop();
        const down = await blockNumber(url(0));
        // Three of four go on; the first absence is long enough for a block sync.
        await waitForHeight([url(0), url(1), url(2)], down + (round === 1 ? 15 : 3), 60_000);
        await net.nodes[R]!.restart();
        const back = await cometHeight(0);
        if (round === 1) await checkSyncReport(back);
        // Its precommit in the commit of a height decided after it came back.
        const signedAt = await waitFor(
          `validator ${R}'s signature in a commit after restart ${round}`,
          async () => {
            const top = await cometHeight(0);
            for (let h = back + 2; h <= top; h++) if ((await lastCommitSigners(0, h))?.includes(address)) return h - 1;
            return undefined;
          },
          30_000,
          250,
        );
        console.log(`restart ${round}: signed height ${signedAt} (back at ${back}) after ${Date.now() - started} ms`);
      }
    } finally {
      running = false;
      await Promise.all([load, watch]);
    }
    console.log(`${RESTARTS} restarts: node 0's head stood still for ${longestStallMs} ms at most; ${sent} transfers sent`);
    assert.ok(longestStallMs < MAX_STALL_MS, `the chain stood still for ${longestStallMs} ms with three of four validators up`);
    assert.ok(sent > 10, `sent ${sent} transfers`);
  });

  it('gives an epoch the duration of its blocks at the chain\'s own block time', async () => {
    const { epoch, stats } = await waitFor('epoch and stats at one head', async () => {
      const before = await blockNumber(url(0));
      const [e, s] = await Promise.all([
        rpc<{ durationMs: string; lengthBlocks: number }>(url(0), 'svc_getEpoch'),
        rpc<{ avgBlockTimeMs: number }>(url(0), 'svc_getNetworkStats'),
      ]);
      return (await blockNumber(url(0))) === before ? { epoch: e, stats: s } : undefined;
    }, 30_000, 0);
    assert.ok(stats.avgBlockTimeMs > BLOCK_TIME_MS, `average block time ${stats.avgBlockTimeMs} ms`);
    assert.equal(Number(epoch.durationMs), epoch.lengthBlocks * stats.avgBlockTimeMs);
  });
});

/**
 * Node R, just restarted behind a network at `networkHeight`: eth_syncing is never false before
 * its head reaches that height, and while it syncs it reports the peers' height, not its own.
 */
async function checkSyncReport(networkHeight: number): Promise<void> {
  let sawPeersHeight = false;
  for (;;) {
    const syncing = await rpc<false | { currentBlock: string; highestBlock: string }>(url(R), 'eth_syncing');
    const info = await rpc<{ syncing: boolean; currentBlock: number }>(url(R), 'svc_getNodeInfo');
    if (!info.syncing) assert.ok(info.currentBlock >= networkHeight, `svc_getNodeInfo.syncing false at ${info.currentBlock} while the network was at ${networkHeight}`);
    if (syncing === false) {
      const at = await blockNumber(url(R));
      assert.ok(at >= networkHeight, `eth_syncing false at ${at} while the network was at ${networkHeight}`);
      break;
    }
    if (Number(syncing.highestBlock) >= networkHeight) sawPeersHeight = true;
    await sleep(25);
  }
  assert.ok(sawPeersHeight, `eth_syncing never reported the network's height ${networkHeight} while syncing`);
}
