// Daily charts: one point per UTC day between `from` and `to` (at most 366 days).
import { routeModule, type Handlers, type RouteHandler } from '../definition.js';
import { BadRequestError } from '../envelope.js';
import type { DayStats } from '../indexer/records.js';
import { be } from '../store.js';
import { analyticsRouteDefs, CHARTS, type ChartId } from '../routes/analytics.js';

const DAY = 86_400;
const MAX_DAYS = 366;

/** How each chart's value of a day is read from the day's aggregates. */
const VALUES: Record<ChartId, (d: DayStats | undefined) => string> = {
  chartDailyTransactions: (d) => String(d?.transactions ?? 0),
  chartGasUsed: (d) => (d?.gasUsed ?? 0n).toString(),
  chartActiveAddresses: (d) => String(d?.activeAddresses ?? 0),
  chartNewAddresses: (d) => String(d?.newAddresses ?? 0),
  chartAverageGasPrice: (d) => (d && d.transactions > 0 ? (d.gasPriceSum / BigInt(d.transactions)).toString() : '0'),
  chartBlockTime: (d) => (d && d.blocks > 0 ? String(Math.round(d.blockTimeSumMs / d.blocks)) : '0'),
};

function dayOf(text: string, what: string): number {
  const t = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== text) throw new BadRequestError(`${what} is not a valid date: ${text}`);
  // Days are counted from the Unix epoch (and indexed as unsigned numbers): no chain has blocks before it.
  if (t < 0) throw new BadRequestError(`${what} is before 1970-01-01: ${text}`);
  return Math.floor(t / 1000 / DAY);
}

const dateOf = (day: number) => new Date(day * DAY * 1000).toISOString().slice(0, 10);

export const analyticsHandlers = Object.fromEntries(
  CHARTS.map((c) => [
    c.id,
    ((input, { node, indexes }) => {
      const to = input.query.to === undefined ? Math.floor(node.chain.head().timestamp / DAY) : dayOf(input.query.to, 'to');
      const from = input.query.from === undefined ? to - 29 : dayOf(input.query.from, 'from');
      if (from > to) throw new BadRequestError('from is after to');
      if (to - from + 1 > MAX_DAYS) throw new BadRequestError(`at most ${MAX_DAYS} days per request`);
      const byDay = new Map(indexes.days.scan(Buffer.alloc(0), from === 0 ? undefined : be(from - 1, 4), to - from + 1, false).map((e) => [e.value.day, e.value]));
      const points = [];
      for (let d = from; d <= to; d++) points.push({ date: dateOf(d), value: VALUES[c.id](byDay.get(d)) });
      return { chart: c.path, unit: c.unit, points };
    }) satisfies RouteHandler<(typeof analyticsRouteDefs)[number]>,
  ]),
) as Handlers<typeof analyticsRouteDefs>;

export const analyticsRoutes = routeModule(analyticsRouteDefs, analyticsHandlers);
