// What a block tag, number or hash means on this chain. The solo driver seals each block final, so
// safe and finalized are the head. `pending` reads the head's state (the pending block is not
// executed); the block getters answer it with the block after the head built from the pool
// (pending-block.ts), and eth_getTransactionCount counts the pool.
import type { BlockSelector, Chain } from '../native/index.js';
import { HeaderNotFoundError } from './errors.js';
import type { BlockId, BlockNumberOrTag } from './validate.js';

/** The block number a tag or number names, or null when it lies beyond the head. */
export function blockNumberOf(chain: Chain, id: BlockNumberOrTag): number | null {
  if ('tag' in id) return id.tag === 'earliest' ? 0 : chain.head().number;
  return id.number > BigInt(chain.head().number) ? null : Number(id.number);
}

/** The block whose state a state query reads; unknown blocks are "header not found" (-32001). */
export function stateBlockNumber(chain: Chain, id: BlockId | undefined): number {
  if (id === undefined) return chain.head().number;
  const n = 'hash' in id ? chain.blockNumberByHash(id.hash) : blockNumberOf(chain, id);
  if (n === null) throw new HeaderNotFoundError();
  return n;
}

/** A selector for the block getters, or null when the block does not exist (they then return null). */
export function blockSelectorOf(chain: Chain, id: BlockId): BlockSelector | null {
  if ('hash' in id) return { hash: id.hash };
  const n = blockNumberOf(chain, id);
  return n === null ? null : { number: n };
}

/** Whether `id` is the `pending` tag (which the block getters answer from the pool). */
export function isPending(id: BlockId): boolean {
  return 'tag' in id && id.tag === 'pending';
}
