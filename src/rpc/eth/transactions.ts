// Transactions: lookups (mined, else pending in the pool), receipts, and eth_sendRawTransaction.
import { PoolJournalError } from '../../chain/pool-journal.js';
import { TxPoolError } from '../../chain/pool.js';
import { rpcErrorCode } from '../../params.js';
import { blockSelectorOf } from '../block-tags.js';
import { InvalidArgumentError, RpcError, TransactionRejectedError } from '../errors.js';
import { toData } from '../hex.js';
import { method, required, type MethodTable, type RpcContext } from '../method.js';
import { parseBlockNumberOrTag, parseBytes, parseHash, parseIndex } from '../validate.js';

/** The EIP-2718 encoding of a transaction mined or waiting in the pool, or null (geth's GetRawTransaction). */
export function rawTransaction(ctx: RpcContext, hash: Buffer): string | null {
  const raw = ctx.services.chain.getRawTransaction(hash) ?? ctx.services.mempool.get(hash)?.raw;
  return raw === undefined || raw === null ? null : toData(raw);
}

/**
 * What a caller of Mempool.submit hears: the pool's refusals as -32003 with geth's texts verbatim
 * ("nonce too low", "insufficient funds for gas * price + value"), a failed journal write as -32000
 * (the pool dropped the transaction again, so it is never mined; the journal logs the failure once,
 * not per call), anything else as it is.
 */
export function submitError(err: unknown): unknown {
  if (err instanceof TxPoolError) return new TransactionRejectedError(err.message, undefined, { cause: err });
  if (err instanceof PoolJournalError) return new RpcError(rpcErrorCode.serverError, err.message, undefined, { cause: err });
  return err;
}

export const transactionMethods: MethodTable = {
  eth_getTransactionByHash: method([required(parseHash)], (ctx, [hash]) => {
    const { chain, mempool } = ctx.services;
    const mined = chain.getTransactionByHash(hash);
    if (mined !== null) return mined;
    const pooled = mempool.get(hash);
    return pooled === undefined ? null : chain.pendingTransactionJson(pooled.raw, pooled.tx.from);
  }),

  eth_getTransactionReceipt: method([required(parseHash)], (ctx, [hash]) => ctx.services.chain.getTransactionReceipt(hash)),

  eth_getTransactionByBlockNumberAndIndex: method(
    [required(parseBlockNumberOrTag), required(parseIndex)],
    (ctx, [block, index]) => {
      const { chain } = ctx.services;
      const sel = blockSelectorOf(chain, block);
      return sel === null ? null : chain.getTransactionByBlockAndIndex(sel, index);
    },
  ),

  eth_getTransactionByBlockHashAndIndex: method([required(parseHash), required(parseIndex)], (ctx, [hash, index]) =>
    ctx.services.chain.getTransactionByBlockAndIndex({ hash }, index),
  ),

  eth_getRawTransactionByHash: method([required(parseHash)], (ctx, [hash]) => rawTransaction(ctx, hash)),

  eth_getRawTransactionByBlockNumberAndIndex: method(
    [required(parseBlockNumberOrTag), required(parseIndex)],
    (ctx, [block, index]) => {
      const { chain } = ctx.services;
      const sel = blockSelectorOf(chain, block);
      const raw = sel === null ? null : chain.getRawTransactionByBlockAndIndex(sel, index);
      return raw === null ? null : toData(raw);
    },
  ),

  eth_getRawTransactionByBlockHashAndIndex: method([required(parseHash), required(parseIndex)], (ctx, [hash, index]) => {
    const raw = ctx.services.chain.getRawTransactionByBlockAndIndex({ hash }, index);
    return raw === null ? null : toData(raw);
  }),

  eth_sendRawTransaction: method([required(parseBytes)], (ctx, [raw]) => {
    if (raw.length === 0) throw new InvalidArgumentError(0, 'empty transaction');
    // Admitted now, in call order; answered once the pool journal holds it, so an answered hash survives a crash.
    const answer = ctx.services.mempool.submit(raw).then(toData, (err: unknown) => {
      throw submitError(err);
    });
    return ctx.answerLater ? ctx.answerLater(answer) : answer;
  }),
};
