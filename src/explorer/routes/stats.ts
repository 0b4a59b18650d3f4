// Stats: chain-wide totals, throughput and supply.
import { object, routes, type Api } from '../schema.js';

const wei = { type: 'string', description: 'wei, decimal' } as const;

export const statsRouteDefs = routes([
  {
    id: 'getStats',
    method: 'GET',
    path: '/stats',
    category: 'Stats',
    summary: 'Totals: blocks, transactions, addresses, tokens, validators, stake, supply, average block time, tps.',
    auth: 'public',
    response: object({
      blocks: { type: 'integer' },
      latestBlock: { type: 'integer' },
      transactions: { type: 'integer' },
      addresses: { type: 'integer' },
      tokens: { type: 'integer' },
      validators: { type: 'integer' },
      activeValidators: { type: 'integer' },
      totalStaked: wei,
      totalSupply: wei,
      averageBlockTimeMs: { type: 'number', description: 'over the last 100 blocks' },
      tps: { type: 'number', description: 'over the last 100 blocks' },
      indexedBlock: { type: 'integer' },
    }),
  },
  {
    id: 'getTps',
    method: 'GET',
    path: '/stats/tps',
    category: 'Stats',
    summary: 'Transactions per second over the last 100 blocks and over the last 24 hours of blocks.',
    auth: 'public',
    response: object({ last100Blocks: { type: 'number' }, last24Hours: { type: 'number' } }),
  },
  {
    id: 'getSupply',
    method: 'GET',
    path: '/stats/supply',
    category: 'Stats',
    summary: 'Total supply (genesis + minted - burned), staked, held by the staking module and by the treasury.',
    auth: 'public',
    response: object({
      totalSupply: wei,
      staked: wei,
      unbonding: wei,
      stakingModuleBalance: wei,
      treasuryBalance: wei,
      burnedBySlashing: wei,
    }),
  },



]);

export type StatsApi = Api<typeof statsRouteDefs>;
