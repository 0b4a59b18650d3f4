// Gas Oracle: gas prices suggested from recent blocks.
import type { RouteDef, RouteModule } from '../definition.js';
import { gasOracleHandlers } from '../handlers/gas-oracle.js';

const definitions: RouteDef[] = [
  {
    id: 'getGasOracle',
    method: 'GET',
    path: '/gas-oracle',
    category: 'Gas Oracle',
    summary: "Safe, propose and fast gas prices by eth_gasPrice's rule at the 10th, 60th (propose: eth_gasPrice itself) and 90th percentiles of recent blocks' tips, with Etherscan's field names too.",
    auth: 'public',
    response: { type: 'object' },
  },  {
    id: 'getGasHistory',
    method: 'GET',
    path: '/gas-oracle/history',
    category: 'Gas Oracle',
    summary: 'Base fee, gas used ratio and tip percentiles of the last blocks (1..1024, default 20).',
    auth: 'public',
    params: [{ name: 'blocks', in: 'query', description: 'how many blocks (1..1024)', schema: { type: 'integer', minimum: 1, maximum: 1024, default: 20 } }],
    response: { type: 'array', items: { type: 'object' } },
  },];

export const gasOracleRoutes: RouteModule = { definitions, handlers: gasOracleHandlers };
