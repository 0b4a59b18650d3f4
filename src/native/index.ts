// The one door to Rust. Every call into the core addon (crates/svc-napi) goes through this file.
// Bytes cross as Buffer; balances, fees, values and gas as bigint; block numbers, timestamps and
// indexes as number (all far below 2^53). Objects documented as "RPC-shaped" are produced in Rust
// with geth's field names and 0x-hex quantities, ready to be sent as JSON-RPC results.
import { SvcError, type SvcErrorOptions } from '../errors.js';
import { parseCodedError, translateErrorsOf } from './coded-error.js';
import { loadAddon } from './loader.js';

// Every type of the addon comes from its generated declarations (src/native/generated/core.d.ts,
// written by napi-rs from the Rust signatures and doc comments when the addon is built, committed,
// and checked for staleness by the test run), never from a hand-written mirror.
import type * as Generated from './generated/core.js';

export type {
  AccessListResult,
  AccountEdit,
  AccountOverrideJs,
  AccountState,
  BlockOverrideJs,
  CallOverridesJs,
  StorageWord,
  AppEntry,
  BalanceMove,
  BlockInputs,
  BlockSelector,
  BlockTimings,
  CallRequest,
  CallResult,
  Chain,
  CodeOverride,
  ChainOptions,
  DecodedTx,
  DecodeOutcome,
  Ed25519Item,
  EstimateResult,
  FeeHistoryResult,
  GenesisAccount,
  GenesisSpec,
  HeadInfo,
  PinnedState,
  HttpReply,
  HttpRequestInfo,
  HttpServerOptions,
  HttpServerStats,
  LogFilter,
  LogQueryResult,
  PrecheckInput,
  PrecheckVerdict,
  ModuleLog,
  PowAllOutcome,
  PowOutcome,
  PowSimd,
  ProduceBlockRequest,
  ProducedBlock,
  RejectedTx,
  RpcHttpServer,
  ServiceWrite,
  SimulateBlockJs,
  SystemTxOutcome,
  TracedFrame,
  ValidationTraceResult,
} from './generated/core.js';

/** One record of a system module written by a block: the slot keccak256(key) of the module's account holds keccak256(value). */
export type RecordWrite = Generated.AppWrite;
/** Size of a native worker lane: threads, and the most jobs that may wait for them (0 threads = the core's default). */
export type LaneSize = Generated.LaneSizeJs;
/** Counters of one native lane (block, exec, logs, backfill). */
export type LaneStats = Generated.LaneStatsJs;
/** The service column families (node-local data beside the chain): explorer indexes and explorer users. */
export type ServiceColumnFamily = 'explorer' | 'users';

/** Whether `err` is a native lane's refusal: its queue was full (the message says which lane and how many waited). */
export function isLaneBusy(err: unknown): err is Error {
  return err instanceof Error && (err as Error & { code?: unknown }).code === 'QueueFull';
}

/** The core addon as its generated declarations describe it. */
export type CoreAddon = typeof Generated;

/** The codes the core addon gives its errors (svc-napi's `coded_error`); any other native error has none. */
export type NativeErrorCode =
  | 'STATE_UNAVAILABLE'
  | 'TRACE_OPTIONS'
  | 'TRACE_NOT_FOUND'
  | 'TRACE_UNAVAILABLE'
  | 'TRACE_LIMIT'
  | 'SIMULATE'
  /** A call, estimate, access list or simulation ran past the RPC EVM timeout (geth's text). */
  | 'EVM_TIMEOUT'
  /** A reply written natively would pass the reply limit; writing stopped there. */
  | 'RESPONSE_TOO_LARGE';

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

/** The loaded core addon (crates/svc-napi); the Chain's methods raise coded errors as NativeError. */
export const core: CoreAddon = loadAddon<CoreAddon>({
  loader: 'core.cjs',
  packageName: 'svc-node-core',
  buildCommand: 'run `npm run build:native` in a clone',
});
translateErrorsOf((core.Chain as unknown as { prototype: object }).prototype, translateNativeError);
