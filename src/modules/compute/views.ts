// Views derived from the compute records: hashrates over the proof-of-work window, inference
// scores over the score window, active miners, and validators' compute views (mode, hashrate,
// inference score, the compute and accuracy parts of the contribution score).
import { system, type ComputeParams } from '../../params.js';
import type { ComputeStore } from './store.js';
import { windowSum, type Address, type ComputeGlobal, type ComputeMode, type MinerRecord, type ValidatorComputeView } from './types.js';

export class ComputeViews {
  constructor(
    private readonly store: ComputeStore,
    private readonly params: ComputeParams,
  ) {}

  get counters(): ComputeGlobal['counters'] {
    return this.store.global.counters;
  }

  modelCounts(): Readonly<Record<string, { assigned: number; completed: number }>> {
    return this.store.global.models;
  }

  /**
   * Active miners for the reward split (staking.inferenceMinersShareBps): an accepted proof in the
   * score window (this epoch and the one before) and not jailed at `now`. Counted from state, so
   * every node gets the same number.
   */
  minersWithRecentProofs(epoch: number, now: number): number {
    let n = 0;
    for (const m of this.store.miners.values()) if (m.jailedUntil <= now && windowSum(m.window, epoch, this.params.scoreWindowEpochs) > 0n) n += 1;
    return n;
  }

  /** Miners that registered or had a proof accepted within minerActiveEpochs and are not jailed at `now`. */
  activeMiners(epoch: number, now: number): MinerRecord[] {
    return this.store.minerList().filter((m) => m.lastActiveEpoch > epoch - this.params.minerActiveEpochs && m.jailedUntil <= now);
  }

  /**
   * The hashrate window: the last hashrateWindowBlocks blocks' work, timed from the timestamp of the
   * block before them (the window keeps that one block too, as its start; so a young chain never
   * times from the genesis date).
   */
  powWindowWork(validator: Address): { work: bigint; ms: number } {
    const w = this.store.global.powWindow;
    if (w.length < 2) return { work: 0n, ms: 0 };
    const work = w.slice(1).reduce((s, e) => s + (e.work[validator] ?? 0n), 0n);
    return { work, ms: w[w.length - 1]!.timeMs - w[0]!.timeMs };
  }

  /** Hashes per second of a validator over the hashrate window (block time, timed in milliseconds). */
  hashrate(validator: Address): bigint {
    const { work, ms } = this.powWindowWork(validator);
    return ms <= 0 ? 0n : (work * 1000n) / BigInt(ms);
  }

  /** The hashrate window's span in block time, seconds (fractional below a second's resolution). */
  hashrateWindowSeconds(): number {
    return this.powWindowWork(system.computeAddress).ms / 1000;
  }

  inferenceScoreOf(window: MinerRecord['window'], epoch: number): bigint {
    return windowSum(window, epoch, this.params.scoreWindowEpochs);
  }

  /** Compute views of validators: mode, hashrate, inference score, and their score parts. */
  computeViews(addresses: readonly Address[], epoch: number): Map<Address, ValidatorComputeView> {
    const raw = addresses.map((a) => {
      const v = this.store.validators.get(a);
      const { work: powWork } = this.powWindowWork(a);
      const hashrate = this.hashrate(a);
      const inferenceScore = v ? windowSum(v.window, epoch, this.params.scoreWindowEpochs) : 0n;
      return { a, v, hashrate, powWork, inferenceScore };
    });
    const maxHash = raw.reduce((m, r) => (r.v?.mode === 'pow' && r.hashrate > m ? r.hashrate : m), 0n);
    const maxInf = raw.reduce((m, r) => (r.v?.mode === 'inference' && r.inferenceScore > m ? r.inferenceScore : m), 0n);
    const out = new Map<Address, ValidatorComputeView>();
    for (const { a, v, hashrate, powWork, inferenceScore } of raw) {
      const mode: ComputeMode = v?.mode ?? 'none';
      let computeBps = 0;
      if (mode === 'pow' && maxHash > 0n) computeBps = Number((hashrate * 10_000n) / maxHash);
      if (mode === 'inference' && maxInf > 0n) computeBps = Number((inferenceScore * 10_000n) / maxInf);
      const decided = (v?.spotChecksPassed ?? 0) + (v?.spotChecksFailed ?? 0);
      const accuracyBps = decided === 0 ? 10_000 : Math.floor(((v?.spotChecksPassed ?? 0) * 10_000) / decided);
      out.set(a, {
        computeMode: mode,
        providesCompute: mode === 'pow' ? powWork > 0n : mode === 'inference' ? inferenceScore > 0n : false,
        hashrate,
        inferenceScore,
        tasksCompleted: v?.tasksCompleted ?? 0,
        computeBps,
        accuracyBps,
      });
    }
    return out;
  }
}
