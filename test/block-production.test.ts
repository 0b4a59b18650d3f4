// Block production's health as a state machine on a stepped clock: a failed block begins a stall
// (once), retries back off from one block time to the cap, the head goes stale after three block
// times (with a floor), and the next committed block ends the stall with its length and attempts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlockProduction } from '../src/consensus/production.js';
import { production as params, productionRetryMs, staleHeadAfterMs } from '../src/params.js';

/** A clock the test moves by hand. */
function steppedClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('retry backoff after a failed block', () => {
  it('starts at one block time and doubles up to the cap', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 50].map((n) => productionRetryMs(1000, n)),
      [1000, 2000, 4000, params.retryMaxMs, params.retryMaxMs, params.retryMaxMs, params.retryMaxMs],
    );
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => productionRetryMs(250, n)),
      [250, 500, 1000, 2000, 4000, 5000],
    );
  });

  it('never retries sooner than one block time when the block time is above the cap', () => {
    assert.equal(productionRetryMs(12_000, 1), 12_000);
    assert.equal(productionRetryMs(12_000, 9), 12_000);
  });
});

describe('the stale-head limit', () => {
  it('is three block times, with a floor for short block times', () => {
    assert.equal(staleHeadAfterMs(1000), 3000);
    assert.equal(staleHeadAfterMs(5000), 15_000);
    assert.equal(staleHeadAfterMs(100), params.staleFloorMs);
  });
});

describe('BlockProduction', () => {
  it('is ok with a fresh head, and stale once no block came for longer than the limit (a fresh chain too)', () => {
    const clock = steppedClock();
    const p = new BlockProduction(1000, clock.now);
    assert.equal(p.unhealthyReason(), null);
    assert.deepEqual(p.status(), { status: 'ok', reason: null, since: null, attempts: 0, headAgeMs: 0, staleAfterMs: 3000, stale: false });
    clock.advance(3000);
    assert.equal(p.unhealthyReason(), null, 'exactly at the limit is still fresh');
    clock.advance(1);
    const s = p.status();
    assert.equal(s.status, 'stalled');
    assert.equal(s.stale, true);
    assert.equal(s.since, clock.now() - 3001, 'a head that went stale without a failure is stalled since its last commit');
    assert.equal(p.unhealthyReason(), 'no block committed for 3001 ms (limit 3000 ms)');
  });

  it('counts the head age from the driver start, not from construction', () => {
    const clock = steppedClock();
    const p = new BlockProduction(1000, clock.now);
    clock.advance(10_000);
    p.started();
    assert.equal(p.headAgeMs(), 0);
    assert.equal(p.unhealthyReason(), null);
  });

  it('reports a stall once, keeps the latest reason, backs off, and ends it on the next commit', () => {
    const clock = steppedClock();
    const p = new BlockProduction(1000, clock.now);
    clock.advance(1000);
    assert.equal(p.committed(), null, 'a commit while producing ends nothing');

    clock.advance(1000);
    const stallStart = clock.now();
    const first = p.failed('IO error: No space left on device: While appending to file: 000009.log');
    assert.deepEqual(first, { stalled: true, retryInMs: 1000 });
    assert.equal(p.status().status, 'stalled');
    assert.equal(p.status().since, stallStart);
    assert.equal(p.unhealthyReason(), null, 'one failed block does not make the node unready');

    const later: boolean[] = [];
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(delays.at(-1) ?? 1000);
      const f = p.failed('IO error: No space left on device');
      later.push(f.stalled);
      delays.push(f.retryInMs);
    }
    assert.deepEqual(later, [false, false, false, false, false], 'only the first failure begins a stall');
    assert.deepEqual(delays, [2000, 4000, 5000, 5000, 5000]);

    const s = p.status();
    assert.equal(s.attempts, 6);
    assert.equal(s.reason, 'IO error: No space left on device');
    assert.equal(s.since, stallStart, 'the stall keeps the time of its first failure');
    assert.equal(s.stale, true);
    assert.match(p.unhealthyReason() ?? '', /^no block committed for \d+ ms \(limit 3000 ms\); block production stalled after 6 failed attempts: IO error: No space left on device$/);

    clock.advance(5000);
    const ended = p.committed();
    assert.deepEqual(ended, { reason: 'IO error: No space left on device', stalledMs: clock.now() - stallStart, attempts: 6 });
    assert.deepEqual(p.status(), { status: 'ok', reason: null, since: null, attempts: 0, headAgeMs: 0, staleAfterMs: 3000, stale: false });
    assert.equal(p.committed(), null, 'a stall ends once');

    const again = p.failed('IO error: No space left on device');
    assert.deepEqual(again, { stalled: true, retryInMs: 1000 }, 'a new stall starts again from one block time');
  });
});
