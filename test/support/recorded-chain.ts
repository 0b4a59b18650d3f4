// The recorded chain (test/fixtures/recorded-chain/): a devnet chain on which every module acted,
// kept as its data dir's chain database, with the hash and state root of every block. Its replay
// with the current code must reach the same roots: no refactor may change a consensus rule
// unnoticed. The parameters it was made with are here, shared by the recorder (record-chain.ts,
// which regenerates the fixture) and the test (recorded-chain.test.ts) that replays it.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { GenesisBridge, NetworkGenesis } from '../../src/chain/genesis.js';
import { resolveNetworkGenesis } from '../../src/chain/genesis.js';
import {
  CHAIN_ID,
  compute as defaultCompute,
  governance as defaultGovernance,
  rent as defaultRent,
  staking as defaultStaking,
  type ComputeParams,
  type GovernanceParams,
  type RentParams,
  type StakingParams,
} from '../../src/params.js';
import { repoRoot } from './repo.js';

/** Short periods so that every module's flow completes within a minute of 200 ms blocks. */
export const STAKING: StakingParams = {
  ...defaultStaking,
  epochLengthBlocks: 10,
  signedBlocksWindow: 20,
  unbondingPeriodSeconds: 5,
  downtimeJailSeconds: 3,
};
export const GOVERNANCE: GovernanceParams = { ...defaultGovernance, votingPeriodSeconds: 4, depositPeriodSeconds: 6 };
/** rent.test.ts's rules: 100 uncovered slots pass the owed limit within an epoch and go dormant three idle epochs later. */
export const RENT: RentParams = {
  ...defaultRent,
  depositPerSlot: 1_000_000_000_000n,
  rentPerSlotPerEpoch: 1_000_000n,
  dormancyOwedLimit: 50_000_000n,
  dormancyEpochs: 3,
  reactivationFee: 1_000_000_000_000_000n,
};
/** A share target one search thread meets a few times a block. */
export const COMPUTE: ComputeParams = { ...defaultCompute, shareDifficulty: 1n << 21n };

export const CHAIN = CHAIN_ID.devnet;

/** Where the fixture lives: the chain database (packed) and what every block must be. */
export const fixtureDir = (): string => path.join(repoRoot(), 'test', 'fixtures', 'recorded-chain');
export const ARCHIVE = 'chain.bin.gz';
export const EXPECTED = 'expected.json';

export interface RecordedBlock {
  height: number;
  hash: string;
  stateRoot: string;
}

export interface Expected {
  /** What was done on the chain, for a reader of the fixture. */
  activity: string[];
  /** The blocks' transactions, and their system messages by module and kind. */
  contents: Record<string, number>;
  /** The devnet genesis's bridge (its external chain id and contract), as the node's flags made it. */
  bridge: GenesisBridge;
  blocks: RecordedBlock[];
}

/** The genesis the recorded chain was started with: the devnet's built-in one with its bridge. */
export function recordedGenesis(bridge: GenesisBridge): NetworkGenesis {
  return resolveNetworkGenesis({ network: 'devnet', chainId: CHAIN, devnetBridge: bridge });
}

/**
 * Packs the files of `dir` (relative paths, sorted) into one gzip: for each, a line with its path and
 * byte length, then its bytes.
 */
export function pack(dir: string): Buffer {
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const p = path.join(rel, name);
      if (statSync(path.join(dir, p)).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk('');
  const parts: Buffer[] = [];
  for (const f of files) {
    const data = readFileSync(path.join(dir, f));
    parts.push(Buffer.from(`${f.split(path.sep).join('/')} ${data.length}\n`, 'utf8'), data);
  }
  return gzipSync(Buffer.concat(parts), { level: 9 });
}

/** Unpacks what pack made into `dir`. */
export function unpack(archive: Buffer, dir: string): void {
  const raw = gunzipSync(archive);
  let at = 0;
  while (at < raw.length) {
    const eol = raw.indexOf(0x0a, at);
    const header = raw.subarray(at, eol).toString('utf8');
    const space = header.lastIndexOf(' ');
    const name = header.slice(0, space);
    const size = Number(header.slice(space + 1));
    if (!name || name.split('/').includes('..') || !Number.isSafeInteger(size)) throw new Error(`bad archive entry "${header}"`);
    const file = path.join(dir, ...name.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, raw.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size;
  }
}
