// The svc namespace: staking, network and node information, the devnet faucet, and compute (inference mining, pow).
import type { MethodTable } from '../method.js';
import { computeMethods } from './compute.js';
import { faucetMethods } from './faucet.js';
import { networkMethods } from './network.js';
import { stakingMethods } from './staking.js';

export const svcMethods: MethodTable = { ...stakingMethods, ...networkMethods, ...faucetMethods, ...computeMethods };
