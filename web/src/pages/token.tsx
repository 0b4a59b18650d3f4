// One token: its facts, holders by balance (paged) and latest transfers.
import { withQuery, type Page } from '../api.js';
import { AddressLink, Count, Facts, Loading, Pager, Section, Table, TokenAmount } from '../components.js';
import { useApi } from '../hooks.js';
import type { Token as TokenData, TokenTransfer } from '../../../src/explorer/routes/shapes.js';
import type { TokenApi } from '../../../src/explorer/routes/tokens.js';
import { TransferTable } from './tx.js';

export function Token({ address, cursor }: { address: string; cursor: string | null }) {
  const token = useApi<TokenData>(`/tokens/${address}`);
  const holders = useApi<TokenApi['getTokenHolders']['response']>(withQuery(`/tokens/${address}/holders`, { limit: 25, cursor }));
  const transfers = useApi<Page<TokenTransfer>>(`/tokens/${address}/transfers?limit=25`);
  return (
    <Loading state={token}>
      {(t) => (
        <>
          <h1>{t.name ?? 'Token'} {t.symbol ? <span class="muted">({t.symbol})</span> : null}</h1>
          <p class="mono break">{t.address}</p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Type', t.type],
                ['Decimals', t.decimals ?? '—'],
                ['Holders', <Count n={t.holders} />],
                ['Transfers', <Count n={t.transfers} />],
                ['Contract', <a href={`/contract/${t.address}`}>Source and ABI</a>],
                ['First seen in block', <a href={`/block/${t.firstBlock}`}>{t.firstBlock}</a>],
              ]}
            />
          </Section>
          <Section title="Holders">
            <Loading state={holders}>
              {(p) => (
                <>
                  <Table
                    label="holders"
                    head={['Holder', 'Balance']}
                    empty="No holders."
                    rows={p.items.map((h) => [<AddressLink address={h.address} label={h.address} />, <TokenAmount value={h.balance} decimals={t.type === 'ERC-20' ? t.decimals : null} symbol={t.symbol} />])}
                  />
                  <Pager base={`/token/${t.address}`} next={p.next} prev={p.prev} />
                </>
              )}
            </Loading>
          </Section>
          <Section title="Latest transfers">
            <Loading state={transfers}>{(p) => <TransferTable items={p.items} label="token transfers" />}</Loading>
          </Section>
        </>
      )}
    </Loading>
  );
}
