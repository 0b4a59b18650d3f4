// Contribution score: five parts, each 0..10000 basis points (shown as 0..100), weighted by
// params.staking.scoreWeightsBps into the total that splits the validators' block reward.
//   staking   tokens relative to the largest active validator's
//   compute   proof-of-work or inference contribution, from the compute module: hashrate (pow) or
//             inference score (inference) relative to the best validator of the same mode
//   uptime    blocks signed in the liveness window (a validator not yet expected to sign has 100)
//   accuracy  spot-checks passed among the decided ones of proofs through the validator (100 with none)
//   network   decentralisation: 100 up to an equal share of the active set's stake, falling as a
//             validator holds more (equal share / its share), so concentration earns less
import type { StakingParams } from '../../params.js';
import type { Address, ValidatorView } from './types.js';

const FULL = 10_000;

export interface ScoreBreakdown {
  staking: number;
  compute: number;
  uptime: number;
  accuracy: number;
  network: number;
  /** The weighted total, 0..10000. */
  totalBps: number;
}

/** Scores of every validator; only active ones share rewards, but every one has a score to show. */
export function contributionScores(
  validators: readonly ValidatorView[],
  params: Pick<StakingParams, 'scoreWeightsBps'>,
  compute?: ReadonlyMap<Address, { computeBps: number; accuracyBps: number }>,
): Map<Address, ScoreBreakdown> {
  const active = validators.filter((v) => v.status === 'active');
  const maxTokens = active.reduce((m, v) => (v.tokens > m ? v.tokens : m), 0n);
  const totalTokens = active.reduce((s, v) => s + v.tokens, 0n);
  const out = new Map<Address, ScoreBreakdown>();
  const w = params.scoreWeightsBps;
  for (const v of validators) {
    const relative = maxTokens === 0n ? 0n : (v.tokens * BigInt(FULL)) / maxTokens;
    const staking = Number(relative > BigInt(FULL) ? BigInt(FULL) : relative);
    const parts = compute?.get(v.address);
    const computePart = parts?.computeBps ?? 0;
    const uptime = v.uptimeBps;
    const accuracy = parts?.accuracyBps ?? FULL;
    let network = FULL;
    if (active.length > 0 && v.tokens > 0n && totalTokens > 0n) {
      // equal share / own share = totalTokens / (n * tokens), capped at 1.
      const n = BigInt(active.length);
      network = v.tokens * n <= totalTokens ? FULL : Number((totalTokens * BigInt(FULL)) / (n * v.tokens));
    }
    const totalBps = Math.floor(
      (staking * w.staking + computePart * w.compute + uptime * w.uptime + accuracy * w.accuracy + network * w.network) / FULL,
    );
    out.set(v.address, { staking, compute: computePart, uptime, accuracy, network, totalBps });
  }
  return out;
}
