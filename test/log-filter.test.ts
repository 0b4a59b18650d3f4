// geth's log-filter rule in its one place (src/rpc/log-filter.ts), which polling filters and WebSocket
// `logs` subscriptions share.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { logMatcher, matchesLog } from '../src/rpc/log-filter.js';
import { parseLogQuery } from '../src/rpc/validate.js';
import { parseLogCriteria } from '../src/rpc/ws/log-criteria.js';
import { repoRoot } from './support/repo.js';

const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const T1 = '0x' + '11'.repeat(32);
const T2 = '0x' + '22'.repeat(32);
const T3 = '0x' + '33'.repeat(32);
const log = (address: string, topics: string[]) => ({ address, topics, data: '0x' });

describe('log-filter matching', () => {
  it('matches addresses (any listed, case-insensitive) and topics by position (null is any, a list is any of it)', () => {
    const m = logMatcher(parseLogQuery({ address: [A.toUpperCase().replace('0X', '0x'), B], topics: [T1, null, [T2, T3]] }));
    assert.equal(matchesLog(log(A, [T1, T3, T2]), m, 5), true);
    assert.equal(matchesLog(log(B.toUpperCase().replace('0X', '0x'), [T1.toUpperCase().replace('0X', '0x'), T1, T3]), m, 5), true);
    assert.equal(matchesLog(log('0x' + 'cc'.repeat(20), [T1, T3, T2]), m, 5), false, 'address not listed');
    assert.equal(matchesLog(log(A, [T2, T3, T2]), m, 5), false, 'first topic differs');
    assert.equal(matchesLog(log(A, [T1, T3, T1]), m, 5), false, 'third topic is none of the list');
    assert.equal(matchesLog(log(A, [T1, T3]), m, 5), false, 'the log has fewer topics than the filter names');
    const any = logMatcher(parseLogQuery({}));
    assert.equal(matchesLog(log(B, []), any, 1), true);
  });

  it('bounds by block numbers; tags other than earliest leave the bound open', () => {
    const m = logMatcher(parseLogQuery({ fromBlock: '0x5', toBlock: '0x7' }));
    assert.deepEqual([4, 5, 7, 8].map((n) => matchesLog(log(A, []), m, n)), [false, true, true, false]);
    const open = logMatcher(parseLogQuery({ fromBlock: 'earliest', toBlock: 'latest' }));
    assert.deepEqual([open.fromBlock, open.toBlock], [0, null]);
    assert.equal(matchesLog(log(A, []), open, 1_000_000), true);
  });

  it('is the rule of WebSocket subscriptions too, which also refuse a block hash and an inverted range', () => {
    const criteria = parseLogCriteria({ address: A, topics: [T1] });
    assert.deepEqual(criteria, logMatcher(parseLogQuery({ address: A, topics: [T1] })));
    assert.throws(() => parseLogCriteria({ fromBlock: '0x9', toBlock: '0x2' }), /invalid from and to block combination/);
    assert.throws(() => parseLogCriteria({ blockHash: T1 }), /blockHash is not allowed/);
  });

  it('lives in one place: polling filters and subscriptions import it', () => {
    const src = path.join(repoRoot(), 'src', 'rpc');
    assert.match(readFileSync(path.join(src, 'installed-filters.ts'), 'utf8'), /import \{[^}]*\bmatchesLog\b[^}]*\} from '\.\/log-filter\.js'/);
    assert.match(readFileSync(path.join(src, 'ws', 'subscriptions.ts'), 'utf8'), /import \{[^}]*\bmatchesLog\b[^}]*\} from '\.\.\/log-filter\.js'/);
  });
});
