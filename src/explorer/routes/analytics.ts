// Analytics: daily charts from the indexer's per-day aggregates, between two dates (UTC).
import type { ParamDef, RouteDef, RouteModule } from '../definition.js';
import { analyticsHandlers, CHARTS } from '../handlers/analytics.js';

const range: ParamDef[] = [
  { name: 'from', in: 'query', description: 'first day, YYYY-MM-DD (default: 30 days before `to`)', schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' } },
  { name: 'to', in: 'query', description: 'last day, YYYY-MM-DD (default: the latest block\'s day)', schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' } },
];

const chart = {
  type: 'object',
  properties: {
    chart: { type: 'string' },
    unit: { type: 'string' },
    points: { type: 'array', items: { type: 'object', properties: { date: { type: 'string' }, value: { type: 'string' } } } },
  },
};

const definitions: RouteDef[] = CHARTS.map((c) => ({
  id: c.id,
  method: 'GET' as const,
  path: `/analytics/${c.path}`,
  category: 'Analytics' as const,
  summary: `${c.title} per day (${c.unit}), days without blocks included as 0.`,
  auth: 'public' as const,
  params: range,
  response: chart,
}));

export const analyticsRoutes: RouteModule = { definitions, handlers: analyticsHandlers };
