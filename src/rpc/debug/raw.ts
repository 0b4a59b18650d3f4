// geth's debug_getRaw* methods: the consensus encodings of transactions, headers and receipts.
import { blockSelectorOf } from '../block-tags.js';
import { HeaderNotFoundError } from '../errors.js';
import { toData } from '../hex.js';
import { method, required, type MethodTable } from '../method.js';
import { rawTransaction } from '../eth/transactions.js';
import { parseBlockId, parseHash } from '../validate.js';

export const rawDebugMethods: MethodTable = {
  debug_getRawTransaction: method([required(parseHash)], (ctx, [hash]) => rawTransaction(ctx, hash)),

  // geth answers an error, not null, for a block it does not have.
  debug_getRawHeader: method([required(parseBlockId)], (ctx, [block]) => {
    const { chain } = ctx.services;
    const sel = blockSelectorOf(chain, block);
    const raw = sel === null ? null : chain.getRawHeader(sel);
    if (raw === null) throw new HeaderNotFoundError();
    return toData(raw);
  }),

  debug_getRawReceipts: method([required(parseBlockId)], (ctx, [block]) => {
    const { chain } = ctx.services;
    const sel = blockSelectorOf(chain, block);
    const raws = sel === null ? null : chain.getRawReceipts(sel);
    if (raws === null) throw new HeaderNotFoundError();
    return raws.map(toData);
  }),
};
