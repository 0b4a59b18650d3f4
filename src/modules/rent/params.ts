// Rent's parameters (docs/rent.md): its rules (genesis values: params.ts `rent`) and the range a
// governance proposal may set each of them to. The gas table is not governable.
import { rent as rentDefaults, type GovernableParam, type RentParams } from '../../params.js';

export { rentDefaults, type RentParams };

const TOKEN = 10n ** 18n;
const bound = (key: keyof RentParams, min: bigint, max: bigint, unit: GovernableParam['unit']): GovernableParam => ({ module: 'rent', key, min, max, unit });

/** Rent's rules a proposal may change, with their ranges. */
export const rentGovernable: readonly GovernableParam[] = [
  bound('depositPerSlot', 0n, TOKEN, 'wei'),
  bound('rentPerSlotPerEpoch', 0n, TOKEN, 'wei'),
  bound('dormancyOwedLimit', 0n, 1_000n * TOKEN, 'wei'),
  bound('dormancyEpochs', 1n, 10_000_000n, 'epochs'),
  bound('reactivationFee', 0n, 1_000n * TOKEN, 'wei'),
];
