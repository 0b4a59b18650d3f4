// The pool as the serving layers see it on a CometBFT validator: a submitted transaction goes to
// the network's mempool (CometBFT's broadcast_tx_sync), which runs the app's CheckTx (the pool's
// admission, geth's texts) on this node and gossips it to the others; reads are the local pool's,
// which CheckTx fills from every node's submissions.
import { keccak256 } from 'viem';
import { AlreadyKnownError, TxPoolError, type Mempool, type PooledTx } from '../../chain/pool.js';
import { CometRpcError, type CometClient } from './client.js';

export class GossipPool implements Mempool {
  constructor(
    private readonly local: Mempool,
    private readonly client: CometClient,
  ) {}

  async submit(raw: Buffer): Promise<Buffer> {
    let answer;
    try {
      answer = await this.client.broadcastTxSync(raw);
    } catch (err) {
      // CometBFT's own cache refuses what it saw recently before the app is asked.
      if (err instanceof CometRpcError && /already exists in cache/.test(err.details ?? '')) throw new AlreadyKnownError();
      throw err;
    }
    if (answer.code !== 0) throw answer.log === 'already known' ? new AlreadyKnownError() : new TxPoolError(answer.log);
    return Buffer.from(keccak256(raw).slice(2), 'hex');
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
}
