// Transactions: lookups (mined, else pending in the pool; by hash, by block and index, by sender
// and nonce), receipts, and eth_sendRawTransaction (and its EIP-7966 Sync form, which waits for the
// receipt).
import { PoolJournalError } from '../../chain/pool-journal.js';
import { TxPoolError } from '../../chain/pool.js';
import { core } from '../../native/index.js';
import { rpc, rpcErrorCode } from '../../params.js';
import { blockSelectorOf, isPending } from '../block-tags.js';
import { pendingTransactionObjects, pendingTransactions } from '../pending-block.js';
import { HistoricalStateUnavailableError, InvalidArgumentError, RpcError, TransactionRejectedError } from '../errors.js';
import { readState } from '../historical-state.js';
import { toData } from '../hex.js';
import { method, optional, required, type MethodTable, type RpcContext } from '../method.js';
import { goDuration, transactionWaits } from '../tx-sync.js';
import { InvalidValueError, parseAddress, parseBlockNumberOrTag, parseBytes, parseHash, parseIndex, parseUint64 } from '../validate.js';

/** EIP-7966's timeout: milliseconds as a JSON integer (geth) or a hex quantity (viem sends one). */
function parseTimeoutMs(value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new InvalidValueError('timeout must be a whole number of milliseconds, 0 or more');
    return value;
  }
  if (typeof value === 'string') {
    const n = parseUint64(value);
    return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
  }
  throw new InvalidValueError('timeout must be a number of milliseconds');
}

/**
 * eth_sendRawTransactionSync: submits as eth_sendRawTransaction does, then waits for the block that
 * includes it and answers its receipt. The wait is a listener on the node's block events
 * (tx-sync.ts), registered before the transaction is submitted so that no block is missed; past the
 * timeout (the default without one, at most the maximum) it ends with geth's code 4 and the hash.
 */
function sendRawTransactionSync(ctx: RpcContext, raw: Buffer, timeoutMs: number | undefined): Promise<unknown> {
  const { chain, events, mempool } = ctx.services;
  const timeout = timeoutMs === undefined || timeoutMs === 0 ? rpc.txSyncDefaultTimeoutMs : Math.min(timeoutMs, rpc.txSyncMaxTimeoutMs);
  // A transaction's hash is the keccak of its EIP-2718 encoding.
  const hash = core.keccak256(raw);
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const end = (): void => {
      stop();
      clearTimeout(timer);
    };
    const stop = transactionWaits(chain, events).watch(hash, {
      resolve: (receipt) => {
        end();
        resolve(receipt);
      },
      reject: (reason) => {
        end();
        reject(new TransactionRejectedError(reason));
      },
    });
    timer = setTimeout(() => {
      end();
      reject(new RpcError(rpcErrorCode.transactionSyncTimeout, `The transaction was added to the transaction pool but wasn't processed in ${goDuration(timeout)}`, toData(hash)));
    }, timeout);
    mempool.submit(raw).then(
      () => {
        const receipt = chain.getTransactionReceipt(hash);
        if (receipt !== null) {
          end();
          resolve(receipt);
        }
      },
      (err: unknown) => {
        end();
        reject(submitError(err));
      },
    );
  });
}

/**
 * eth_getTransactionBySenderAndNonce (Erigon's, as geth serves it): a nonce the head's state has not
 * passed is looked for in the pool; otherwise the block that used it is found by a binary search
 * on the sender's nonce in the state after each block (the first block after which it exceeds
 * `nonce`: about log2(head) account reads), and the transaction is picked from that block. A nonce
 * spent without a transaction of the sender's (an EIP-7702 authorization, a contract's CREATE)
 * has none: null.
 */
export function transactionBySenderAndNonce(ctx: RpcContext, address: Buffer, nonce: bigint): unknown {
  const { chain, mempool } = ctx.services;
  const nonceAfter = (n: number): bigint => readState(n, () => chain.getAccount(address, n)).nonce;
  let hi = chain.head().number;
  if (nonceAfter(hi) <= nonce) {
    const { pending, queued } = mempool.senderTransactions(address);
    const pooled = [...pending, ...queued].find((p) => p.tx.nonce === nonce);
    return pooled === undefined ? null : chain.pendingTransactionJson(pooled.raw, pooled.tx.from);
  }
  let lo = chain.stateFrom();
  if (nonceAfter(lo) > nonce) {
    if (lo === 0) return null; // the genesis state holds it: no transaction used it
    throw new HistoricalStateUnavailableError(lo, `the transaction with nonce ${nonce} is older than the state this node holds (from block ${lo})`);
  }
  // nonceAfter(lo) <= nonce < nonceAfter(hi)
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (nonceAfter(mid) > nonce) hi = mid;
    else lo = mid;
  }
  const block = chain.getBlock({ number: hi }, true);
  const sender = `0x${address.toString('hex')}`;
  const txs = (block?.transactions ?? []) as Record<string, unknown>[];
  return txs.find((t) => String(t.from).toLowerCase() === sender && BigInt(t.nonce as string) === nonce) ?? null;
}

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
      if (isPending(block)) return pendingTransactionObjects(ctx)[index] ?? null;
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
      if (isPending(block)) {
        const pooled = pendingTransactions(ctx)[index];
        return pooled === undefined ? null : toData(pooled.raw);
      }
      const sel = blockSelectorOf(chain, block);
      const raw = sel === null ? null : chain.getRawTransactionByBlockAndIndex(sel, index);
      return raw === null ? null : toData(raw);
    },
  ),

  eth_getRawTransactionByBlockHashAndIndex: method([required(parseHash), required(parseIndex)], (ctx, [hash, index]) => {
    const raw = ctx.services.chain.getRawTransactionByBlockAndIndex({ hash }, index);
    return raw === null ? null : toData(raw);
  }),

  eth_sendRawTransactionSync: method([required(parseBytes), optional(parseTimeoutMs)], (ctx, [raw, timeoutMs]) => {
    if (raw.length === 0) throw new InvalidArgumentError(0, 'empty transaction');
    const answer = sendRawTransactionSync(ctx, raw, timeoutMs);
    return ctx.answerLater ? ctx.answerLater(answer) : answer;
  }),

  eth_getTransactionBySenderAndNonce: method([required(parseAddress), required(parseUint64)], (ctx, [address, nonce]) =>
    transactionBySenderAndNonce(ctx, address, nonce),
  ),

  eth_sendRawTransaction: method([required(parseBytes)], (ctx, [raw]) => {
    if (raw.length === 0) throw new InvalidArgumentError(0, 'empty transaction');
    // Admitted now, in call order; answered once the pool journal holds it, so an answered hash survives a crash.
    const answer = ctx.services.mempool.submit(raw).then(toData, (err: unknown) => {
      throw submitError(err);
    });
    return ctx.answerLater ? ctx.answerLater(answer) : answer;
  }),
};
