// The `pending` block as geth answers it: the block after the head, holding what the pool would
// put in it now (Mempool.nextBlock: ready by nonce, best tip first, within the head's gas limit),
// with `hash`, `nonce` and `miner` null. It is not executed: the fields only execution and sealing
// decide are those of a block that has not run (docs/rpc.md, "Block tags").
import type { PooledTx } from '../chain/pool.js';
import { core } from '../native/index.js';
import { chain as chainParams } from '../params.js';
import { toQuantity } from './hex.js';
import type { RpcContext } from './method.js';

const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_BLOOM = `0x${'00'.repeat(256)}`;

/** The pool transactions the next block would take, at the next base fee. */
function nextBlockTransactions(ctx: RpcContext) {
  const { chain, mempool } = ctx.services;
  const head = chain.head();
  const baseFee = chain.nextBaseFee();
  return { head, baseFee, txs: mempool.nextBlock(baseFee, BigInt(head.gasLimit), chainParams.maxTxsPerBlock) };
}

/** The pending block's transactions as the pool holds them. */
export function pendingTransactions(ctx: RpcContext): PooledTx[] {
  return nextBlockTransactions(ctx).txs;
}

/** How many transactions the pending block holds. */
export function pendingTransactionCount(ctx: RpcContext): number {
  return nextBlockTransactions(ctx).txs.length;
}

/** The pending block's transactions as geth's RPCTransaction: in the block after the head, at their index, with no block hash. */
export function pendingTransactionObjects(ctx: RpcContext): Record<string, unknown>[] {
  const { head, baseFee, txs } = nextBlockTransactions(ctx);
  return txs.map((p, i) => transactionInBlock(ctx, p.raw, p.tx.from, head.number + 1, i, baseFee));
}

function transactionInBlock(ctx: RpcContext, raw: Buffer, from: Buffer, number: number, index: number, baseFee: bigint): Record<string, unknown> {
  const json = ctx.services.chain.pendingTransactionJson(raw, from);
  json.blockNumber = toQuantity(number);
  json.transactionIndex = toQuantity(index);
  if (typeof json.maxFeePerGas === 'string' && typeof json.maxPriorityFeePerGas === 'string') {
    // geth's effective gas price at the block's base fee.
    const cap = BigInt(json.maxFeePerGas);
    const tip = BigInt(json.maxPriorityFeePerGas);
    json.gasPrice = toQuantity(baseFee + tip < cap ? baseFee + tip : cap);
  }
  return json;
}

/** eth_getBlockByNumber("pending"). */
export function pendingBlock(ctx: RpcContext, fullTransactions: boolean): Record<string, unknown> | null {
  const { chain } = ctx.services;
  const { head, baseFee, txs } = nextBlockTransactions(ctx);
  const template = chain.getBlock({ number: head.number }, false);
  if (template === null) return null;
  // The next block's time as the block lane would set it now (the chain's rule: never before the head).
  const timeMs = core.blockTimeMs(Date.now(), head.timestampMs);
  return {
    ...template,
    number: toQuantity(head.number + 1),
    hash: null,
    nonce: null,
    miner: null,
    parentHash: template.hash,
    timestamp: toQuantity(Math.floor(timeMs / 1000)),
    timestampMs: toQuantity(timeMs),
    baseFeePerGas: toQuantity(baseFee),
    // Not executed yet: no gas used, no receipts or logs, the state is the head's; the
    // transactions root and size are known once the block is sealed, and mixHash (its randomness
    // seed) is drawn then: it is the head's here.
    gasUsed: toQuantity(0),
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: EMPTY_BLOOM,
    stateRoot: template.stateRoot,
    transactionsRoot: null,
    size: null,
    transactions: fullTransactions
      ? txs.map((p, i) => transactionInBlock(ctx, p.raw, p.tx.from, head.number + 1, i, baseFee))
      : txs.map((p) => `0x${p.tx.hash.toString('hex')}`),
  };
}
