// Block production's health: whether the driver's last attempt committed a block, why not, since
// when, and how old the head is. The driver records every attempt; health checks, svc_getNodeInfo
// and /metrics read it.
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { BlockTimings, ProducedBlock } from '../native/index.js';
import type { NodeEvents } from '../chain/events.js';
import type { NodeMetrics } from '../metrics.js';
import { productionRetryMs, staleHeadAfterMs } from '../params.js';

export type ProductionState = 'ok' | 'stalled';

/** What readers see of block production (times are milliseconds since the epoch). */
export interface ProductionStatus {
  /** Stalled from a failed block until the next one commits, or while the head is stale (a block that never finishes). */
  status: ProductionState;
  /** Why: the last attempt's error, or how long no block was committed. */
  reason: string | null;
  /** When the stall began: the first failed attempt, or the last commit when the head went stale without a failure. */
  since: number | null;
  /** Failed attempts in the current stall. */
  attempts: number;
  /** Milliseconds since this node last committed a block (since it started, before its first). */
  headAgeMs: number;
  /** Head age beyond which the node reports itself not ready (params.staleHeadAfterMs). */
  staleAfterMs: number;
  /** Whether the head is older than staleAfterMs. */
  stale: boolean;
}

/** What a failed attempt changed: whether it began a stall, and when to try again. */
export interface FailedAttempt {
  /** True for the first failure after a committed block: the moment to log the stall. */
  stalled: boolean;
  retryInMs: number;
}

/** What a committed block ended, when it ended a stall: the moment to log the resumption. */
export interface EndedStall {
  reason: string;
  stalledMs: number;
  attempts: number;
}

/** The state machine of block production: ok -> stalled on a failed block, stalled -> ok on the next committed one. */
export class BlockProduction {
  private reason: string | null = null;
  private since: number | null = null;
  private attempts = 0;
  private lastCommitAt: number;
  readonly staleAfterMs: number;

  constructor(
    private readonly blockTimeMs: number,
    private readonly now: () => number = Date.now,
  ) {
    // A fresh process has committed nothing yet: its head's age counts from its start.
    this.lastCommitAt = now();
    this.staleAfterMs = staleHeadAfterMs(blockTimeMs);
  }

  /** The driver starts: until its first block, the head's age counts from now (not from the process's start-up work). */
  started(): void {
    this.lastCommitAt = this.now();
  }

  /** A block was committed; returns the stall it ended, if any. */
  committed(): EndedStall | null {
    const at = this.now();
    this.lastCommitAt = at;
    if (this.since === null) return null;
    const ended = { reason: this.reason ?? '', stalledMs: at - this.since, attempts: this.attempts };
    this.reason = null;
    this.since = null;
    this.attempts = 0;
    return ended;
  }

  /** An attempt failed with `reason`; returns whether this began a stall and the backoff before the next attempt. */
  failed(reason: string): FailedAttempt {
    const stalled = this.since === null;
    if (stalled) this.since = this.now();
    this.reason = reason;
    this.attempts += 1;
    return { stalled, retryInMs: productionRetryMs(this.blockTimeMs, this.attempts) };
  }

  /** Milliseconds since the last committed block (or the start). */
  headAgeMs(): number {
    return Math.max(0, this.now() - this.lastCommitAt);
  }

  status(): ProductionStatus {
    const headAgeMs = this.headAgeMs();
    const stale = headAgeMs > this.staleAfterMs;
    const base = { attempts: this.attempts, headAgeMs, staleAfterMs: this.staleAfterMs, stale };
    if (this.since !== null) return { status: 'stalled', reason: this.reason, since: this.since, ...base };
    if (stale) return { status: 'stalled', reason: `no block committed for ${headAgeMs} ms`, since: this.lastCommitAt, ...base };
    return { status: 'ok', reason: null, since: null, ...base };
  }

  /**
   * Why the node is not serving a live chain, or null when it is: the head is older than the
   * stale limit (with the failing block's reason when there is one).
   */
  unhealthyReason(): string | null {
    const s = this.status();
    if (!s.stale) return null;
    const age = `no block committed for ${s.headAgeMs} ms (limit ${s.staleAfterMs} ms)`;
    return s.attempts === 0 ? age : `${age}; block production stalled after ${s.attempts} failed attempts: ${s.reason}`;
  }
}

/** Characters of a failed block's error kept in the stall gauge's label. */
const STALL_REASON_LABEL_CHARS = 200;

/** Block production's health, read on scrape: stalled or not, failed attempts, and the head's age. */
export function registerProductionMetrics(registry: Registry, production: BlockProduction): void {
  const registers = [registry];
  new Gauge({
    name: 'svc_block_production_stalled',
    help: 'Whether block production is stalled: 1 from a failed block until the next one commits, labelled with its error',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      const s = production.status();
      // One series at a time: the current reason, or an empty one while producing.
      this.reset();
      this.set({ reason: (s.reason ?? '').slice(0, STALL_REASON_LABEL_CHARS) }, s.status === 'stalled' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'svc_block_production_failed_attempts',
    help: 'Failed block attempts in the current stall (0 when producing)',
    registers,
    collect() {
      this.set(production.status().attempts);
    },
  });
  new Gauge({
    name: 'svc_head_age_seconds',
    help: 'Seconds since this node last committed a block (since it started producing, before its first)',
    registers,
    collect() {
      this.set(production.headAgeMs() / 1000);
    },
  });
}

/** Where a committed block is announced: the node's event bus, its metrics and its log. */
export interface BlockAnnouncement {
  events: NodeEvents;
  metrics: NodeMetrics;
  log: Logger;
}

/**
 * After a block commits, whichever driver committed it: the metrics move, one log line (info with
 * transactions, debug when empty), and the `block` event for the pool journal, subscriptions,
 * the explorer and compute. A failing listener is logged and does not stop the chain.
 */
export function announceBlock(produced: ProducedBlock, seconds: number, to: BlockAnnouncement): void {
  const { events, metrics, log } = to;
  metrics.blocksProduced.inc();
  metrics.txsIncluded.inc(produced.included.length);
  metrics.txsRejected.inc(produced.rejected.length);
  metrics.blockProductionSeconds.observe(seconds);
  metrics.headBlock.set(produced.head.number);
  const line = {
    number: produced.head.number,
    hash: `0x${produced.head.hash.toString('hex')}`,
    txs: produced.included.length,
    gasUsed: produced.head.gasUsed,
    ms: Math.round(seconds * 1000 * 100) / 100,
    // The native part of it: waiting for the block lane, execution, roots (and index), the synced write.
    nativeMs: roundTimings(produced.timings),
  };
  if (produced.included.length > 0) log.info(line, 'block produced');
  else log.debug(line, 'block produced');
  for (const r of produced.rejected) log.debug({ tx: `0x${r.hash.toString('hex')}`, reason: r.reason }, 'transaction rejected at execution');
  try {
    events.emit('block', produced);
  } catch (err) {
    // A failing subscriber must not stop block production.
    log.error({ err }, 'block event listener failed');
  }
}

function roundTimings(t: BlockTimings): Record<string, number> {
  const r = (ms: number) => Math.round(ms * 10) / 10;
  return { queued: r(t.queuedMs), execute: r(t.executeMs), root: r(t.rootMs), commit: r(t.commitMs) };
}
