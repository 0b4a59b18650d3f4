// The filter of a `logs` subscription: geth's FilterCriteria (address, topics, optional block bounds),
// checked as eth_getLogs checks it and matched against the logs of each new block by the rule that
// polling filters use too (rpc/log-filter.ts).
import { logMatcher, type LogMatcher } from '../log-filter.js';
import { InvalidValueError, parseLogQuery } from '../validate.js';

/** Parses the optional second argument of eth_subscribe("logs", ...); throws InvalidValueError. */
export function parseLogCriteria(value: unknown): LogMatcher {
  const query = parseLogQuery(value ?? {});
  if ('blockHash' in query.range) throw new InvalidValueError('blockHash is not allowed in a subscription: use eth_getLogs for one block');
  const criteria = logMatcher(query);
  if (criteria.fromBlock !== null && criteria.toBlock !== null && criteria.toBlock < criteria.fromBlock) throw new InvalidValueError('invalid from and to block combination');
  return criteria;
}
