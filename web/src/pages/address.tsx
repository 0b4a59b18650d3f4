// One address: balance, counters, token balances, its transactions a page at a time, its token
// transfers, and a button to watch it when signed in.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, signedIn, withQuery, type Page } from '../api.js';
import { AddressLink, BlockLink, Count, Eth, Facts, Loading, Pager, Section, Table, TokenAmount } from '../components.js';
import { useApi } from '../hooks.js';
import type { AddressApi, AddressCounters as Counters, AddressInfo, AddressTx as TxItem } from '../../../src/explorer/routes/addresses.js';
import type { TokenTransfer } from '../../../src/explorer/routes/shapes.js';
import { RentActions } from '../wallet/actions.js';
import { TxTable } from './lists.js';
import { TransferTable } from './tx.js';
import { AddressUserOperations } from './user-operations.js';

/** The rent facts of /addresses/{address} (svc_getAccountRentInfo's fields, docs/rent.md). */
type Rent = AddressInfo['rent'];

/** The account's storage rent: deposit, slots, rent owed, dormancy, and how to reactivate or pay. */
function RentSection({ address, rent }: { address: string; rent: Rent }) {
  const toReactivate = (BigInt(rent.reactivationFee) + BigInt(rent.rentOwed)).toString();
  return (
    <Section title="Storage rent" id="rent">
      <Facts
        rows={[
          ['State', rent.exempt ? <span class="badge good">exempt</span> : rent.isDormant ? <span class="badge bad">dormant</span> : <span class="badge good">active</span>],
          ['Storage deposit', <Eth wei={rent.storageDeposit} />],
          ['Storage slots', <Count n={rent.storageSlotCount} />],
          ['Rent owed', <Eth wei={rent.rentOwed} />],
          ['Last active epoch', <Count n={rent.lastActiveEpoch} />],
          ['Current epoch', <Count n={rent.currentEpoch} />],
          ['Reactivation fee', <Eth wei={rent.reactivationFee} />],
        ]}
      />
      {rent.isDormant ? (
        <p data-reactivate>
          Dormant: transactions and calls to it are refused; its storage and balance are kept. Anyone can bring it back by calling <span class="mono">reactivate({address})</span> on the rent module{' '}
          <AddressLink address={rent.module} label={rent.module} /> with at least the reactivation fee plus the rent owed: <Eth wei={toReactivate} /> now (the rent owed grows each epoch).
        </p>
      ) : rent.exempt ? null : (
        <p class="muted">
          Rent owed is paid with <span class="mono">payRent({address})</span> on the rent module <AddressLink address={rent.module} />, from any account.
        </p>
      )}
      {rent.exempt ? null : <RentActions address={address} dormant={rent.isDormant} />}
    </Section>
  );
}

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

export function Address({ address, cursor, opsCursor = null }: { address: string; cursor: string | null; opsCursor?: string | null }) {
  const info = useApi<AddressInfo>(`/addresses/${address}`);
  const counters = useApi<Counters>(`/addresses/${address}/counters`);
  const balances = useApi<AddressApi['getAddressTokenBalances']['response']>(`/addresses/${address}/token-balances`);
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
      {info.data?.rent ? <RentSection address={info.data.address} rent={info.data.rent} /> : null}
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
              rows={list.map((b) => {
                // A token the index has no record of is answered as its address alone.
                const t = 'type' in b.token ? b.token : null;
                return [<a href={`/token/${b.token.address}`}>{t?.name ?? b.token.address}</a>, t?.type ?? '—', <TokenAmount value={b.balance} decimals={t?.type === 'ERC-20' ? t.decimals : null} symbol={t?.symbol ?? null} />];
              })}
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
      <AddressUserOperations address={address} cursor={opsCursor} />
      <Section title="Token transfers (latest 25)">
        <Loading state={transfers}>{(p) => <TransferTable items={p.items} label="address token transfers" />}</Loading>
      </Section>
    </>
  );
}
