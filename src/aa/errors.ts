// The bundler's refusals: each carries the JSON-RPC code ERC-7769 gives it (src/params.ts
// rpcErrorCode) and, where the code defines one, `data`. The RPC layer (src/rpc/eth/bundler.ts)
// answers them as they are; the bundler itself sits below the RPC layer and does not import it.
import { SvcError } from '../errors.js';

export class BundlerError extends SvcError {
  override name = 'BundlerError';
  override readonly code: number;
  constructor(
    code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.code = code;
  }
}

/** An ERC-7769 refusal of a user operation (validation, rules, time range, reputation). */
export class UserOperationRejectedError extends BundlerError {
  override name = 'UserOperationRejectedError';
  /** The EntryPoint's code ("AA21", …) when the EntryPoint refused the operation with a FailedOp. */
  entryPointCode: string | undefined;
}

/** -32602: a user operation whose members are missing or malformed (ERC-7769: invalid fields). */
export class InvalidUserOperationError extends BundlerError {
  override name = 'InvalidUserOperationError';
}

/** -32602: a replacement that does not raise both fees enough. */
export class ReplacementUnderpricedError extends BundlerError {
  override name = 'ReplacementUnderpricedError';
}
