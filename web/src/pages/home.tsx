// Home: network totals, the latest blocks and transactions (live from the feed), and the daily charts.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Page } from '../api.js';
import { AddressLink, Age, BarChart, BlockLink, Count, Eth, Facts, Loading, Section, Table, TxLink } from '../components.js';
import { count } from '../format.js';
import { useApi } from '../hooks.js';
import { useRoom } from '../live.js';
import type { Chart } from '../../../src/explorer/routes/analytics.js';
import type { BlockItem, TxItem } from '../../../src/explorer/routes/shapes.js';
import type { StatsApi } from '../../../src/explorer/routes/stats.js';

const LATEST = 10;

type Stats = StatsApi['getStats']['response'];

/** A list loaded once, then kept current by a live-feed room (newest first, LATEST long). */
function useLiveList<T>(path: string, room: string, event: string, key: (t: T) => string) {
  const loaded = useApi<Page<T>>(path);
  const [items, setItems] = useState<T[] | undefined>(undefined);
  useEffect(() => {
    if (loaded.data) setItems(loaded.data.items);
  }, [loaded.data]);
  useRoom<T>(room, event, (item) => setItems((old) => (old ? [item, ...old.filter((o) => key(o) !== key(item))].slice(0, LATEST) : old)));
  return { ...loaded, data: items };
}

/** Stats are read again after new blocks, at most every STATS_EVERY_MS (blocks may come every 200 ms). */
const STATS_EVERY_MS = 2000;

export function Home() {
  const [statsVersion, setStatsVersion] = useState(0);
  const statsReadAt = useRef(Date.now());
  useRoom('blocks:new_block', 'new_block', () => {
    if (Date.now() - statsReadAt.current < STATS_EVERY_MS) return;
    statsReadAt.current = Date.now();
    setStatsVersion((v) => v + 1);
  });
  const stats = useApi<Stats>('/stats', statsVersion);
  const tps = useApi<StatsApi['getTps']['response']>('/stats/tps', statsVersion);
  const blocks = useLiveList<BlockItem>(`/blocks?limit=${LATEST}`, 'blocks:new_block', 'new_block', (b) => String(b.number));
  const txs = useLiveList<TxItem>(`/transactions?limit=${LATEST}`, 'transactions:new_transaction', 'new_transaction', (t) => t.hash);
  const head = blocks.data?.[0]?.number;
  return (
    <>
      <h1>svc network</h1>
      <Section title="Network">
        <Loading state={stats}>
          {(s) => (
            <Facts
              rows={[
                ['Latest block', head !== undefined ? <BlockLink number={Math.max(head, s.latestBlock)} /> : <BlockLink number={s.latestBlock} />],
                ['Transactions', <Count n={s.transactions} />],
                ['Addresses', <Count n={s.addresses} />],
                ['Tokens', <a href="/tokens">{count(s.tokens)}</a>],
                ['Validators', <a href="/validators">{`${s.activeValidators} active of ${s.validators}`}</a>],
                ['Total staked', <Eth wei={s.totalStaked} />],
                ['Total supply', <Eth wei={s.totalSupply} />],
                ['Average block time', <span title={`${s.averageBlockTimeMs} ms`}>{(s.averageBlockTimeMs / 1000).toFixed(2)} s</span>],
                ['TPS (last 100 blocks)', tps.data ? <span title={String(tps.data.last100Blocks)}>{tps.data.last100Blocks.toFixed(3)}</span> : '…'],
                ['TPS (last 24 h)', tps.data ? <span title={String(tps.data.last24Hours)}>{tps.data.last24Hours.toFixed(3)}</span> : '…'],
              ]}
            />
          )}
        </Loading>
      </Section>
      <div class="columns">
        <Section title="Latest blocks" id="latest-blocks">
          <Loading state={blocks}>
            {(items) => (
              <Table
                label="latest blocks"
                head={['Block', 'Age', 'Txs', 'Gas used', 'Producer']}
                empty="No blocks yet."
                rows={items.map((b) => [<BlockLink number={b.number} />, <Age at={b.timestamp} />, b.transactionCount, <Count n={b.gasUsed} />, <AddressLink address={b.miner} />])}
              />
            )}
          </Loading>
          <p><a href="/blocks">All blocks →</a></p>
        </Section>
        <Section title="Latest transactions" id="latest-transactions">
          <Loading state={txs}>
            {(items) => (
              <Table
                label="latest transactions"
                head={['Hash', 'Block', 'From', 'To', 'Value']}
                empty="No transactions yet."
                rows={items.map((t) => [<TxLink hash={t.hash} />, <BlockLink number={t.blockNumber} />, <AddressLink address={t.from} />, <AddressLink address={t.to ?? t.createdContract} />, <Eth wei={t.value} />])}
              />
            )}
          </Loading>
          <p><a href="/txs">All transactions →</a></p>
        </Section>
      </div>
      <Charts />
    </>
  );
}

function Charts() {
  const daily = useApi<Chart>('/analytics/daily-transactions');
  const blockTime = useApi<Chart>('/analytics/block-time');
  const gas = useApi<Chart>('/analytics/gas-used');
  const points = (c: Chart, scale = 1) => c.points.map((p) => ({ label: p.date, value: Number(p.value) / scale }));
  return (
    <Section title="Charts (per day, UTC)">
      <div class="charts">
        <Loading state={daily}>{(c) => <BarChart label="Average TPS" points={points(c, 86400)} format={(v) => `${v === 0 ? '0' : v.toPrecision(3)} tx/s`} />}</Loading>
        <Loading state={blockTime}>{(c) => <BarChart label="Average block time" points={points(c)} format={(v) => `${count(Math.round(v))} ms`} />}</Loading>
        <Loading state={gas}>{(c) => <BarChart label="Gas used" points={points(c)} format={(v) => `${count(Math.round(v))} gas`} />}</Loading>
      </div>
    </Section>
  );
}
