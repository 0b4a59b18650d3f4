// JSON-RPC 2.0 over any transport: payload parsing, request validation, batches, dispatch, ids.
import type { Logger } from 'pino';
import { rpc } from '../params.js';
import {
  BatchTooLargeError,
  EmptyBatchError,
  ExecutionError,
  InternalError,
  InvalidArgumentError,
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  MethodNotFoundError,
  MissingArgumentError,
  ParseError,
  ResponseTooLargeError,
  RpcError,
  TooManyArgumentsError,
  type RpcErrorObject,
} from './errors.js';
import { UNKNOWN_METHOD, type RpcMetrics } from './metrics.js';
import { ANSWER_LATER, RawJson, type Arg, type MethodTable, type RpcContext } from './method.js';
import { InvalidValueError } from './validate.js';
import { isLaneBusy, NativeError } from '../native/index.js';

/** A request id: the spec allows a string, a number or null (a null id is a real request and is answered). */
export type RpcId = string | number | null;

export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId; error: RpcErrorObject };

/** A serialized answer: text, or bytes when a result came as JSON bytes (RawJson). */
export type Answer = string | Buffer;

/** The -32000 answer to a reply past the limit (the text the native side gives too). */
function tooLargeError(limit: number): ExecutionError {
  return new ExecutionError(`response too large: the reply exceeds the limit of ${limit} bytes`);
}

/** A request body, read: answered already (bad JSON, bad batch), one message, or a batch of them. */
export type Payload =
  | { kind: 'rejected'; body: string }
  | { kind: 'single'; message: unknown }
  | { kind: 'batch'; messages: unknown[] };

function failure(id: RpcId, error: RpcError): RpcResponse {
  return { jsonrpc: '2.0', id, error: error.toObject() };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValidId(id: unknown): id is RpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** Parses a body into a payload; invalid JSON, an empty batch and an oversized batch are answered here. */
export function parsePayload(text: string): Payload {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'rejected', body: JSON.stringify(failure(null, new ParseError())) };
  }
  if (!Array.isArray(value)) return { kind: 'single', message: value };
  if (value.length === 0) return { kind: 'rejected', body: JSON.stringify(failure(null, new EmptyBatchError())) };
  if (value.length > rpc.maxBatchItems) {
    // geth: one error in an array, carrying the id of the first call, since a batch has no id of its own.
    const first = value.find((m) => isObject(m) && 'id' in m && isValidId(m.id)) as { id: RpcId } | undefined;
    const error = new BatchTooLargeError(value.length, rpc.maxBatchItems);
    return { kind: 'rejected', body: JSON.stringify([failure(first?.id ?? null, error)]) };
  }
  return { kind: 'batch', messages: value };
}

/** Positional params checked against a method's arguments and parsed. */
function decodeArgs(args: readonly Arg<unknown>[] | null, params: unknown): unknown[] {
  let list: unknown[];
  if (params === undefined || params === null) list = [];
  else if (Array.isArray(params)) list = params;
  else throw new InvalidParamsError('non-array args: params must be an array');
  if (args === null) return list;
  if (list.length > args.length) throw new TooManyArgumentsError(args.length);
  return args.map((arg, i) => {
    const value = list[i];
    if (value === undefined || value === null) {
      if (arg.required) throw new MissingArgumentError(i);
      return undefined;
    }
    try {
      return arg.parse(value);
    } catch (err) {
      if (err instanceof InvalidValueError) throw new InvalidArgumentError(i, err.reason);
      throw err;
    }
  });
}

/** Validates requests, runs methods from the table and shapes responses. */
export class RpcDispatcher {
  /** Most bytes of one answer (0: no limit). */
  private readonly maxResponseBytes: number;

  constructor(
    private readonly table: MethodTable,
    private readonly ctx: RpcContext,
    private readonly metrics: RpcMetrics,
    private readonly log: Logger,
  ) {
    this.maxResponseBytes = ctx.services.config.rpcMaxResponseBytes ?? rpc.maxResponseBytes;
  }

  /** The serialized answer to a payload, or null when nothing is to be sent (notifications only). */
  async respond(payload: Payload, client?: { ip: string }): Promise<Answer | null> {
    if (payload.kind === 'rejected') return payload.body;
    const ctx = client === undefined ? this.ctx : { ...this.ctx, client };
    if (payload.kind === 'single') {
      const response = await this.answer(payload.message, ctx);
      return response === null ? null : this.serialize(response);
    }
    return this.respondToBatch(payload.messages, ctx);
  }

  /** Answers one request; null for a notification (a valid request without an id member). */
  async answer(message: unknown, ctx: RpcContext = this.ctx): Promise<RpcResponse | null> {
    if (!isObject(message)) return failure(null, new InvalidRequestError('invalid request: expected a request object'));
    const hasId = 'id' in message;
    if (hasId && !isValidId(message.id)) {
      return failure(null, new InvalidRequestError('invalid request: id must be a string, a number or null'));
    }
    const id: RpcId = hasId ? (message.id as RpcId) : null;
    if (message.jsonrpc !== '2.0') return failure(id, new InvalidRequestError('invalid request: jsonrpc must be "2.0"'));
    if (typeof message.method !== 'string' || message.method.length === 0) {
      return failure(id, new InvalidRequestError('invalid request: method must be a non-empty string'));
    }
    const response = await this.call(id, message.method, message.params, ctx);
    return hasId ? response : null;
  }

  /**
   * Answers a batch in order, one call after another as geth does, within the response size cap;
   * answers a method handed to answerLater (waiting on the pool journal) are filled in at the end.
   */
  private async respondToBatch(messages: unknown[], ctx: RpcContext): Promise<Answer | null> {
    const parts: Answer[] = [];
    type Settled = { result: unknown } | { error: unknown };
    const handed: Promise<Settled>[] = [];
    const later: { index: number; id: RpcId; method: string; answer: Promise<Settled> }[] = [];
    const batchCtx: RpcContext = {
      ...ctx,
      answerLater: (answer) => {
        // Settled into a value at once: a refusal waiting for the end of the batch is not an unhandled rejection.
        handed.push(answer.then((result) => ({ result }), (error: unknown) => ({ error })));
        return ANSWER_LATER;
      },
    };
    let bytes = 0;
    let tooLarge = false;
    for (const message of messages) {
      if (tooLarge) {
        // geth: once the cap is passed, calls still waiting are answered with an error and not run.
        if (isObject(message) && 'id' in message && isValidId(message.id)) {
          parts.push(this.serialize(failure(message.id, new ResponseTooLargeError())));
        }
        continue;
      }
      const response = await this.answer(message, batchCtx);
      const answer = handed.pop();
      if (response === null) continue;
      if (answer !== undefined && 'result' in response && response.result === ANSWER_LATER) {
        later.push({ index: parts.length, id: response.id, method: String((message as { method: unknown }).method), answer });
        parts.push('');
        continue;
      }
      const text = this.serialize(response);
      parts.push(text);
      bytes += typeof text === 'string' ? Buffer.byteLength(text) : text.length;
      if (bytes > rpc.maxBatchResponseBytes) tooLarge = true;
    }
    for (const { index, id, method, answer } of later) {
      const settled = await answer;
      parts[index] = this.serialize('error' in settled ? failure(id, this.toRpcError(settled.error, method)) : { jsonrpc: '2.0', id, result: settled.result });
    }
    if (parts.length === 0) return null;
    if (parts.every((p) => typeof p === 'string')) return `[${parts.join(',')}]`;
    // Some answers are bytes: the batch is put together as bytes, its strings written once each.
    const comma = Buffer.from(',');
    const chunks: Buffer[] = [Buffer.from('[')];
    parts.forEach((p, i) => {
      if (i > 0) chunks.push(comma);
      chunks.push(typeof p === 'string' ? Buffer.from(p) : p);
    });
    chunks.push(Buffer.from(']'));
    return Buffer.concat(chunks);
  }

  private async call(id: RpcId, name: string, params: unknown, ctx: RpcContext): Promise<RpcResponse> {
    const started = performance.now();
    // Own properties only: "constructor" or "__proto__" are not methods.
    const method = Object.hasOwn(this.table, name) ? this.table[name] : undefined;
    let response: RpcResponse;
    try {
      if (method === undefined) throw new MethodNotFoundError(name);
      const result = await method.run(ctx, decodeArgs(method.args, params));
      response = { jsonrpc: '2.0', id, result: result === undefined ? null : result };
    } catch (err) {
      response = failure(id, this.toRpcError(err, name));
    }
    const status = 'error' in response ? String(response.error.code) : 'ok';
    this.metrics.observeCall(method === undefined ? UNKNOWN_METHOD : name, status, (performance.now() - started) / 1000);
    return response;
  }

  private toRpcError(err: unknown, method: string): RpcError {
    if (err instanceof RpcError) return err;
    // A native lane with a full queue: the node is busy with other readers, not broken.
    if (isLaneBusy(err)) return new LimitExceededError(err.message, undefined, { cause: err });
    // The request's own limits (the RPC EVM timeout, the reply limit): the client's to heed, not a fault.
    if (err instanceof NativeError && (err.code === 'EVM_TIMEOUT' || err.code === 'RESPONSE_TOO_LARGE')) return new ExecutionError(err.message);
    this.log.error({ err, method }, 'JSON-RPC method failed');
    return new InternalError(err instanceof Error ? err.message : String(err), { cause: err });
  }

  /**
   * The answer as text, or as bytes around a result that came as JSON bytes. An answer past the
   * reply limit becomes the -32000 "response too large" error (bytes made natively stop at it before).
   */
  private serialize(response: RpcResponse): Answer {
    const limit = this.maxResponseBytes;
    if ('result' in response && response.result instanceof RawJson) {
      const { bytes } = response.result;
      if (limit > 0 && bytes.length > limit) return JSON.stringify(failure(response.id, tooLargeError(limit)));
      return Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":`), bytes, Buffer.from('}')]);
    }
    let text: string;
    try {
      text = JSON.stringify(response);
    } catch (err) {
      // A result that cannot be written (a bigint that escaped formatting) is a node fault, not the client's.
      this.log.error({ err }, 'JSON-RPC result could not be serialized');
      return JSON.stringify(failure(response.id, new InternalError('result could not be serialized')));
    }
    // A UTF-8 byte is at most three UTF-16 units' worth: only a long text needs counting.
    if (limit > 0 && text.length * 3 > limit && Buffer.byteLength(text) > limit) return JSON.stringify(failure(response.id, tooLargeError(limit)));
    return text;
  }
}
