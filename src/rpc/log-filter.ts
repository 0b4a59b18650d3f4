// Matching live logs against a log filter, geth's rule, in one place: polling filters
// (eth_newFilter / eth_getFilterChanges) and WebSocket `logs` subscriptions both use it. eth_getLogs
// and eth_getFilterLogs read stored logs through the core, which applies the same rule natively.
import { toData } from './hex.js';
import type { BlockNumberOrTag, LogQuery } from './validate.js';

/** A log as the chain returns it (RPC-shaped). */
export type RpcLog = Record<string, unknown>;

/** A log query in the form used to match live logs: lowercase hex, block bounds as numbers (null: open). */
export interface LogMatcher {
  fromBlock: number | null;
  toBlock: number | null;
  addresses: Set<string>;
  topics: (Set<string> | null)[];
}

/** The matcher of a query. Tags other than earliest move with the head, so they bound no log that arrives later. */
export function logMatcher(query: LogQuery): LogMatcher {
  const bound = (b: BlockNumberOrTag): number | null => ('number' in b ? Number(b.number) : b.tag === 'earliest' ? 0 : null);
  const range = query.range;
  return {
    fromBlock: 'fromBlock' in range ? bound(range.fromBlock) : null,
    toBlock: 'toBlock' in range ? bound(range.toBlock) : null,
    addresses: new Set(query.addresses.map((a) => toData(a))),
    topics: query.topics.map((p) => (p === null ? null : new Set(p.map((t) => toData(t))))),
  };
}

/**
 * geth's rule: a log of block `blockNumber` matches when the block is within the bounds, its address
 * is listed (if any are), and each topic position is open or lists the log's topic there.
 */
export function matchesLog(log: RpcLog, m: LogMatcher, blockNumber: number): boolean {
  if (m.fromBlock !== null && blockNumber < m.fromBlock) return false;
  if (m.toBlock !== null && blockNumber > m.toBlock) return false;
  if (m.addresses.size > 0 && !m.addresses.has(String(log.address).toLowerCase())) return false;
  const topics = Array.isArray(log.topics) ? (log.topics as string[]) : [];
  if (m.topics.length > topics.length) return false;
  return m.topics.every((set, i) => set === null || set.has(String(topics[i]).toLowerCase()));
}
