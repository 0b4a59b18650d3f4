// Network: the system modules' addresses and ABIs, for wallets (the web page's staking, voting and
// rent actions encode their transactions from this).
import type { RouteDef, RouteModule } from '../definition.js';
import { moduleHandlers, systemModulesSchema } from '../handlers/modules.js';

const definitions: RouteDef[] = [
  {
    id: 'getSystemModules',
    method: 'GET',
    path: '/network/modules',
    category: 'Network',
    summary: "Each system module's address and ABI functions with their selectors, the governance vote options by number, and the chain id.",
    auth: 'public',
    response: systemModulesSchema,
  },
];

export const systemModuleRoutes: RouteModule = { definitions, handlers: moduleHandlers };
