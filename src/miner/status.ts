// The miner's status line and debug log, both on stderr (stdout stays free for data). On a TTY the
// status is one line rewritten in place; elsewhere (a pipe, a log file) it is a plain line per
// change, at most one every `minIntervalMs`, the latest state always written in the end.
import { formatEther } from 'viem';
import type { ProgressSink } from '../inference/progress.js';

export type MinerState = 'starting' | 'loading models' | 'registering' | 'mining' | 'jailed' | 'retrying' | 'stopping' | 'stopped';

export interface MinerStats {
  state: MinerState;
  /** Details of the state, e.g. "validator unreachable, next attempt in 4 s". */
  detail: string;
  /** Proofs this miner submitted and the validator took (pending or better). */
  tasksDone: number;
  /** Proofs accepted, as the validator counts them (svc_getInferenceMiner). */
  proofsAccepted: bigint;
  /** Proofs the validator rejected on submission (JSON-RPC -32003). */
  proofsRejected: number;
  /** Rewards earned, wei (svc_getInferenceMiner). */
  rewardsWei: bigint;
  lastError: string;
}

export function initialStats(): MinerStats {
  return { state: 'starting', detail: '', tasksDone: 0, proofsAccepted: 0n, proofsRejected: 0, rewardsWei: 0n, lastError: '' };
}

/** Rewards in tokens (18 decimals), trimmed to at most 6 decimals. */
export function formatRewards(wei: bigint): string {
  const [whole, frac = ''] = formatEther(wei).split('.');
  const f = frac.slice(0, 6).replace(/0+$/, '');
  return f ? `${whole}.${f}` : whole!;
}

export function statusText(s: MinerStats): string {
  const parts = [
    `${s.state}${s.detail ? ` (${s.detail})` : ''}`,
    `tasks ${s.tasksDone}`,
    `accepted ${s.proofsAccepted}`,
    `rejected ${s.proofsRejected}`,
    `earned ${formatRewards(s.rewardsWei)} SVC`,
  ];
  if (s.lastError) parts.push(`last error: ${s.lastError}`);
  return parts.join(' | ');
}

/** Where the miner reports its state and debug lines. */
export interface MinerReporter {
  update(change: Partial<MinerStats>): void;
  stats(): MinerStats;
  debug(message: string): void;
  info(message: string): void;
}

export interface StatusOptions {
  stream?: NodeJS.WriteStream;
  tty?: boolean;
  verbose?: boolean;
  /** Non-TTY: the shortest time between two status lines. */
  minIntervalMs?: number;
}

/** Writes the status line (and, with --verbose, debug lines) to stderr. */
export class StatusLine implements MinerReporter {
  private current = initialStats();
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly verbose: boolean;
  private readonly minIntervalMs: number;
  private lastText = '';
  private lastPrintAt = 0;
  private pending: NodeJS.Timeout | null = null;
  private drawn = false;
  private paused = false;

  constructor(opts: StatusOptions = {}) {
    this.stream = opts.stream ?? process.stderr;
    this.tty = opts.tty ?? Boolean(this.stream.isTTY);
    this.verbose = opts.verbose ?? false;
    this.minIntervalMs = opts.minIntervalMs ?? 3000;
  }

  stats(): MinerStats {
    return { ...this.current };
  }

  update(change: Partial<MinerStats>): void {
    this.current = { ...this.current, ...change };
    const text = statusText(this.current);
    if (text === this.lastText) return;
    if (this.tty) {
      this.lastText = text;
      if (!this.paused) this.draw();
      return;
    }
    const wait = this.lastPrintAt + this.minIntervalMs - Date.now();
    if (wait <= 0) {
      this.printLine();
    } else {
      this.pending ??= setTimeout(() => {
        this.pending = null;
        this.printLine();
      }, wait);
    }
  }

  debug(message: string): void {
    if (this.verbose) this.logLine(`${new Date().toISOString()} debug ${message}`);
  }

  info(message: string): void {
    this.logLine(`svc-miner: ${message}`);
  }

  /** Takes the status line off a terminal while something else draws there (a download's progress bar). */
  pause(): void {
    if (this.tty && this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    if (this.tty && this.lastText) this.draw();
  }

  /** A progress sink for downloads that pauses the status line while it draws. */
  around(sink: ProgressSink): ProgressSink {
    return {
      start: (label, total, already) => {
        this.pause();
        sink.start(label, total, already);
      },
      advance: (received) => sink.advance(received),
      done: () => {
        sink.done();
        this.resume();
      },
    };
  }

  /** Writes what is pending and ends the status line (before the summary or exit). */
  finish(): void {
    if (this.pending) {
      clearTimeout(this.pending);
      this.pending = null;
    }
    const text = statusText(this.current);
    this.paused = false;
    if (this.tty) {
      if (text !== this.lastText || !this.drawn) {
        this.lastText = text;
        this.draw();
      }
      if (this.drawn) this.stream.write('\n');
      this.drawn = false;
    } else if (text !== this.lastText) {
      this.printLine();
    }
  }

  private printLine(): void {
    const text = statusText(this.current);
    if (text === this.lastText) return;
    this.lastText = text;
    this.lastPrintAt = Date.now();
    this.stream.write(`svc-miner: ${text}\n`);
  }

  private draw(): void {
    const columns = this.stream.columns || 120;
    const line = `svc-miner: ${this.lastText}`;
    this.stream.write(`\r${line.length >= columns ? `${line.slice(0, columns - 2)}…` : line}\x1b[K`);
    this.drawn = true;
  }

  private logLine(line: string): void {
    if (this.tty && this.drawn) {
      this.stream.write(`\r\x1b[K${line}\n`);
      this.draw();
    } else {
      this.stream.write(`${line}\n`);
    }
  }
}
