// `svc-node testnet init --hosts`: a network across machines. Each validator's home names its peers
// at their hosts, listens for p2p on every interface and tells peers its host; nodes on distinct
// hosts share the same ports, a host named twice takes the next ones; each home carries a systemd
// unit that starts the node from the folder it was copied to. Bad host lists are refused. Every
// home flushes p2p messages and gossips within 10 ms and keeps no CometBFT transaction index.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readManifest } from '../src/consensus/cometbft/testnet.js';
import { SVC_NODE } from './support/cli-process.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function init(args: string[]): { status: number | null; stdout: string; stderr: string; dir: string } {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-hosts-')), 'net');
  dirs.push(path.dirname(dir));
  const r = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, dir };
}

/** `key = value` of a section of config.toml ('' for the top level). */
function toml(text: string, section: string, key: string): string | undefined {
  let current = '';
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) current = header[1]!;
    const kv = /^\s*([A-Za-z0-9_]+)\s*=\s*(.*)$/.exec(line);
    if (kv && current === section && kv[1] === key) return kv[2];
  }
  return undefined;
}

describe('testnet init --hosts', () => {
  it('writes each home with its peers at their hosts, shared ports and a systemd unit', () => {
    const hosts = ['10.1.0.1', 'val-b.example.org', '10.1.0.3', '10.1.0.3'];
    const { status, stdout, stderr, dir } = init(['--validators', '4', '--hosts', hosts.join(','), '--base-port', '26600', '--remote-dir', '/srv/svc']);
    assert.equal(status, 0, stderr);
    assert.match(stdout, /copy .*<node>\/ to \/srv\/svc\//);
    const manifest = readManifest(dir);
    assert.deepEqual(manifest.nodes.map((n) => n.host), hosts);
    // Distinct hosts share 26600..; the second node on 10.1.0.3 takes the next ten ports.
    assert.deepEqual(manifest.nodes.map((n) => n.p2pPort), [26600, 26600, 26600, 26610]);
    assert.deepEqual(manifest.nodes.map((n) => n.rpcPort), [26602, 26602, 26602, 26612]);
    for (const [i, n] of manifest.nodes.entries()) {
      const config = readFileSync(path.join(dir, n.cometbftHome, 'config', 'config.toml'), 'utf8');
      assert.equal(toml(config, 'p2p', 'laddr'), `"tcp://0.0.0.0:${n.p2pPort}"`);
      assert.equal(toml(config, 'p2p', 'external_address'), `"${hosts[i]}:${n.p2pPort}"`);
      const peers = JSON.parse(toml(config, 'p2p', 'persistent_peers')!) as string;
      const expected = manifest.nodes.filter((p) => p.name !== n.name).map((p) => `${p.nodeId}@${p.host}:${p.p2pPort}`);
      assert.deepEqual(peers.split(','), expected);
      assert.equal(toml(config, 'p2p', 'allow_duplicate_ip'), 'false');
      // CometBFT's RPC stays on loopback: only the node on the same machine talks to it.
      assert.equal(toml(config, 'rpc', 'laddr'), `"tcp://127.0.0.1:${n.cometRpcPort}"`);
      const unit = readFileSync(path.join(dir, n.name, 'svc-node.service'), 'utf8');
      assert.match(unit, /^\[Unit\]$/m);
      assert.match(unit, /^WantedBy=multi-user\.target$/m);
      const exec = /^ExecStart=(.*)$/m.exec(unit)![1]!;
      assert.equal(
        exec,
        `/usr/bin/env svc-node start --network devnet --consensus cometbft --data-dir /srv/svc/data --cometbft-home /srv/svc/cometbft --rpc-port ${n.rpcPort} --ws-port ${n.wsPort} --explorer-port ${n.explorerPort}`,
      );
      // The folder the unit names holds what it needs: data/ and cometbft/ with the shared genesis.
      assert.ok(existsSync(path.join(dir, n.name, 'data')));
      assert.ok(existsSync(path.join(dir, n.cometbftHome, 'config', 'genesis.json')));
    }
    const genesis = manifest.nodes.map((n) => readFileSync(path.join(dir, n.cometbftHome, 'config', 'genesis.json'), 'utf8'));
    assert.ok(genesis.every((g) => g === genesis[0]), 'one genesis for every machine');
  });

  it('keeps loopback homes (no unit, p2p on 127.0.0.1) without --hosts', () => {
    const { status, stderr, dir } = init(['--validators', '2', '--base-port', '26700']);
    assert.equal(status, 0, stderr);
    const manifest = readManifest(dir);
    assert.equal(manifest.nodes[0]!.host, undefined);
    const config = readFileSync(path.join(dir, manifest.nodes[0]!.cometbftHome, 'config', 'config.toml'), 'utf8');
    assert.equal(toml(config, 'p2p', 'laddr'), '"tcp://127.0.0.1:26700"');
    assert.ok(!existsSync(path.join(dir, 'node0', 'svc-node.service')));
  });

  it('writes the p2p and gossip timing of a round and no CometBFT transaction index (docs/network.md)', () => {
    const { status, stderr, dir } = init(['--validators', '2', '--base-port', '26800']);
    assert.equal(status, 0, stderr);
    const config = readFileSync(path.join(dir, readManifest(dir).nodes[0]!.cometbftHome, 'config', 'config.toml'), 'utf8');
    // CometBFT's defaults hold a queued p2p message and an idle gossip routine up to 100 ms each.
    assert.equal(toml(config, 'p2p', 'flush_throttle_timeout'), '"10ms"');
    assert.equal(toml(config, 'consensus', 'peer_gossip_sleep_duration'), '"10ms"');
    assert.equal(toml(config, 'tx_index', 'indexer'), '"null"');
    // Recheck stays on: CometBFT 0.38 has no mempool expiry, so it is what drops what no block will carry.
    assert.equal(toml(config, 'mempool', 'recheck'), 'true');
  });

  it('refuses a host list of the wrong length or with a malformed host, writing nothing', () => {
    const short = init(['--validators', '3', '--hosts', 'a.example.org,b.example.org']);
    assert.notEqual(short.status, 0);
    assert.match(short.stderr, /--hosts names 2 hosts for 3 validators/);
    assert.ok(!existsSync(short.dir));
    const bad = init(['--validators', '2', '--hosts', 'a.example.org,"b c"']);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /is not a host name or an IP address/);
    assert.ok(!existsSync(bad.dir));
  });
});
