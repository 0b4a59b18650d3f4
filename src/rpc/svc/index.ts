// The svc namespace: staking, network and node information, the devnet faucet, compute (inference mining, pow), governance and the treasury.
import type { MethodTable } from '../method.js';
import { computeMethods } from './compute.js';
import { faucetMethods } from './faucet.js';
import { governanceMethods } from './governance.js';
import { bridgeMethods } from './bridge.js';
import { rentMethods } from './rent.js';
import { networkMethods } from './network.js';
import { stakingMethods } from './staking.js';

export const svcMethods: MethodTable = { ...stakingMethods, ...networkMethods, ...faucetMethods, ...computeMethods, ...governanceMethods, ...bridgeMethods, ...rentMethods };
