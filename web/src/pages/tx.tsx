// One transaction: status, value, fee, its logs (decoded with the ABI of a verified contract), its
// token transfers and its internal transactions (value moved by calls inside it, from its call trace).
import { useEffect, useState } from 'preact/hooks';
import { decodeEventLog, decodeFunctionData, type Abi, type Hex } from 'viem';
import { api } from '../api.js';
import { AddressLink, Age, BlockLink, Count, Eth, Facts, Gwei, Loading, Section, Status, Table, TokenAmount } from '../components.js';
import { utc } from '../format.js';
import { useApi } from '../hooks.js';
import type { AddressInfo } from '../../../src/explorer/routes/addresses.js';
import type { ContractsApi } from '../../../src/explorer/routes/contracts.js';
import type { InternalTx, Log, TokenTransfer } from '../../../src/explorer/routes/shapes.js';
import type { TxDetail as TxData } from '../../../src/explorer/routes/transactions.js';
import { ProposalMentions } from './governance.js';
import { UserOperationTable } from './user-operations.js';

/** The ABIs of the verified contracts among `addresses` (unverified ones are left out). */
function useVerifiedAbis(addresses: string[]): Map<string, Abi> {
  const [abis, setAbis] = useState(new Map<string, Abi>());
  const key = [...new Set(addresses.map((a) => a.toLowerCase()))].sort().join(',');
  useEffect(() => {
    let live = true;
    const found = new Map<string, Abi>();
    void Promise.all(
      (key ? key.split(',') : []).map(async (address) => {
        try {
          // An account without code has no contract record (404): ask the address first.
          const info = await api<AddressInfo>(`/addresses/${address}`);
          if (!info.isContract) return;
          const contract = await api<ContractsApi['getContract']['response']>(`/contracts/${address}`);
          // The route answers the ABI as solc writes it: viem decodes with it as its own Abi.
          if (contract.verified) found.set(address, (await api<ContractsApi['getContractAbi']['response']>(`/contracts/${address}/abi`)).abi as Abi);
        } catch {
          // Not a contract, or not verified: its logs stay raw.
        }
      }),
    ).then(() => live && setAbis(found));
    return () => {
      live = false;
    };
  }, [key]);
  return abis;
}

function show(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (value && typeof value === 'object') return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}

function DecodedArgs({ args }: { args: readonly unknown[] | Record<string, unknown> | undefined }) {
  if (!args) return null;
  const entries = Array.isArray(args) ? args.map((v, i) => [String(i), v] as const) : Object.entries(args);
  return (
    <ul class="args">
      {entries.map(([k, v]) => (
        <li key={k}>
          <span class="muted">{k}</span> <span class="mono break">{show(v)}</span>
        </li>
      ))}
    </ul>
  );
}

function LogEntry({ log, abi }: { log: Log; abi: Abi | undefined }) {
  let decoded: { eventName: string; args: unknown } | null = null;
  if (abi) {
    try {
      decoded = decodeEventLog({ abi, data: log.data as Hex, topics: log.topics as [Hex, ...Hex[]] }) as { eventName: string; args: unknown };
    } catch {
      decoded = null;
    }
  }
  return (
    <li class="log">
      <div>
        #{log.logIndex} <AddressLink address={log.address} label={log.address} />
      </div>
      {decoded ? (
        <div>
          <strong>{decoded.eventName}</strong> <span class="muted">(decoded with the verified ABI)</span>
          <DecodedArgs args={decoded.args as Record<string, unknown>} />
        </div>
      ) : (
        <div>
          <ol class="topics" start={0}>
            {log.topics.map((t) => <li key={t} class="mono break">{t}</li>)}
          </ol>
          <div class="mono break">data {log.data}</div>
        </div>
      )}
    </li>
  );
}

export function TransferTable({ items, label }: { items: TokenTransfer[]; label: string }) {
  return (
    <Table
      label={label}
      head={['Token', 'From', 'To', 'Amount', 'Tx', 'Block']}
      empty="No token transfers."
      rows={items.map((t) => [
        <a href={`/token/${t.token}`}>{t.tokenSymbol ?? t.tokenName ?? t.token}</a>,
        <AddressLink address={t.from} />,
        <AddressLink address={t.to} />,
        t.value === null ? `#${t.tokenId}` : <TokenAmount value={t.value} decimals={t.decimals} symbol={t.tokenSymbol} />,
        <a class="mono" href={`/tx/${t.transactionHash}`} title={t.transactionHash}>{t.transactionHash.slice(0, 10)}…</a>,
        <BlockLink number={t.blockNumber} />,
      ])}
    />
  );
}

/** The transaction's internal transactions, once the explorer has indexed them (mined transactions only). */
function InternalTxs({ hash }: { hash: string }) {
  const list = useApi<InternalTx[]>(`/transactions/${encodeURIComponent(hash)}/internal-transactions`);
  return (
    <Section title={`Internal transactions (${list.data?.length ?? 0})`}>
      <Loading state={list}>
        {(items) => (
          <Table
            label="internal transactions"
            head={['Type', 'From', 'To', 'Value', 'Result']}
            empty="No value moved inside this transaction."
            rows={items.map((t) => [
              <span title={`trace address [${t.traceAddress.join(', ')}]`}>{t.type}</span>,
              <AddressLink address={t.from} />,
              <AddressLink address={t.to} />,
              <Eth wei={t.value} />,
              t.success ? <Status status="success" /> : <span><Status status="failed" /> {t.error}</span>,
            ])}
          />
        )}
      </Loading>
    </Section>
  );
}

export function Tx({ hash }: { hash: string }) {
  const tx = useApi<TxData>(`/transactions/${encodeURIComponent(hash)}`);
  const logs = tx.data?.logs ?? [];
  const abis = useVerifiedAbis([...logs.map((l) => l.address), ...(tx.data?.to ? [tx.data.to] : [])]);
  return (
    <Loading state={tx}>
      {(t) => {
        const toAbi = t.to ? abis.get(t.to.toLowerCase()) : undefined;
        let call: { functionName: string; args: Record<string, unknown> } | null = null;
        if (toAbi && t.input !== '0x') {
          try {
            const decoded = decodeFunctionData({ abi: toAbi, data: t.input as Hex });
            const fn = toAbi.find((e) => e.type === 'function' && e.name === decoded.functionName);
            const names = fn && 'inputs' in fn ? fn.inputs.map((x, i) => x.name || String(i)) : [];
            call = { functionName: decoded.functionName, args: Object.fromEntries((decoded.args ?? []).map((v, i) => [names[i] ?? String(i), v])) };
          } catch {
            call = null;
          }
        }
        return (
          <>
            <h1>Transaction</h1>
            <p class="mono break">{t.hash}</p>
            <Section title="Overview">
              <Facts
                rows={[
                  ['Status', <span><Status status={t.status} />{t.revertReason ? ` ${t.revertReason}` : ''}</span>],
                  ['Block', t.blockNumber === null ? 'pending' : <span><BlockLink number={t.blockNumber} />{t.confirmations !== undefined ? ` (${t.confirmations} confirmations)` : ''}</span>],
                  ['Time', t.timestamp === undefined ? '—' : <span>{utc(t.timestamp)} (<Age at={t.timestamp} />)</span>],
                  ['From', <AddressLink address={t.from} label={t.from} />],
                  [t.createdContract ? 'Created' : 'To', <AddressLink address={t.createdContract ?? t.to} label={t.createdContract ?? t.to ?? undefined} />],
                  ['Value', <Eth wei={t.value} />],
                  ['Fee', t.fee === null ? '—' : <Eth wei={t.fee} />],
                  ['Gas price', t.gasPrice === undefined ? '—' : <Gwei wei={t.gasPrice} />],
                  ['Gas used', t.gasUsed === undefined || t.gasLimit === undefined ? '—' : <span><Count n={t.gasUsed} /> of <Count n={t.gasLimit} /></span>],
                  ['Nonce, type', `${t.nonce}, ${t.type}`],
                  ['Input', call ? <span><strong>{call.functionName}</strong><DecodedArgs args={call.args} /></span> : <span class="mono break">{t.input}</span>],
                ]}
              />
            </Section>
            {t.userOperations && t.userOperations.length > 0 ? (
              <Section title={`User operations (${t.userOperations.length})`}>
                <UserOperationTable items={t.userOperations} label="bundled user operations" />
              </Section>
            ) : null}
            <ProposalMentions logs={logs} />
            <Section title={`Token transfers (${t.tokenTransfers?.length ?? 0})`}>
              <TransferTable items={t.tokenTransfers ?? []} label="token transfers" />
            </Section>
            {t.blockNumber === null ? null : <InternalTxs hash={t.hash} />}
            <Section title={`Logs (${logs.length})`}>
              {logs.length === 0 ? <p class="muted">No logs.</p> : <ul class="logs">{logs.map((l) => <LogEntry key={l.logIndex} log={l} abi={abis.get(l.address.toLowerCase())} />)}</ul>}
            </Section>
          </>
        );
      }}
    </Loading>
  );
}
