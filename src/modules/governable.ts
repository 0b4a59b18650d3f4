// Every governable parameter: the one registry governance's parameter-change proposals are checked
// against (modules/governance/live-params.ts) and the explorer lists, assembled from each module's
// params.ts and the parameters params.ts still declares (the chain's block gas limit), with the
// checks that a module's parameters hold together (each written once, in its module's params.ts).
// A module with parameters a proposal may change adds its list here.
import { governable as declaredInParams, type ComputeParams, type GovernableParam, type StakingParams } from '../params.js';
import { bridgeGovernable } from './bridge/params.js';
import { assertComputeParams, computeGovernable } from './compute/params.js';
import { governanceGovernable } from './governance/params.js';
import { rentGovernable } from './rent/params.js';
import { assertStakingParams, stakingGovernable } from './staking/params.js';

export type { GovernableParam };

export const governable: readonly GovernableParam[] = [
  ...stakingGovernable,
  ...computeGovernable,
  ...declaredInParams,
  ...governanceGovernable,
  ...bridgeGovernable,
  ...rentGovernable,
];

const byName = new Map(governable.map((g) => [`${g.module}.${g.key}`, g]));
if (byName.size !== governable.length) throw new Error('two governable parameters share a name');

/** The governable parameter named `<module>.<key>`. */
export function governableParam(name: string): GovernableParam | undefined {
  return byName.get(name);
}

/**
 * Why the rule sets do not hold together (shares above 100%, a multiplier range upside down), as
 * the first module's check that refuses them says; null when they do.
 */
export function rulesProblem(sets: { staking: StakingParams; compute: ComputeParams }): string | null {
  try {
    assertStakingParams(sets.staking);
    assertComputeParams(sets.compute);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}
