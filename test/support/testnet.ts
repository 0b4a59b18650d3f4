// A local CometBFT network for tests: `svc-node testnet init` into a temp dir, then each validator
// as its own svc-node process (which runs its CometBFT), so a test can stop, kill and restart one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { readManifest, type TestnetManifest, type TestnetNode } from '../../src/consensus/cometbft/testnet.js';
import { SVC_NODE } from './cli-process.js';
import { rpc, waitFor } from './json-rpc.js';
import { NodeProcess } from './node-process.js';

export interface LocalNetwork {
  dir: string;
  manifest: TestnetManifest;
  nodes: NodeProcess[];
  /** Stops every node and removes the directory. */
  dispose(): Promise<void>;
}

/**
 * A base port per test file (each network takes base..base+50): distinct seeds give distinct
 * ranges within one process, and every range lies below Linux's ephemeral ports (32768 and up),
 * which outgoing connections take and a listener could then not bind.
 */
export function basePortFor(seed: number): number {
  return 20_000 + ((process.pid * 7 + seed * 31) % 120) * 100;
}

export async function startLocalNetwork(opts: {
  validators: number;
  blockTimeMs: number;
  basePort: number;
  extraArgs?: string[];
  /** Flags of `testnet init` beyond the network's shape (a bridge). */
  initArgs?: string[];
  /** Flags for node i alone, after extraArgs. */
  nodeArgs?: (index: number) => string[];
}): Promise<LocalNetwork> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-testnet-'));
  const init = spawnSync(
    process.execPath,
    [
      SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', String(opts.validators), '--base-port', String(opts.basePort), '--block-time-ms', String(opts.blockTimeMs),
      ...(opts.initArgs ?? []),
    ],
    { encoding: 'utf8' },
  );
  if (init.status !== 0) throw new Error(`testnet init failed (${init.status}): ${init.stderr}${init.stdout}`);
  const manifest = readManifest(dir);
  const nodes = await Promise.all(
    manifest.nodes.map((n, i) =>
      NodeProcess.start({ dataDir: path.join(dir, n.dataDir), extraArgs: nodeArgs(dir, n, [...(opts.extraArgs ?? []), ...(opts.nodeArgs?.(i) ?? [])]), readyTimeoutMs: 120_000 }),
    ),
  );
  return {
    dir,
    manifest,
    nodes,
    async dispose() {
      await Promise.all(nodes.map((n) => n.dispose()));
      // SVC_KEEP_TESTNET=1 keeps the homes (each node's cometbft.log) for a look after a failure.
      if (process.env.SVC_KEEP_TESTNET === '1') console.log(`# testnet kept in ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The flags NodeProcess adds after its own (a later flag wins). */
function nodeArgs(dir: string, n: TestnetNode, extra: string[] = []): string[] {
  return [
    '--consensus', 'cometbft',
    '--cometbft-home', path.join(dir, n.cometbftHome),
    '--rpc-port', String(n.rpcPort),
    '--ws-port', String(n.wsPort),
    '--explorer-port', String(n.explorerPort),
    ...extra,
  ];
}

export async function blockNumber(url: string): Promise<number> {
  return Number(await rpc<string>(url, 'eth_blockNumber'));
}

/** Waits until every node's head is at least `height`. */
export async function waitForHeight(urls: string[], height: number, timeoutMs: number): Promise<void> {
  await waitFor(
    `height ${height} on ${urls.length} nodes`,
    async () => ((await Promise.all(urls.map(blockNumber))).every((h) => h >= height) ? true : undefined),
    timeoutMs,
    250,
  );
}
