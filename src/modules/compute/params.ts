// Compute's parameters: its rules (genesis values: params.ts `compute`) and the range a governance
// proposal may set each of them to. The gas table is not governable.
import { compute as computeDefaults, type ComputeParams, type GovernableParam } from '../../params.js';

export { computeDefaults, type ComputeParams };

const TOKEN = 10n ** 18n;
const DAY = 86_400n;
const BPS_MAX = 10_000n;
const bound = (key: keyof ComputeParams, min: bigint, max: bigint, unit: GovernableParam['unit']): GovernableParam => ({ module: 'compute', key, min, max, unit });

/** Compute's rules a proposal may change, with their ranges. */
export const computeGovernable: readonly GovernableParam[] = [
  // Spot-checks and the jail of a miner caught by one.
  bound('spotCheckBps', 0n, BPS_MAX, 'bps'),
  bound('minerJailSeconds', 0n, 365n * DAY, 'seconds'),
  // The miners' share of public task fees.
  bound('taskFeeMinerBps', 0n, BPS_MAX, 'bps'),
  bound('taskFeeValidatorBps', 0n, BPS_MAX, 'bps'),
  // Rate limits that are chain rules.
  bound('maxProofsPerBlock', 1n, 10_000n, 'count'),
  bound('maxRegistrationsPerBlock', 1n, 10_000n, 'count'),
  bound('maxSharesPerBlock', 1n, 10_000n, 'count'),
  bound('maxOpenPublicTasks', 1n, 1_000_000n, 'count'),
  bound('publicTaskMinFee', 0n, 1_000n * TOKEN, 'wei'),
];

/** Throws a RangeError for compute parameters that do not hold together (how governance checks a change: modules/governable.ts). */
export function assertComputeParams(p: ComputeParams): void {
  if (p.taskFeeMinerBps + p.taskFeeValidatorBps > 10_000) throw new RangeError('compute params: taskFeeMinerBps + taskFeeValidatorBps above 10000');
}
