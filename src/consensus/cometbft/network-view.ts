// The network as this node's CometBFT sees it: peers (net_info) and sync state (status), polled in
// the background so that the RPC answers from memory.
import type { Logger } from 'pino';
import type { Chain } from '../../native/index.js';
import type { NetworkView, SyncState } from '../network.js';
import type { CometClient } from './client.js';

/** How often CometBFT's status and peers are read. */
const POLL_MS = 1_000;

export class CometNetworkView implements NetworkView {
  private peers = 0;
  private catchingUp = false;
  private cometHeight = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly chain: Chain,
    private readonly client: CometClient,
    private readonly log: Logger,
  ) {}

  start(): void {
    const poll = async (): Promise<void> => {
      try {
        const [status, peers] = await Promise.all([this.client.status(), this.client.peers()]);
        this.peers = peers.length;
        this.catchingUp = status.catchingUp;
        this.cometHeight = status.latestBlockHeight;
      } catch (err) {
        // CometBFT starting or restarting: the last answer stands, with no peers claimed.
        this.peers = 0;
        this.log.debug({ err }, 'CometBFT status unavailable');
      }
      if (!this.closed) this.timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
  }

  peerCount(): number {
    return this.peers;
  }

  sync(): SyncState {
    const head = this.chain.head().number;
    return { syncing: this.catchingUp, highestBlock: Math.max(head, this.cometHeight) };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
