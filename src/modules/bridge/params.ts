// The bridge's parameters (docs/bridge.md): its costs and limits (params.ts `bridge`: module gas,
// the largest bridged set, how far powers move before a new set is bridged, the default
// confirmations). None is governable: the external contract's digests and set size are fixed at
// its deployment, so a change would need the contract's own upgrade.
import { bridge as bridgeParams, type GovernableParam } from '../../params.js';

export { bridgeParams };

/** The bridge's parameters a proposal may change: none. */
export const bridgeGovernable: readonly GovernableParam[] = [];
