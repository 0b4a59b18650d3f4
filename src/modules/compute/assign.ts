// The AI coordinator's assignment, run at each epoch start from the hash of the block before it:
// public tasks waiting (oldest first) go to a miner drawn among those that can run the model, and
// every eligible miner gets its challenge tasks with inputs drawn from the corpus. Deterministic:
// the same state and seed give the same assignment on every node.
import { blake3 } from '@noble/hashes/blake3.js';
import { challengeSentence } from './corpus.js';
import { TIERS, hexOf, inputHash, type GpuTierName, type Hex } from './wire.js';
import type { Address, MinerRecord, TaskRecord } from './types.js';

/** The tier a model needs (from the registry; models absent from the map need Hot). */
export type ModelTiers = ReadonlyMap<string, GpuTierName>;

/** Whether a miner of `tier` that loaded `models` can take tasks of `modelId`. */
export function canRun(miner: Pick<MinerRecord, 'tier' | 'models'>, modelId: string, tiers: ModelTiers): boolean {
  const need = tiers.get(modelId) ?? 'Hot';
  return miner.models.includes(modelId) && TIERS.indexOf(miner.tier) >= TIERS.indexOf(need);
}

/** A number in [0, n) drawn from the seed and the parts. */
export function draw(n: number, seed: Uint8Array, ...parts: (string | Uint8Array)[]): number {
  const h = blake3(Buffer.concat([Buffer.from(seed), ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)))]));
  return Number(Buffer.from(h).readBigUInt64BE(0) % BigInt(n));
}

export interface AssignmentInput {
  epoch: number;
  height: number;
  seed: Uint8Array;
  /** Eligible miners (registered, active, not jailed), any order. */
  miners: readonly MinerRecord[];
  /** Open tasks each miner already holds. */
  openCount: ReadonlyMap<Address, number>;
  /** Public tasks waiting for a miner, any order. */
  pending: readonly TaskRecord[];
  approved: ReadonlySet<string>;
  tiers: ModelTiers;
  challengeTasksPerMiner: number;
  maxOpenTasksPerMiner: number;
  deadlineEpochs: number;
}

export interface Assignment {
  /** Public tasks given a miner: task id -> miner. */
  publicAssigned: Map<Hex, Address>;
  /** New challenge tasks, already assigned. */
  challenges: TaskRecord[];
}

export function assignTasks(a: AssignmentInput): Assignment {
  const miners = [...a.miners].sort((x, y) => (x.wallet < y.wallet ? -1 : 1));
  const load = new Map(miners.map((m) => [m.wallet, a.openCount.get(m.wallet) ?? 0]));
  const room = (m: MinerRecord) => (load.get(m.wallet) ?? 0) < a.maxOpenTasksPerMiner;
  const publicAssigned = new Map<Hex, Address>();
  const pending = [...a.pending].sort((x, y) => (x.createdAt !== y.createdAt ? x.createdAt - y.createdAt : x.id < y.id ? -1 : 1));
  for (const t of pending) {
    const candidates = miners.filter((m) => room(m) && canRun(m, t.modelId, a.tiers));
    if (candidates.length === 0) continue;
    const m = candidates[draw(candidates.length, a.seed, 'public', Buffer.from(t.id.slice(2), 'hex'))]!;
    publicAssigned.set(t.id, m.wallet);
    load.set(m.wallet, (load.get(m.wallet) ?? 0) + 1);
  }
  const challenges: TaskRecord[] = [];
  for (const m of miners) {
    const models = m.models.filter((id) => a.approved.has(id) && canRun(m, id, a.tiers)).sort();
    if (models.length === 0) continue;
    for (let k = 0; k < a.challengeTasksPerMiner && room(m); k++) {
      const wallet = Buffer.from(m.wallet.slice(2), 'hex');
      const index = Buffer.from([k >> 8, k & 0xff]);
      const modelId = models[draw(models.length, a.seed, 'model', wallet, index)]!;
      const input = challengeSentence(Buffer.concat([Buffer.from(a.seed), Buffer.from('input'), wallet, index]));
      const id = hexOf(blake3(Buffer.concat([Buffer.from('svc/challenge-task'), Buffer.from(a.seed), wallet, index])));
      challenges.push({
        id,
        kind: 'challenge',
        modelId,
        input,
        inputHash: hexOf(inputHash(input)),
        fee: 0n,
        submitter: null,
        createdAt: a.height,
        createdEpoch: a.epoch,
        status: 'assigned',
        assignedTo: m.wallet,
        assignedEpoch: a.epoch,
        deadlineEpoch: a.epoch + a.deadlineEpochs - 1,
        proofId: null,
        completedAt: null,
        reassignments: 0,
        refunded: 0n,
      });
      load.set(m.wallet, (load.get(m.wallet) ?? 0) + 1);
    }
  }
  return { publicAssigned, challenges };
}

/** The models a miner may be registered for: approved ones its tier can run. */
export function runnableModels(models: readonly string[], tier: GpuTierName, tiers: ModelTiers): string[] {
  return models.filter((id) => canRun({ tier, models: [...models] }, id, tiers));
}
