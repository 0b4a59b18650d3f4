// Configures CometBFT's [statesync] for a node that joins an existing network: the RPCs its light
// client reads headers from (witnesses) and a header it trusts. Without --state-sync-trust-height
// and --state-sync-trust-hash the trusted header is taken from the first RPC (as operators often do
// with curl): the node then trusts that RPC for where the chain is.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SvcError } from '../../errors.js';
import { setToml } from './testnet.js';

export class StateSyncConfigError extends SvcError {
  override readonly name = 'StateSyncConfigError';
  override readonly code = 'STATE_SYNC_CONFIG';
}

export interface StateSyncOptions {
  rpcServers: string[];
  trustHeight?: number;
  trustHash?: string;
}

/** A header of the RPC's chain to trust: `back` blocks below its latest (height ≥ 1). */
export async function trustedHeaderFrom(rpc: string, back: number): Promise<{ height: number; hash: string }> {
  const get = async (q: string) => {
    const res = await fetch(`${rpc.replace(/\/$/, '')}/${q}`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new StateSyncConfigError(`state sync RPC ${rpc}: ${q} answered HTTP ${res.status}`);
    return (await res.json()) as { result?: { block_id?: { hash?: string }; block?: { header?: { height?: string } } } };
  };
  let latest: Awaited<ReturnType<typeof get>>;
  try {
    latest = await get('block');
  } catch (err) {
    throw new StateSyncConfigError(`state sync RPC ${rpc} unreachable: ${(err as Error).message}`, { cause: err });
  }
  const top = Number(latest.result?.block?.header?.height);
  if (!Number.isSafeInteger(top) || top < 1) throw new StateSyncConfigError(`state sync RPC ${rpc}: no latest block`);
  const height = Math.max(1, top - back);
  const at = await get(`block?height=${height}`);
  const hash = at.result?.block_id?.hash;
  if (typeof hash !== 'string' || !/^[0-9A-Fa-f]{64}$/.test(hash)) throw new StateSyncConfigError(`state sync RPC ${rpc}: no hash of block ${height}`);
  return { height, hash: hash.toUpperCase() };
}

/** Writes [statesync] into the home's config.toml (CometBFT runs it only while it has no state). */
export async function configureStateSync(home: string, o: StateSyncOptions, snapshotInterval: number): Promise<{ height: number; hash: string }> {
  const trusted = o.trustHeight !== undefined && o.trustHash !== undefined ? { height: o.trustHeight, hash: o.trustHash } : await trustedHeaderFrom(o.rpcServers[0]!, Math.max(2, 2 * snapshotInterval));
  // The light client wants a primary and at least one witness: one RPC serves as both.
  const servers = o.rpcServers.length >= 2 ? o.rpcServers : [o.rpcServers[0]!, o.rpcServers[0]!];
  const file = path.join(home, 'config', 'config.toml');
  let toml = readFileSync(file, 'utf8');
  for (const [key, value] of [
    ['enable', 'true'],
    ['rpc_servers', `"${servers.join(',')}"`],
    ['trust_height', String(trusted.height)],
    ['trust_hash', `"${trusted.hash}"`],
    ['trust_period', '"168h0m0s"'],
    ['discovery_time', '"5s"'],
  ] as const) {
    toml = setToml(toml, 'statesync', key, value);
  }
  writeFileSync(file, toml);
  return trusted;
}
