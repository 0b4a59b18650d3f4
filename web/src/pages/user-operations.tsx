// ERC-4337 user operations (after Blockscout's pages): the recent ones, one operation with its
// sender, paymaster, bundle transaction, result, actual gas cost and the logs of its execution, and
// the table the address and transaction pages show an account's or a bundle's operations with.
import { withQuery } from '../api.js';
import { AddressLink, Age, BlockLink, Count, Eth, Facts, Loading, Pager, Section, Table, TxLink } from '../components.js';
import { short, utc } from '../format.js';
import { useApi } from '../hooks.js';
import type { AddressApi } from '../../../src/explorer/routes/addresses.js';
import type { UserOperation as Operation } from '../../../src/explorer/routes/shapes.js';
import type { LocatedUserOperation, UserOperationApi } from '../../../src/explorer/routes/user-operations.js';

/** An operation of a list: located (with its bundle transaction and block), or one of a transaction's own. */
type UserOperationItem = Operation | LocatedUserOperation;

export function Result({ success }: { success: boolean }) {
  return <span class={`badge ${success ? 'good' : 'bad'}`}>{success ? 'success' : 'failed'}</span>;
}

export function UserOpLink({ hash }: { hash: string }) {
  return <a class="mono" href={`/user-operations/${hash}`} title={hash}>{short(hash, 8)}</a>;
}

/** User operations as a table; the bundle transaction's columns only where the items carry them. */
export function UserOperationTable({ items, label, empty = 'No user operations.' }: { items: UserOperationItem[]; label: string; empty?: string }) {
  const located = items.some((o) => 'transactionHash' in o);
  return (
    <Table
      label={label}
      head={['Operation', 'Sender', 'Paymaster', 'Result', 'Gas cost', ...(located ? ['Bundle transaction', 'Block'] : [])]}
      empty={empty}
      rows={items.map((o) => [
        <UserOpLink hash={o.userOpHash} />,
        <AddressLink address={o.sender} />,
        o.paymaster ? <AddressLink address={o.paymaster} /> : <span class="muted">none</span>,
        <Result success={o.success} />,
        <Eth wei={o.actualGasCost} />,
        ...(located ? ('transactionHash' in o ? [<TxLink hash={o.transactionHash} />, <BlockLink number={o.blockNumber} />] : ['—', '—']) : []),
      ])}
    />
  );
}

export function UserOperations({ cursor }: { cursor: string | null }) {
  const page = useApi<UserOperationApi['listUserOperations']['response']>(withQuery('/user-operations', { limit: 25, cursor }));
  return (
    <Section title="User operations">
      <Loading state={page}>
        {(p) => (
          <>
            <UserOperationTable items={p.items} label="user operations" empty="No user operations in the blocks the node looks back through." />
            <Pager base="/user-operations" next={p.next} prev={p.prev} />
          </>
        )}
      </Loading>
    </Section>
  );
}

/** An address's user operations (as the sender), for its page. */
export function AddressUserOperations({ address, cursor }: { address: string; cursor: string | null }) {
  const page = useApi<AddressApi['getAddressUserOperations']['response']>(withQuery(`/addresses/${address}/user-operations`, { limit: 25, cursor }));
  return (
    <Section title="User operations">
      <Loading state={page}>
        {(p) => (
          <>
            <UserOperationTable items={p.items} label="address user operations" empty="No user operations sent by this address." />
            <Pager base={`/address/${address}`} param="ops" next={p.next} prev={p.prev} />
          </>
        )}
      </Loading>
    </Section>
  );
}

export function UserOperation({ hash }: { hash: string }) {
  const op = useApi<UserOperationApi['getUserOperation']['response']>(`/user-operations/${encodeURIComponent(hash)}`);
  return (
    <Loading state={op}>
      {(o) => (
        <>
          <h1>User operation</h1>
          <p class="mono break">{o.userOpHash}</p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Result', <Result success={o.success} />],
                ['Sender', <AddressLink address={o.sender} label={o.sender} />],
                ['Paymaster', o.paymaster ? <AddressLink address={o.paymaster} label={o.paymaster} /> : 'none (the account paid)'],
                ['Nonce', <Count n={o.nonce} />],
                ['Actual gas cost', <Eth wei={o.actualGasCost} />],
                ['Actual gas used', <Count n={o.actualGasUsed} />],
                ['Bundle transaction', <TxLink hash={o.transactionHash} full />],
                ['Bundler', <AddressLink address={o.bundler} label={o.bundler} />],
                ['Block', <BlockLink number={o.blockNumber} />],
                ['Time', <span>{utc(o.timestamp)} (<Age at={o.timestamp} />)</span>],
                ['EntryPoint', <AddressLink address={o.entryPoint} label={o.entryPoint} />],
              ]}
            />
          </Section>
          <Section title={`Logs (${o.logs.length})`}>
            {o.logs.length === 0 ? (
              <p class="muted">Its execution emitted no logs.</p>
            ) : (
              <ul class="logs" aria-label="user operation logs">
                {o.logs.map((l) => (
                  <li key={l.logIndex} class="log">
                    <div>#{l.logIndex} <AddressLink address={l.address} label={l.address} /></div>
                    <ol class="topics" start={0}>
                      {l.topics.map((t, i) => <li key={i} class="mono break">{t}</li>)}
                    </ol>
                    <div class="mono break">data {l.data}</div>
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </>
      )}
    </Loading>
  );
}
