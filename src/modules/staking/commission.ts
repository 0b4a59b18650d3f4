// Commission rules (Cosmos x/staking): rates chosen at registration bound every later change.
import type { StakingParams } from '../../params.js';
import type { ValidatorDescription, ValidatorRecord } from './types.js';

const isBps = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/** Why a registration's commission rates are not acceptable, or undefined when they are. */
export function commissionRatesProblem(rates: ValidatorDescription, params: StakingParams): string | undefined {
  const { commissionBps, maxCommissionBps, maxChangeBpsPerDay } = rates;
  if (!isBps(commissionBps) || !isBps(maxCommissionBps) || !isBps(maxChangeBpsPerDay)) {
    return 'commission rates must be whole basis points';
  }
  if (maxCommissionBps > params.maxCommissionBps) return `max commission above ${params.maxCommissionBps} bps`;
  if (commissionBps > maxCommissionBps) return 'commission above max';
  if (maxChangeBpsPerDay > maxCommissionBps) return 'max daily change above max commission';
  return undefined;
}

/** Why a commission edit is not allowed now, or undefined when it is (checks in Cosmos' order). */
export function commissionEditProblem(
  validator: ValidatorRecord,
  newBps: number,
  now: number,
  params: StakingParams,
): string | undefined {
  if (now - validator.lastCommissionChangeAt < params.commissionChangeIntervalSeconds) {
    return 'commission changed less than 24 hours ago';
  }
  if (!isBps(newBps)) return 'commission must be whole basis points';
  if (newBps > validator.maxCommissionBps) return 'commission above max';
  if (Math.abs(newBps - validator.commissionBps) > validator.maxChangeBpsPerDay) {
    return 'commission change exceeds max daily change';
  }
  return undefined;
}
