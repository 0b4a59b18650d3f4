// The one door to Rust. Every call into the core addon (crates/svc-napi) goes through this file.
// Bytes cross as Buffer; balances, fees, values and gas as bigint; block numbers, timestamps and
// indexes as number (all far below 2^53). Objects documented as "RPC-shaped" are produced in Rust
// with geth's field names and 0x-hex quantities, ready to be sent as JSON-RPC results.
import { createRequire } from 'node:module';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcError, type SvcErrorOptions } from '../errors.js';
import { parseCodedError, translateErrorsOf } from './coded-error.js';

/** One account of the genesis allocation. `initCode` is run at genesis and its return data becomes the code. */
export interface GenesisAccount {
  address: Buffer;
  balance: bigint;
  nonce?: bigint;
  code?: Buffer;
  initCode?: Buffer;
  storage?: { slot: Buffer; value: Buffer }[];
}

export interface GenesisSpec {
  chainId: number;
  timestamp: number;
  gasLimit: number;
  baseFeePerGas: bigint;
  coinbase: Buffer;
  extraData: Buffer;
  alloc: GenesisAccount[];
}

export interface ChainOptions {
  /** Gas cap for eth_call / eth_estimateGas (geth's RPCGasCap). */
  rpcGasCap: number;
  /** Most blocks whose state stays readable for historical calls; 0 = archive (all). */
  stateHistory: number;
}

export interface HeadInfo {
  number: number;
  hash: Buffer;
  parentHash: Buffer;
  /** Seconds (the header's timestamp; equal to the parent's when blocks are shorter than a second). */
  timestamp: number;
  /** The block's time in milliseconds (seconds from `timestamp`, milliseconds from `mixHash`). */
  timestampMs: number;
  gasLimit: number;
  gasUsed: number;
  baseFeePerGas: bigint;
  stateRoot: Buffer;
}

/** A transaction decoded and its sender recovered, with the sender's account at the head. */
/** One transaction of decodeTransactions: decoded, or why not. */
export interface DecodeOutcome {
  tx?: DecodedTx;
  error?: string;
}

export interface DecodedTx {
  hash: Buffer;
  from: Buffer;
  to: Buffer | null;
  /** 0 legacy, 1 EIP-2930, 2 EIP-1559. */
  type: number;
  /** null for a pre-EIP-155 legacy transaction. */
  chainId: number | null;
  nonce: bigint;
  gasLimit: bigint;
  /** legacy/2930: gasPrice; 1559: maxFeePerGas. */
  maxFeePerGas: bigint;
  /** legacy/2930: gasPrice; 1559: maxPriorityFeePerGas. */
  maxPriorityFeePerGas: bigint;
  value: bigint;
  /** The call data (init code for a creation), so that no caller decodes the raw transaction again. */
  data: Buffer;
  /** Intrinsic gas under Prague rules, including the EIP-7623 calldata floor. */
  intrinsicGas: bigint;
  /** Size of the raw encoding in bytes. */
  size: number;
  senderNonce: bigint;
  senderBalance: bigint;
}

/** The block and sender a transaction is checked against (precheckTransaction). */
export interface PrecheckInput {
  chainId: number;
  gasLimit: number;
  /** Gas the block's earlier transactions used. */
  gasUsed: number;
  baseFeePerGas: bigint;
  /** The sender's nonce and balance as the block has them so far (both absent: no account). */
  nonce?: bigint;
  balance?: bigint;
  /** The sender's code, when it has any. */
  code?: Buffer;
}

export interface PrecheckVerdict {
  /** defer: not enough gas left in the block, the next block takes it. */
  verdict: 'include' | 'defer' | 'reject';
  /** geth's text for a rejected transaction. */
  reason?: string;
  /** What the sender pays per gas in this block: min(maxFeePerGas, baseFee + maxPriorityFeePerGas). */
  effectiveGasPrice: bigint;
}

export interface ProduceBlockRequest {
  /** The block's time in milliseconds; raised to the parent's + 1 ms when not after it. */
  timestampMs: number;
  coinbase: Buffer;
  extraData: Buffer;
  gasLimit: number;
  /** Raw signed transactions in the order to execute. */
  txs: Buffer[];
  /** Senders already recovered by decodeTransaction, one per tx (same order). */
  senders: Buffer[];
  /** System modules' records committed in the block's atomic write (no value deletes the record); the state root covers them through the storage of each module's account. */
  appWrites?: RecordWrite[];
  /** Transactions addressed to system modules (by index in `txs`) with the outcome their module decided: charged and recorded, not run in the EVM. */
  system?: SystemTxOutcome[];
  /** Balance moves after the last transaction: minted rewards, burned slashes. */
  blockMoves?: BalanceMove[];
  /** System messages the block carries besides its transactions, stored with its body. */
  messages?: Buffer[];
}

/** What a stored block was made from, for replays. */
export interface BlockInputs {
  head: HeadInfo;
  coinbase: Buffer;
  extraData: Buffer;
  /** EIP-2718 encodings, in block order. */
  txs: Buffer[];
  /** System messages, in block order. */
  messages: Buffer[];
}

/** One record of a system module written by a block: the slot keccak256(key) of the module's account holds keccak256(value). */
export interface RecordWrite {
  /** The module's address, 20 bytes. */
  module: Buffer;
  key: Buffer;
  /** Absent: the record is deleted. */
  value?: Buffer;
}

/** A log a system module emits; its address is the module's. */
export interface ModuleLog {
  topics: Buffer[];
  data: Buffer;
}

/** A move of native balance: no `from` mints, no `to` burns. */
export interface BalanceMove {
  from?: Buffer;
  to?: Buffer;
  amount: bigint;
}

export interface SystemTxOutcome {
  index: number;
  success: boolean;
  gasUsed: bigint;
  logs: ModuleLog[];
  /** Payouts, applied only on success. */
  moves: BalanceMove[];
}

export interface RejectedTx {
  hash: Buffer;
  reason: string;
}

export interface ProducedBlock {
  head: HeadInfo;
  /** Hashes of the transactions included, in block order. */
  included: Buffer[];
  /** Transactions that could not be included (invalid at execution), with geth-style reasons. */
  rejected: RejectedTx[];
  /** Transactions skipped because the block ran out of gas; they stay in the pool. */
  deferred: Buffer[];
  /** Where the block's native time went. */
  timings: BlockTimings;
}

/** Milliseconds of a block's native work. */
export interface BlockTimings {
  /** Waiting for the block lane (another block in flight). */
  queuedMs: number;
  executeMs: number;
  /** State, transactions and receipts roots, with the explorer's index records computed beside them. */
  rootMs: number;
  /** The block's one write batch, synced. */
  commitMs: number;
}

export interface CallRequest {
  from?: Buffer;
  to?: Buffer;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Buffer;
  nonce?: bigint;
  accessList?: { address: Buffer; storageKeys: Buffer[] }[];
}

export interface CallResult {
  /** 'success', 'revert' (output holds the revert data) or 'halt' (error names the reason). */
  status: 'success' | 'revert' | 'halt';
  output: Buffer;
  gasUsed: bigint;
  /** For 'halt' and for estimate failures: geth's text, e.g. "out of gas", "insufficient funds for gas * price + value". */
  error?: string;
}

export interface EstimateResult {
  status: 'success' | 'revert' | 'halt';
  gas: bigint;
  output: Buffer;
  error?: string;
}

export interface LogFilter {
  fromBlock: number;
  toBlock: number;
  addresses: Buffer[];
  /** Per position: null = any, else any of the listed topics. */
  topics: (Buffer[] | null)[];
  /** Stop and report `truncated` once more than this many logs matched. */
  limit: number;
}

export interface LogQueryResult {
  /** RPC-shaped logs. */
  logs: Record<string, unknown>[];
  /** True when the limit was exceeded; `lastBlock` is then the last block fully scanned within it. */
  truncated: boolean;
  lastBlock: number;
}

export interface AccountState {
  nonce: bigint;
  balance: bigint;
  codeHash: Buffer;
}

export type BlockSelector = { number: number } | { hash: Buffer };

export interface FeeHistoryResult {
  oldestBlock: number;
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  reward: bigint[][];
}

/** Column families for node-local data written outside blocks: explorer indexes and explorer users. */
export type ServiceColumnFamily = 'explorer' | 'users';

/** The chain database and execution engine, one per data directory. */
export interface Chain {
  head(): HeadInfo;
  /** Base fee the next block will carry (EIP-1559 from the head). */
  nextBaseFee(): bigint;
  /** Decode a raw signed transaction, validate its signature (low s, EIP-155), recover the sender. Throws an Error whose message is geth's text ("rlp: ...", "invalid sender", "transaction type not supported"). */
  decodeTransaction(raw: Buffer): DecodedTx;
  /**
   * decodeTransaction of each raw transaction, in order, off the JS thread (split over the cores
   * for long batches); one that does not decode carries decodeTransaction's error text instead.
   */
  decodeTransactions(raws: Buffer[]): Promise<DecodeOutcome[]>;
  /** RPC-shaped transaction object for a pool transaction (blockHash/blockNumber/transactionIndex null). */
  pendingTransactionJson(raw: Buffer, from: Buffer): Record<string, unknown>;
  /** Execute the transactions on the head state, seal the block and commit it in one atomic write. Runs off the main thread. */
  produceBlock(req: ProduceBlockRequest): Promise<ProducedBlock>;
  /** ABCI's FinalizeBlock: execute and seal the next block without writing it (its hash and state root are in the result); off the main thread. */
  finalizeBlock(req: ProduceBlockRequest): Promise<ProducedBlock>;
  /** ABCI's Commit: write the finalized block with this hash in one atomic batch; refused for any other hash or when none is finalized. */
  commitBlock(hash: Buffer): Promise<ProducedBlock>;
  /** Drop the finalized block, if any. */
  discardFinalized(): void;
  /** The header of stored block `number` and what its proposer chose (coinbase, extra data, transactions); null beyond the head. */
  getBlockInputs(number: number): BlockInputs | null;
  blockNumberByHash(hash: Buffer): number | null;
  getBlock(sel: BlockSelector, fullTransactions: boolean): Record<string, unknown> | null;
  getBlockTransactionCount(sel: BlockSelector): number | null;
  /** getBlock without the transactions: their number as `transactionCount` (a quantity). */
  getBlockSummary(sel: BlockSelector): Record<string, unknown> | null;
  getBlockReceipts(sel: BlockSelector): Record<string, unknown>[] | null;
  getTransactionByHash(hash: Buffer): Record<string, unknown> | null;
  getTransactionByBlockAndIndex(sel: BlockSelector, index: number): Record<string, unknown> | null;
  getTransactionReceipt(hash: Buffer): Record<string, unknown> | null;
  /** Account at the state after block `blockNumber`. Throws NativeError STATE_UNAVAILABLE when the block's state is pruned (as the other state reads). */
  getAccount(address: Buffer, blockNumber: number): AccountState;
  /** getAccount of each address at one block, in one call. */
  getAccounts(addresses: Buffer[], blockNumber: number): AccountState[];
  getCode(address: Buffer, blockNumber: number): Buffer;
  getStorageAt(address: Buffer, slot: Buffer, blockNumber: number): Buffer;
  call(req: CallRequest, blockNumber: number): Promise<CallResult>;
  estimateGas(req: CallRequest, blockNumber: number): Promise<EstimateResult>;
  getLogs(filter: LogFilter): Promise<LogQueryResult>;
  /** RPC-shaped logs of one block, in order (for filters and subscriptions). */
  getBlockLogs(blockNumber: number): Record<string, unknown>[];
  feeHistory(newestBlock: number, blockCount: number, rewardPercentiles: number[]): FeeHistoryResult;
  /** A value the application modules committed with a block (their `app` column family), at the head. */
  getAppValue(key: Buffer): Buffer | null;
  /** Every app key/value under `prefix`, in key order, at the head. */
  getAppEntries(prefix: Buffer): { key: Buffer; value: Buffer }[];
  /** Indexes stored block `number` for the explorer when the index has reached the block before it (backfill of older data dirs); resolves whether it did. */
  indexStoredBlock(number: number): Promise<boolean>;
  /** Records a token's name, symbol and decimals in the explorer index and its search terms. */
  setTokenMetadata(token: Buffer, name?: string, symbol?: string, decimals?: number): void;
  /** A value of a service column family (node-local data beside the chain), as last written. */
  serviceGet(cf: ServiceColumnFamily, key: Buffer): Buffer | null;
  /** Up to `limit` entries under `prefix`, from `from` (inclusive) forward, or backward when `reverse`. */
  serviceScan(cf: ServiceColumnFamily, prefix: Buffer, from: Buffer | undefined, limit: number, reverse: boolean): { key: Buffer; value: Buffer }[];
  /** One atomic, synced batch of writes to a service column family (no value deletes). */
  serviceWrite(cf: ServiceColumnFamily, writes: { key: Buffer; value?: Buffer }[]): void;
  close(): void;
}

export interface HttpServerOptions {
  host: string;
  /** 0 asks the system for a free port. */
  port: number;
  /** Threads serving connections; default: the machine's cores. */
  threads?: number;
  maxBodyBytes: number;
  /** Bytes of a refused body read and thrown away so that the 413 reaches the client. */
  maxDiscardBytes: number;
  discardTimeoutMs: number;
  /** How long a connection may wait for the next request's headers (idle keep-alive time included). */
  idleTimeoutMs: number;
  /** How long a request's body may take to arrive once its headers are read (408 after it). */
  readTimeoutMs: number;
  /** How long one write may wait for the client to read before the connection is cut. */
  writeTimeoutMs: number;
  /** Open connections per client IP (0 = no cap); loopback is exempt with `exemptLoopback`. */
  maxConnectionsPerIp: number;
  /** Requests per second per client IP (IPv6: per /64); 0 = no limit. */
  rateLimitPerSecond: number;
  exemptLoopback: boolean;
  maxBatchItems: number;
  maxBatchResponseBytes: number;
  /** JSON bodies of the answers the server gives itself: 413, 429, 500, 408 and 429 to a connection over the cap. */
  bodyTooLarge: string;
  rateLimited: string;
  internalError: string;
  requestTimeout: string;
  tooManyConnections: string;
}

/** A request the native server hands to JavaScript (everything but plain state reads). */
export interface HttpRequestInfo {
  method: string;
  /** Path and query as sent. */
  path: string;
  contentType?: string;
  accessControlRequestHeaders?: string;
  remoteAddress: string;
  /** The body as UTF-8; empty for GET, OPTIONS and refused content types. */
  body: string;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  /** Absent: no body at all. */
  body?: string;
}

/** What the native server answered by itself since it started. */
export interface HttpServerStats {
  calls: { method: string; count: number }[];
  responses: { status: number; count: number }[];
}

/** The JSON-RPC HTTP server (crates/svc-rpc-http): answers eth_chainId, eth_blockNumber and state reads natively, hands the rest to `handler`. */
export interface RpcHttpServer {
  readonly port: number;
  stats(): HttpServerStats;
  /** Stop accepting, close idle connections and wait for requests in flight. */
  close(): Promise<void>;
}

/** Result of a proof-of-work search over a nonce range. */
export interface PowOutcome {
  /** The first nonce whose BLAKE3(prefix || nonce LE) is at or below the target, if any. */
  nonce?: bigint;
  hash?: Buffer;
  /** Nonces hashed. */
  hashes: number;
  elapsedMs: number;
}

/** Which SIMD implementation the proof-of-work searches run on this CPU (chosen once, by runtime detection). */
export interface PowSimd {
  /** "avx512f", "avx2", "sse4.1", "neon" or "portable". */
  path: string;
  /** Nonces hashed per compression on that path. */
  lanes: number;
  /** Every path this CPU can run. */
  available: string[];
  /** The vector extensions the Rust runtime detects (e.g. "sse4.1", "avx2", "avx512f", "neon"). */
  cpuFeatures: string[];
}

/** Result of `powSearchAll`: every winning nonce of a range, up to a cap. */
export interface PowAllOutcome {
  /** Nonces whose BLAKE3(prefix || nonce LE) is at or below the target, ascending, at most `maxSolutions` (the lowest ones). */
  nonces: bigint[];
  /** The hash of each nonce in `nonces`. */
  hashes: Buffer[];
  /**
   * Nonces hashed by all threads together. Fewer than `maxSolutions` found: the whole range was hashed and this is `count`.
   * `maxSolutions` found: the search stopped early; the range up to the last nonce was searched in full (resume after it),
   * and this also counts what other threads hashed beyond it (their solutions are dropped).
   */
  hashed: number;
  elapsedMs: number;
}

/** One signature for `ed25519VerifyBatch`. */
export interface Ed25519Item {
  publicKey: Buffer;
  message: Buffer;
  signature: Buffer;
}

/** Size of a native worker lane: threads, and the most jobs that may wait for them (0 threads = the core's default). */
export interface LaneSize {
  threads: number;
  maxWaiting: number;
}

/** Counters of one native lane (block, exec, logs, backfill). */
export interface LaneStats {
  name: string;
  threads: number;
  maxWaiting: number;
  waiting: number;
  running: number;
  completed: number;
  refused: number;
}

/** Whether `err` is a native lane's refusal: its queue was full (the message says which lane and how many waited). */
export function isLaneBusy(err: unknown): err is Error {
  return err instanceof Error && (err as Error & { code?: unknown }).code === 'QueueFull';
}

export interface CoreAddon {
  Chain: { open(dataDir: string, genesis: GenesisSpec, options: ChainOptions): Chain };
  RpcHttpServer: { start(chain: Chain, options: HttpServerOptions, handler: (request: HttpRequestInfo) => Promise<HttpReply>): RpcHttpServer };
  keccak256(data: Buffer): Buffer;
  /** Intrinsic gas of a call carrying `data` (Prague, with the EIP-7623 floor). */
  intrinsicGas(data: Buffer): bigint;
  /**
   * geth's checks of the transaction `raw` from `sender` against the block and the sender's
   * account, as the block builder runs them (its one copy), with the price per gas it would pay.
   */
  precheckTransaction(raw: Buffer, sender: Buffer, input: PrecheckInput): PrecheckVerdict;
  blake3(data: Buffer): Buffer;
  /** Search `count` nonces from `startNonce` on `threads` threads, SIMD across nonces. Off the JS thread. */
  powSearch(prefix: Buffer, startNonce: bigint, count: bigint, target: Buffer, threads: number): Promise<PowOutcome>;
  /** The same search with one plain `blake3::hash` per nonce and nothing else per nonce: the baseline of bench/hashrate. */
  powSearchPlain(prefix: Buffer, startNonce: bigint, count: bigint, target: Buffer, threads: number): Promise<PowOutcome>;
  /** The SIMD path of `powSearch` and `powSearchAll` on this CPU, and the vector extensions detected. */
  powSimd(): PowSimd;
  /** BLAKE3(prefix || nonce as 8 bytes LE): the hash the searches compare with the target, for one nonce. */
  powHash(prefix: Buffer, nonce: bigint): Buffer;
  /**
   * Every nonce in `count` nonces from `startNonce` whose hash is at or below `target`, up to `maxSolutions` (the lowest;
   * 0 searches nothing), on `threads` threads (0 = all cores), SIMD across nonces. Off the JS thread.
   */
  powSearchAll(
    prefix: Buffer,
    startNonce: bigint,
    count: bigint,
    target: Buffer,
    threads: number,
    maxSolutions: number,
  ): Promise<PowAllOutcome>;
  /**
   * Strict Ed25519 verification (ed25519-dalek `verify_strict`): false for wrong lengths, keys that are not points or of
   * small order, non-canonical or malleable signatures. On the JS thread (about 40 µs).
   */
  ed25519Verify(publicKey: Buffer, message: Buffer, signature: Buffer): boolean;
  /** `ed25519Verify` of each item, in order (always the same verdicts), off the JS thread and split over cores. */
  ed25519VerifyBatch(items: Ed25519Item[]): Promise<boolean[]>;
  /** Sizes the reader lanes; only the first call in a process counts (returns whether it did). */
  configureLanes(sizes: { exec: LaneSize; logs: LaneSize }): boolean;
  laneStats(): LaneStats[];
  version(): string;
}

const here = path.dirname(fileURLToPath(import.meta.url));

function findAddon(): string {
  // dist/src/native -> repo root; src/native -> repo root
  const candidates = [path.resolve(here, '../../../native'), path.resolve(here, '../../native')];
  for (const dir of candidates) {
    if (!existsSync(dir)) continue;
    const file = readdirSync(dir).find((f) => f.startsWith('svc-core.') && f.endsWith('.node'));
    if (file) return path.join(dir, file);
  }
  throw new Error('the svc-core native addon is not built: run `npm run build`');
}

/** The codes the core addon gives its errors (svc-napi's `coded_error`); any other native error has none. */
export type NativeErrorCode = 'STATE_UNAVAILABLE';

/** An error of the core addon raised with a stable code: switch on `code`, never match the text. */
export class NativeError extends SvcError {
  override name = 'NativeError';
  constructor(
    override readonly code: NativeErrorCode,
    message: string,
    options?: SvcErrorOptions,
  ) {
    super(message, options);
  }
}

/** A coded addon error as a NativeError; any other error unchanged. */
export function translateNativeError(err: unknown): unknown {
  const coded = parseCodedError(err);
  return coded ? new NativeError(coded.code as NativeErrorCode, coded.message, { cause: err }) : err;
}

const require = createRequire(import.meta.url);

/** The loaded core addon (crates/svc-napi); the Chain's methods raise coded errors as NativeError. */
export const core: CoreAddon = require(findAddon()) as CoreAddon;
translateErrorsOf((core.Chain as unknown as { prototype: object }).prototype, translateNativeError);
