// Analytics: daily charts from the indexer's per-day aggregates, between two dates (UTC).
import { object, routes, type Api, type FromSchema } from '../schema.js';

/** The charts: route id, path under /analytics, what is counted and its unit (handlers/analytics.ts computes each). */
export const CHARTS = [
  { id: 'chartDailyTransactions', path: 'daily-transactions', title: 'Transactions', unit: 'transactions' },
  { id: 'chartGasUsed', path: 'gas-used', title: 'Gas used', unit: 'gas' },
  { id: 'chartActiveAddresses', path: 'active-addresses', title: 'Addresses that sent, received or created', unit: 'addresses' },
  { id: 'chartNewAddresses', path: 'new-addresses', title: 'Addresses seen for the first time', unit: 'addresses' },
  { id: 'chartAverageGasPrice', path: 'average-gas-price', title: 'Average effective gas price', unit: 'wei' },
  { id: 'chartBlockTime', path: 'block-time', title: 'Average time between blocks', unit: 'milliseconds' },
] as const;
export type ChartId = (typeof CHARTS)[number]['id'];

const day = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' } as const;
const range = [
  { name: 'from', in: 'query', description: 'first day, YYYY-MM-DD (default: 30 days before `to`)', schema: day },
  { name: 'to', in: 'query', description: "last day, YYYY-MM-DD (default: the latest block's day)", schema: day },
] as const;

export const chartSchema = object({
  chart: { type: 'string' },
  unit: { type: 'string' },
  points: { type: 'array', items: object({ date: { type: 'string', description: 'YYYY-MM-DD' }, value: { type: 'string', description: 'decimal' } }) },
});
export type Chart = FromSchema<typeof chartSchema>;

export const analyticsRouteDefs = routes(
  CHARTS.map((c) => ({
    id: c.id,
    method: 'GET',
    path: `/analytics/${c.path}`,
    category: 'Analytics',
    summary: `${c.title} per day (${c.unit}), days without blocks included as 0.`,
    auth: 'public',
    params: range,
    response: chartSchema,
  }) as const),
);

export type AnalyticsApi = Api<typeof analyticsRouteDefs>;
