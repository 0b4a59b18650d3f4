// Errors of subscriptions over WebSocket, as classes on the JSON-RPC error base (geth's texts where it has one).
import { rpcErrorCode } from '../../params.js';
import { clip, LimitExceededError, RpcError } from '../errors.js';

/** -32005: the connection holds params.ws.maxSubscriptionsPerConnection subscriptions already (spec: 50). */
export class TooManySubscriptionsError extends LimitExceededError {
  override name = 'TooManySubscriptionsError';
  readonly limit: number;
  constructor(limit: number) {
    super(`too many subscriptions on this connection (max ${limit}); eth_unsubscribe one before subscribing again`, { limit });
    this.limit = limit;
  }
}

/** -32601: eth_subscribe names a kind this node does not have (geth's text and code). */
export class UnknownSubscriptionKindError extends RpcError {
  override name = 'UnknownSubscriptionKindError';
  readonly kind: string;
  constructor(kind: string) {
    super(rpcErrorCode.methodNotFound, `no ${JSON.stringify(clip(kind))} subscription in eth namespace`);
    this.kind = kind;
  }
}

/** -32000: eth_unsubscribe names no subscription of this connection (geth's text). */
export class SubscriptionNotFoundError extends RpcError {
  override name = 'SubscriptionNotFoundError';
  readonly subscriptionId: string;
  constructor(subscriptionId: string) {
    super(rpcErrorCode.serverError, 'subscription not found');
    this.subscriptionId = subscriptionId;
  }
}
