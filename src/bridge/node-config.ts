// How a node's configuration meets the chain's bridge: the devnet's built-in genesis takes its
// bridge from the flags (and the chain id the external RPC answers), a node's --bridge-contract must
// be the chain's, and the key a validator attests and signs with.
import { createPublicClient, http, type Hex } from 'viem';
import type { NodeConfig } from '../config.js';
import { devAccounts } from '../chain/dev-accounts.js';
import type { GenesisBridge } from '../chain/genesis.js';
import { SvcError } from '../errors.js';
import type { BridgeConfig } from '../modules/bridge/types.js';
import { bridge as params } from '../params.js';

/** Raised for a bridge configuration the node cannot run with (exit 2 from the CLI). */
export class BridgeConfigError extends SvcError {
  override readonly name = 'BridgeConfigError';
  override readonly code = 'BRIDGE_CONFIG';
}

/** The devnet genesis's bridge: --bridge-contract, --bridge-confirmations, --bridge-from-block and the chain id --bridge-rpc serves. */
export async function devnetBridgeGenesis(config: Pick<NodeConfig, 'bridgeRpc' | 'bridgeContract' | 'bridgeConfirmations' | 'bridgeFromBlock' | 'chainId'>): Promise<GenesisBridge> {
  if (!config.bridgeRpc) throw new BridgeConfigError('--bridge-contract on the devnet needs --bridge-rpc: the genesis records the external chain id it serves');
  let chainId: number;
  try {
    chainId = await createPublicClient({ transport: http(config.bridgeRpc, { retryCount: 1, timeout: 10_000 }) }).getChainId();
  } catch (err) {
    throw new BridgeConfigError(`--bridge-rpc ${config.bridgeRpc} did not answer eth_chainId: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  if (chainId === config.chainId) throw new BridgeConfigError(`--bridge-rpc serves chain ${chainId}, this chain's own id: the bridge connects to another chain`);
  return {
    chainId,
    contract: config.bridgeContract!.toLowerCase() as `0x${string}`,
    confirmations: config.bridgeConfirmations ?? params.defaultConfirmations,
    fromBlock: config.bridgeFromBlock ?? 0,
  };
}

/** A node whose --bridge-contract is not the chain's bridge (or which names one on a chain without) does not start. */
export function refuseOtherBridge(config: Pick<NodeConfig, 'bridgeContract' | 'bridgeRpc'>, chain: BridgeConfig | null): void {
  if (config.bridgeContract !== undefined) {
    if (!chain) throw new BridgeConfigError(`--bridge-contract ${config.bridgeContract}: this chain has no bridge in its genesis`);
    if (chain.contract !== config.bridgeContract.toLowerCase()) {
      throw new BridgeConfigError(`--bridge-contract ${config.bridgeContract} is not this chain's bridge contract (${chain.contract} on chain ${chain.chainId})`);
    }
  }
  if (config.bridgeRpc !== undefined && !chain) throw new BridgeConfigError('--bridge-rpc: this chain has no bridge in its genesis (devnet: add --bridge-contract)');
}

/** The key this node attests and signs with: --bridge-key-file / SVC_BRIDGE_PRIVATE_KEY, else on the devnet the dev account that is its validator (dev account 0 solo; account i on a local CometBFT testnet). */
export function bridgeOperatorKey(config: Pick<NodeConfig, 'network' | 'genesisFile' | 'bridgeKey'>, validator: Buffer): Hex | undefined {
  if (config.bridgeKey) {
    if (!config.bridgeKey.addressBytes.equals(validator)) {
      throw new BridgeConfigError(`the bridge key's address ${config.bridgeKey.address} is not this node's validator 0x${validator.toString('hex')}: attestations come from the validator's operator`);
    }
    return config.bridgeKey.privateKey();
  }
  if (config.network === 'devnet' && !config.genesisFile) return devAccounts().find((a) => a.addressBytes.equals(validator))?.privateKey;
  return undefined;
}
