// What a CometBFT node reports of itself and its network, against a fake CometBFT RPC: the hand-off
// of a single transaction (CometBFT answers a batch of one with a bare answer), eth_syncing's state
// and best height while block-syncing, an epoch's duration from the chain's block times, and the
// p2p configuration `testnet init` writes (persistent peers only, no PEX).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { CometClient } from '../src/consensus/cometbft/client.js';
import { CometNetworkView } from '../src/consensus/cometbft/network-view.js';
import { initTestnet } from '../src/consensus/cometbft/testnet.js';
import { tomlValue } from '../src/consensus/cometbft/home.js';
import { epochDurationMs, expectedBlockTimeMs } from '../src/chain/block-time.js';
import type { Chain } from '../src/native/index.js';

const silent = pino({ level: 'silent' });

type Handler = (method: string, params: unknown, id: number) => unknown;

/** A CometBFT RPC whose answers `handler` gives (a single request's whole envelope; undefined: HTTP 500). */
async function fakeComet(handler: { current: Handler }): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { id: number; method: string; params: unknown } | { id: number; method: string; params: unknown }[];
      const one = (r: { id: number; method: string; params: unknown }) => handler.current(r.method, r.params, r.id);
      // CometBFT's batch of one: answered with the bare answer, not a list.
      const answer = Array.isArray(parsed) ? (parsed.length === 1 ? one(parsed[0]!) : parsed.map(one)) : one(parsed);
      if (answer === undefined) {
        res.statusCode = 500;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() };
}

describe('handing one transaction to CometBFT', () => {
  const handler = { current: ((_m, _p, id) => ({ jsonrpc: '2.0', id, result: { code: 0, data: '', log: '', codespace: '', hash: 'AB' } })) as Handler };
  let comet: Awaited<ReturnType<typeof fakeComet>>;
  before(async () => (comet = await fakeComet(handler)));
  after(() => comet.close());

  it('accepts the bare answer CometBFT gives a batch of one', async () => {
    const client = new CometClient(comet.url, 10);
    assert.deepEqual([...(await client.broadcastTxsAsync([Buffer.from([1, 2])]))], []);
  });

  it('reports a single refused transaction by its index', async () => {
    handler.current = (_m, _p, id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error', data: 'tx already exists in cache' } });
    const client = new CometClient(comet.url, 10);
    assert.deepEqual([...(await client.broadcastTxsAsync([Buffer.from([1, 2])]))], [[0, 'tx already exists in cache']]);
  });
});

describe('the sync state of a CometBFT node', () => {
  /** What the fake CometBFT says: its height, whether it catches up, its peers' consensus heights. */
  const state = { up: true, height: 0, catchingUp: true, peerRoundHeights: ['21', '20', '0'] as string[] };
  const handler = {
    current: ((method, _p, id) => {
      if (!state.up) return undefined;
      switch (method) {
        case 'status':
          return {
            jsonrpc: '2.0', id,
            result: {
              node_info: { id: 'aa', moniker: 'node3', network: 'svc-1' },
              sync_info: { latest_block_height: String(state.height), latest_block_time: '2026-01-01T00:00:00Z', catching_up: state.catchingUp },
              validator_info: { address: 'AB', voting_power: '10' },
            },
          };
        case 'net_info':
          return { jsonrpc: '2.0', id, result: { peers: state.peerRoundHeights.map((_, i) => ({ node_info: { id: `p${i}`, moniker: `node${i}` }, remote_ip: '127.0.0.1', is_outbound: true })) } };
        case 'dump_consensus_state':
          return {
            jsonrpc: '2.0', id,
            result: { round_state: {}, peers: state.peerRoundHeights.map((h, i) => ({ node_address: `p${i}@127.0.0.1:1`, peer_state: { round_state: { height: h, round: 0, step: 1 }, stats: {} } })) },
          };
        default:
          return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
      }
    }) as Handler,
  };
  let comet: Awaited<ReturnType<typeof fakeComet>>;
  let head = 0;
  let view: CometNetworkView;
  before(async () => {
    comet = await fakeComet(handler);
    view = new CometNetworkView({ head: () => ({ number: head }) } as unknown as Chain, new CometClient(comet.url), silent, 20);
  });
  after(() => {
    view.close();
    comet.close();
  });

  const settle = () => new Promise((r) => setTimeout(r, 150));

  it('says it is syncing before CometBFT has answered', () => {
    assert.equal(view.sync().syncing, true);
  });

  it('reports the peers\' best height, not its own, while block-syncing', async () => {
    view.start();
    await settle();
    // A peer working on height 21 has committed 20: the network's best block is 20, the node's 0.
    assert.deepEqual(view.sync(), { syncing: true, highestBlock: 20 });
    assert.equal(view.peerCount(), 3);
    head = 12;
    state.height = 12;
    state.peerRoundHeights = ['23', '22', '22'];
    await settle();
    assert.deepEqual(view.sync(), { syncing: true, highestBlock: 22 });
  });

  it('is in step once CometBFT has caught up, at its own head', async () => {
    head = 22;
    state.height = 22;
    state.catchingUp = false;
    await settle();
    assert.deepEqual(view.sync(), { syncing: false, highestBlock: 22 });
  });

  it('says it is syncing again while CometBFT cannot be reached', async () => {
    state.up = false;
    await settle();
    assert.equal(view.sync().syncing, true);
    assert.equal(view.peerCount(), 0);
    state.up = true;
    await settle();
    assert.equal(view.sync().syncing, false);
  });
});

describe('an epoch\'s duration', () => {
  /** A chain whose blocks 0..head are `gapMs` apart (block 0 at an arbitrary genesis time). */
  const chainOf = (head: number, gapMs: number) => {
    const at = (n: number) => (n === 0 ? 1_000 : 5_000_000 + n * gapMs);
    return {
      head: () => ({ number: head, timestampMs: at(head) }),
      getBlockSummary: ({ number }: { number: number }) => (number <= head ? { timestampMs: String(at(number)) } : undefined),
    } as unknown as Chain;
  };

  it('on a network, is the epoch\'s blocks at the chain\'s average block time', () => {
    const chain = chainOf(250, 3_888);
    assert.equal(expectedBlockTimeMs(chain, 1_000, true), 3_888);
    assert.equal(epochDurationMs(chain, 10, 1_000, true), 38_880);
  });

  it('uses the configured block time before a block is timed, and on a solo node', () => {
    assert.equal(epochDurationMs(chainOf(0, 3_888), 10, 1_000, true), 10_000);
    assert.equal(epochDurationMs(chainOf(1, 3_888), 10, 1_000, true), 10_000);
    assert.equal(epochDurationMs(chainOf(2, 3_888), 10, 1_000, true), 38_880);
    assert.equal(epochDurationMs(chainOf(250, 3_888), 10, 1_000, false), 10_000);
  });
});

describe('the p2p configuration of testnet init', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'svc-p2p-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('peers each node with the others as persistent peers only, PEX off', () => {
    const manifest = initTestnet({ validators: 3, output: dir, basePort: 30_000, blockTimeMs: 500 });
    for (const n of manifest.nodes) {
      const toml = readFileSync(path.join(dir, n.cometbftHome, 'config', 'config.toml'), 'utf8');
      assert.equal(tomlValue(toml, 'p2p', 'pex'), 'false', n.name);
      assert.equal(tomlValue(toml, 'p2p', 'seeds'), '', n.name);
      const peers = tomlValue(toml, 'p2p', 'persistent_peers')!.split(',').sort();
      assert.deepEqual(peers, manifest.nodes.filter((p) => p !== n).map((p) => `${p.nodeId}@127.0.0.1:${p.p2pPort}`).sort());
    }
  });
});
