// Blocks and headers: by number or hash, their receipts, transaction counts and (always empty) uncles.
// A block the node does not have is null, as in geth (a future block is not an error). `pending` is
// the block after the head built from the pool (../pending-block.ts).
import { blockNumberOf, blockSelectorOf, isPending } from '../block-tags.js';
import { pendingBlock, pendingTransactionCount } from '../pending-block.js';
import { toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable } from '../method.js';
import { parseBlockId, parseBlockNumberOrTag, parseBoolean, parseHash, parseIndex } from '../validate.js';

/** Proof of stake has no uncles: a known block reports "0x0". */
const NO_UNCLES = toQuantity(0);

/** What geth's RPCMarshalBlock adds to RPCMarshalHeader: without them a block object is its header. */
const BODY_FIELDS = ['transactions', 'uncles', 'withdrawals', 'size', 'totalDifficulty'];

/** eth_getHeaderBy*: the block object as eth_getBlockBy* gives it, less the body's fields. */
function headerOf(block: Record<string, unknown> | null): Record<string, unknown> | null {
  if (block === null) return null;
  return Object.fromEntries(Object.entries(block).filter(([key]) => !BODY_FIELDS.includes(key)));
}

export const blockMethods: MethodTable = {
  eth_getBlockByNumber: method(
    [required(parseBlockNumberOrTag), optional(parseBoolean)],
    (ctx, [block, fullTransactions]) => {
      const { chain } = ctx.services;
      if (isPending(block)) return pendingBlock(ctx, fullTransactions ?? false);
      const sel = blockSelectorOf(chain, block);
      return sel === null ? null : chain.getBlock(sel, fullTransactions ?? false);
    },
  ),

  eth_getBlockByHash: method([required(parseHash), optional(parseBoolean)], (ctx, [hash, fullTransactions]) =>
    ctx.services.chain.getBlock({ hash }, fullTransactions ?? false),
  ),

  eth_getHeaderByNumber: method([required(parseBlockNumberOrTag)], (ctx, [block]) => {
    const { chain } = ctx.services;
    if (isPending(block)) return headerOf(pendingBlock(ctx, false));
    const sel = blockSelectorOf(chain, block);
    return sel === null ? null : headerOf(chain.getBlock(sel, false));
  }),

  eth_getHeaderByHash: method([required(parseHash)], (ctx, [hash]) => headerOf(ctx.services.chain.getBlock({ hash }, false))),

  eth_getBlockReceipts: method([required(parseBlockId)], (ctx, [block]) => {
    const { chain } = ctx.services;
    const sel = blockSelectorOf(chain, block);
    return sel === null ? null : chain.getBlockReceipts(sel);
  }),

  eth_getBlockTransactionCountByNumber: method([required(parseBlockNumberOrTag)], (ctx, [block]) => {
    const { chain } = ctx.services;
    if (isPending(block)) return toQuantity(pendingTransactionCount(ctx));
    const sel = blockSelectorOf(chain, block);
    const count = sel === null ? null : chain.getBlockTransactionCount(sel);
    return count === null ? null : toQuantity(count);
  }),

  eth_getBlockTransactionCountByHash: method([required(parseHash)], (ctx, [hash]) => {
    const count = ctx.services.chain.getBlockTransactionCount({ hash });
    return count === null ? null : toQuantity(count);
  }),

  eth_getUncleCountByBlockNumber: method([required(parseBlockNumberOrTag)], (ctx, [block]) =>
    blockNumberOf(ctx.services.chain, block) === null ? null : NO_UNCLES,
  ),

  eth_getUncleCountByBlockHash: method([required(parseHash)], (ctx, [hash]) =>
    ctx.services.chain.blockNumberByHash(hash) === null ? null : NO_UNCLES,
  ),

  eth_getUncleByBlockNumberAndIndex: method([required(parseBlockNumberOrTag), required(parseIndex)], () => null),

  eth_getUncleByBlockHashAndIndex: method([required(parseHash), required(parseIndex)], () => null),
};
