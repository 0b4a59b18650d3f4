// One address: balance, counters, token balances, its transactions a page at a time, its token
// transfers, and a button to watch it when signed in.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, signedIn, withQuery, type Page } from '../api.js';
import { AddressLink, BlockLink, Count, Eth, Facts, Loading, Pager, Section, Table, TokenAmount } from '../components.js';
import { useApi } from '../hooks.js';
import type { AddressInfo, Counters, Token, TokenTransfer, TxItem } from '../types.js';
import { TxTable } from './lists.js';
import { TransferTable } from './tx.js';

function WatchButton({ address }: { address: string }) {
  const [state, setState] = useState<string | null>(null);
  if (!signedIn()) return <p class="muted"><a href="/account">Sign in</a> to watch this address.</p>;
  const watch = async () => {
    try {
      await api('/watchlist', { method: 'POST', body: { address } });
      setState('Added to your watchlist.');
    } catch (err) {
      setState((err as Error).message);
    }
  };
  return (
    <p>
      <button type="button" onClick={watch}>Add to watchlist</button> <span role="status">{state}</span>
    </p>
  );
}

export function Address({ address, cursor }: { address: string; cursor: string | null }) {
  const info = useApi<AddressInfo>(`/addresses/${address}`);
  const counters = useApi<Counters>(`/addresses/${address}/counters`);
  const balances = useApi<{ token: Token; balance: string }[]>(`/addresses/${address}/token-balances`);
  const txs = useApi<Page<TxItem>>(withQuery(`/addresses/${address}/transactions`, { limit: 25, cursor }));
  const transfers = useApi<Page<TokenTransfer>>(`/addresses/${address}/token-transfers?limit=25`);
  return (
    <>
      <h1>{info.data?.isContract ? 'Contract' : 'Address'}</h1>
      <p class="mono break">{address}</p>
      <Section title="Overview">
        <Loading state={info}>
          {(a) => (
            <>
              <Facts
                rows={[
                  ['Balance', <Eth wei={a.balance} />],
                  ['Nonce', <Count n={a.nonce} />],
                  ...(a.isContract
                    ? ([
                        ['Contract', <a href={`/contract/${a.address}`}>Code, source and ABI ({a.codeSize} bytes)</a>],
                        ['Creator', <AddressLink address={a.creator} />],
                        ['Created by', a.creationTransaction ? <a class="mono" href={`/tx/${a.creationTransaction}`}>{a.creationTransaction.slice(0, 18)}…</a> : '—'],
                      ] as [string, ComponentChildren][])
                    : []),
                  ...(a.token ? ([['Token', <a href={`/token/${a.address}`}>{a.token.name} ({a.token.symbol}), {a.token.type}</a>]] as [string, ComponentChildren][]) : []),
                  ...(a.validator ? ([['Validator', <a href={`/validator/${a.address}`}>{a.validator.moniker} ({a.validator.status}), stake <Eth wei={a.validator.stake} /></a>]] as [string, ComponentChildren][]) : []),
                ]}
              />
              <WatchButton address={a.address} />
            </>
          )}
        </Loading>
      </Section>
      <Section title="Counters">
        <Loading state={counters}>
          {(c) => (
            <Facts
              rows={[
                ['Transactions', <Count n={c.transactions} />],
                ['Token transfers', <Count n={c.tokenTransfers} />],
                ['Blocks produced', <Count n={c.blocksProduced} />],
                ['First active', c.firstBlock === null ? '—' : <BlockLink number={c.firstBlock} />],
                ['Last active', c.lastBlock === null ? '—' : <BlockLink number={c.lastBlock} />],
              ]}
            />
          )}
        </Loading>
      </Section>
      <Section title="Token balances">
        <Loading state={balances}>
          {(list) => (
            <Table
              label="token balances"
              head={['Token', 'Type', 'Balance']}
              empty="No tokens."
              rows={list.map((b) => [<a href={`/token/${b.token.address}`}>{b.token.name ?? b.token.address}</a>, b.token.type, <TokenAmount value={b.balance} decimals={b.token.type === 'ERC-20' ? b.token.decimals : null} symbol={b.token.symbol} />])}
            />
          )}
        </Loading>
      </Section>
      <Section title="Transactions">
        <Loading state={txs}>
          {(p) => (
            <>
              <TxTable items={p.items} label="address transactions" />
              <Pager base={`/address/${address}`} next={p.next} prev={p.prev} />
            </>
          )}
        </Loading>
      </Section>
      <Section title="Token transfers (latest 25)">
        <Loading state={transfers}>{(p) => <TransferTable items={p.items} label="address token transfers" />}</Loading>
      </Section>
    </>
  );
}
