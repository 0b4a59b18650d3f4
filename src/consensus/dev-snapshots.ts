// The devnet's evm_snapshot and evm_revert (Hardhat's and anvil's semantics). A snapshot pins the
// chain's committed state (Chain.pinState: a read view of the database, which keeps the versions it
// sees) and the development clock. A revert runs between blocks: it rewinds the database to the
// snapshot (Chain.rewindTo: state, blocks, receipts, transaction and explorer indexes and module
// records in one synced write, so the data dir holds the snapshot's chain and a restart resumes
// from it), then the node's memory follows: module state is read again, the pool forgets its
// transactions (their nonces and balances were checked against the later state) and the journal
// is rewritten empty. Nothing is edited in place: the rewound chain is the one its blocks made,
// and `svc-node replay` of it reaches its roots.
import type { Logger } from 'pino';
import type { Chain, HeadInfo, PinnedState } from '../native/index.js';
import type { ChainApp } from '../chain/app.js';
import type { Mempool } from '../chain/mempool.js';
import type { PoolJournal } from '../chain/pool-journal.js';
import { SvcError } from '../errors.js';
import type { SoloDriver } from './solo.js';

/** Snapshots held at once (Hardhat keeps every one; each holds old database versions alive). */
export const MAX_DEV_SNAPSHOTS = 1_000;

/** Raised to transactions whose answer waited for a block when evm_revert emptied the pool. */
export class ChainRewoundError extends SvcError {
  override readonly name = 'ChainRewoundError';
  override readonly code = 'CHAIN_REWOUND';
}

interface Held {
  pinned: PinnedState;
  clock: ReturnType<SoloDriver['devClock']>;
}

export interface DevSnapshotTargets {
  driver: SoloDriver;
  chain: Chain;
  app: ChainApp;
  mempool: Mempool;
  journal: PoolJournal | undefined;
  log: Logger;
}

export class DevSnapshots {
  private nextId = 1n;
  private readonly held = new Map<bigint, Held>();
  /** Work that must not run across a rewind (the explorer's backfill): each resolves when idle. */
  private readonly idle: (() => Promise<void>)[] = [];

  constructor(private readonly t: DevSnapshotTargets) {}

  /** `wait` resolves when a service that writes beside blocks is between two of its steps. */
  waitForIdle(wait: () => Promise<void>): void {
    this.idle.push(wait);
  }

  /** Pins the head's state and the clock; returns the snapshot's id (1, 2, …). */
  snapshot(): bigint {
    if (this.held.size >= MAX_DEV_SNAPSHOTS) {
      // The oldest goes: a script that never reverts must not hold every version for ever.
      const oldest = BigInt(Math.min(...[...this.held.keys()].map(Number)));
      this.drop(oldest);
    }
    const id = this.nextId++;
    this.held.set(id, { pinned: this.t.chain.pinState(), clock: this.t.driver.devClock() });
    return id;
  }

  /**
   * Rewinds the chain to snapshot `id` and forgets it and every later one, as Hardhat does; false
   * (nothing changed) when no such snapshot is held.
   */
  async revert(id: bigint): Promise<boolean> {
    const held = this.held.get(id);
    if (!held) return false;
    this.held.delete(id);
    for (const other of [...this.held.keys()]) if (other > id) this.drop(other);
    let head: HeadInfo;
    try {
      head = await this.t.driver.between(() => this.rewind(held));
    } finally {
      held.pinned.release();
    }
    this.t.log.info({ number: head.number, snapshot: id.toString() }, 'evm_revert: chain rewound to the snapshot');
    return true;
  }

  /** Lets go of every snapshot (the node stops: the database must be free to close). */
  close(): void {
    for (const id of [...this.held.keys()]) this.drop(id);
  }

  private drop(id: bigint): void {
    this.held.get(id)?.pinned.release();
    this.held.delete(id);
  }

  private async rewind(held: Held): Promise<HeadInfo> {
    const { app, chain, mempool, journal, driver } = this.t;
    await app.settled();
    await Promise.all(this.idle.map((wait) => wait()));
    const head = await chain.rewindTo(held.pinned);
    app.restored();
    const dropped = mempool.reset(new ChainRewoundError('evm_revert moved the chain back to a snapshot before this transaction was mined'));
    if (journal) await journal.rewriteNow(() => mempool.journalEntries());
    driver.setDevClock(held.clock);
    this.t.log.debug({ dropped }, 'evm_revert: the pool was emptied');
    return head;
  }
}
