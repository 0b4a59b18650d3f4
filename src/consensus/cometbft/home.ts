// A CometBFT home directory as the node reads it: the binary that runs it, its genesis (whose
// app_state is the node's genesis, so one file serves both), and the address of its RPC.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { SvcError } from '../../errors.js';

/** The CometBFT release the node speaks ABCI with (scripts/setup-cometbft.mjs installs it). */
export const COMETBFT_VERSION = '0.38.26';

export class CometHomeError extends SvcError {
  override readonly name = 'CometHomeError';
  override readonly code = 'COMETBFT_HOME';
}

/** The 20-byte address CometBFT gives an Ed25519 key (a validator's, a node's id): the first 20 bytes of its sha256. */
export function consensusAddress(publicKey: Buffer): Buffer {
  return createHash('sha256').update(publicKey).digest().subarray(0, 20);
}

/** The cometbft binary: $SVC_COMETBFT, the project's install (npm install), or one on PATH. */
export function cometbftBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_COMETBFT) return env.SVC_COMETBFT;
  const cache = env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node');
  const installed = path.join(cache, 'cometbft', `v${COMETBFT_VERSION}`, 'bin', 'cometbft');
  if (existsSync(installed)) return installed;
  const onPath = spawnSync('sh', ['-c', 'command -v cometbft'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() !== '') return onPath.stdout.trim();
  throw new CometHomeError(
    `no cometbft binary: in a clone run \`npm run setup:cometbft\` (installs CometBFT v${COMETBFT_VERSION} with Go into ${path.dirname(installed)}); ` +
      `with the npm package, \`GOBIN=${path.dirname(installed)} go install github.com/cometbft/cometbft/cmd/cometbft@v${COMETBFT_VERSION}\` (Go 1.22+); or put one on PATH, or set SVC_COMETBFT`,
  );
}

/** What the node reads of CometBFT's genesis.json. */
export interface CometGenesis {
  file: string;
  chainId: string;
  genesisTimeMs: number;
  /** The node's genesis document (format in src/chain/genesis.ts). */
  appState: unknown;
}

export function readCometGenesis(home: string): CometGenesis {
  const file = path.join(home, 'config', 'genesis.json');
  let doc: { chain_id?: unknown; genesis_time?: unknown; app_state?: unknown };
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as typeof doc;
  } catch (err) {
    throw new CometHomeError(`CometBFT genesis ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing (svc-node testnet init writes one)' : (err as Error).message}`);
  }
  if (typeof doc.chain_id !== 'string' || typeof doc.genesis_time !== 'string') throw new CometHomeError(`CometBFT genesis ${file}: chain_id and genesis_time are required`);
  if (doc.app_state === undefined || doc.app_state === null) throw new CometHomeError(`CometBFT genesis ${file}: app_state must hold the node's genesis`);
  return { file, chainId: doc.chain_id, genesisTimeMs: Date.parse(doc.genesis_time), appState: doc.app_state };
}

/** A key of a section of config.toml (CometBFT writes simple `key = value` lines). */
export function tomlValue(text: string, section: string, key: string): string | undefined {
  let current = '';
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      current = header[1]!.trim();
      continue;
    }
    const kv = /^\s*([A-Za-z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (kv && current === section && kv[1] === key) return kv[2]!.replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/** The RPC of the CometBFT in `home`: http://host:port of its config.toml's rpc.laddr, and its batch limit (rpc.max_request_batch_size). */
export function cometRpc(home: string): { url: string; maxBatch: number } {
  const text = readFileSync(path.join(home, 'config', 'config.toml'), 'utf8');
  const max = Number(tomlValue(text, 'rpc', 'max_request_batch_size') ?? '10');
  return { url: cometRpcUrl(home), maxBatch: Number.isSafeInteger(max) && max > 0 ? max : 10 };
}

/** http://host:port of the RPC of the CometBFT in `home` (its config.toml's rpc.laddr). */
export function cometRpcUrl(home: string): string {
  const file = path.join(home, 'config', 'config.toml');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CometHomeError(`CometBFT config ${file} is missing: initialize the home with svc-node testnet init or cometbft init`);
  }
  const laddr = tomlValue(text, 'rpc', 'laddr');
  const m = laddr === undefined ? null : /^tcp:\/\/([^:]+|\[[^\]]+\]):(\d+)$/.exec(laddr);
  if (!m) throw new CometHomeError(`CometBFT config ${file}: rpc.laddr "${laddr}" is not tcp://host:port`);
  const host = m[1] === '0.0.0.0' ? '127.0.0.1' : m[1];
  return `http://${host}:${m[2]}`;
}

/** The Ed25519 public key of the home's validator (config/priv_validator_key.json), if it has one. */
export function readValidatorKey(home: string): Buffer | undefined {
  const file = path.join(home, 'config', 'priv_validator_key.json');
  if (!existsSync(file)) return undefined;
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { pub_key?: { type?: string; value?: string } };
  if (doc.pub_key?.type !== 'tendermint/PubKeyEd25519' || typeof doc.pub_key.value !== 'string') {
    throw new CometHomeError(`${file}: the validator key is not an Ed25519 key`);
  }
  return Buffer.from(doc.pub_key.value, 'base64');
}

/** The home validator's Ed25519 key pair (config/priv_validator_key.json): the public key and the private key as a KeyObject (never logged). */
export interface ValidatorSigningKey {
  publicKey: Buffer;
  privateKey: KeyObject;
}

/**
 * The home validator's signing key, if it has one: CometBFT keeps `priv_key.value` as base64 of the
 * 32-byte seed followed by the 32-byte public key. The node signs its compute-mode announcements
 * with it.
 */
export function readValidatorSigningKey(home: string): ValidatorSigningKey | undefined {
  const file = path.join(home, 'config', 'priv_validator_key.json');
  if (!existsSync(file)) return undefined;
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { pub_key?: { type?: string; value?: string }; priv_key?: { type?: string; value?: string } };
  const publicKey = readValidatorKey(home)!;
  if (doc.priv_key?.type !== 'tendermint/PrivKeyEd25519' || typeof doc.priv_key.value !== 'string') {
    throw new CometHomeError(`${file}: the validator's private key is not an Ed25519 key`);
  }
  const raw = Buffer.from(doc.priv_key.value, 'base64');
  if (raw.length !== 64 || publicKey.length !== 32) throw new CometHomeError(`${file}: an Ed25519 private key is 64 bytes (seed and public key), its public key 32`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: raw.subarray(0, 32).toString('base64url'), x: publicKey.toString('base64url') }, format: 'jwk' });
  } catch {
    throw new CometHomeError(`${file}: the validator's private key cannot be read as an Ed25519 key`);
  }
  const derived = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x ?? '', 'base64url');
  if (!derived.equals(publicKey)) throw new CometHomeError(`${file}: the private key does not belong to pub_key`);
  return { publicKey, privateKey };
}
