// A local network of validators on one machine: `svc-node testnet init` writes one genesis, shared
// by CometBFT and the node (CometBFT's genesis.json, whose app_state is the node's genesis: chain
// id 9000, the dev accounts, faucet, bundler and ERC-4337 contracts of the devnet, the validators with their stakes and
// consensus keys), and one home per validator with its own loopback ports; `svc-node testnet
// start` runs them all. docs/network.md explains a network across machines.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundlerAccount, devAccounts, faucetAccount } from '../../chain/dev-accounts.js';
import { accountAbstractionAccounts } from '../../chain/account-abstraction.js';
import { CHAIN_ID, staking, system } from '../../params.js';
import { SvcError } from '../../errors.js';
import { cometbftBinary, consensusAddress } from './home.js';
import type { GenesisBridge, GenesisStakingParams } from '../../chain/genesis.js';

export class TestnetError extends SvcError {
  override readonly name = 'TestnetError';
  override readonly code = 'TESTNET';
}

/** One validator's home and ports, as testnet.json lists them. */
export interface TestnetNode {
  name: string;
  /** Relative to the testnet directory. */
  dataDir: string;
  cometbftHome: string;
  rpcPort: number;
  wsPort: number;
  explorerPort: number;
  p2pPort: number;
  cometRpcPort: number;
  /** The validator's operator address (a dev account) and consensus key. */
  operator: string;
  consensusKey: string;
  nodeId: string;
  /** The host its peers reach it at, for a network across machines (testnet init --hosts); absent on loopback. */
  host?: string;
}

export interface TestnetManifest {
  chainId: number;
  cometChainId: string;
  blockTimeMs: number;
  nodes: TestnetNode[];
}

export interface TestnetInitOptions {
  validators: number;
  output: string;
  /** First port; node i uses basePort + 10 i + (0 p2p, 1 CometBFT RPC, 2 JSON-RPC, 3 WebSocket, 4 explorer). */
  basePort: number;
  /** CometBFT's timeout_commit: the pause after a commit before the next height, about the block time. */
  blockTimeMs: number;
  /** Genesis time (unix ms); default now. */
  nowMs?: number;
  /** A bridge to an external chain in the genesis (docs/bridge.md). */
  bridge?: GenesisBridge;
  binary?: string;
  /**
   * One address per validator (host name or IP) for a network across machines: node i listens on
   * every interface and is reached by its peers at hosts[i]; nodes on distinct hosts share the same
   * ports (basePort..basePort + 4), a host named twice gets the next ports. Each home then also holds
   * a systemd unit (svc-node.service) that starts the node from `remoteDir`.
   */
  hosts?: readonly string[];
  /** Where each node's folder is copied on its machine (the unit's paths); default /var/lib/svc-node. */
  remoteDir?: string;
  /** The genesis's liveness rules (default params.staking's: 100 blocks, 50%). */
  staking?: GenesisStakingParams;
}

/** Where testnet init's systemd units expect a node's folder on its machine. */
export const DEFAULT_REMOTE_DIR = '/var/lib/svc-node';

/** A host name or an IPv4/IPv6 address: what a peer address and config.toml may carry. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/;

/** The CometBFT chain id of an svc chain. */
export const cometChainId = (chainId: number): string => `svc-${chainId}`;

/** Writes the network's homes and testnet.json; returns the manifest. */
export function initTestnet(o: TestnetInitOptions): TestnetManifest {
  if (!Number.isInteger(o.validators) || o.validators < 1 || o.validators > devAccounts().length) {
    throw new TestnetError(`--validators must be 1..${devAccounts().length} (each validator's operator is a dev account)`);
  }
  const out = path.resolve(o.output);
  if (existsSync(out) && readdirSync(out).length > 0) throw new TestnetError(`${out} is not empty: give a new directory`);
  if (o.hosts !== undefined) {
    if (o.hosts.length !== o.validators) throw new TestnetError(`--hosts names ${o.hosts.length} hosts for ${o.validators} validators: give one per validator`);
    const bad = o.hosts.find((h) => !HOST.test(h));
    if (bad !== undefined) throw new TestnetError(`--hosts: "${bad.slice(0, 64)}" is not a host name or an IP address`);
  }
  const binary = o.binary ?? cometbftBinary();
  const chainId = CHAIN_ID.devnet;
  const nodes: TestnetNode[] = [];
  for (let i = 0; i < o.validators; i++) {
    const host = o.hosts?.[i];
    // On machines of their own the nodes share ports; a host named again takes the next ten.
    const slot = host === undefined ? i : o.hosts!.slice(0, i).filter((h) => h === host).length;
    const node = initHome(out, `node${i}`, o.basePort + 10 * slot, binary, devAccounts()[i]!.address.toLowerCase());
    nodes.push(host === undefined ? node : { ...node, host });
  }

  const timestamp = Math.floor((o.nowMs ?? Date.now()) / 1000);
  const g = system.devGenesisValidator;
  const alloc: Record<string, { balance: string; initCode?: string }> = {};
  for (const a of devAccounts()) alloc[a.address.toLowerCase()] = { balance: a.balance.toString() };
  const faucet = faucetAccount();
  alloc[faucet.address.toLowerCase()] = { balance: faucet.balance.toString() };
  // As on the devnet: the dev bundler account (every node's bundler signs with it) and the ERC-4337
  // EntryPoints with their SimpleAccountFactories, created by their constructors at genesis.
  const bundler = bundlerAccount();
  alloc[bundler.address.toLowerCase()] = { balance: bundler.balance.toString() };
  for (const a of accountAbstractionAccounts()) alloc[`0x${a.address.toString('hex')}`] = { balance: a.balance.toString(), initCode: `0x${a.initCode!.toString('hex')}` };
  const appState = {
    chainId,
    timestamp,
    extraData: `0x${Buffer.from('svc testnet', 'utf8').toString('hex')}`,
    alloc,
    validators: nodes.map((n) => ({
      operator: n.operator,
      moniker: n.name,
      selfStake: g.selfStake.toString(),
      commissionBps: g.commissionBps,
      maxCommissionBps: g.maxCommissionBps,
      maxChangeBpsPerDay: g.maxChangeBpsPerDay,
      consensusKey: n.consensusKey,
    })),
    ...(o.bridge ? { bridge: o.bridge } : {}),
    // The liveness rules every node reads from the genesis (governance may change them later).
    staking: { signedBlocksWindow: staking.signedBlocksWindow, minSignedPerWindowBps: staking.minSignedPerWindowBps, ...o.staking },
  };
  const power = (g.selfStake / 10n ** 18n).toString();
  const genesis = {
    // The first block has the genesis time: one second after the app's genesis block.
    genesis_time: new Date((timestamp + 1) * 1000).toISOString(),
    chain_id: cometChainId(chainId),
    initial_height: '1',
    consensus_params: {
      block: { max_bytes: '22020096', max_gas: '-1' },
      evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
      validator: { pub_key_types: ['ed25519'] },
      version: { app: '1' },
      abci: { vote_extensions_enable_height: '0' },
    },
    validators: nodes.map((n) => ({
      address: consensusAddress(Buffer.from(n.consensusKey.slice(2), 'hex')).toString('hex').toUpperCase(),
      pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.from(n.consensusKey.slice(2), 'hex').toString('base64') },
      power,
      name: n.name,
    })),
    app_hash: '',
    app_state: appState,
  };
  for (const n of nodes) {
    writeFileSync(path.join(out, n.cometbftHome, 'config', 'genesis.json'), JSON.stringify(genesis, null, 2) + '\n');
    writeConfig(out, n, nodes, o.blockTimeMs);
    mkdirSync(path.join(out, n.dataDir), { recursive: true });
    if (n.host !== undefined) writeFileSync(path.join(out, n.name, 'svc-node.service'), systemdUnit(n, o.remoteDir ?? DEFAULT_REMOTE_DIR));
  }
  const manifest: TestnetManifest = { chainId, cometChainId: cometChainId(chainId), blockTimeMs: o.blockTimeMs, nodes };
  writeFileSync(path.join(out, 'testnet.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

/**
 * Adds a full node to a testnet directory: a new home with the network's genesis, peered with every
 * node, on the next free ports. It signs nothing until its consensus key is registered (a new
 * validator: registerValidator with the key of its priv_validator_key.json). With `validatorKeyOf`
 * it runs another node's validator key instead, which is double signing (tests of the evidence path).
 */
export function addTestnetNode(dir: string, options: { validatorKeyOf?: string; binary?: string } = {}): TestnetNode {
  const out = path.resolve(dir);
  const manifest = readManifest(dir);
  const first = manifest.nodes[0]!;
  const source = options.validatorKeyOf ? manifest.nodes.find((n) => n.name === options.validatorKeyOf) : undefined;
  if (options.validatorKeyOf && !source) throw new TestnetError(`no node ${options.validatorKeyOf} in ${dir}`);
  const base = Math.max(...manifest.nodes.map((n) => n.p2pPort)) + 10;
  const node = initHome(out, `node${manifest.nodes.length}`, base, options.binary ?? cometbftBinary(), source?.operator ?? '', (home) => {
    copyFileSync(path.join(out, first.cometbftHome, 'config', 'genesis.json'), path.join(home, 'config', 'genesis.json'));
    if (source) copyFileSync(path.join(out, source.cometbftHome, 'config', 'priv_validator_key.json'), path.join(home, 'config', 'priv_validator_key.json'));
  });
  writeConfig(out, node, manifest.nodes, manifest.blockTimeMs);
  mkdirSync(path.join(out, node.dataDir), { recursive: true });
  manifest.nodes.push(node);
  writeFileSync(path.join(out, 'testnet.json'), JSON.stringify(manifest, null, 2) + '\n');
  return node;
}

/**
 * `cometbft init` of a node's home in `out` (keys, a default config), `prepare` run on it before
 * its keys are read; the node on ports base..base+4.
 */
function initHome(out: string, name: string, base: number, binary: string, operator: string, prepare?: (home: string) => void): TestnetNode {
  const cometbftHome = path.join(name, 'cometbft');
  const home = path.join(out, cometbftHome);
  const r = spawnSync(binary, ['init', '--home', home], { encoding: 'utf8' });
  if (r.status !== 0) throw new TestnetError(`cometbft init failed: ${r.stderr || r.stdout}`);
  prepare?.(home);
  const validatorKey = ed25519Public(path.join(home, 'config', 'priv_validator_key.json'), 'pub_key');
  const nodeKey = ed25519Public(path.join(home, 'config', 'node_key.json'), 'priv_key');
  return {
    name,
    dataDir: path.join(name, 'data'),
    cometbftHome,
    p2pPort: base,
    cometRpcPort: base + 1,
    rpcPort: base + 2,
    wsPort: base + 3,
    explorerPort: base + 4,
    operator,
    consensusKey: `0x${validatorKey.toString('hex')}`,
    nodeId: consensusAddress(nodeKey).toString('hex'),
  };
}

/**
 * A node's config.toml: its ports (on loopback, or p2p on every interface with its host as the
 * address peers are told for a network across machines), every other node as a persistent peer,
 * the block time.
 */
function writeConfig(out: string, n: TestnetNode, all: readonly TestnetNode[], blockTimeMs: number): void {
  const peers = all.filter((p) => p.name !== n.name).map((p) => `${p.nodeId}@${p.host ?? '127.0.0.1'}:${p.p2pPort}`).join(',');
  const configFile = path.join(out, n.cometbftHome, 'config', 'config.toml');
  let toml = readFileSync(configFile, 'utf8');
  for (const [section, key, value] of [
    ['', 'moniker', `"${n.name}"`],
    ['', 'log_level', '"info"'],
    ['rpc', 'laddr', `"tcp://127.0.0.1:${n.cometRpcPort}"`],
    // The node hands its RPC's transactions over in batches (broadcast_tx_async).
    ['rpc', 'max_request_batch_size', '500'],
    ['p2p', 'laddr', `"tcp://${n.host === undefined ? '127.0.0.1' : '0.0.0.0'}:${n.p2pPort}"`],
    ['p2p', 'external_address', n.host === undefined ? '""' : `"${n.host}:${n.p2pPort}"`],
    ['p2p', 'persistent_peers', `"${peers}"`],
    // Persistent peers only: with PEX on, the address book is dialled at once, before the consensus
    // reactor has started (the switch starts reactors in random order), and a peer added then gets
    // no votes from it, so a restarted validator could receive votes but send none. Persistent
    // peers are dialled after every reactor has started.
    ['p2p', 'pex', 'false'],
    ['p2p', 'addr_book_strict', 'false'],
    // Loopback nodes all share 127.0.0.1; machines each have their own address.
    ['p2p', 'allow_duplicate_ip', n.host === undefined ? 'true' : 'false'],
    // A peer's messages are written out within 10 ms of being queued (CometBFT's default holds them
    // up to 100 ms): each step of a round (proposal, block parts, prevotes, precommits) waited for it.
    ['p2p', 'flush_throttle_timeout', '"10ms"'],
    ['consensus', 'timeout_commit', `"${blockTimeMs}ms"`],
    // Loopback answers in microseconds: a stopped proposer costs 1 s, not CometBFT's 3 s for the internet.
    ['consensus', 'timeout_propose', '"1s"'],
    ['consensus', 'timeout_prevote', '"500ms"'],
    ['consensus', 'timeout_precommit', '"500ms"'],
    ['consensus', 'create_empty_blocks', 'true'],
    // How long a peer's gossip routine sleeps when it has nothing new to send (CometBFT's default
    // 100 ms): a vote or block part that arrives meanwhile waits that long before it is relayed.
    ['consensus', 'peer_gossip_sleep_duration', '"10ms"'],
    ['mempool', 'size', '50000'],
    ['mempool', 'max_txs_bytes', '268435456'],
    ['mempool', 'cache_size', '100000'],
    // The node serves transactions, receipts and logs itself: CometBFT's own index of every
    // transaction's result would only cost each node a database write per transaction.
    ['tx_index', 'indexer', '"null"'],
  ] as const) {
    toml = setToml(toml, section, key, value);
  }
  writeFileSync(configFile, toml);
}

export function readManifest(dir: string): TestnetManifest {
  const file = path.join(path.resolve(dir), 'testnet.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as TestnetManifest;
  } catch (err) {
    throw new TestnetError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing: run svc-node testnet init first' : (err as Error).message}`);
  }
}

/** The arguments of `svc-node start` for one node of a testnet in `dir`. */
export function nodeStartArgs(dir: string, n: TestnetNode, extra: readonly string[] = []): string[] {
  const at = (p: string) => path.join(path.resolve(dir), p);
  return [
    'start',
    '--network', 'devnet',
    '--consensus', 'cometbft',
    '--data-dir', at(n.dataDir),
    '--cometbft-home', at(n.cometbftHome),
    '--rpc-port', String(n.rpcPort),
    '--ws-port', String(n.wsPort),
    '--explorer-port', String(n.explorerPort),
    ...extra,
  ];
}

/**
 * The systemd unit of a node of a network across machines: its folder copied to `remoteDir` on its
 * host, svc-node on the PATH (npm install -g). JSON-RPC, WebSocket and explorer stay on loopback
 * unless the operator adds --rpc-host 0.0.0.0 (docs/network.md).
 */
export function systemdUnit(n: TestnetNode, remoteDir: string): string {
  const args = [
    'start', '--network', 'devnet', '--consensus', 'cometbft',
    '--data-dir', path.posix.join(remoteDir, 'data'),
    '--cometbft-home', path.posix.join(remoteDir, 'cometbft'),
    '--rpc-port', String(n.rpcPort), '--ws-port', String(n.wsPort), '--explorer-port', String(n.explorerPort),
  ];
  return [
    '[Unit]',
    `Description=svc-node validator ${n.name} (${n.operator})`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=/usr/bin/env svc-node ${args.join(' ')}`,
    'Restart=on-failure',
    'RestartSec=5',
    // svc-node stops its CometBFT and closes the database on SIGTERM; give a block in flight time to commit.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=60',
    'LimitNOFILE=65536',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** Sets `key = value` in a section of a TOML file as CometBFT writes it ('' is the top level, before any section). */
export function setToml(text: string, section: string, key: string, value: string): string {
  const lines = text.split('\n');
  let current = '';
  for (let i = 0; i < lines.length; i++) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(lines[i]!);
    if (header) {
      current = header[1]!.trim();
      continue;
    }
    const kv = /^(\s*)([A-Za-z0-9_]+)\s*=/.exec(lines[i]!);
    if (kv && current === section && kv[2] === key) {
      lines[i] = `${kv[1]}${key} = ${value}`;
      return lines.join('\n');
    }
  }
  throw new TestnetError(`config.toml has no ${section ? `[${section}] ` : ''}${key}`);
}

/** The Ed25519 public key of a CometBFT key file: pub_key's value, or the last 32 bytes of priv_key's. */
function ed25519Public(file: string, field: 'pub_key' | 'priv_key'): Buffer {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { value?: string }>;
  const value = Buffer.from(doc[field]?.value ?? '', 'base64');
  if (field === 'pub_key' && value.length === 32) return value;
  if (field === 'priv_key' && value.length === 64) return value.subarray(32);
  throw new TestnetError(`${file}: not an Ed25519 key`);
}
