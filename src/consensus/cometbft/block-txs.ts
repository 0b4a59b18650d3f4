// What a CometBFT block's transactions are to the app. CometBFT orders opaque byte strings; the
// app's proposal (src/chain/app.ts Proposal) has three parts, each carried as such a string:
//   - an EVM transaction: its EIP-2718 encoding, as eth_sendRawTransaction takes it (a typed
//     transaction's first byte is 0x01-0x7f, a legacy one's is an RLP list, 0xc0-0xff);
//   - a system message (src/modules/kernel/messages.ts): 0x00 0x01, then the message's bytes; a
//     miner's proof or registration submitted to any node travels the network's mempool as one;
//   - the proposer's header extra data (its compute mode): 0x00 0x02, then at most 32 bytes, first
//     in the block when present.
// One more kind travels the network's mempool and is never a block's: an ERC-4337 user operation,
// 0x00 0x03, then the operation as the bundler encodes it (src/aa/gossip.ts). Every validator's
// CheckTx validates it into its bundler's pool; the proposer's bundler puts it in a handleOps
// bundle, an EVM transaction of its proposal. A block carrying the tag is malformed.
// 0x00 never starts an EVM transaction (EIP-2718 reserves type 0), so the kinds cannot be confused.
import { SvcError } from '../../errors.js';

export const MESSAGE_TAG = Buffer.from([0x00, 0x01]);
export const EXTRA_DATA_TAG = Buffer.from([0x00, 0x02]);
export const USER_OPERATION_TAG = Buffer.from([0x00, 0x03]);

export type BlockTx =
  | { kind: 'evm'; raw: Buffer }
  | { kind: 'message'; message: Buffer }
  | { kind: 'extraData'; extraData: Buffer }
  | { kind: 'userOperation'; operation: Buffer };

/** The kind of one block transaction; throws for one that is none (an empty string, an unknown 0x00 tag). */
export function classifyTx(bytes: Uint8Array): BlockTx {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length === 0) throw new BlockTxError('an empty transaction');
  if (b[0] !== 0x00) return { kind: 'evm', raw: b };
  if (b.length >= 2 && b[1] === MESSAGE_TAG[1]) return { kind: 'message', message: b.subarray(2) };
  if (b.length >= 2 && b[1] === EXTRA_DATA_TAG[1]) return { kind: 'extraData', extraData: b.subarray(2) };
  if (b.length >= 2 && b[1] === USER_OPERATION_TAG[1]) return { kind: 'userOperation', operation: b.subarray(2) };
  throw new BlockTxError(`unknown transaction tag 0x00${b.length > 1 ? b.subarray(1, 2).toString('hex') : ''}`);
}

/** A system message as a CometBFT transaction. */
export function messageTx(message: Buffer): Buffer {
  return Buffer.concat([MESSAGE_TAG, message]);
}

/** The proposer's extra data as a CometBFT transaction. */
export function extraDataTx(extraData: Buffer): Buffer {
  return Buffer.concat([EXTRA_DATA_TAG, extraData]);
}

/** A user operation (the bundler's encoding) as a CometBFT mempool transaction. */
export function userOperationTx(operation: Buffer): Buffer {
  return Buffer.concat([USER_OPERATION_TAG, operation]);
}

/** A block's transactions split back into the proposal's parts, in block order; throws for a malformed block. */
export function splitBlockTxs(txs: readonly Uint8Array[]): { extraData: Buffer; messages: Buffer[]; evm: Buffer[] } {
  let extraData: Buffer = Buffer.alloc(0);
  const messages: Buffer[] = [];
  const evm: Buffer[] = [];
  for (const [i, bytes] of txs.entries()) {
    const tx = classifyTx(bytes);
    if (tx.kind === 'extraData') {
      if (i !== 0) throw new BlockTxError(`transaction ${i}: the extra data must come first`);
      extraData = tx.extraData;
    } else if (tx.kind === 'userOperation') {
      throw new BlockTxError(`transaction ${i}: a user operation travels the mempool only; a block carries it in a handleOps bundle`);
    } else if (tx.kind === 'message') {
      if (evm.length > 0) throw new BlockTxError(`transaction ${i}: a system message after an EVM transaction`);
      messages.push(tx.message);
    } else {
      evm.push(tx.raw);
    }
  }
  return { extraData, messages, evm };
}

export class BlockTxError extends SvcError {
  override readonly name = 'BlockTxError';
  override readonly code = 'BLOCK_TX';
}
