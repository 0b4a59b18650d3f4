// eth_subscribe and eth_unsubscribe, served on WebSocket connections only (over HTTP they stay -32004).
// A subscription belongs to the connection that made it; the method reaches it through the request's client.
import { toAddress } from '../../modules/kernel/module.js';
import type { Address } from '../../modules/staking/types.js';
import { clip, InvalidArgumentError, MethodNotSupportedError, MissingArgumentError, TooManyArgumentsError } from '../errors.js';
import { method, required, type MethodTable, type RpcContext, type RpcMethod } from '../method.js';
import { InvalidValueError, parseAddress, parseBoolean, parseFilterId } from '../validate.js';
import { SubscriptionNotFoundError, UnknownSubscriptionKindError } from './errors.js';
import { parseLogCriteria } from './log-criteria.js';
import { SUBSCRIPTION_KINDS, type SubscriptionFilter, type SubscriptionKind } from './subscriptions.js';

/** The connection side of the methods: it holds the subscriptions and enforces the per-connection cap. */
export interface SubscriberSession {
  /** Starts a subscription; returns its id. Throws TooManySubscriptionsError at the cap. */
  subscribe(filter: SubscriptionFilter): string;
  /** Ends one of this connection's subscriptions; false when it has none by that id. */
  unsubscribe(id: string): boolean;
}

/** Parses argument `index` with `parse`, reporting a bad value as geth does ("invalid argument 1: ..."). */
function argument<T>(index: number, value: unknown, parse: (value: unknown) => T): T {
  try {
    return parse(value);
  } catch (err) {
    if (err instanceof InvalidValueError) throw new InvalidArgumentError(index, err.reason);
    throw err;
  }
}

/** `{ address: address | address[] }`, the optional filter of the svc kinds; null when absent. */
function parseAddressFilter(value: unknown): Set<Address> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidValueError('expected an object such as {"address": "0x..."}');
  const keys = Object.keys(value);
  const unknown = keys.find((k) => k !== 'address');
  if (unknown !== undefined) throw new InvalidValueError(`unknown member "${clip(unknown)}" (only "address" is accepted)`);
  const a = (value as { address?: unknown }).address;
  if (a === undefined || a === null) return null;
  const list = Array.isArray(a) ? a : [a];
  return new Set(list.map((x, i) => toAddress(argumentMember(`address${Array.isArray(a) ? `[${i}]` : ''}`, () => parseAddress(x)))));
}

function argumentMember<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof InvalidValueError) throw new InvalidValueError(`${field}: ${err.reason}`);
    throw err;
  }
}

function isKind(value: string): value is SubscriptionKind {
  return (SUBSCRIPTION_KINDS as readonly string[]).includes(value);
}

/** The filter an eth_subscribe call asks for: its kind and the kind's own argument, checked. */
export function parseSubscription(params: unknown[]): SubscriptionFilter {
  const kind = params[0];
  if (kind === undefined || kind === null) throw new MissingArgumentError(0);
  if (typeof kind !== 'string') throw new InvalidArgumentError(0, 'expected a subscription name string');
  if (!isKind(kind)) throw new UnknownSubscriptionKindError(kind);
  const option = params[1];
  const takesOption = kind === 'logs' || kind === 'newPendingTransactions' || kind === 'svcValidatorStatus' || kind === 'svcInferenceProofs' || kind === 'svcRentEvents';
  if (params.length > (takesOption ? 2 : 1)) throw new TooManyArgumentsError(takesOption ? 2 : 1);
  switch (kind) {
    case 'logs':
      return { kind, criteria: argument(1, option, parseLogCriteria) };
    case 'newPendingTransactions':
      return { kind, fullTransactions: option === undefined || option === null ? false : argument(1, option, parseBoolean) };
    case 'svcValidatorStatus':
    case 'svcInferenceProofs':
      return { kind, validators: argument(1, option, parseAddressFilter) };
    case 'svcRentEvents':
      return { kind, accounts: argument(1, option, parseAddressFilter) };
    default:
      return { kind };
  }
}

/** The methods, reaching the calling connection through `sessionOf(ctx)`. */
export function subscriptionMethods(sessionOf: (ctx: RpcContext) => SubscriberSession | undefined): MethodTable {
  const session = (ctx: RpcContext, name: string): SubscriberSession => {
    const s = sessionOf(ctx);
    if (s === undefined) throw new MethodNotSupportedError(name, 'subscriptions need a WebSocket connection; use the WebSocket endpoint');
    return s;
  };
  const subscribe: RpcMethod = {
    // The second argument's type depends on the first, so the arguments are checked here.
    args: null,
    run: (ctx, params) => session(ctx, 'eth_subscribe').subscribe(parseSubscription(params)),
  };
  return {
    eth_subscribe: subscribe,
    eth_unsubscribe: method([required(parseFilterId)], (ctx, [id]) => {
      if (!session(ctx, 'eth_unsubscribe').unsubscribe(id)) throw new SubscriptionNotFoundError(id);
      return true;
    }),
  };
}
