// Node configuration, as resolved from flags and SVC_* environment variables by the CLI.
import type { FaucetKey } from './chain/faucet-key.js';
import type { BridgeConfig } from './modules/bridge/types.js';
import type { ComputeModeSetting, NetworkName } from './params.js';

export interface NodeConfig {
  network: NetworkName;
  chainId: number;
  dataDir: string;
  rpcHost: string;
  rpcPort: number;
  wsPort: number;
  explorerPort: number;
  blockTimeMs: number;
  logLevel: string;
  /** Per-IP request rate limit of the public RPC (requests per second); 0 disables it. */
  rpcRateLimit: number;
  /** Exempt loopback clients from the rate limit (devnet default). */
  rateLimitExemptLoopback: boolean;
  /** Gas cap of eth_call and its kin and of a whole eth_simulateV1; 0 = none (default params.rpc.gasCap). */
  rpcGasCap?: number;
  /** How long those may run, in ms; 0 = no limit (default params.rpc.evmTimeoutMs). */
  rpcEvmTimeoutMs?: number;
  /** Most bytes of one JSON-RPC reply; 0 = no limit (default params.rpc.maxResponseBytes). */
  rpcMaxResponseBytes?: number;
  /** A request's headers and body must arrive within this many ms on every port (default params.http.readTimeoutMs). */
  httpReadTimeoutMs?: number;
  /** A connection whose client takes none of the data waiting for it for this many ms is closed (default params.http.writeTimeoutMs). */
  httpWriteTimeoutMs?: number;
  /** Idle kept-alive HTTP connections are closed after this many ms (default params.http.idleTimeoutMs). */
  httpIdleTimeoutMs?: number;
  /** Connections one client address may hold open on one port; 0 = no cap (default params.http.maxConnectionsPerIp). */
  maxConnectionsPerIp?: number;
  /** Reverse proxies (addresses, CIDR ranges) whose X-Forwarded-For/-Proto count on the explorer and WebSocket ports (--trust-proxy); none by default. */
  trustProxy?: string[];
  /**
   * What makes the blocks: `solo` (one in-process validator on a slot timer, the default) or
   * `cometbft` (the node is an ABCI 2.0 application behind a CometBFT process: a network of validators).
   */
  consensus?: 'solo' | 'cometbft';
  /** CometBFT's home directory (config/, data/) for --consensus cometbft; default <dataDir>/cometbft. */
  cometbftHome?: string;
  /**
   * Where the ABCI server listens (tcp://host:port or unix://path). When given, the node does not
   * run CometBFT itself: one started separately with this --proxy_app connects to it.
   */
  abciAddr?: string;
  /** --consensus cometbft: blocks between state sync snapshots (0: none; default 1000). */
  snapshotInterval?: number;
  /** State sync snapshots kept (default 2). */
  snapshotKeep?: number;
  /** Join an existing network by state sync when the node is empty: CometBFT RPCs and a trusted header (taken from the first RPC when absent). */
  stateSync?: { rpcServers: string[]; trustHeight?: number; trustHash?: string };
  /** Genesis file (JSON, format in src/chain/genesis.ts); required on mainnet, replaces the built-in genesis elsewhere. */
  genesisFile?: string;
  /** Block coinbase of the solo driver (0x address) and the built-in testnet's genesis validator; devnet defaults to dev account 0, testnet and mainnet need it. */
  validatorAddress?: string;
  /** Testnet faucet key (--faucet-key-file or SVC_FAUCET_PRIVATE_KEY); without it a testnet node serves no faucet. Never printed. */
  faucetKey?: FaucetKey;
  /** The key the ERC-4337 bundler signs handleOps bundles with (--bundler-key-file or SVC_BUNDLER_PRIVATE_KEY); devnet defaults to its dev bundler account. Never printed. */
  bundlerKey?: FaucetKey;
  /** The bridge's external chain, watched for deposits and releases (--bridge-rpc). */
  bridgeRpc?: string;
  /** SvcBridge's address on the external chain (lowercase): devnet puts it in its built-in genesis; elsewhere it must be the genesis's. */
  bridgeContract?: string;
  /** devnet: confirmations and the contract's deployment block for the built-in genesis's bridge. */
  bridgeConfirmations?: number;
  bridgeFromBlock?: number;
  /** This validator's operator key, which attests bridge deposits and signs withdrawals (--bridge-key-file or SVC_BRIDGE_PRIVATE_KEY); devnet defaults to dev account 0. Never printed. */
  bridgeKey?: FaucetKey;
  /** Whether the node relays ready withdrawals to the external contract (default true). */
  bridgeRelay?: boolean;
  /** devnet: the bridge startNode put in the built-in genesis (from the flags and the external chain's id). */
  devnetBridge?: BridgeConfig;
  /** Testnet faucet address funded by the built-in genesis, for nodes that do not hold its key (default: the key's address). */
  faucetAddress?: string;
  /** Compute mode (spec: pow by default; auto = inference when a supported model loads, else pow). */
  computeMode?: ComputeModeSetting;
  /** Inference backend of the node's models (spec SVC_INFERENCE_BACKEND). */
  inferenceBackend?: 'cpu' | 'cuda' | 'metal' | 'auto';
  /** Model cache directory (spec SVC_MODEL_DIR, default /models). */
  modelDir?: string;
  /** Approved models the node loads in inference mode (default: every approved model with pinned files). */
  models?: string[];
  /** Threads of the proof-of-work search in pow mode. */
  powThreads?: number;
  /** Share of miners' proofs re-executed before this node accepts them, basis points (--proof-precheck-rate; default params.proofPrecheck.rateBps). */
  proofPrecheckBps?: number;
}
