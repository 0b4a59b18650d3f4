// State sync without a network: the snapshot store (written through the chain, listed, pruned to
// --snapshot-keep, chunks served by index), the metadata check, the flags, and [statesync] in
// CometBFT's config.toml.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { Chain } from '../src/native/index.js';
import { chunkHash, parseSnapshotMetadata, snapshotHash, SnapshotStore } from '../src/consensus/cometbft/snapshots.js';
import { configureStateSync } from '../src/consensus/cometbft/state-sync.js';
import { resolveStartConfig, UsageError, type StartFlags } from '../src/cli/start-options.js';

/** A chain whose snapshots are two chunks naming their height. */
function fakeChain(): Chain {
  return {
    writeSnapshot: async (height: number, dir: string) => {
      mkdirSync(dir, { recursive: true });
      const chunks = [Buffer.from(`a${height}`), Buffer.from(`b${height}`)];
      chunks.forEach((c, i) => writeFileSync(path.join(dir, `chunk-${i}`), c));
      return { height, hash: Buffer.alloc(32, 1), root: Buffer.alloc(32, 2), chunkHashes: chunks.map(chunkHash) };
    },
  } as unknown as Chain;
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('state sync snapshots', () => {
  it('are taken every interval blocks, keep the newest K, and serve their chunks', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-snapshots-'));
    try {
      const store = new SnapshotStore({ dir, interval: 10, keep: 2 }, fakeChain(), pino({ level: 'silent' }));
      for (const h of [5, 10, 15, 20, 30]) {
        store.committed(h);
        await settle();
      }
      assert.deepEqual(store.list().map((e) => e.height), [20, 30]);
      const e = store.list()[1]!;
      assert.equal(e.chunks, 2);
      const hashes = parseSnapshotMetadata(e.metadata)!;
      assert.ok(snapshotHash(hashes).equals(e.hash));
      assert.equal((await store.loadChunk(30, 1, 1)).toString(), 'b30');
      assert.equal((await store.loadChunk(10, 1, 0)).length, 0, 'pruned');
      assert.equal((await store.loadChunk(30, 2, 0)).length, 0, 'unknown format');
      assert.equal((await store.loadChunk(30, 1, 2)).length, 0, 'beyond the last chunk');
      // A restart lists what is on disk.
      const again = new SnapshotStore({ dir, interval: 10, keep: 2 }, fakeChain(), pino({ level: 'silent' }));
      assert.deepEqual(again.list().map((x) => x.height), [20, 30]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('metadata must list 32-byte hashes', () => {
    assert.equal(parseSnapshotMetadata(Buffer.from('nope')), null);
    assert.equal(parseSnapshotMetadata(Buffer.from('["0x12"]')), null);
    assert.equal(parseSnapshotMetadata(Buffer.from(JSON.stringify([`0x${'ab'.repeat(32)}`])))!.length, 1);
  });
});

describe('state sync flags and CometBFT config', () => {
  const flags = (over: Partial<StartFlags> = {}): StartFlags => ({
    network: 'devnet', rpcHost: '127.0.0.1', rpcPort: 8545, wsPort: 8546, explorerPort: 8080, blockTimeMs: 1000, logLevel: 'info',
    rpcRateLimit: 100, httpReadTimeoutMs: 30_000, httpWriteTimeoutMs: 30_000, httpIdleTimeoutMs: 120_000, maxConnectionsPerIp: 64,
    computeMode: 'pow', inferenceBackend: 'auto', modelDir: '/models', powThreads: 1, proofPrecheckRate: 2_500,
    consensus: 'cometbft', snapshotInterval: 500, snapshotKeep: 3,
    ...over,
  });

  it('parse into the config and refuse bad combinations', () => {
    const c = resolveStartConfig(flags({ stateSyncRpc: 'http://a:26657,http://b:26657', stateSyncTrustHeight: 100, stateSyncTrustHash: `0x${'ab'.repeat(32)}` }), {}, '/');
    assert.deepEqual(c.stateSync, { rpcServers: ['http://a:26657', 'http://b:26657'], trustHeight: 100, trustHash: 'AB'.repeat(32) });
    assert.equal(c.snapshotInterval, 500);
    assert.equal(c.snapshotKeep, 3);
    assert.throws(() => resolveStartConfig(flags({ stateSyncRpc: 'http://a:1', stateSyncTrustHeight: 5 }), {}, '/'), UsageError);
    assert.throws(() => resolveStartConfig(flags({ stateSyncRpc: 'a:1' }), {}, '/'), UsageError);
    assert.throws(() => resolveStartConfig(flags({ consensus: 'solo', stateSyncRpc: 'http://a:1' }), {}, '/'), UsageError);
    assert.throws(() => resolveStartConfig(flags({ stateSyncRpc: 'http://a:1', stateSyncTrustHeight: 5, stateSyncTrustHash: 'xyz' }), {}, '/'), UsageError);
  });

  it('writes [statesync] with the trusted header and a witness', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'svc-comet-home-'));
    try {
      mkdirSync(path.join(home, 'config'));
      writeFileSync(
        path.join(home, 'config', 'config.toml'),
        ['[statesync]', 'enable = false', 'rpc_servers = ""', 'trust_height = 0', 'trust_hash = ""', 'trust_period = "168h0m0s"', 'discovery_time = "15s"', '[blocksync]', 'version = "v0"', ''].join('\n'),
      );
      await configureStateSync(home, { rpcServers: ['http://a:26657'], trustHeight: 42, trustHash: 'CD'.repeat(32) }, 100);
      const toml = readFileSync(path.join(home, 'config', 'config.toml'), 'utf8');
      assert.match(toml, /enable = true/);
      assert.match(toml, /rpc_servers = "http:\/\/a:26657,http:\/\/a:26657"/);
      assert.match(toml, /trust_height = 42/);
      assert.match(toml, new RegExp(`trust_hash = "${'CD'.repeat(32)}"`));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
