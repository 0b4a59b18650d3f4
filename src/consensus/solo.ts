// The solo consensus driver: one in-process validator that seals a block every slot, empty or not,
// calling the app's four block steps (prepare, process, finalize, commit) in order.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ProducedBlock } from '../native/index.js';
import type { ChainApp } from '../chain/app.js';
import type { NodeEvents } from '../chain/events.js';
import type { NodeMetrics } from '../metrics.js';
import { chain as chainParams, CLIENT_NAME } from '../params.js';
import { announceBlock, BlockProduction } from './production.js';
import type { ConsensusDriver } from './driver.js';
import { SvcError } from '../errors.js';

export interface SoloDriverOptions {
  /** The state machine that builds and commits blocks. */
  app: ChainApp;
  events: NodeEvents;
  log: Logger;
  metrics: NodeMetrics;
  /** Slot length: one block per slot. */
  blockTimeMs: number;
  /** The validator's address, credited with the fees of its blocks; it proposes and signs every block. */
  coinbase: Buffer;
  extraData?: Buffer;
  maxTxsPerBlock?: number;
  /** Wall clock of the proposer, read for block timestamps. */
  now?: () => number;
  /** Where attempts are recorded for health checks (a fresh one when absent). */
  production?: BlockProduction;
}

/** Raised by produceNext once the driver has been stopped. */
export class DriverStoppedError extends SvcError {
  override readonly name = 'DriverStoppedError';
  override readonly code = 'DRIVER_STOPPED';
  constructor() {
    super('the solo driver is stopped');
  }
}

/**
 * Produces blocks on a slot timer. Productions never overlap: when a block takes longer than its
 * slot, the next one starts right after it. A failed block (a full disk) is retried with backoff
 * (params.productionRetryMs) until one commits; the stall and its end are logged once each.
 */
export class SoloDriver implements ConsensusDriver {
  readonly kind = 'solo' as const;
  private readonly opts: Required<SoloDriverOptions>;
  private readonly log: Logger;
  /** Block production's health, read by /health, readiness, svc_getNodeInfo and /metrics. */
  readonly production: BlockProduction;
  /** Wait before the next slot after a failed block. */
  private retryInMs = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Tail of the production queue; every production waits for the one before it. */
  private queue: Promise<unknown> = Promise.resolve();
  private started = false;
  private stopped = false;
  /** Development time (devnet evm_increaseTime): milliseconds added to the proposer's clock. */
  private timeOffsetMs = 0;
  /** Development time (evm_setNextBlockTimestamp): the time the next block gets, once. */
  private nextTimeMs: number | undefined;

  constructor(options: SoloDriverOptions) {
    this.opts = {
      extraData: Buffer.from(CLIENT_NAME, 'utf8'),
      maxTxsPerBlock: chainParams.maxTxsPerBlock,
      now: Date.now,
      ...options,
      production: options.production ?? new BlockProduction(options.blockTimeMs),
    };
    this.production = this.opts.production;
    this.log = options.log.child({ module: 'solo' });
  }

  /** Start the slot timer; the first block comes one slot from now. */
  start(): void {
    if (this.stopped) throw new DriverStoppedError();
    if (this.started) return;
    this.started = true;
    this.production.started();
    this.schedule(this.opts.blockTimeMs);
  }

  /** Produce one block now, after any production in flight; `devMessages` go in it (devnet development methods). */
  produceNext(devMessages?: Buffer[]): Promise<ProducedBlock> {
    if (this.stopped) return Promise.reject(new DriverStoppedError());
    const run = this.queue.then(() => this.produce(devMessages));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Moves the clock the next blocks are timed by `ms` forward (evm_increaseTime); returns the total offset in ms. */
  increaseTime(ms: number): number {
    this.timeOffsetMs += ms;
    return this.timeOffsetMs;
  }

  /** The next block gets time `ms` (evm_setNextBlockTimestamp), and later blocks follow on from it. */
  setNextBlockTime(ms: number): void {
    this.nextTimeMs = ms;
  }

  /** What the next block's time will be asked as (before the parent + 1 ms rule). */
  nextBlockTime(): number {
    return this.nextTimeMs ?? Math.floor(this.opts.now()) + this.timeOffsetMs;
  }

  /** The development clock (offset and the next block's time), for evm_snapshot to keep. */
  devClock(): { offsetMs: number; nextMs: number | undefined } {
    return { offsetMs: this.timeOffsetMs, nextMs: this.nextTimeMs };
  }

  /** Puts back a development clock kept by devClock (evm_revert). */
  setDevClock(clock: { offsetMs: number; nextMs: number | undefined }): void {
    this.timeOffsetMs = clock.offsetMs;
    this.nextTimeMs = clock.nextMs;
  }

  /** Runs `work` between blocks: after the production in flight, before the next one starts. */
  between<T>(work: () => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(new DriverStoppedError());
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stop the timer and wait for the block in flight, so the chain can be closed safely. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.queue;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => void this.slot(), delayMs);
  }

  private async slot(): Promise<void> {
    this.timer = undefined;
    const slotStart = performance.now();
    let delayMs = this.opts.blockTimeMs;
    try {
      await this.produceNext();
    } catch (err) {
      if (err instanceof DriverStoppedError) return;
      delayMs = this.retryInMs;
    }
    if (this.stopped) return;
    this.schedule(Math.max(0, delayMs - (performance.now() - slotStart)));
  }

  /** Records a failed block; logs only the one that begins a stall (the disk stays full for many attempts). */
  private failed(err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    const { stalled, retryInMs } = this.production.failed(reason);
    this.retryInMs = retryInMs;
    if (stalled) this.log.error({ err, retryInMs }, 'block production stalled; retrying with backoff');
    else this.log.debug({ reason, attempts: this.production.status().attempts, retryInMs }, 'block production still stalled');
  }

  private async produce(devMessages?: Buffer[]): Promise<ProducedBlock> {
    if (this.stopped) throw new DriverStoppedError();
    const { app, events, metrics } = this.opts;
    const started = performance.now();
    const timestampMs = this.nextBlockTime();
    let built;
    try {
      built = await app.produceBlock({
        timestampMs,
        coinbase: this.opts.coinbase,
        extraData: this.opts.extraData,
        maxTxs: this.opts.maxTxsPerBlock,
        signers: [this.opts.coinbase],
        ...(devMessages && devMessages.length > 0 ? { devMessages } : {}),
      });
    } catch (err) {
      this.failed(err);
      throw err;
    }
    if (this.nextTimeMs !== undefined) {
      // As Hardhat does: the clock now runs on from the time set.
      this.timeOffsetMs = this.nextTimeMs - Math.floor(this.opts.now());
      this.nextTimeMs = undefined;
    }
    const { produced } = built;
    const seconds = (performance.now() - started) / 1000;
    const ended = this.production.committed();
    if (ended) {
      this.log.info({ number: produced.head.number, stalledMs: ended.stalledMs, attempts: ended.attempts, reason: ended.reason }, 'block production resumed');
    }
    announceBlock(produced, seconds, { events, metrics, log: this.log });
    return produced;
  }
}
