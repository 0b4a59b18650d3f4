// Account state at a block: eth_getBalance, eth_getTransactionCount, eth_getCode, eth_getStorageAt.
import { stateBlockNumber } from '../block-tags.js';
import { readState, readStateAsync } from '../historical-state.js';
import { leftPad, toData, toQuantity } from '../hex.js';
import { method, optional, RawJson, required, type MethodTable } from '../method.js';
import { rpc } from '../../params.js';
import { parseAddress, parseBlockId, parseProofKeys, parseStorageSlot } from '../validate.js';

const STORAGE_WORD_BYTES = 32;

export const stateMethods: MethodTable = {
  eth_getBalance: method([required(parseAddress), optional(parseBlockId)], (ctx, [address, block]) => {
    const { chain } = ctx.services;
    const n = stateBlockNumber(chain, block);
    return toQuantity(readState(n, () => chain.getAccount(address, n)).balance);
  }),

  eth_getTransactionCount: method([required(parseAddress), optional(parseBlockId)], (ctx, [address, block]) => {
    const { chain, mempool } = ctx.services;
    // `pending` counts the sender's transactions waiting in the pool, so wallets can queue several.
    if (block !== undefined && 'tag' in block && block.tag === 'pending') return toQuantity(mempool.pendingNonce(address));
    const n = stateBlockNumber(chain, block);
    return toQuantity(readState(n, () => chain.getAccount(address, n)).nonce);
  }),

  eth_getCode: method([required(parseAddress), optional(parseBlockId)], (ctx, [address, block]) => {
    const { chain } = ctx.services;
    const n = stateBlockNumber(chain, block);
    return toData(readState(n, () => chain.getCode(address, n)));
  }),

  // EIP-1186 as geth answers it: the proofs are the trie nodes on each key's path, root first; the
  // answer is written natively as JSON bytes, within the reply limit.
  eth_getProof: method(
    [required(parseAddress), required(parseProofKeys(rpc.maxProofStorageKeys)), optional(parseBlockId)],
    async (ctx, [address, keys, block]) => {
      const { chain } = ctx.services;
      const n = stateBlockNumber(chain, block);
      return new RawJson(await readStateAsync(n, () => chain.getProof(address, keys, n)));
    },
  ),

  eth_getStorageAt: method(
    [required(parseAddress), required(parseStorageSlot), optional(parseBlockId)],
    (ctx, [address, slot, block]) => {
      const { chain } = ctx.services;
      const n = stateBlockNumber(chain, block);
      return toData(leftPad(readState(n, () => chain.getStorageAt(address, slot, n)), STORAGE_WORD_BYTES));
    },
  ),
};
