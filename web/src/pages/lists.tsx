// Full lists: blocks, mined transactions and tokens, a page at a time (?cursor= keeps the URL stable).
import type { Page } from '../api.js';
import { withQuery } from '../api.js';
import { AddressLink, Age, BlockLink, Count, Eth, Loading, Pager, Section, Table, TxLink } from '../components.js';
import { useApi } from '../hooks.js';
import type { BlockItem, Token, TxItem } from '../../../src/explorer/routes/shapes.js';

export function Blocks({ cursor }: { cursor: string | null }) {
  const page = useApi<Page<BlockItem>>(withQuery('/blocks', { limit: 25, cursor }));
  return (
    <Section title="Blocks">
      <Loading state={page}>
        {(p) => (
          <>
            <Table
              label="blocks"
              head={['Block', 'Age', 'Txs', 'Gas used', 'Base fee', 'Producer']}
              empty="No blocks."
              rows={p.items.map((b) => [<BlockLink number={b.number} />, <Age at={b.timestamp} />, b.transactionCount, <Count n={b.gasUsed} />, b.baseFeePerGas === null ? '—' : <Count n={b.baseFeePerGas} unit="wei" />, <AddressLink address={b.miner} />])}
            />
            <Pager base="/blocks" next={p.next} prev={p.prev} />
          </>
        )}
      </Loading>
    </Section>
  );
}

export function TxTable({ items, label }: { items: TxItem[]; label: string }) {
  return (
    <Table
      label={label}
      head={['Hash', 'Block', 'Age', 'From', 'To', 'Value', 'Fee', 'Status']}
      empty="No transactions."
      rows={items.map((t) => [
        <TxLink hash={t.hash} />,
        <BlockLink number={t.blockNumber} />,
        <Age at={t.timestamp} />,
        <AddressLink address={t.from} />,
        t.createdContract ? <span>created <AddressLink address={t.createdContract} /></span> : <AddressLink address={t.to} />,
        <Eth wei={t.value} />,
        <Eth wei={t.fee} />,
        t.status,
      ])}
    />
  );
}

export function Transactions({ cursor }: { cursor: string | null }) {
  const page = useApi<Page<TxItem>>(withQuery('/transactions', { limit: 25, cursor }));
  return (
    <Section title="Transactions">
      <Loading state={page}>
        {(p) => (
          <>
            <TxTable items={p.items} label="transactions" />
            <Pager base="/txs" next={p.next} prev={p.prev} />
          </>
        )}
      </Loading>
    </Section>
  );
}

export function Tokens({ cursor }: { cursor: string | null }) {
  const page = useApi<Page<Token>>(withQuery('/tokens', { limit: 25, cursor }));
  return (
    <Section title="Tokens">
      <Loading state={page}>
        {(p) => (
          <>
            <Table
              label="tokens"
              head={['Token', 'Type', 'Holders', 'Transfers', 'Address']}
              empty="No tokens seen yet."
              rows={p.items.map((t) => [<a href={`/token/${t.address}`}>{t.name ?? t.address} {t.symbol ? `(${t.symbol})` : ''}</a>, t.type, <Count n={t.holders} />, <Count n={t.transfers} />, <AddressLink address={t.address} />])}
            />
            <Pager base="/tokens" next={p.next} prev={p.prev} />
          </>
        )}
      </Loading>
    </Section>
  );
}
