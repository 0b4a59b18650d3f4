// What the transaction pool offers the rest of the node: its transactions, its refusal, its API.
import type { DecodedTx } from '../native/index.js';
import { SvcError } from '../errors.js';

/** A transaction waiting in the pool. */
export interface PooledTx {
  raw: Buffer;
  tx: DecodedTx;
  /** Milliseconds since the epoch at admission (pool bookkeeping only, never consensus). */
  receivedAt: number;
}

/** Error raised when the pool refuses a transaction; `message` is geth's text. */
export class TxPoolError extends SvcError {
  override readonly name = 'TxPoolError';
  override readonly code = 'TX_POOL';
}

/** The pool holds this transaction already (geth's "already known"). */
export class AlreadyKnownError extends TxPoolError {
  constructor() {
    super('already known');
  }
}

export interface Mempool {
  /**
   * Decode, validate and admit a raw signed transaction; resolves with its hash once the pool
   * journal holds it durably, so an answered hash survives a crash. Throws TxPoolError when
   * refused, PoolJournalError when admitted but not journaled.
   */
  submit(raw: Buffer): Promise<Buffer>;
  /** Next nonce for the address counting pool transactions (the `pending` tag). */
  pendingNonce(address: Buffer): bigint;
  /** A pool transaction by hash. */
  get(hash: Buffer): PooledTx | undefined;
  /** Hashes of every transaction in the pool (pending and queued), in admission order. */
  hashes(): Buffer[];
  /** Counts for txpool_status-like reporting. */
  stats(): { pending: number; queued: number };
  /** Senders with transactions in the pool (txpool_content). */
  senderAddresses(): Buffer[];
  /** A sender's pending (executable in nonce order) and queued transactions, each in nonce order. */
  senderTransactions(address: Buffer): { pending: PooledTx[]; queued: PooledTx[] };
  /** The transactions the next block would take at `baseFee`, within `gasLimit` (the `pending` block); changes nothing. */
  nextBlock(baseFee: bigint, gasLimit: bigint, maxTxs: number): PooledTx[];
}
