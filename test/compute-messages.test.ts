// The shapes of compute messages that blocks carry: a spot-check verdict's cosine may be negative (a
// different model's output can point away from the honest one); a node must be able to propose
// and accept such a verdict, and still refuse values no cosine can take.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMessages } from '../src/modules/compute/messages.js';
import { compute } from '../src/params.js';

const verdict = (cosinePpm: unknown) => ({
  module: 'compute',
  kind: 'verdict',
  body: { proofId: `0x${'11'.repeat(32)}`, passed: false, result: { cosinePpm, maxAbsDiff: 127, hashMatches: true } },
});

describe('compute message shapes: verdicts', () => {
  it('take a cosine from -1 to 1 in parts per million', () => {
    for (const ppm of [-1_000_000, -250_000, 0, 999_000, 1_000_000]) assert.equal(checkMessages([verdict(ppm)], compute), null, `cosinePpm ${ppm}`);
  });

  it('refuse a cosine beyond ±1, a fraction or a non-number', () => {
    for (const ppm of [-1_000_001, 1_000_001, 0.5, '5', null]) {
      assert.equal(checkMessages([verdict(ppm)], compute), 'message 0: verdict: field result is missing or malformed', `cosinePpm ${String(ppm)}`);
    }
  });
});
