// The svc namespace: staking, network and node information, and the devnet faucet.
import type { MethodTable } from '../method.js';
import { faucetMethods } from './faucet.js';
import { networkMethods } from './network.js';
import { stakingMethods } from './staking.js';

export const svcMethods: MethodTable = { ...stakingMethods, ...networkMethods, ...faucetMethods };
