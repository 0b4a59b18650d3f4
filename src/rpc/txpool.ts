// txpool namespace, as geth serves it: what the pool holds, pending (executable in nonce order)
// and queued (behind a nonce gap), by sender and nonce. On a CometBFT validator the pool holds what
// the network's mempool gossiped to it as well as what was sent to this node.
import { checksumAddress } from '../chain/address.js';
import type { PooledTx } from '../chain/pool.js';
import { toQuantity } from './hex.js';
import { method, required, type MethodTable, type RpcContext } from './method.js';
import { parseAddress } from './validate.js';

type BySender<T> = Record<string, Record<string, T>>;

/** A sender's transactions by nonce (decimal strings, as geth keys them). */
function byNonce<T>(txs: readonly PooledTx[], view: (tx: PooledTx) => T): Record<string, T> {
  return Object.fromEntries(txs.map((p) => [p.tx.nonce.toString(), view(p)]));
}

function content<T>(ctx: RpcContext, view: (tx: PooledTx) => T): { pending: BySender<T>; queued: BySender<T> } {
  const pending: BySender<T> = {};
  const queued: BySender<T> = {};
  const senders = ctx.services.mempool.senderAddresses().sort(Buffer.compare);
  for (const address of senders) {
    const txs = ctx.services.mempool.senderTransactions(address);
    const key = checksumAddress(address);
    if (txs.pending.length > 0) pending[key] = byNonce(txs.pending, view);
    if (txs.queued.length > 0) queued[key] = byNonce(txs.queued, view);
  }
  return { pending, queued };
}

const fullTx = (ctx: RpcContext) => (p: PooledTx) => ctx.services.chain.pendingTransactionJson(p.raw, p.tx.from);

/** geth's one-line summary: "<to>: <value> wei + <gas> gas × <price> wei" (the fee cap for EIP-1559 transactions). */
function summary(p: PooledTx): string {
  const to = p.tx.to === null ? 'contract creation' : checksumAddress(p.tx.to);
  return `${to}: ${p.tx.value} wei + ${p.tx.gasLimit} gas × ${p.tx.maxFeePerGas} wei`;
}

export const txpoolMethods: MethodTable = {
  txpool_status: method([], (ctx) => {
    const { pending, queued } = ctx.services.mempool.stats();
    return { pending: toQuantity(pending), queued: toQuantity(queued) };
  }),

  txpool_content: method([], (ctx) => content(ctx, fullTx(ctx))),

  txpool_contentFrom: method([required(parseAddress)], (ctx, [address]) => {
    const txs = ctx.services.mempool.senderTransactions(address);
    return { pending: byNonce(txs.pending, fullTx(ctx)), queued: byNonce(txs.queued, fullTx(ctx)) };
  }),

  txpool_inspect: method([], (ctx) => content(ctx, summary)),
};
