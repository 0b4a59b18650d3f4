// The pool as the serving layers see it on a CometBFT validator. A submitted transaction is
// admitted by this node's pool first (its rules and geth's texts answer the caller at once, and
// its journal keeps it across a crash), then handed to the network's mempool without waiting
// (broadcast_tx_async, a turn's submissions in one batch): CometBFT runs this node's CheckTx,
// which finds it in the pool already and lets it through, and gossips it to the other validators,
// whose CheckTx admits it to their pools. This node proposes it in any case when it is the
// proposer, so a transaction CometBFT could not take is not lost. A user operation accepted by
// this node's bundler goes the same way (gossipUserOperation): tagged (./block-txs.ts), in the
// turn's batch, admitted by every validator's CheckTx into its bundler's pool.
import type { Logger } from 'pino';
import type { Mempool, PooledTx } from '../../chain/pool.js';
import type { CometClient } from './client.js';
import { userOperationTx } from './block-txs.js';

export class GossipPool implements Mempool {
  /** Admitted transactions of this turn, sent to CometBFT together. */
  private outgoing: Buffer[] = [];

  constructor(
    private readonly local: Mempool,
    private readonly client: CometClient,
    private readonly log: Logger,
  ) {}

  async submit(raw: Buffer): Promise<Buffer> {
    const hash = await this.local.submit(raw);
    this.send(raw);
    return hash;
  }

  /** Hands a user operation this node's bundler pooled (its gossip bytes, src/aa/gossip.ts) to the network's mempool. */
  gossipUserOperation(operation: Buffer): void {
    this.send(userOperationTx(operation));
  }

  private send(tx: Buffer): void {
    if (this.outgoing.push(tx) === 1) setImmediate(() => this.broadcast());
  }

  private broadcast(): void {
    const txs = this.outgoing;
    this.outgoing = [];
    this.client.broadcastTxsAsync(txs).then(
      (refused) => {
        for (const [i, reason] of refused) this.log.debug({ tx: txs[i]!.subarray(0, 8).toString('hex'), reason }, 'the network mempool did not take a transaction');
      },
      (err: unknown) => this.log.warn({ err, txs: txs.length }, 'transactions not handed to CometBFT: this node proposes them itself'),
    );
  }

  pendingNonce(address: Buffer): bigint {
    return this.local.pendingNonce(address);
  }

  get(hash: Buffer): PooledTx | undefined {
    return this.local.get(hash);
  }

  hashes(): Buffer[] {
    return this.local.hashes();
  }

  stats(): { pending: number; queued: number } {
    return this.local.stats();
  }

  senderAddresses(): Buffer[] {
    return this.local.senderAddresses();
  }

  senderTransactions(address: Buffer): { pending: PooledTx[]; queued: PooledTx[] } {
    return this.local.senderTransactions(address);
  }

  nextBlock(baseFee: bigint, gasLimit: bigint, maxTxs: number): PooledTx[] {
    return this.local.nextBlock(baseFee, gasLimit, maxTxs);
  }
}
