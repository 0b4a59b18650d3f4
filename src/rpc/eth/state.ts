// Account state at a block: eth_getBalance, eth_getTransactionCount, eth_getCode, eth_getStorageAt,
// eth_getStorageValues, eth_getProof. `pending` reads the head's state (the pending block is not executed).
import { stateBlockNumber } from '../block-tags.js';
import { readState, readStateAsync } from '../historical-state.js';
import { leftPad, toData, toQuantity } from '../hex.js';
import { method, optional, RawJson, required, type MethodTable } from '../method.js';
import { rpc } from '../../params.js';
import { clip } from '../errors.js';
import { InvalidValueError, parseAddress, parseBlockId, parseProofKeys, parseStorageSlot } from '../validate.js';

const STORAGE_WORD_BYTES = 32;

/** eth_getStorageValues' request: address -> slots, at most rpc.maxStorageValuesSlots slots in all (geth's shape and cap). */
function parseStorageRequests(value: unknown): Map<string, { address: Buffer; slots: Buffer[] }> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidValueError('want an object of address -> [slot, ...]');
  const requests = new Map<string, { address: Buffer; slots: Buffer[] }>();
  let total = 0;
  for (const [key, slots] of Object.entries(value)) {
    let address: Buffer;
    try {
      address = parseAddress(key);
    } catch (err) {
      throw new InvalidValueError(`key "${clip(key)}": ${(err as Error).message}`);
    }
    if (!Array.isArray(slots)) throw new InvalidValueError(`${clip(key)}: want an array of storage slots`);
    total += slots.length;
    if (total > rpc.maxStorageValuesSlots) throw new InvalidValueError(`too many slots (max ${rpc.maxStorageValuesSlots})`);
    const parsed = slots.map((slot, i) => {
      try {
        return parseStorageSlot(slot);
      } catch (err) {
        throw new InvalidValueError(`${clip(key)}[${i}]: ${(err as Error).message}`);
      }
    });
    // Two spellings of one address (case) are one account, as in geth's map: the last one counts.
    requests.set(`0x${address.toString('hex')}`, { address, slots: parsed });
  }
  if (total === 0) throw new InvalidValueError('empty request');
  return requests;
}

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

  // geth 1.16's batch of eth_getStorageAt: {address: [slot, ...]} -> {address: [32-byte value, ...]} at one block.
  eth_getStorageValues: method([required(parseStorageRequests), required(parseBlockId)], (ctx, [requests, block]) => {
    const { chain } = ctx.services;
    const n = stateBlockNumber(chain, block);
    const answer: Record<string, string[]> = {};
    for (const [key, { address, slots }] of requests) {
      answer[key] = slots.map((slot) => toData(leftPad(readState(n, () => chain.getStorageAt(address, slot, n)), STORAGE_WORD_BYTES)));
    }
    return answer;
  }),

  eth_getStorageAt: method(
    [required(parseAddress), required(parseStorageSlot), optional(parseBlockId)],
    (ctx, [address, slot, block]) => {
      const { chain } = ctx.services;
      const n = stateBlockNumber(chain, block);
      return toData(leftPad(readState(n, () => chain.getStorageAt(address, slot, n)), STORAGE_WORD_BYTES));
    },
  ),
};
