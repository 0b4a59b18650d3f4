// Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): what each has
// seen since its last poll, fed by the node's block and pending-transaction events.
import { randomBytes } from 'node:crypto';
import type { NodeServices } from '../services.js';
import type { ProducedBlock } from '../native/index.js';
import { rpc } from '../params.js';
import { FilterNotFoundError, TooManyFiltersError } from './errors.js';
import { toData } from './hex.js';
import { logMatcher, matchesLog, type LogMatcher, type RpcLog } from './log-filter.js';
import type { LogQuery } from './validate.js';

export type FilterKind = 'logs' | 'blocks' | 'pendingTransactions';

interface InstalledFilter {
  kind: FilterKind;
  /** Pending-transaction filters only: deliver transaction objects instead of hashes (geth's fullTx). */
  fullTransactions: boolean;
  query: LogQuery | undefined;
  live: LogMatcher | undefined;
  /** Log objects, block hashes or transaction hashes seen since the last poll. */
  buffer: unknown[];
  lastPolledAt: number;
}

/** The filters installed on this node, keyed by random 16-byte hex ids. */
export class InstalledFilters {
  private readonly filters = new Map<string, InstalledFilter>();
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly onBlock = (block: ProducedBlock): void => this.deliverBlock(block);
  private readonly onPendingTransaction = (hash: Buffer): void => this.deliverPendingTransaction(hash);

  constructor(private readonly services: NodeServices) {
    services.events.on('block', this.onBlock);
    services.events.on('pendingTransaction', this.onPendingTransaction);
    // Checked ten times per timeout, so an idle filter outlives it by at most a tenth.
    this.sweepTimer = setInterval(() => this.removeIdle(), rpc.filterTimeoutMs / 10);
    this.sweepTimer.unref();
  }

  /** Installs a log filter; it collects matching logs of blocks sealed from now on. */
  installLogFilter(query: LogQuery): string {
    return this.install('logs', query, false);
  }

  /** Installs a filter that collects the hashes of new blocks. */
  installBlockFilter(): string {
    return this.install('blocks', undefined, false);
  }

  /** Installs a filter that collects transactions entering the pool: hashes, or whole objects when asked. */
  installPendingTransactionFilter(fullTransactions: boolean): string {
    return this.install('pendingTransactions', undefined, fullTransactions);
  }

  /** What the filter collected since the last poll; empties its buffer. */
  takeChanges(id: string): unknown[] {
    const filter = this.touch(id);
    const changes = filter.buffer;
    filter.buffer = [];
    return changes;
  }

  /** The criteria of a log filter (for eth_getFilterLogs). */
  logQuery(id: string): LogQuery {
    const filter = this.touch(id);
    if (filter.kind !== 'logs' || filter.query === undefined) throw new FilterNotFoundError(id);
    return filter.query;
  }

  /** Removes a filter; false when there was none. */
  uninstall(id: string): boolean {
    return this.filters.delete(id);
  }

  get size(): number {
    return this.filters.size;
  }

  /** Stops listening to node events and drops every filter. */
  close(): void {
    clearInterval(this.sweepTimer);
    this.services.events.off('block', this.onBlock);
    this.services.events.off('pendingTransaction', this.onPendingTransaction);
    this.filters.clear();
  }

  private install(kind: FilterKind, query: LogQuery | undefined, fullTransactions: boolean): string {
    if (this.filters.size >= rpc.maxFilters) throw new TooManyFiltersError(rpc.maxFilters);
    const id = toData(randomBytes(16));
    this.filters.set(id, {
      kind,
      fullTransactions,
      query,
      live: query === undefined ? undefined : logMatcher(query),
      buffer: [],
      lastPolledAt: Date.now(),
    });
    return id;
  }

  private touch(id: string): InstalledFilter {
    const filter = this.filters.get(id);
    if (filter === undefined) throw new FilterNotFoundError(id);
    filter.lastPolledAt = Date.now();
    return filter;
  }

  private deliverBlock(block: ProducedBlock): void {
    this.deliver('blocks', [toData(block.head.hash)]);
    let logs: RpcLog[] | undefined;
    for (const filter of this.filters.values()) {
      if (filter.kind !== 'logs' || filter.live === undefined) continue;
      // Read the block's logs once, and only when some log filter wants them.
      logs ??= this.readBlockLogs(block.head.number);
      const live = filter.live;
      this.push(filter, logs.filter((log) => matchesLog(log, live, block.head.number)));
    }
  }

  private readBlockLogs(blockNumber: number): RpcLog[] {
    try {
      return this.services.chain.getBlockLogs(blockNumber);
    } catch (err) {
      this.services.log.error({ err, blockNumber }, 'log filters could not read the logs of a new block');
      return [];
    }
  }

  private deliver(kind: FilterKind, items: unknown[]): void {
    for (const filter of this.filters.values()) {
      if (filter.kind === kind) this.push(filter, items);
    }
  }

  private deliverPendingTransaction(hash: Buffer): void {
    let full: Record<string, unknown> | null | undefined;
    for (const filter of this.filters.values()) {
      if (filter.kind !== 'pendingTransactions') continue;
      if (!filter.fullTransactions) {
        this.push(filter, [toData(hash)]);
        continue;
      }
      // Built once per transaction and shared by every filter that wants objects.
      if (full === undefined) {
        const pooled = this.services.mempool.get(hash);
        full = pooled === undefined ? null : this.services.chain.pendingTransactionJson(pooled.raw, pooled.tx.from);
      }
      if (full !== null) this.push(filter, [full]);
    }
  }

  private push(filter: InstalledFilter, items: unknown[]): void {
    if (items.length === 0) return;
    for (const item of items) filter.buffer.push(item);
    // A client that stops polling must not grow the node's memory: keep the newest items only.
    const excess = filter.buffer.length - rpc.maxFilterBufferItems;
    if (excess > 0) filter.buffer.splice(0, excess);
  }

  private removeIdle(): void {
    const cutoff = Date.now() - rpc.filterTimeoutMs;
    for (const [id, filter] of this.filters) {
      if (filter.lastPolledAt < cutoff) this.filters.delete(id);
    }
  }
}
