// Governance's parameters: its rules (genesis values: params.ts `governance`) and the range a
// proposal may set each of them to. Gas and the text limits are not governable.
import { governance as governanceDefaults, type GovernableParam, type GovernanceParams } from '../../params.js';

export { governanceDefaults, type GovernanceParams };

const TOKEN = 10n ** 18n;
const DAY = 86_400n;
const BPS_MAX = 10_000n;
const bound = (key: keyof GovernanceParams, min: bigint, max: bigint, unit: GovernableParam['unit']): GovernableParam => ({ module: 'governance', key, min, max, unit });

/** Governance's own rules a proposal may change, with their ranges. */
export const governanceGovernable: readonly GovernableParam[] = [
  bound('minDeposit', 1n, 1_000_000n * TOKEN, 'wei'),
  bound('depositPeriodSeconds', 1n, 365n * DAY, 'seconds'),
  bound('votingPeriodSeconds', 1n, 365n * DAY, 'seconds'),
  bound('quorumBps', 0n, BPS_MAX, 'bps'),
  bound('thresholdBps', 0n, BPS_MAX, 'bps'),
  bound('vetoThresholdBps', 0n, BPS_MAX, 'bps'),
  bound('burnDepositsOnVeto', 0n, 1n, 'flag'),
  bound('burnDepositsOnNoQuorum', 0n, 1n, 'flag'),
  bound('burnDepositsOnExpiry', 0n, 1n, 'flag'),
  bound('modelRetirementGraceBlocks', 0n, 1_000_000n, 'blocks'),
  bound('maxVestingEpochs', 1n, 1_000_000n, 'epochs'),
];
