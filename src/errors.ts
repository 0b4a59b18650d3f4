// The one root of the node's errors, after viem's BaseError: a stable `code` to switch on, the
// short message (which stays the whole `message`: JSON-RPC clients and geth-compatible tools match
// on it, so no details are appended), `details` from the cause, and the `cause` itself kept for
// logs and for `walk`. Every error class of the node extends it: domain errors with a string code
// (the compute intake's ComputeRejectedError, the pool's TxPoolError, ...), and the edges' errors
// with their wire code (JSON-RPC's RpcError, the explorer's HTTP status).

export interface SvcErrorOptions {
  /** The error this one wraps (Error's own `cause`). */
  cause?: unknown;
  /** More about what happened; defaults to the cause's details or message. */
  details?: string;
}

export class SvcError extends Error {
  override name = 'SvcError';
  /** Stable: a domain error's name in capitals (e.g. 'TX_POOL_REJECTED'), or an edge's wire code. */
  readonly code: string | number = 'SVC_ERROR';
  /** The message without details (the same text as `message`). */
  readonly shortMessage: string;
  readonly details: string | undefined;

  constructor(shortMessage: string, options: SvcErrorOptions = {}) {
    super(shortMessage, options.cause === undefined ? undefined : { cause: options.cause });
    this.shortMessage = shortMessage;
    const { cause } = options;
    this.details = options.details ?? (cause instanceof SvcError ? cause.details ?? cause.shortMessage : cause instanceof Error ? cause.message : cause === undefined ? undefined : String(cause));
  }

  /** This error and its causes, outermost first: the first for which `match` holds, or the innermost. */
  walk(match?: (err: unknown) => boolean): unknown {
    let err: unknown = this;
    const seen = new Set<unknown>();
    for (;;) {
      if (match?.(err)) return err;
      const next = err instanceof Error ? err.cause : undefined;
      if (next === undefined || seen.has(next)) return match ? undefined : err;
      seen.add(err);
      err = next;
    }
  }
}
