// The read views of every module, by module name: what serving code (JSON-RPC, the explorer, the
// WebSocket feed, the consensus engine) reads of the chain's modules. It reaches them through
// NodeServices.queries (or ChainApp.queries), never through a module's own object or state.
import type { Chain } from '../native/index.js';
import type { BridgeModule } from '../modules/bridge/module.js';
import { BridgeQueries } from '../modules/bridge/queries.js';
import type { ComputeModule } from '../modules/compute/module.js';
import { ComputeQueries } from '../modules/compute/queries.js';
import type { GovernanceModule } from '../modules/governance/module.js';
import { GovernanceQueries } from '../modules/governance/queries.js';
import type { RentModule } from '../modules/rent/module.js';
import { RentQueries } from '../modules/rent/queries.js';
import type { StakingModule } from '../modules/staking/module.js';
import { StakingQueries } from '../modules/staking/queries.js';

export interface ModuleQueries {
  readonly staking: StakingQueries;
  readonly compute: ComputeQueries;
  readonly governance: GovernanceQueries;
  readonly bridge: BridgeQueries;
  readonly rent: RentQueries;
}

/**
 * Each module's queries over the module itself (they read its state as it is when asked), given
 * what they read of other modules (their keepers: staking's epochs).
 */
export function moduleQueries(
  chain: Chain,
  m: { staking: StakingModule; compute: ComputeModule; governance: GovernanceModule; bridge: BridgeModule; rent: RentModule },
): ModuleQueries {
  const staking = new StakingQueries(m.staking);
  const epochs = { epochOf: (height: number) => staking.epochOf(height) };
  return {
    staking,
    compute: new ComputeQueries(m.compute, chain, epochs),
    governance: new GovernanceQueries(m.governance, chain, epochs),
    bridge: new BridgeQueries(m.bridge),
    rent: new RentQueries(m.rent),
  };
}
