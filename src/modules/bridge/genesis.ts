// The bridge's part of the genesis (docs/bridge.md): the genesis file's "bridge" (the external
// chain, SvcBridge's address there, confirmations, its deployment block) and its checks, and what
// the module starts from: that chain and the genesis validators as the contract's first set.
import { bridge as params } from '../../params.js';
import { toAddress } from '../kernel/module.js';
import type { BridgeConfig, BridgeValset } from './types.js';

/** What the genesis gives the bridge: the external chain, and the set its contract was deployed with. */
export interface BridgeGenesis {
  config: BridgeConfig;
  valset: BridgeValset;
  /** The chain id of svc (the contract's svcChainId). */
  svcChainId: number;
}

/** How the genesis reader refuses a field and reads an address (its own messages, so every field's error reads alike). */
export interface GenesisReader {
  fail(reason: string): never;
  address(v: unknown, field: string): Buffer;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A genesis file's "bridge", checked: whole numbers, a contract address, another chain than this one. */
export function parseBridgeGenesis(value: unknown, svcChainId: number, read: GenesisReader): BridgeConfig {
  const fail = (reason: string): never => read.fail(reason);
  if (!isObject(value)) return fail('"bridge" must be an object');
  for (const key of Object.keys(value)) if (!['chainId', 'contract', 'confirmations', 'fromBlock'].includes(key)) fail(`bridge: unknown field "${key}"`);
  const whole = (v: unknown, field: string, min: number): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) fail(`bridge.${field} must be a whole number of at least ${min}`);
    return v as number;
  };
  const chainId = whole(value.chainId, 'chainId', 1);
  if (chainId === svcChainId) fail(`bridge.chainId is this chain's own id (${svcChainId}): the bridge connects to another chain`);
  return {
    chainId,
    contract: `0x${read.address(value.contract, 'bridge.contract').toString('hex')}`,
    confirmations: value.confirmations === undefined ? params.defaultConfirmations : whole(value.confirmations, 'confirmations', 1),
    fromBlock: value.fromBlock === undefined ? 0 : whole(value.fromBlock, 'fromBlock', 0),
  };
}

/** The bridge's genesis: the external chain, and the genesis validators (ascending, powers their self stakes) as the contract's first set. */
export function bridgeGenesis(config: BridgeConfig, validators: readonly { operator: Buffer; selfStake: bigint }[], svcChainId: number): BridgeGenesis {
  const set = [...validators].map((v) => ({ address: toAddress(v.operator), power: v.selfStake })).sort((x, y) => (x.address < y.address ? -1 : 1));
  return {
    config: { chainId: config.chainId, contract: config.contract.toLowerCase() as `0x${string}`, confirmations: config.confirmations, fromBlock: config.fromBlock },
    valset: { nonce: 0, validators: set.map((v) => v.address), powers: set.map((v) => v.power) },
    svcChainId,
  };
}

/** The module's external chain as the genesis file's "bridge" (Cosmos' ExportGenesis); none when the bridge is inactive. parseBridgeGenesis reads it back. */
export function exportGenesis(config: BridgeConfig | null): BridgeConfig | undefined {
  return config === null ? undefined : { chainId: config.chainId, contract: config.contract, confirmations: config.confirmations, fromBlock: config.fromBlock };
}
