// The tally's rules at their exact edges (docs/governance.md, "Votes and the tally"): quorum is met
// at exactly 33.4% of bonded stake, veto needs more than 33.4% of the votes, a pass more than 50% of
// the non-abstaining votes; abstain-only votes reject; a delegator's own vote moves its shares off
// its validator's vote, at the tokens those shares are worth after a slash.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decide, tallyVotes, type TallyStake } from '../src/modules/governance/tally.js';
import type { VoteOption, VoteRecord } from '../src/modules/governance/types.js';
import { governance } from '../src/params.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const D = '0x00000000000000000000000000000000000000d3';
const E = '0x00000000000000000000000000000000000000e4';

const vote = (voter: `0x${string}`, option: VoteOption): VoteRecord => ({ proposalId: 1, voter, option, height: 1 });
const tally = (result: { yes?: bigint; abstain?: bigint; no?: bigint; noWithVeto?: bigint }, bonded: bigint) => {
  const r = { yes: 0n, abstain: 0n, no: 0n, noWithVeto: 0n, ...result };
  return decide({ result: r, voted: r.yes + r.abstain + r.no + r.noWithVeto, bonded }, governance);
};

describe('governance tally', () => {
  it('quorum is met at exactly 33.4% of the bonded stake, not below', () => {
    assert.equal(tally({ yes: 334n }, 1000n).outcome, 'passed');
    assert.equal(tally({ yes: 333n }, 1000n).outcome, 'no-quorum');
    assert.equal(tally({ yes: 333n }, 1000n).burn, true, 'the devnet burns deposits of a vote without quorum');
    assert.equal(tally({}, 0n).outcome, 'no-quorum', 'nothing bonded');
  });

  it('veto needs more than 33.4% of all votes (abstain counted); a tie at the threshold is no veto', () => {
    assert.equal(tally({ yes: 666n, noWithVeto: 334n }, 1000n).outcome, 'passed', 'exactly 33.4% is not above it');
    const vetoed = tally({ yes: 665n, noWithVeto: 335n }, 1000n);
    assert.equal(vetoed.outcome, 'vetoed');
    assert.equal(vetoed.burn, true);
    assert.equal(tally({ abstain: 600n, noWithVeto: 335n, yes: 65n }, 1000n).outcome, 'vetoed', 'abstain is in the veto base');
  });

  it('a pass needs more than 50% of yes + no + veto; exactly half rejects; abstain-only rejects without burning', () => {
    assert.equal(tally({ yes: 500n, no: 500n }, 1000n).outcome, 'rejected');
    assert.equal(tally({ yes: 501n, no: 499n }, 1000n).outcome, 'passed');
    assert.equal(tally({ yes: 400n, no: 300n, abstain: 300n }, 1000n).outcome, 'passed', 'abstain left out of the threshold base');
    const abstained = tally({ abstain: 1000n }, 1000n);
    assert.equal(abstained.outcome, 'rejected');
    assert.equal(abstained.burn, false);
  });

  it('a delegator that votes takes its shares off its validator\'s vote, at what they are worth', () => {
    // A: 1,000 shares worth 900 tokens (slashed 10%), 600 of them D's; B: 500 shares worth 500, E holds 100.
    const stake: TallyStake = {
      bonded: () => [
        { address: A, tokens: 900n, totalShares: 1000n },
        { address: B, tokens: 500n, totalShares: 500n },
      ],
      delegationsOf: (voter) =>
        voter === A ? [{ validator: A, shares: 400n }]
          : voter === D ? [{ validator: A, shares: 600n }]
            : voter === B ? [{ validator: B, shares: 400n }]
              : voter === E ? [{ validator: B, shares: 100n }, { validator: '0x00000000000000000000000000000000000000ff', shares: 50n }]
                : [],
    };
    const t = tallyVotes([vote(A, 'yes'), vote(D, 'no'), vote(B, 'abstain')], stake);
    // D's 600 shares = 540 tokens leave A's yes; A keeps its own 400 shares = 360; B's 500 (its own and E's, who did not vote) abstain.
    assert.deepEqual(t.result, { yes: 360n, abstain: 500n, no: 540n, noWithVeto: 0n });
    assert.equal(t.voted, 1400n);
    assert.equal(t.bonded, 1400n);
    // E votes too: its 100 shares of B leave B's abstain; its shares of an unbonded validator weigh nothing.
    const withE = tallyVotes([vote(A, 'yes'), vote(D, 'no'), vote(B, 'abstain'), vote(E, 'no-with-veto')], stake);
    assert.deepEqual(withE.result, { yes: 360n, abstain: 400n, no: 540n, noWithVeto: 100n });
    // A validator that does not vote carries nothing; its delegators who voted still count.
    const silentA = tallyVotes([vote(D, 'yes')], stake);
    assert.deepEqual(silentA.result, { yes: 540n, abstain: 0n, no: 0n, noWithVeto: 0n });
    assert.equal(decide(silentA, governance).outcome, 'passed', '540 of 1,400 bonded is above the quorum');
  });
});
