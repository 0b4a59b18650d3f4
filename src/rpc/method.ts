// How a JSON-RPC method is declared: its positional arguments (each a parser, required or optional)
// and its implementation, which receives the parsed values. The dispatcher does the checking.
import type { NodeServices } from '../services.js';
import type { GasPriceOracle } from '../chain/gas-price.js';
import type { InstalledFilters } from './installed-filters.js';
import type { Faucet } from './faucet.js';

/** What every method implementation can reach. */
export interface RpcContext {
  services: NodeServices;
  filters: InstalledFilters;
  gasPrice: GasPriceOracle;
  faucet: Faucet;
  /** The client of the request being answered (absent outside a transport, e.g. in direct calls). */
  client?: { ip: string };
  /**
   * Set while a batch is answered: a method whose answer only waits (on the pool journal's fsync)
   * returns `answerLater(answer)`; the batch goes on to its next call and fills this call's answer
   * from `answer` before the batch is sent, so a batch of transactions shares one fsync.
   */
  answerLater?: (answer: Promise<unknown>) => typeof ANSWER_LATER;
}

/**
 * A result already written as JSON bytes (by the native side, on a lane thread, within the reply
 * limit): the dispatcher puts it into the answer as it is, never parsing it into a JavaScript value.
 */
export class RawJson {
  constructor(readonly bytes: Buffer) {}
}

/** What a method returns in place of an answer handed to `RpcContext.answerLater`. */
export const ANSWER_LATER: unique symbol = Symbol('answer later');

/** One positional argument: its parser, and whether it may be absent (absent or null -> undefined). */
export interface Arg<T> {
  parse(value: unknown): T;
  required: boolean;
}

/** An argument that must be present and non-null. */
export function required<T>(parse: (value: unknown) => T): Arg<T> {
  return { parse, required: true };
}

/** An argument that may be left out or given as null. */
export function optional<T>(parse: (value: unknown) => T): Arg<T | undefined> {
  return { parse, required: false };
}

type ArgValues<A extends readonly Arg<unknown>[]> = { [K in keyof A]: A[K] extends Arg<infer T> ? T : never };

/** A method as the dispatcher sees it. */
export interface RpcMethod {
  /** The positional arguments, or null for a method that reads none and accepts any params. */
  args: readonly Arg<unknown>[] | null;
  run(ctx: RpcContext, values: unknown[]): unknown;
}

/** Declares a method from its arguments and an implementation typed by them. */
export function method<const A extends readonly Arg<unknown>[]>(
  args: A,
  run: (ctx: RpcContext, values: ArgValues<A>) => unknown,
): RpcMethod {
  return { args, run: run as RpcMethod['run'] };
}

/** A method table: name -> method. */
export type MethodTable = Record<string, RpcMethod>;
