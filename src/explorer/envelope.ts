// The explorer's response envelope ({ok: true, data} or {ok: false, error}) and its errors, each
// with its HTTP status. Large integers go out as decimal strings.
import { SvcError, type SvcErrorOptions } from '../errors.js';

/** An error a route reports to the client: HTTP status (also its `code`) and a human-readable message. */
export class ExplorerError extends SvcError {
  override name = 'ExplorerError';
  override readonly code: number;
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    options?: SvcErrorOptions,
  ) {
    super(message, options);
    this.code = status;
  }
}

export class BadRequestError extends ExplorerError {
  override name = 'BadRequestError';
  constructor(message: string) {
    super(400, message);
  }
}

/** The client closed the connection before its body was complete: nothing to answer, nothing broken. */
export class RequestAbortedError extends ExplorerError {
  override name = 'RequestAbortedError';
  constructor() {
    super(400, 'request body ended before it was complete');
  }
}

export class UnauthorizedError extends ExplorerError {
  override name = 'UnauthorizedError';
  constructor(message = 'authentication required') {
    super(401, message, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends ExplorerError {
  override name = 'ForbiddenError';
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends ExplorerError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends ExplorerError {
  override name = 'ConflictError';
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends ExplorerError {
  override name = 'PayloadTooLargeError';
  constructor(limit: number) {
    super(413, `request body too large (max ${limit} bytes)`);
  }
}

/** 415: the route takes JSON only (`Content-Type: application/json`). */
export class UnsupportedMediaTypeError extends ExplorerError {
  override name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super(415, message);
  }
}

export class TooManyRequestsError extends ExplorerError {
  override name = 'TooManyRequestsError';
  constructor(message: string, headers: Record<string, string>) {
    super(429, message, headers);
  }
}

/** 503: the node's workers for this kind of request are all busy and their queue is full; retry shortly. */
export class ServiceBusyError extends ExplorerError {
  override name = 'ServiceBusyError';
  constructor(message: string) {
    super(503, message, { 'Retry-After': '1' });
  }
}

/** JSON with bigints as decimal strings (the explorer's rule for large integers). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

export function success(data: unknown): string {
  return toJson({ ok: true, data });
}

export function failure(message: string): string {
  return toJson({ ok: false, error: message });
}
