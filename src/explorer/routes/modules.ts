// Network: the system modules' addresses and ABIs, for wallets (the web page's staking, voting and
// rent actions encode their transactions from this).
import { object, routes, type Api } from '../schema.js';

const inputSchema = object({ name: { type: 'string' }, type: { type: 'string', description: 'Solidity ABI type' } });

const functionSchema = object({
  name: { type: 'string' },
  signature: { type: 'string', description: 'canonical signature, e.g. delegate(address)' },
  selector: { type: 'string', description: '4-byte selector, 0x-prefixed hex' },
  stateMutability: { type: 'string', enum: ['pure', 'view', 'nonpayable', 'payable'] },
  inputs: { type: 'array', items: inputSchema },
});

export const systemModulesSchema = object({
  chainId: { type: 'integer' },
  voteOptions: { type: 'array', items: { type: 'string' }, description: 'governance vote options; option n (ABI uint8) is entry n - 1' },
  modules: { type: 'array', items: object({ name: { type: 'string' }, address: { type: 'string' }, functions: { type: 'array', items: functionSchema } }) },
});

export const systemModuleRouteDefs = routes([
  {
    id: 'getSystemModules',
    method: 'GET',
    path: '/network/modules',
    category: 'Network',
    summary: "Each system module's address and ABI functions with their selectors, the governance vote options by number, and the chain id.",
    auth: 'public',
    response: systemModulesSchema,
  },
]);

export type SystemModuleApi = Api<typeof systemModuleRouteDefs>;
