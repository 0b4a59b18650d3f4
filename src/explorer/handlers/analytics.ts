// Daily charts: one point per UTC day between `from` and `to` (at most 366 days).
import type { Handler } from '../definition.js';
import { BadRequestError } from '../envelope.js';
import type { DayStats } from '../indexer/records.js';
import { be } from '../store.js';

const DAY = 86_400;
const MAX_DAYS = 366;

export interface ChartDef {
  id: string;
  path: string;
  title: string;
  unit: string;
  value: (d: DayStats | undefined) => string;
}

export const CHARTS: ChartDef[] = [
  { id: 'chartDailyTransactions', path: 'daily-transactions', title: 'Transactions', unit: 'transactions', value: (d) => String(d?.transactions ?? 0) },
  { id: 'chartGasUsed', path: 'gas-used', title: 'Gas used', unit: 'gas', value: (d) => (d?.gasUsed ?? 0n).toString() },
  { id: 'chartActiveAddresses', path: 'active-addresses', title: 'Addresses that sent, received or created', unit: 'addresses', value: (d) => String(d?.activeAddresses ?? 0) },
  { id: 'chartNewAddresses', path: 'new-addresses', title: 'Addresses seen for the first time', unit: 'addresses', value: (d) => String(d?.newAddresses ?? 0) },
  {
    id: 'chartAverageGasPrice',
    path: 'average-gas-price',
    title: 'Average effective gas price',
    unit: 'wei',
    value: (d) => (d && d.transactions > 0 ? (d.gasPriceSum / BigInt(d.transactions)).toString() : '0'),
  },
  {
    id: 'chartBlockTime',
    path: 'block-time',
    title: 'Average time between blocks',
    unit: 'milliseconds',
    value: (d) => (d && d.blocks > 0 ? String(Math.round(d.blockTimeSumMs / d.blocks)) : '0'),
  },
];

function dayOf(text: string, what: string): number {
  const t = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== text) throw new BadRequestError(`${what} is not a valid date: ${text}`);
  // Days are counted from the Unix epoch (and indexed as unsigned numbers): no chain has blocks before it.
  if (t < 0) throw new BadRequestError(`${what} is before 1970-01-01: ${text}`);
  return Math.floor(t / 1000 / DAY);
}

const dateOf = (day: number) => new Date(day * DAY * 1000).toISOString().slice(0, 10);

export const analyticsHandlers: Record<string, Handler> = Object.fromEntries(
  CHARTS.map((c) => [
    c.id,
    ((input, { node, indexes }) => {
      const to = input.query.to === undefined ? Math.floor(node.chain.head().timestamp / DAY) : dayOf(input.query.to as string, 'to');
      const from = input.query.from === undefined ? to - 29 : dayOf(input.query.from as string, 'from');
      if (from > to) throw new BadRequestError('from is after to');
      if (to - from + 1 > MAX_DAYS) throw new BadRequestError(`at most ${MAX_DAYS} days per request`);
      const byDay = new Map(indexes.days.scan(Buffer.alloc(0), from === 0 ? undefined : be(from - 1, 4), to - from + 1, false).map((e) => [e.value.day, e.value]));
      const points = [];
      for (let d = from; d <= to; d++) points.push({ date: dateOf(d), value: c.value(byDay.get(d)) });
      return { chart: c.path, unit: c.unit, points };
    }) satisfies Handler,
  ]),
);
