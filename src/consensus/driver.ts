// What runs the app's block steps: a consensus driver. The app (src/chain/app.ts) exposes the
// steps CometBFT's ABCI 2.0 calls — prepareProposal, processProposal, finalizeBlock (execute,
// returning the state root) and commit (the one write batch) — and a driver decides when they run
// and with which proposal. `solo` (src/consensus/solo.ts) is one in-process validator that calls
// the four steps in order on a slot timer; a CometBFT driver calls them from ABCI requests.
import type { ProducedBlock } from '../native/index.js';
import type { BlockProduction } from './production.js';

export interface ConsensusDriver {
  /** The driver's name, as `--consensus` would give it. */
  readonly kind: 'solo' | 'cometbft';
  /** Block production's health, read by /health, readiness, svc_getNodeInfo and /metrics. */
  readonly production: BlockProduction;
  /** Starts making (or following) blocks. */
  start(): void | Promise<void>;
  /** Makes one block now, after any in flight (devnet tools and tests). */
  produceNext(): Promise<ProducedBlock>;
  /** Stops and waits for the block in flight, so the chain can be closed safely. */
  stop(): Promise<void>;
}
