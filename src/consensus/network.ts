// What the node knows of its network, for net_peerCount, eth_syncing, svc_getNodeInfo, /health and
// the explorer's node route. A solo node has no peers and never syncs; a CometBFT validator reads
// its CometBFT's status and peers (./cometbft/network-view.ts).
import type { Chain } from '../native/index.js';

export interface SyncState {
  /** Whether the node is catching up with the network (CometBFT block sync). */
  syncing: boolean;
  /** The highest block the node knows of (its head when in step). */
  highestBlock: number;
}

export interface NetworkView {
  /** Peers connected now. */
  peerCount(): number;
  sync(): SyncState;
  /** Stops any polling. */
  close(): void;
}

/** The solo driver's network: the node alone, always at its own head. */
export class SoloNetwork implements NetworkView {
  constructor(private readonly chain: Chain) {}

  peerCount(): number {
    return 0;
  }

  sync(): SyncState {
    return { syncing: false, highestBlock: this.chain.head().number };
  }

  close(): void {}
}
