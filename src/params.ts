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
  /** Accounts of the dev mnemonic that testnet and mainnet refuse to fund or take as validator/faucet: Hardhat prints 20 (anvil 10), plus the devnet faucet's. */
  publicDevAccountsChecked: 20,
  /** The built-in testnet funds its genesis validator (--validator-address) with this, for the gas of its staking transactions. */
  testnetValidatorBalance: 10_000n * 10n ** 18n,
  multicall3Address: '0xcA11bde05977b3631167028862bE2a173976CA11',
} as const;

/** Block production's health: when the head counts as stale, and how a failed block is retried. */
export const production = {
  /** The head is stale (readiness and /health fail) once no block was committed for this many block times... */
  staleBlockTimes: 3,
  /** ...and never sooner than this, so that one slow block at a short block time does not flap readiness. */
  staleFloorMs: 2_000,
  /** A failed block is retried after one block time, doubling per failure up to this (or the block time, if longer). */
  retryMaxMs: 5_000,
} as const;

/** Age of the head (ms since the last committed block, or since start) beyond which the node is not ready. */
export function staleHeadAfterMs(blockTimeMs: number): number {
  return Math.max(production.staleBlockTimes * blockTimeMs, production.staleFloorMs);
}

/** Wait before the next attempt after `failures` consecutive failed blocks (1 for the first). */
export function productionRetryMs(blockTimeMs: number, failures: number): number {
  const cap = Math.max(production.retryMaxMs, blockTimeMs);
  return Math.min(cap, blockTimeMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

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
  /** The pool journal's file in the data dir (docs/architecture.md, "The pool journal"). */
  journalFile: 'transactions.journal',
  /** The journal is rewritten with only the pool's transactions every this many blocks (when it changed)... */
  journalCompactBlocks: 64,
  /** ...or at the next block once this much was appended since the last rewrite and more than that rewrite wrote. */
  journalCompactBytes: 16 * 1024 * 1024,
  /** While appends fail, a rewrite is tried after a block at most this often, to see whether the disk takes writes again. */
  journalProbeMs: 1_000,
} as const;

/**
 * Connections of every listener (JSON-RPC HTTP and WebSocket, the explorer), after geth's HTTP
 * timeouts; docs/rpc.md, "Connections and timeouts". Flags --http-read-timeout-ms,
 * --http-write-timeout-ms, --http-idle-timeout-ms and --max-connections-per-ip override them.
 */
export const http = {
  /** A request's headers and body must arrive within this (geth's ReadTimeout); else 408 and the connection is closed. */
  readTimeoutMs: 30_000,
  /** A connection whose client takes none of the data waiting for it for this long is closed (geth's WriteTimeout). */
  writeTimeoutMs: 30_000,
  /** Kept-alive connections idle this long are closed (geth's IdleTimeout: 120 s). */
  idleTimeoutMs: 120_000,
  /** Connections one client address (IPv6: its /64) may hold open on one port; more are refused with HTTP 429. */
  maxConnectionsPerIp: 64,
} as const;

export const rpc = {
  defaultHost: '127.0.0.1',
  defaultPort: 8545,
  defaultWsPort: 8546,
  defaultExplorerPort: 8080,
  /** Bodies larger than this are parsed after the I/O already pending, one event-loop turn later. */
  deferParseBytes: 64 * 1024,
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
  /** eth_getProof: most storage keys in one request (geth has no limit; each key is a trie walk). */
  maxProofStorageKeys: 1000,
  /** eth_getStorageValues: most slots over all addresses of one request (geth's maxGetStorageSlots). */
  maxStorageValuesSlots: 1024,
  /** eth_sendRawTransactionSync: the wait for the receipt when the call names none, and the longest it may name (geth's RPCTxSyncDefaultTimeout and RPCTxSyncMaxTimeout). */
  txSyncDefaultTimeoutMs: 20_000,
  txSyncMaxTimeoutMs: 60_000,
  /** State overrides of eth_call / eth_estimateGas / eth_createAccessList: most accounts, and most slots per account. */
  maxOverrideAccounts: 1000,
  maxOverrideSlots: 10_000,
  /** eth_getLogs: widest block range and most logs in one answer. */
  maxLogBlockRange: 10_000,
  maxLogResults: 10_000,
  /**
   * eth_getUserOperationByHash / eth_getUserOperationReceipt look for the UserOperationEvent this many blocks back
   * from the head at most, newest first, maxLogBlockRange blocks per native log query (as Rundler's
   * user_operation_event_block_distance).
   */
  userOperationLookbackBlocks: 100_000,
  /** A log filter's addresses, and topics at one position, over HTTP and WebSocket alike (geth's maxAddresses and maxSubTopics). */
  maxLogFilterAddresses: 1000,
  maxLogFilterTopicsPerPosition: 1000,
  /** trace_filter: most blocks one request covers (reth's default --rpc.max-trace-filter-blocks) and most traces it answers (`count`). */
  maxTraceFilterBlocks: 100,
  maxTraceFilterCount: 1000,
  /** ots_getBlockTransactions and ots_searchTransactions*: most transactions one page may ask for. */
  maxOtsPageSize: 1000,
  /**
   * Native worker lanes for heavy reads (block production has a thread of its own): eth_call and eth_estimateGas share
   * `exec`, eth_getLogs uses `logs`. A request that finds `maxWaiting` requests queued is answered -32005 at once.
   * Threads 0 = the core's default (exec: cores - 1, logs: cores / 2, at least 1).
   */
  lanes: { exec: { threads: 0, maxWaiting: 128 }, logs: { threads: 0, maxWaiting: 32 } },
  /** Filters not polled for this long are removed (geth: 5 minutes). */
  filterTimeoutMs: 5 * 60 * 1000,
  /**
   * Gas cap (geth's RPCGasCap, `--rpc-gas-cap`; 0 = none) of eth_call, eth_estimateGas, eth_createAccessList and
   * debug_traceCall, and of a whole eth_simulateV1 (all its calls share it).
   */
  gasCap: 50_000_000,
  /** How long those may run before they are stopped with geth's "execution aborted (timeout = 5s)" (geth's RPCEVMTimeout, `--rpc-evm-timeout-ms`; 0 = none). */
  evmTimeoutMs: 5_000,
  /**
   * Most bytes of one reply (`--rpc-max-response-bytes`): past it the request gets -32000 "response too large".
   * Traces, simulations and logs are written natively as bytes and stop at it before more memory is spent.
   */
  maxResponseBytes: 100 * 1024 * 1024,
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
  /** EIP-7966: eth_sendRawTransactionSync's wait ended before the transaction was in a block (geth's errCodeTxSyncTimeout). */
  transactionSyncTimeout: 4,
  /** ERC-7769 (bundler): refused by the EntryPoint's validation (account, factory, nonce, prefund). */
  userOperationRejected: -32500,
  /** ERC-7769: refused by the paymaster's validatePaymasterUserOp. */
  paymasterRejected: -32501,
  /** ERC-7769: an ERC-7562 opcode or storage rule broken during validation. */
  opcodeValidation: -32502,
  /** ERC-7769: expired, expiring within the margin, or not yet valid. */
  outOfTimeRange: -32503,
  /** ERC-7769: a paymaster, factory or aggregator throttled or banned by reputation (or over its pool share). */
  entityThrottled: -32504,
  /** ERC-7769: an entity's stake or unstake delay below the minimum for what it did. */
  stakeTooLow: -32505,
  /** ERC-7769: an account that names a signature aggregator (not supported by this bundler). */
  unsupportedAggregator: -32506,
  /** ERC-7769: the account's (or paymaster's) signature check failed. */
  signatureFailed: -32507,
  /** ERC-7769: execution would revert (gas estimation). */
  userOperationExecutionReverted: -32521,
} as const;

export const logging = {
  /** Log output held while stdout cannot take it; beyond this, lines are dropped rather than stalling the node. */
  maxBufferedBytes: 16 * 1024 * 1024,
  /** On shutdown, how long buffered log lines may take to reach stdout before they are dropped. */
  closeTimeoutMs: 2000,
} as const;

/**
 * Proof-of-stake rules (Cosmos SDK x/staking, x/distribution, x/slashing semantics). The staking
 * ledger takes them as an object so that a network can override them; `staking` holds the devnet values.
 * Fractions are integer basis points (10000 = 100%), times are block timestamps in seconds.
 */
export interface StakingParams {
  readonly unbondingPeriodSeconds: number;
  readonly maxUnbondingEntries: number;
  readonly minSelfStake: bigint;
  readonly minDelegation: bigint;
  readonly maxValidators: number;
  readonly powerReduction: bigint;
  readonly maxCommissionBps: number;
  readonly commissionChangeIntervalSeconds: number;
  readonly epochLengthBlocks: number;
  /** Set by governance when it changes epochLengthBlocks: the first block and number of the epoch the new length runs from. */
  readonly epochAnchor?: { readonly height: number; readonly epoch: number };
  readonly signedBlocksWindow: number;
  readonly minSignedPerWindowBps: number;
  readonly downtimeJailSeconds: number;
  readonly downtimeSlashBps: number;
  readonly spotCheckSlashBps: number;
  readonly spotCheckJailSeconds: number;
  /** Stake burned when a validator's consensus key signs two blocks at one height (CometBFT duplicate-vote evidence); it is then banned for good. */
  readonly doubleSignSlashBps: number;
  readonly blockReward: bigint;
  readonly treasuryShareBps: number;
  /** Base share of each block reward paid to inference miners (spec: 15%); it grows with the active miners (inferenceMinersShareBps() in modules/staking/rewards.ts). */
  readonly inferenceMinersShareBps: number;
  /** Active miners (an accepted proof in the score window, not jailed) the base share covers; each one more adds inferenceMinersShareStepBps. */
  readonly inferenceMinersShareBaseMiners: number;
  readonly inferenceMinersShareStepBps: number;
  /** Cap of the grown share (governable: a parameter of the chain, like every share here). */
  readonly inferenceMinersShareMaxBps: number;
  readonly rewardMultiplierMinBps: number;
  readonly rewardMultiplierMaxBps: number;
  readonly targetStakeRatioBps: number;
  readonly scoreWeightsBps: {
    readonly staking: number;
    readonly compute: number;
    readonly uptime: number;
    readonly accuracy: number;
    readonly network: number;
  };
  /** Gas each module function costs on top of the transaction's intrinsic gas. */
  readonly gas: {
    readonly registerValidator: number;
    readonly delegate: number;
    readonly undelegate: number;
    readonly withdraw: number;
    readonly claimRewards: number;
    readonly editCommission: number;
    readonly unjail: number;
    /** Every read function (getValidator, getDelegation, getStakeInfo). */
    readonly view: number;
  };
}

export const staking = {
  /** Undelegated stake stays slashable this long; devnet: 60 s so flows can be tried by hand (mainnet would use 21 days, Cosmos' default). */
  unbondingPeriodSeconds: 60,
  /** Pending unbondings per (delegator, validator) pair, bounding the work a slash does (Cosmos MaxEntries). */
  maxUnbondingEntries: 7,
  /** An operator's own stake at risk: below it the validator is jailed and cannot unjail (1 token). */
  minSelfStake: 10n ** 18n,
  /** Smallest delegation; 1 wei keeps devnet flows open while refusing zero-value spam. */
  minDelegation: 1n,
  /** Size of the active set chosen at each epoch end (Cosmos default MaxValidators). */
  maxValidators: 100,
  /** Tokens per unit of consensus voting power, so total power fits CometBFT's int64 (Cosmos PowerReduction). */
  powerReduction: 10n ** 18n,
  /** Commission can never exceed 100% of a validator's rewards. */
  maxCommissionBps: 10_000,
  /** A validator may change its commission at most once per day (Cosmos rule). */
  commissionChangeIntervalSeconds: 86_400,
  /** Blocks per epoch: the active set and voting power change only at epoch ends; short on devnet. */
  epochLengthBlocks: 10,
  /** Blocks over which liveness is judged (Cosmos: 10000; scaled down for a devnet). A chain parameter: the genesis may set it, governance may change it. */
  signedBlocksWindow: 100,
  /** Share of the window a validator must sign to avoid a downtime penalty (Cosmos: 50%); missing more than window minus that is downtime. Genesis and governance, like the window. */
  minSignedPerWindowBps: 5_000,
  /** Jail time for downtime (Cosmos: 600 s; devnet: 60 s). */
  downtimeJailSeconds: 60,
  /** Stake burned for downtime (Cosmos: 0.01%). */
  downtimeSlashBps: 1,
  /** Spot-check failure burns 5% of stake (spec: "5% stake slash and 6-hour jail"). */
  spotCheckSlashBps: 500,
  /** Spot-check failure jails for 6 hours (spec). */
  spotCheckJailSeconds: 6 * 3600,
  /** Double signing burns 5% of stake and bans the validator for good (Cosmos SlashFractionDoubleSign, tombstoning). */
  doubleSignSlashBps: 500,
  /** Base block reward before the stake-ratio multiplier (2 tokens). */
  blockReward: 2n * 10n ** 18n,
  /** Part of each block reward sent to the treasury (10%). */
  treasuryShareBps: 1_000,
  /** Part of each block reward paid to proof-submitting inference miners (spec: 15%) with up to 10 active miners... */
  inferenceMinersShareBps: 1_500,
  inferenceMinersShareBaseMiners: 10,
  /** ...plus 0.5 percentage points per active miner beyond them (spec: "a larger number of active miners enlarges the inference miner pool share")... */
  inferenceMinersShareStepBps: 50,
  /** ...up to 25% (reached at 30 active miners); validators keep at least 65% with the treasury's 10%. */
  inferenceMinersShareMaxBps: 2_500,
  /** Block-reward multiplier at a stake ratio of zero (spec: 0.5x). */
  rewardMultiplierMinBps: 5_000,
  /** Block-reward multiplier at and above the target stake ratio (spec: 1.5x). */
  rewardMultiplierMaxBps: 15_000,
  /** Stake ratio (staked / total supply) at which the multiplier reaches its maximum (two thirds). */
  targetStakeRatioBps: 6_667,
  /** Weights of the parts of the contribution score; they sum to 10000 (spec: inference/compute is 20%). */
  scoreWeightsBps: { staking: 3_000, compute: 2_000, uptime: 2_500, accuracy: 1_500, network: 1_000 },
  /** Module gas: of the order of the storage writes a contract doing the same would pay (a few SSTOREs each). */
  gas: {
    registerValidator: 120_000,
    delegate: 60_000,
    undelegate: 70_000,
    withdraw: 50_000,
    claimRewards: 50_000,
    editCommission: 30_000,
    unjail: 30_000,
    view: 5_000,
  },
} as const satisfies StakingParams;

/** Reserved addresses of the system modules (no key controls them; their code is a single INVALID opcode so EVM calls into them fail). */
export const system = {
  stakingAddress: '0x0000000000000000000000000000000000001000',
  treasuryAddress: '0x0000000000000000000000000000000000001001',
  /** The compute module: public inference tasks are paid to it, miner rewards and task fees are paid from it. */
  computeAddress: '0x0000000000000000000000000000000000001002',
  /** The governance module: proposals, their deposits (held here until returned or burned) and votes; it spends the treasury. */
  governanceAddress: '0x0000000000000000000000000000000000001003',
  /** The bridge module: deposits attested and minted, withdrawals burned and signed (docs/bridge.md); it holds nothing between blocks. */
  bridgeAddress: '0x0000000000000000000000000000000000001004',
  /** The rent module: it holds the storage deposits (docs/rent.md); rent and reactivation fees go to the treasury. */
  rentAddress: '0x0000000000000000000000000000000000001005',
  /**
   * Code placed at module addresses: 0xfe (INVALID), so contracts cannot call or pay them by mistake.
   * A plain Uint8Array: this file uses no Node API, so the web page's type check reads it with the
   * explorer's route declarations.
   */
  moduleCode: Uint8Array.of(0xfe),
  /** The built-in genesis validator (devnet: dev account 0, testnet: --validator-address) with 1,000 tokens of its own. */
  devGenesisValidator: { moniker: 'genesis', selfStake: 1_000n * 10n ** 18n, commissionBps: 1_000, maxCommissionBps: 2_000, maxChangeBpsPerDay: 100 },
} as const;

/**
 * Every system module's account, the one list: each holds exactly what its module's records say
 * (stake, treasury, task fees, deposits, storage deposits), so nothing but its module may pay into
 * it (a treasury spend to one is refused) and none of them owes rent.
 */
export const moduleAccounts: readonly string[] = [
  system.stakingAddress,
  system.treasuryAddress,
  system.computeAddress,
  system.governanceAddress,
  system.bridgeAddress,
  system.rentAddress,
];

/** Whether `address` (any case) is a system module's account. */
export function isModuleAccount(address: string): boolean {
  const a = address.toLowerCase();
  return moduleAccounts.some((m) => m.toLowerCase() === a);
}

/** The bridge to one external EVM chain (docs/bridge.md): the module's costs and limits, the node's watcher and relayer. */
export const bridge = {
  /** Gas each module call costs beyond its intrinsic gas (an attestation is a few record writes; a signature check is an ecrecover). */
  gas: { attestDeposit: 40_000, attestRelease: 30_000, withdraw: 50_000, signWithdrawal: 60_000, signValset: 60_000, attestValset: 30_000, transferWrapped: 30_000, view: 2_000 },
  /** A decision needs attesting (or signing) power above 2/3: attested * 3 > total * 2. As basis points for svc_getBridgeStatus: the least whole number above 6,666.67. */
  thresholdBps: 6_667,
  /** A new bridged set is recorded at an epoch start when membership changed or powers moved by more than this share of the current set's total (sum of |new - old| per validator, basis points). */
  valsetChangeBps: 500,
  /** SvcBridge's MAX_VALIDATORS: a larger active set is bridged by its largest stakes. */
  maxValidators: 128,
  /** Deposits may be attested this far beyond the lowest deposit nonce not yet minted (a bound on the records a validator can make). */
  maxNonceAhead: 10_000,
  /** Default confirmations of the external chain before a deposit is attested (the genesis may set its own). */
  defaultConfirmations: 12,
  /** How often the node reads the external chain, milliseconds. */
  pollIntervalMs: 2_000,
  /** Gas of an attestation or signature transaction the node sends (each costs less: the rest is refunded as unused). */
  txGasLimit: 200_000n,
} as const;

/** The devnet and testnet faucet (svc_requestFaucet); mainnet has none. */
export const faucet = {
  /** Amount sent per request (10 tokens). */
  amount: 10n * 10n ** 18n,
  /** Wall-clock wait before the same address is funded again (pool policy, not consensus). */
  addressCooldownSeconds: 24 * 3600,
  /** Wall-clock wait before the same client IP may ask again. */
  ipCooldownSeconds: 3600,
  /** The devnet faucet account: index 100 of the dev mnemonic (its key is public; testnet's faucet key comes from its operator). */
  derivationIndex: 100,
  /** Its genesis balance (1,000,000 tokens), on testnet that of the operator's faucet address. */
  genesisBalance: 1_000_000n * 10n ** 18n,
  /** Priority fee of faucet transfers (1 gwei). */
  tip: 10n ** 9n,
} as const;


/**
 * The node's ERC-4337 bundler (src/aa): pool policy and ERC-7562's constants, not consensus. The
 * stake and reputation values are ERC-7562's (MIN_STAKE_VALUE is per chain: one token here).
 */
export const bundler = {
  /** The devnet bundler account: index 101 of the dev mnemonic (public key; testnet and mainnet take the operator's key). */
  derivationIndex: 101,
  /** Its devnet genesis balance (1,000,000 tokens): it pays each bundle's gas; the EntryPoint refunds the validator (beneficiary). */
  genesisBalance: 1_000_000n * 10n ** 18n,
  /** ERC-7562 MIN_STAKE_VALUE: an entity staked at least this in the EntryPoint counts as staked. */
  minStake: 10n ** 18n,
  /** ERC-7562 MIN_UNSTAKE_DELAY (seconds). */
  minUnstakeDelaySeconds: 86_400,
  /** An operation must stay valid at least this long after the head's time (ERC-7769 -32503). */
  validityMarginSeconds: 30,
  /** Operations held at once; beyond, submissions are refused (-32005). */
  maxPoolOperations: 4096,
  /** ERC-7562 SAME_SENDER_MEMPOOL_COUNT: operations of one unstaked sender in the pool. */
  sameSenderPoolCount: 4,
  /** ERC-7562 SAME_UNSTAKED_ENTITY_MEMPOOL_COUNT: operations naming one unstaked factory or paymaster. */
  sameUnstakedEntityPoolCount: 10,
  /** A replacement (same sender and nonce) must raise both fees by this many percent. */
  replacementFeeBumpPercent: 10n,
  /** ERC-7562 reputation: MIN_INCLUSION_RATE_DENOMINATOR, THROTTLING_SLACK, BAN_SLACK; counters decay by 1/24 every hour. */
  minInclusionRateDenominator: 10n,
  throttlingSlack: 10n,
  banSlack: 50n,
  /** Operations in one handleOps bundle. */
  maxBundleOperations: 128,
  /** Bundles per EntryPoint in flight at once (sent, not yet in a block); their senders and paymasters are disjoint. */
  maxBundlesInFlight: 4,
  /** A bundle's calldata at most (the pool takes transactions up to mempool.maxTxSizeBytes, 128 KiB). */
  maxBundleBytes: 120 * 1024,
  /** handleOps' own gas beside its operations' limits. */
  bundleOverheadGas: 100_000n,
  /** An operation checked on a head more than this many blocks old is simulated again, with every rule, before it is bundled. */
  revalidateAfterBlocks: 4,
  /** A bundle's gas: at most this share of the block gas limit (basis points). */
  maxBundleGasBps: 5_000,
  /** The largest user operation accepted, ABI-encoded (bytes). */
  maxOperationBytes: 32 * 1024,
  /** Gas the simulations run with (validation and execution estimates). */
  simulationGas: 30_000_000n,
  /** Verification and call gas tried when estimating (raised per field by the measured use). */
  estimationGasLimit: 10_000_000n,
  /** What paying the prefund into the EntryPoint costs at most (a call with value and a new deposit slot), added to an estimate made at zero fees. */
  prefundPaymentGas: 40_000n,
  /** ERC-7769's preVerificationGas components (the reference bundler's defaults). */
  preVerification: { fixed: 21_000n, perUserOp: 18_300n, perUserOpWord: 4n, zeroByte: 4n, nonZeroByte: 16n, bundleSize: 1n, sigSize: 65n },
} as const;

/** The explorer's accounts, tokens, API keys, watchlists and rate limits (spec: Authentication, Explorer rate limits). */
export const explorer = {
  /** Access-token lifetime: short, so a leaked JWT is useful for minutes only (15 min). */
  accessTokenSeconds: 15 * 60,
  /** Refresh-token lifetime: a week without a refresh signs the user out. */
  refreshTokenSeconds: 7 * 24 * 3600,
  /** Longest a sign-in (refresh-token family) lives however often it is refreshed. */
  refreshFamilySeconds: 30 * 24 * 3600,
  /** Shortest JWT secret accepted: an HS256 key must be at least the hash size (RFC 7518 3.2). */
  minJwtSecretBytes: 32,
  /** Bytes of a generated JWT secret (HMAC-SHA256's block size). */
  jwtSecretBytes: 64,
  /** Passwords: at least 8 characters (NIST SP 800-63B); the cap bounds hashing work per request. */
  passwordMinLength: 8,
  passwordMaxLength: 128,
  /** Longest email address (RFC 5321 path limit). */
  emailMaxLength: 254,
  /** argon2id cost: OWASP's minimum recommendation (19 MiB, 2 passes, 1 lane). */
  argon2: { memoryCost: 19_456, timeCost: 2, parallelism: 1 },
  /** argon2 hashes computed at once, and the most waiting for a slot; past it a login or register answers 503. */
  argon2Workers: 2,
  argon2MaxWaiting: 64,
  /** API keys one account may hold: enough for separate apps, few enough to bound per-user quota. */
  apiKeysPerAccount: 5,
  /** Random base62 characters after the `svc_` prefix: 40 chars give about 238 bits. */
  apiKeyRandomChars: 40,
  /** Characters of a key shown in lists so users can tell keys apart (`svc_` and 4 more). */
  apiKeyShownChars: 8,
  /** Longest name of an API key or watchlist entry. */
  labelMaxLength: 64,
  /** Addresses one watchlist may hold. */
  watchlistPerAccount: 100,
  /** How often in-memory daily usage counts are written to the users column family. */
  usageFlushIntervalMs: 5_000,
  /** Callers without an API key: 100 requests per minute per IP (spec). */
  anonymous: { limit: 100, windowMs: 60_000 },
  /** /auth/* endpoints: 10 requests per minute per IP (spec), against password guessing. */
  authPerIp: { limit: 10, windowMs: 60_000 },
  /**
   * Failed sign-ins per account, whatever address they come from: after `failures` within `windowMs`
   * the account's logins (right password or not) are refused with 429 for `lockoutMs`, twice as long
   * after each further failure up to `maxLockoutMs`; a successful sign-in forgets them. The account's
   * attempts are checked one at a time, at most `maxWaiting` queued (then 503). `maxTracked` accounts
   * are remembered, least recently failed forgotten first.
   */
  authPerAccount: { failures: 5, windowMs: 15 * 60_000, lockoutMs: 60_000, maxLockoutMs: 15 * 60_000, maxWaiting: 64, maxTracked: 100_000 },
  /** API key tiers (spec): requests per second and per UTC day (null: unlimited). */
  tiers: {
    Free: { perSecond: 5, daily: 10_000 },
    Standard: { perSecond: 20, daily: 100_000 },
    Pro: { perSecond: 50, daily: null },
  },
  /** Tier of a new API key (spec: Free is the default). */
  defaultTier: 'Free',
} as const;

/** Source verification of contracts by the explorer (its own API and the Etherscan-compatible /api). */
export const contracts = {
  /** Longest one compilation may run before its verification fails (large projects take seconds in solc-js). */
  compileTimeoutMs: 120_000,
  /** Most source files in one standard JSON input. */
  maxSources: 2_000,
  /** Length of a verification GUID (Etherscan's own: 50 characters). */
  guidLength: 50,
} as const;

/** WebSocket JSON-RPC (eth_subscribe) and the explorer's socket.io live feed; docs/realtime.md lists them. */
export const ws = {
  /** Open connections one server accepts; more get HTTP 503 at the upgrade. */
  maxConnections: 10_000,
  /** Subscriptions one connection may hold (spec: 50 per connection). */
  maxSubscriptionsPerConnection: 50,
  /** Largest message a client may send, as the HTTP body cap (5 MiB); larger ones close the connection with 1009. */
  maxMessageBytes: 5 * 1024 * 1024,
  /** Bytes waiting to be sent to one client; past it the client is too slow and is closed with 1008. */
  maxSendBufferBytes: 16 * 1024 * 1024,
  /** How long a connection closed for being slow may take to read its close frame before it is cut. */
  slowCloseGraceMs: 5_000,
  /** A ping every interval; a peer that has not answered the previous one by then is cut (geth: 30 s). */
  pingIntervalMs: 30_000,
  /** Requests of one connection answered at once; beyond it the connection's socket is not read until one ends. */
  maxInFlightRequests: 64,
  /** Rooms one socket.io client of the explorer's live feed may join. */
  liveMaxRoomsPerSocket: 100,
  /** Packets queued for one socket.io client; past it the client is disconnected as too slow. */
  liveMaxQueuedPackets: 10_000,
} as const;

/** Compute modes of a node (spec: Compute mode of a validator); `auto` resolves to one of the first two at start. */
export type ComputeModeSetting = 'pow' | 'inference' | 'auto';

/** The compute module's consensus parameters (docs/compute.md); every node of a chain must use the same. */
export interface ComputeParams {
  /** Models approved by governance, with the GPU tier they need and their output size; genesis approves the three the spec lists for network v2.0. */
  readonly approvedModels: readonly { readonly id: string; readonly tier: 'Hot' | 'Warm' | 'Cold'; readonly dims: number }[];
  /** Share of included proofs re-executed, in basis points (spec: 5%). */
  readonly spotCheckBps: number;
  /** A drawn spot-check that no validator decided within this many blocks is closed undecided (state `expired`). */
  readonly spotCheckTimeoutBlocks: number;
  /** A miner whose proof fails a spot-check gets no tasks and no proof accepted for this long (spec: 6 hours). */
  readonly minerJailSeconds: number;
  /** Challenge tasks given to each eligible miner at each epoch start. */
  readonly challengeTasksPerMiner: number;
  /** Most open tasks one miner holds (public and challenge together). */
  readonly maxOpenTasksPerMiner: number;
  /** A task assigned at the start of epoch e must be proven by the end of epoch e + deadlineEpochs - 1. */
  readonly deadlineEpochs: number;
  /** A miner gets tasks while it registered or had a proof accepted within this many epochs. */
  readonly minerActiveEpochs: number;
  /** A miner record with no registration or accepted proof for this many epochs, no open task and no jail is deleted (registration is free, so records must not pile up). */
  readonly minerRetentionEpochs: number;
  /** Epochs over which inferenceScore sums accepted FLOPs (the current one and the ones before it). */
  readonly scoreWindowEpochs: number;
  /** Smallest fee of a public task (0.001 token). */
  readonly publicTaskMinFee: bigint;
  /** Longest public task input, UTF-8 bytes. */
  readonly publicTaskMaxInputBytes: number;
  /** A public task not completed within this many epochs is expired and its fee refunded. */
  readonly publicTaskTtlEpochs: number;
  /** Most public tasks waiting at once; more are refused (the fee stays with the sender). */
  readonly maxOpenPublicTasks: number;
  /** Split of a public task's fee (spec: 70% to the miner); the validator it was submitted through gets its part, the treasury the rest. */
  readonly taskFeeMinerBps: number;
  readonly taskFeeValidatorBps: number;
  /** Most proofs, registrations and shares one block takes from the node's queues. */
  readonly maxProofsPerBlock: number;
  readonly maxRegistrationsPerBlock: number;
  /** Proof-of-work shares: expected hashes per share (the share target is 2^256 / difficulty). */
  readonly shareDifficulty: bigint;
  /** A share must name one of the last this many block hashes. */
  readonly shareMaxAgeBlocks: number;
  /** Blocks over which hashrate is estimated from accepted shares. */
  readonly hashrateWindowBlocks: number;
  readonly maxSharesPerBlock: number;
  /** Module gas of submitTask on top of the intrinsic gas (a few storage writes), and of every read function (getTask). */
  readonly gas: { readonly submitTask: number; readonly view: number };
}

export const compute = {
  approvedModels: [
    { id: 'svc-embed-small@v1.0', tier: 'Cold', dims: 384 },
    { id: 'svc-embed-medium@v1.0', tier: 'Cold', dims: 384 },
    { id: 'svc-classify-small@v1.0', tier: 'Warm', dims: 768 },
  ],
  spotCheckBps: 500,
  spotCheckTimeoutBlocks: 100,
  minerJailSeconds: 6 * 3600,
  challengeTasksPerMiner: 4,
  maxOpenTasksPerMiner: 32,
  deadlineEpochs: 2,
  minerActiveEpochs: 3,
  minerRetentionEpochs: 1_000,
  scoreWindowEpochs: 2,
  publicTaskMinFee: 10n ** 15n,
  publicTaskMaxInputBytes: 4096,
  publicTaskTtlEpochs: 20,
  maxOpenPublicTasks: 10_000,
  taskFeeMinerBps: 7_000,
  taskFeeValidatorBps: 2_000,
  maxProofsPerBlock: 500,
  maxRegistrationsPerBlock: 100,
  shareDifficulty: 1n << 22n,
  shareMaxAgeBlocks: 16,
  hashrateWindowBlocks: 30,
  maxSharesPerBlock: 256,
  gas: { submitTask: 60_000, view: 5_000 },
} as const satisfies ComputeParams;

/**
 * A validator's own policy for the proofs it relays: not consensus, each node chooses (docs/compute.md,
 * "Pre-check"). A failed spot-check slashes the validator the proof came through, so it re-executes a
 * share of proofs before accepting them.
 */
export const proofPrecheck = {
  /** Share of proofs re-executed before acceptance (--proof-precheck-rate): 5x the spec's 5% spot-check rate. */
  rateBps: 2_500,
  /** Miners that failed this node's pre-check, remembered (oldest forgotten first) so every later proof of theirs is re-executed. */
  maxSuspects: 10_000,
} as const;

/**
 * Account rent (docs/rent.md): a deposit per storage slot, rent for the slots no deposit covers,
 * dormancy and reactivation. Amounts in wei; every value but the gas table is governable.
 */
export interface RentParams {
  /** Locked from an account's balance per storage slot it creates, returned when the slot is freed (NEAR's storage staking). */
  readonly depositPerSlot: bigint;
  /** Owed per epoch for each slot no deposit covers. */
  readonly rentPerSlotPerEpoch: bigint;
  /** An account owing more than this... */
  readonly dormancyOwedLimit: bigint;
  /** ...and inactive for at least this many epochs becomes dormant at the next epoch start. */
  readonly dormancyEpochs: number;
  /** Paid with the rent owed to make a dormant account active again. */
  readonly reactivationFee: bigint;
  /** Module gas of each function on top of the transaction's intrinsic gas. */
  readonly gas: { readonly reactivate: number; readonly payRent: number; readonly coverSlots: number; readonly view: number };
}

export const rent = {
  /** 0.0001 token per slot (an SSTORE from zero costs 20,000 gas; at 5 gwei that is 0.0001). */
  depositPerSlot: 10n ** 14n,
  /** 1 gwei per uncovered slot per epoch. */
  rentPerSlotPerEpoch: 10n ** 9n,
  /** 0.001 token: a million uncovered slot-epochs. */
  dormancyOwedLimit: 10n ** 15n,
  /** Devnet: 10,000 epochs, far beyond any test or trial run (tests that show dormancy pass their own). */
  dormancyEpochs: 10_000,
  /** 0.01 token. */
  reactivationFee: 10n ** 16n,
  gas: { reactivate: 40_000, payRent: 30_000, coverSlots: 30_000, view: 2_000 },
} as const satisfies RentParams;

/**
 * Governance (Cosmos SDK x/gov v1 semantics; docs/governance.md). Periods are block-time seconds;
 * fractions are basis points. Every value here is itself governable (see `governable`).
 */
export interface GovernanceParams {
  /** Deposit a proposal needs before its voting period starts (Cosmos: min_deposit). */
  readonly minDeposit: bigint;
  /** Time a proposal has to reach minDeposit from its submission (Cosmos: max_deposit_period). */
  readonly depositPeriodSeconds: number;
  /** Time votes are taken once the deposit is reached (Cosmos: voting_period). */
  readonly votingPeriodSeconds: number;
  /** Share of the bonded stake that must vote (abstain included) for the tally to count (Cosmos: 33.4%). */
  readonly quorumBps: number;
  /** Share of yes among yes + no + no-with-veto above which a proposal passes (Cosmos: 50%). */
  readonly thresholdBps: number;
  /** Share of no-with-veto among all votes above which a proposal is vetoed (Cosmos: 33.4%). */
  readonly vetoThresholdBps: number;
  /** 1: a vetoed proposal's deposits are burned (Cosmos: burn_vote_veto = true). */
  readonly burnDepositsOnVeto: number;
  /** 1: a proposal whose vote missed quorum has its deposits burned (Cosmos: burn_vote_quorum). */
  readonly burnDepositsOnNoQuorum: number;
  /** 1: a proposal that never reached minDeposit has its deposits burned (Cosmos: burn_proposal_deposit_prevote). */
  readonly burnDepositsOnExpiry: number;
  /** Blocks a retired model's proofs are still accepted after the retirement executes. */
  readonly modelRetirementGraceBlocks: number;
  /** Longest vesting of a treasury spend, in epochs. */
  readonly maxVestingEpochs: number;
  /** Proposals in their deposit or voting period at once; more are refused (each is read by every tally). */
  readonly maxActiveProposals: number;
  /** Limits of a proposal's text (characters) and of a parameter-change proposal's list. */
  readonly maxTitleChars: number;
  readonly maxDescriptionChars: number;
  readonly maxChangesPerProposal: number;
  /** Module gas of each function on top of the transaction's intrinsic gas (`submit`: every proposal kind's submit function). */
  readonly gas: { readonly submit: number; readonly deposit: number; readonly vote: number; readonly view: number };
}

export const governance = {
  /** 10 tokens: enough to make spam cost, small next to the dev accounts' 10,000 (Cosmos hub: 250 ATOM). */
  minDeposit: 10n * 10n ** 18n,
  /** Devnet: 5 minutes (Cosmos: 2 days). */
  depositPeriodSeconds: 300,
  /** Devnet: 60 s so proposals can be tried by hand (Cosmos: 2 weeks on the hub). */
  votingPeriodSeconds: 60,
  quorumBps: 3_340,
  thresholdBps: 5_000,
  vetoThresholdBps: 3_340,
  burnDepositsOnVeto: 1,
  burnDepositsOnNoQuorum: 1,
  burnDepositsOnExpiry: 0,
  /** 100 blocks (100 s at the devnet's block time): miners finish the tasks they hold. */
  modelRetirementGraceBlocks: 100,
  maxVestingEpochs: 10_000,
  maxActiveProposals: 100,
  maxTitleChars: 140,
  maxDescriptionChars: 10_000,
  maxChangesPerProposal: 16,
  gas: { submit: 150_000, deposit: 50_000, vote: 40_000, view: 5_000 },
} as const satisfies GovernanceParams;

/**
 * A parameter a governance proposal may change: `<module>.<name>`, and the range a value must lie
 * in. Each module declares its own in its params.ts; modules/governable.ts assembles the one
 * registry governance checks changes against.
 */
export interface GovernableParam {
  readonly module: 'staking' | 'compute' | 'governance' | 'chain' | 'rent';
  readonly key: string;
  readonly min: bigint;
  readonly max: bigint;
  /** What the number counts (docs and explorer). */
  readonly unit: 'bps' | 'wei' | 'seconds' | 'blocks' | 'epochs' | 'count' | 'flag' | 'gas';
}

const p = (module: GovernableParam['module'], key: string, min: bigint, max: bigint, unit: GovernableParam['unit']): GovernableParam => ({ module, key, min, max, unit });

/** The governable parameters declared here: the chain's (the whole registry: modules/governable.ts). */
export const governable: readonly GovernableParam[] = [
  // The block gas limit.
  p('chain', 'blockGasLimit', 5_000_000n, 2_000_000_000n, 'gas'),
  // The modules' own are in their params.ts (modules/<module>/params.ts).
];

/** The chain-level rules governance may change (the block gas limit). */
export interface ChainRules {
  readonly blockGasLimit: number;
}
