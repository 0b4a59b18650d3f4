// The network as this node's CometBFT sees it: peers (net_info), sync state (status) and, while it
// catches up, the peers' heights (dump_consensus_state), polled in the background so that the RPC
// answers from memory.
import type { Logger } from 'pino';
import type { Chain } from '../../native/index.js';
import type { NetworkView, SyncState } from '../network.js';
import type { CometClient } from './client.js';

/** How often CometBFT's status and peers are read. */
const POLL_MS = 1_000;

export class CometNetworkView implements NetworkView {
  private peers = 0;
  /**
   * Whether CometBFT is catching up. Until CometBFT has answered that it is not (at start, and
   * while it restarts) the node cannot know it is in step, so it says it is syncing.
   */
  private catchingUp = true;
  private cometHeight = 0;
  /** The highest block the peers have announced (0: none known). */
  private peersBest = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly chain: Pick<Chain, 'head'>,
    private readonly client: Pick<CometClient, 'status' | 'peers' | 'peerHeights'>,
    private readonly log: Logger,
    private readonly pollMs = POLL_MS,
  ) {}

  start(): void {
    void this.poll();
  }

  /** Reads CometBFT once; start() repeats it every pollMs. */
  private async poll(): Promise<void> {
    try {
      const [status, peers] = await Promise.all([this.client.status(), this.client.peers()]);
      this.peers = peers.length;
      this.cometHeight = status.latestBlockHeight;
      if (status.catchingUp) {
        // The peers' heights are read before catching-up is claimed over, so that while behind the
        // node never reports its own height as the network's.
        const heights = await this.client.peerHeights().catch((err: unknown) => {
          this.log.debug({ err }, 'peer heights unavailable');
          return [] as number[];
        });
        this.peersBest = Math.max(this.peersBest, ...heights);
      } else {
        this.peersBest = 0;
      }
      this.catchingUp = status.catchingUp;
    } catch (err) {
      // CometBFT starting or restarting: it will block-sync when it is back, so the node is not in step.
      this.peers = 0;
      this.catchingUp = true;
      this.log.debug({ err }, 'CometBFT status unavailable');
    }
    if (!this.closed) this.timer = setTimeout(() => void this.poll(), this.pollMs);
  }

  peerCount(): number {
    return this.peers;
  }

  sync(): SyncState {
    const head = this.chain.head().number;
    return { syncing: this.catchingUp, highestBlock: Math.max(head, this.cometHeight, this.catchingUp ? this.peersBest : 0) };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
