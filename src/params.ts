// One source of truth for the protocol's and the node's limits, fees and constants.
// Every other module reads these; none repeats a number.

export type NetworkName = 'devnet' | 'testnet' | 'mainnet';

/** Chain ids. The spec gives 9000 for the test network; devnet shares it so dev tools just work. */
export const CHAIN_ID: Record<NetworkName, number> = {
  devnet: 9000,
  testnet: 9000,
  mainnet: 9001,
};

export const CLIENT_NAME = 'svc-node';

export const chain = {
  /** Block gas limit: sized for thousands of ERC-20 transfers per 1 s block. */
  blockGasLimit: 300_000_000,
  /** Base fee of the genesis block (1 gwei, as geth's dev mode). */
  genesisBaseFeePerGas: 1_000_000_000n,
  /** Default block time of the solo driver. */
  defaultBlockTimeMs: 1000,
  /** Longest block time the solo driver accepts (the largest delay a Node.js timer takes). */
  maxBlockTimeMs: 2_147_483_647,
  /** Genesis timestamps: fixed so that every start of a network yields the same genesis hash. */
  genesisTimestamp: { devnet: 1_735_689_600, testnet: 1_751_328_000 } as Record<'devnet' | 'testnet', number>,
  /** Derivation path prefix of the dev accounts (account i is `${devDerivationPath}${i}`). */
  devDerivationPath: "m/44'/60'/0'/0/",
  /** Most transactions a block builder takes from the pool per block. */
  maxTxsPerBlock: 10_000,
  /** Devnet accounts are funded with 10,000 ether each, as Hardhat and anvil do. */
  devAccountBalance: 10_000n * 10n ** 18n,
  devMnemonic: 'test test test test test test test test test test test junk',
  devAccountCount: 10,
  multicall3Address: '0xcA11bde05977b3631167028862bE2a173976CA11',
} as const;

export const mempool = {
  /** Transactions held in total (pending + queued). */
  globalSlots: 50_000,
  /** Transactions held per sender. */
  accountSlots: 2_000,
  /** Nonce gap a queued transaction may have over the sender's pending nonce. */
  maxNonceGap: 64n,
  /** Replacement needs at least this fee bump, in percent (geth's PriceBump). */
  priceBumpPercent: 10n,
  /** Largest raw transaction accepted (geth's txMaxSize: 4 slots of 32 KiB). */
  maxTxSizeBytes: 128 * 1024,
  /** Queued transactions older than this are dropped (wall-clock pool housekeeping, not consensus). */
  queuedLifetimeMs: 3 * 60 * 60 * 1000,
  /** How often the pool looks for queued transactions past their lifetime. */
  queuedSweepIntervalMs: 60 * 1000,
} as const;

export const rpc = {
  defaultHost: '127.0.0.1',
  defaultPort: 8545,
  defaultWsPort: 8546,
  defaultExplorerPort: 8080,
  /** Request body cap: larger bodies get HTTP 413. */
  maxBodyBytes: 5 * 1024 * 1024,
  /** Bytes of a refused (oversized) body read and discarded so the 413 reaches the client. */
  maxDiscardBytes: 64 * 1024 * 1024,
  /** Longest wait for the rest of a refused body before answering 413 and closing. */
  discardTimeoutMs: 2_000,
  /** Items per JSON-RPC batch. */
  maxBatchItems: 1000,
  /** Response size cap for a batch (geth's BatchResponseMaxSize: 25 MB). */
  maxBatchResponseBytes: 25 * 1000 * 1000,
  /** Public rate limit per IP (spec: 100 requests per second). */
  rateLimitPerSecond: 100,
  /** eth_getLogs: widest block range and most logs in one answer. */
  maxLogBlockRange: 10_000,
  maxLogResults: 10_000,
  /** Filters not polled for this long are removed (geth: 5 minutes). */
  filterTimeoutMs: 5 * 60 * 1000,
  /** Gas cap for eth_call and eth_estimateGas (geth's RPCGasCap). */
  gasCap: 50_000_000,
  /** eth_feeHistory: most blocks per request (geth: 1024) and most percentiles (geth: 100). */
  maxFeeHistoryBlocks: 1024,
  maxFeeHistoryPercentiles: 100,
  /** Suggested priority fee when recent blocks had no transactions (geth's default 1 gwei tip, devnet: 1 gwei). */
  defaultPriorityFee: 1_000_000_000n,
  /** Blocks and percentile read by the gas price oracle (geth: 20 blocks, 60th percentile). */
  gasPriceOracleBlocks: 20,
  gasPriceOraclePercentile: 60,
  /** Filters installed at once (eth_newFilter and friends), over all clients. */
  maxFilters: 10_000,
  /** Items a filter buffers between polls; the oldest are dropped beyond it. */
  maxFilterBufferItems: 10_000,
  /** Idle keep-alive connections are closed after this long (geth's HTTP idle timeout: 120 s). */
  httpKeepAliveMs: 120_000,
  /** How long browsers may cache a CORS preflight answer. */
  corsMaxAgeSeconds: 600,
} as const;

/** JSON-RPC error codes (spec table, plus geth's 3 for reverts). */
export const rpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverError: -32000,
  resourceNotFound: -32001,
  resourceUnavailable: -32002,
  transactionRejected: -32003,
  methodNotSupported: -32004,
  limitExceeded: -32005,
  executionReverted: 3,
} as const;

export const logging = {
  /** Log output held while stdout cannot take it; beyond this, lines are dropped rather than stalling the node. */
  maxBufferedBytes: 16 * 1024 * 1024,
  /** On shutdown, how long buffered log lines may take to reach stdout before they are dropped. */
  closeTimeoutMs: 2000,
} as const;
