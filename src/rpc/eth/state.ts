// Account state at a block: eth_getBalance, eth_getTransactionCount, eth_getCode, eth_getStorageAt.
import { stateBlockNumber } from '../block-tags.js';
import { readState, readStateAsync } from '../historical-state.js';
import { leftPad, toData, toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable } from '../method.js';
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

  // EIP-1186 as geth answers it: the proofs are the trie nodes on each key's path, root first.
  eth_getProof: method(
    [required(parseAddress), required(parseProofKeys(rpc.maxProofStorageKeys)), optional(parseBlockId)],
    async (ctx, [address, keys, block]) => {
      const { chain } = ctx.services;
      const n = stateBlockNumber(chain, block);
      const p = await readStateAsync(n, () => chain.getProof(address, keys.map((k) => k.slot), n));
      return {
        address: toData(address),
        accountProof: p.accountProof.map(toData),
        balance: toQuantity(p.balance),
        codeHash: toData(p.codeHash),
        nonce: toQuantity(p.nonce),
        storageHash: toData(p.storageHash),
        storageProof: p.storageProof.map((s, i) => ({
          // geth: a key given as a full 32-byte hash comes back as given, a shorter one as a quantity.
          key: keys[i]!.exact ? toData(s.key) : toQuantity(BigInt(toData(s.key))),
          value: toQuantity(BigInt(toData(s.value))),
          proof: s.proof.map(toData),
        })),
      };
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
