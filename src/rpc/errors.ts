// JSON-RPC errors as classes: each has a stable name, the wire code and message, and the fields a
// caller needs. Codes come from params.rpcErrorCode; messages follow geth where clients match on them.
import { requestTimeoutMessage, tooManyConnectionsMessage } from '../net/connection-guard.js';
import { rpcErrorCode } from '../params.js';
import { SvcError, type SvcErrorOptions } from '../errors.js';

/** Longest client text an error message repeats whole (a 32-byte hash fits). */
const ECHO_MAX = 66;

/**
 * A client's text (an object key, a tag, a method name) as an error message may repeat it: whole
 * when short, else its first characters and its length, so that no answer echoes an unbounded input.
 */
export function clip(text: string): string {
  return text.length <= ECHO_MAX ? text : `${text.slice(0, 16)}… (${text.length} characters)`;
}

/** The `error` member of a JSON-RPC response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Base class: any error a method or the protocol layer reports to the client. */
export class RpcError extends SvcError {
  override name = 'RpcError';
  override readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: SvcErrorOptions) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  /** The error as it goes on the wire. */
  toObject(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** -32700: the body is not valid JSON. */
export class ParseError extends RpcError {
  override name = 'ParseError';
  constructor() {
    super(rpcErrorCode.parseError, 'parse error');
  }
}

/** -32600: the request object (or the HTTP request carrying it) is not a valid JSON-RPC request. */
export class InvalidRequestError extends RpcError {
  override name = 'InvalidRequestError';
  constructor(message: string) {
    super(rpcErrorCode.invalidRequest, message);
  }
}

/** -32600: a batch with no items. */
export class EmptyBatchError extends InvalidRequestError {
  override name = 'EmptyBatchError';
  constructor() {
    super('empty batch');
  }
}

/** -32600: a batch with more items than params.rpc.maxBatchItems (geth's text). */
export class BatchTooLargeError extends InvalidRequestError {
  override name = 'BatchTooLargeError';
  readonly items: number;
  readonly limit: number;
  constructor(items: number, limit: number) {
    super('batch too large');
    this.items = items;
    this.limit = limit;
  }
}

/** -32600: a request body over params.rpc.maxBodyBytes (sent with HTTP 413). */
export class BodyTooLargeError extends InvalidRequestError {
  override name = 'BodyTooLargeError';
  readonly limit: number;
  constructor(limit: number) {
    super(`content length too large (max ${limit} bytes)`);
    this.limit = limit;
  }
}

/** -32600: a POST whose Content-Type is not JSON (sent with HTTP 415, geth's text). */
export class UnsupportedContentTypeError extends InvalidRequestError {
  override name = 'UnsupportedContentTypeError';
  readonly contentType: string;
  constructor(contentType: string) {
    super('invalid content type, only application/json is supported');
    this.contentType = contentType;
  }
}

/** -32601: no such method (geth's text). */
export class MethodNotFoundError extends RpcError {
  override name = 'MethodNotFoundError';
  readonly method: string;
  constructor(method: string) {
    super(rpcErrorCode.methodNotFound, `the method ${clip(method)} does not exist/is not available`);
    this.method = method;
  }
}

/** -32602: the params do not fit the method. */
export class InvalidParamsError extends RpcError {
  override name = 'InvalidParamsError';
  constructor(message: string, options?: SvcErrorOptions) {
    super(rpcErrorCode.invalidParams, message, undefined, options);
  }
}

/** -32602: one positional argument is malformed ("invalid argument 0: hex string without 0x prefix"). */
export class InvalidArgumentError extends InvalidParamsError {
  override name = 'InvalidArgumentError';
  readonly argument: number;
  readonly reason: string;
  constructor(argument: number, reason: string) {
    super(`invalid argument ${argument}: ${reason}`);
    this.argument = argument;
    this.reason = reason;
  }
}

/** -32602: a required positional argument is absent or null. */
export class MissingArgumentError extends InvalidParamsError {
  override name = 'MissingArgumentError';
  readonly argument: number;
  constructor(argument: number) {
    super(`missing value for required argument ${argument}`);
    this.argument = argument;
  }
}

/** -32602: more positional arguments than the method takes. */
export class TooManyArgumentsError extends InvalidParamsError {
  override name = 'TooManyArgumentsError';
  readonly max: number;
  constructor(max: number) {
    super(`too many arguments, want at most ${max}`);
    this.max = max;
  }
}

/** -32603: a fault inside the node; the message is the underlying error's. */
export class InternalError extends RpcError {
  override name = 'InternalError';
  constructor(message: string, options?: SvcErrorOptions) {
    super(rpcErrorCode.internalError, message, undefined, options);
  }
}

/** -32000: EVM execution stopped without a revert (geth's text: "out of gas", "invalid opcode: ..."). */
export class ExecutionError extends RpcError {
  override name = 'ExecutionError';
  constructor(message: string) {
    super(rpcErrorCode.serverError, message);
  }
}

/** -32000: the filter id is unknown or expired (geth's text; viem re-creates the filter on it). */
export class FilterNotFoundError extends RpcError {
  override name = 'FilterNotFoundError';
  readonly filterId: string;
  constructor(filterId: string) {
    super(rpcErrorCode.serverError, 'filter not found');
    this.filterId = filterId;
  }
}

/** -32001: a state query names a block the node does not have (geth's text). */
export class HeaderNotFoundError extends RpcError {
  override name = 'HeaderNotFoundError';
  constructor() {
    super(rpcErrorCode.resourceNotFound, 'header not found');
  }
}

/** -32001: eth_getLogs / eth_feeHistory name a block the node does not have. */
export class UnknownBlockError extends RpcError {
  override name = 'UnknownBlockError';
  constructor(message = 'unknown block') {
    super(rpcErrorCode.resourceNotFound, message);
  }
}

/** -32002: the block exists but its state has been pruned. */
export class HistoricalStateUnavailableError extends RpcError {
  override name = 'HistoricalStateUnavailableError';
  readonly blockNumber: number;
  constructor(blockNumber: number, message: string, options?: SvcErrorOptions) {
    super(rpcErrorCode.resourceUnavailable, message, undefined, options);
    this.blockNumber = blockNumber;
  }
}

/** -32003: the mempool refused the transaction (the message is geth's text, which viem matches on), or the compute intake refused a proof or registration (`data` has its reason code). */
export class TransactionRejectedError extends RpcError {
  override name = 'TransactionRejectedError';
  constructor(message: string, data?: unknown, options?: SvcErrorOptions) {
    super(rpcErrorCode.transactionRejected, message, data, options);
  }
}

/** -32004: a method geth has that this node deliberately does not serve. */
export class MethodNotSupportedError extends RpcError {
  override name = 'MethodNotSupportedError';
  readonly method: string;
  constructor(method: string, why: string) {
    super(rpcErrorCode.methodNotSupported, `method not supported: ${method} (${why})`);
    this.method = method;
  }
}

/** -32005: a serving limit was hit. */
export class LimitExceededError extends RpcError {
  override name = 'LimitExceededError';
  constructor(message: string, data?: unknown, options?: SvcErrorOptions) {
    super(rpcErrorCode.limitExceeded, message, data, options);
  }
}

/** -32005 with HTTP 429: the client's IP is over params.rpc.rateLimitPerSecond. */
export class RateLimitExceededError extends LimitExceededError {
  override name = 'RateLimitExceededError';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('rate limit exceeded');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** -32005 with HTTP 408: the request's body did not arrive within the read timeout; the connection is closed. */
export class RequestTimeoutError extends LimitExceededError {
  override name = 'RequestTimeoutError';
  constructor(readTimeoutMs: number) {
    super(requestTimeoutMessage(readTimeoutMs));
  }
}

/** -32005 with HTTP 429: the client's address already holds params.http.maxConnectionsPerIp connections; this one is closed. */
export class TooManyConnectionsError extends LimitExceededError {
  override name = 'TooManyConnectionsError';
  constructor(maxPerIp: number) {
    super(tooManyConnectionsMessage(maxPerIp));
  }
}

/** -32005: the rest of a batch is dropped once its responses pass params.rpc.maxBatchResponseBytes. */
export class ResponseTooLargeError extends LimitExceededError {
  override name = 'ResponseTooLargeError';
  constructor() {
    super('response too large');
  }
}

/** -32005: eth_getLogs asked for too wide a range or matched too many logs; `data` has a range that fits. */
export class LogQueryLimitError extends LimitExceededError {
  override name = 'LogQueryLimitError';
  readonly limit: number;
  readonly suggestedFrom: number;
  readonly suggestedTo: number;
  constructor(what: 'block range' | 'results', limit: number, suggestedFrom: number, suggestedTo: number) {
    const from = `0x${suggestedFrom.toString(16)}`;
    const to = `0x${suggestedTo.toString(16)}`;
    // When one block alone matches more than the limit, no narrower range helps: say what does.
    const advice =
      what === 'results' && suggestedFrom === suggestedTo
        ? `block ${from} alone matches more logs; narrow the address or topics, or read its eth_getBlockReceipts`
        : `retry with the range ${from}-${to}`;
    super(`query exceeds max ${what} ${limit}, ${advice}`, {
      limit: `0x${limit.toString(16)}`,
      suggestedFrom: from,
      suggestedTo: to,
    });
    this.limit = limit;
    this.suggestedFrom = suggestedFrom;
    this.suggestedTo = suggestedTo;
  }
}

/** -32005: params.rpc.maxFilters filters are installed already. */
export class TooManyFiltersError extends LimitExceededError {
  override name = 'TooManyFiltersError';
  readonly limit: number;
  constructor(limit: number) {
    super(`too many filters installed (max ${limit}); uninstall unused filters`);
    this.limit = limit;
  }
}

/** 3: the EVM reverted; message carries the decoded reason, `data` the raw revert bytes (geth's shape). */
export class ExecutionRevertedError extends RpcError {
  override name = 'ExecutionRevertedError';
  readonly reason: string | undefined;
  constructor(reason: string | undefined, revertData: string) {
    super(rpcErrorCode.executionReverted, reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, revertData);
    this.reason = reason;
  }
}

/** -32001: an svc_* query names a validator, delegation, epoch or account the chain does not know. */
export class NotFoundError extends RpcError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super(rpcErrorCode.resourceNotFound, message);
  }
}

/** -32005: the faucet was used by this address or IP too recently. */
export class FaucetCooldownError extends LimitExceededError {
  override name = 'FaucetCooldownError';
  readonly retryAfterSeconds: number;
  constructor(who: 'address' | 'IP', retryAfterSeconds: number) {
    super(`faucet cooldown: this ${who} was funded recently, try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
