// The filter of a `logs` subscription: geth's FilterCriteria (address, topics, optional block bounds),
// checked as eth_getLogs checks it and matched against the logs of each new block.
import { toData } from '../hex.js';
import { InvalidValueError, parseLogQuery, type BlockNumberOrTag } from '../validate.js';

/** A log as the chain returns it (RPC-shaped). */
export type RpcLog = Record<string, unknown>;

/** Criteria in the form used to match live logs: lowercase hex, block bounds as numbers (null: open). */
export interface LogCriteria {
  fromBlock: number | null;
  toBlock: number | null;
  addresses: Set<string>;
  topics: (Set<string> | null)[];
}

/** Parses the optional second argument of eth_subscribe("logs", ...); throws InvalidValueError. */
export function parseLogCriteria(value: unknown): LogCriteria {
  const query = parseLogQuery(value ?? {});
  if ('blockHash' in query.range) throw new InvalidValueError('blockHash is not allowed in a subscription: use eth_getLogs for one block');
  // Tags other than earliest move with the head, so they do not bound logs that arrive later (as polling filters).
  const bound = (b: BlockNumberOrTag): number | null => ('number' in b ? Number(b.number) : b.tag === 'earliest' ? 0 : null);
  const fromBlock = bound(query.range.fromBlock);
  const toBlock = bound(query.range.toBlock);
  if (fromBlock !== null && toBlock !== null && toBlock < fromBlock) throw new InvalidValueError('invalid from and to block combination');
  return {
    fromBlock,
    toBlock,
    addresses: new Set(query.addresses.map((a) => toData(a))),
    topics: query.topics.map((p) => (p === null ? null : new Set(p.map((t) => toData(t))))),
  };
}

/** geth's rule: a log matches when its address is listed (if any are) and each topic position agrees. */
export function matchesLog(log: RpcLog, c: LogCriteria, blockNumber: number): boolean {
  if (c.fromBlock !== null && blockNumber < c.fromBlock) return false;
  if (c.toBlock !== null && blockNumber > c.toBlock) return false;
  if (c.addresses.size > 0 && !c.addresses.has(String(log.address).toLowerCase())) return false;
  const topics = Array.isArray(log.topics) ? (log.topics as string[]) : [];
  if (c.topics.length > topics.length) return false;
  return c.topics.every((set, i) => set === null || set.has(String(topics[i]).toLowerCase()));
}
