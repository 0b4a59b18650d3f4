// The chain's parameters as governance left them: one object per rule set (staking, compute,
// governance, chain), made from the genesis values and the changes governance applied. The modules
// hold these same objects, so a change applied at an epoch's first block is what every rule reads
// from that block on; reload() puts them back to the head's records after a failed block.
// A parameter's genesis value lives in params.ts, its governable range in its module's params.ts
// (all of them: modules/governable.ts); this file only copies.
import type { ChainRules, ComputeParams, GovernableParam, GovernanceParams, RentParams, StakingParams } from '../../params.js';
import { governableParam, rulesProblem } from '../governable.js';
import type { ParamChange } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type RuleSet = 'staking' | 'compute' | 'governance' | 'chain' | 'rent';

/** The genesis values every live object starts from. */
export interface GenesisParams {
  staking: StakingParams;
  compute: ComputeParams;
  governance: GovernanceParams;
  chain: ChainRules;
  rent: RentParams;
}

/** An epoch-length change's anchor (modules/staking/epoch.ts). */
export type EpochAnchor = NonNullable<StakingParams['epochAnchor']>;

export class LiveParams {
  readonly staking: StakingParams;
  readonly compute: ComputeParams;
  readonly governance: GovernanceParams;
  readonly chain: ChainRules;
  readonly rent: RentParams;

  constructor(private readonly genesis: GenesisParams) {
    this.staking = { ...genesis.staking };
    this.compute = { ...genesis.compute };
    this.governance = { ...genesis.governance };
    this.chain = { ...genesis.chain };
    this.rent = { ...genesis.rent };
  }

  /** Sets every live object to the genesis values with `overrides` (`<module>.<key>` -> value) and the epoch anchor on top. */
  reset(overrides: Readonly<Record<string, bigint>>, anchor: EpochAnchor | undefined): void {
    for (const set of ['staking', 'compute', 'governance', 'chain', 'rent'] as const) {
      const target = this[set] as unknown as Record<string, unknown>;
      for (const key of Object.keys(target)) if (!(key in this.genesis[set])) delete target[key];
      Object.assign(target, this.genesis[set]);
    }
    for (const [name, value] of Object.entries(overrides)) {
      const g = governableParam(name);
      if (!g) throw new Error(`governance records change ${name}, which is not governable`);
      this.write(this[g.module] as unknown as Record<string, unknown>, g, value);
    }
    if (anchor) (this.staking as Mutable<StakingParams>).epochAnchor = anchor;
  }

  /** The current value of a governable parameter, as an integer. */
  value(name: string): bigint {
    const g = governableParam(name);
    if (!g) throw new Error(`${name} is not a governable parameter`);
    const v = (this[g.module] as unknown as Record<string, unknown>)[g.key];
    return typeof v === 'bigint' ? v : BigInt(v as number);
  }

  /**
   * Why `changes` cannot be applied on top of the current values (and `pending`, changes passed
   * and not yet applied): an unknown name, a value out of its range, or rules that would not hold
   * together (shares above 100%, a multiplier range upside down); null when they can.
   */
  check(changes: readonly ParamChange[], pending: readonly ParamChange[] = []): string | null {
    const seen = new Set<string>();
    for (const c of changes) {
      const g = governableParam(c.name);
      if (!g) return `${c.name} is not a governable parameter`;
      if (seen.has(c.name)) return `${c.name} is changed twice`;
      seen.add(c.name);
      if (c.value < g.min || c.value > g.max) return `${c.name} must lie in [${g.min}, ${g.max}], got ${c.value}`;
    }
    const staking = { ...this.staking } as Record<string, unknown>;
    const compute = { ...this.compute } as Record<string, unknown>;
    const sets: Record<RuleSet, Record<string, unknown>> = { staking, compute, governance: { ...this.governance }, chain: { ...this.chain }, rent: { ...this.rent } };
    for (const c of [...pending, ...changes]) {
      const g = governableParam(c.name)!;
      this.write(sets[g.module], g, c.value);
    }
    return rulesProblem({ staking: staking as unknown as StakingParams, compute: compute as unknown as ComputeParams });
  }

  /** Writes `value` as the type the rule set holds (a number, or a bigint for token amounts). */
  private write(target: Record<string, unknown>, g: GovernableParam, value: bigint): void {
    const current = target[g.key];
    target[g.key] = typeof current === 'bigint' ? value : Number(value);
  }
}
