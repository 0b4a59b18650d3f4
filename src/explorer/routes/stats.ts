// Stats: chain-wide totals, throughput and supply.
import type { RouteDef, RouteModule } from '../definition.js';
import { statsHandlers } from '../handlers/stats.js';

const definitions: RouteDef[] = [
  {
    id: 'getStats',
    method: 'GET',
    path: '/stats',
    category: 'Stats',
    summary: 'Totals: blocks, transactions, addresses, tokens, validators, stake, supply, average block time, tps.',
    auth: 'public',
    response: { type: 'object' },
  },
  {
    id: 'getTps',
    method: 'GET',
    path: '/stats/tps',
    category: 'Stats',
    summary: 'Transactions per second over the last 100 blocks and over the last 24 hours of blocks.',
    auth: 'public',
    response: { type: 'object' },
  },
  {
    id: 'getSupply',
    method: 'GET',
    path: '/stats/supply',
    category: 'Stats',
    summary: 'Total supply (genesis + minted - burned), staked, held by the staking module and by the treasury.',
    auth: 'public',
    response: { type: 'object' },
  },



];

export const statsRoutes: RouteModule = { definitions, handlers: statsHandlers };
