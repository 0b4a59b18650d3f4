// Every governable parameter: the one registry governance's parameter-change proposals are checked
// against (modules/governance/live-params.ts) and the explorer lists, assembled from each module's
// params.ts and the parameters params.ts still declares (the chain's block gas limit). A module with
// parameters a proposal may change adds its list here.
import { governable as declaredInParams, type GovernableParam } from '../params.js';
import { bridgeGovernable } from './bridge/params.js';
import { computeGovernable } from './compute/params.js';
import { governanceGovernable } from './governance/params.js';
import { rentGovernable } from './rent/params.js';
import { stakingGovernable } from './staking/params.js';

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
