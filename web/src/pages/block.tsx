// One block: its header facts and its transactions (the first 100 come with the block).
import { AddressLink, Age, Count, Eth, Facts, Loading, Section } from '../components.js';
import { utc } from '../format.js';
import { useApi } from '../hooks.js';
import type { BlockWithTransactions as BlockData } from '../../../src/explorer/routes/blocks.js';
import { TxTable } from './lists.js';

export function Block({ id }: { id: string }) {
  const block = useApi<BlockData>(`/blocks/${encodeURIComponent(id)}`);
  return (
    <Loading state={block}>
      {(b) => (
        <>
          <h1>Block {b.number}</h1>
          <nav class="pager" aria-label="neighbouring blocks">
            {b.number > 0 ? <a href={`/block/${b.number - 1}`} rel="prev">← Block {b.number - 1}</a> : <span />}
            <a href={`/block/${b.number + 1}`} rel="next">Block {b.number + 1} →</a>
          </nav>
          <Section title="Overview">
            <Facts
              rows={[
                ['Hash', <span class="mono break">{b.hash}</span>],
                ['Parent', b.number > 0 ? <a class="mono break" href={`/block/${b.parentHash}`}>{b.parentHash}</a> : <span class="mono break">{b.parentHash}</span>],
                ['Time', <span>{utc(b.timestamp)} (<Age at={b.timestamp} />)</span>],
                ['Producer', <AddressLink address={b.miner} label={b.miner} />],
                ['Transactions', <Count n={b.transactionCount} />],
                ['Gas used', <span><Count n={b.gasUsed} /> of <Count n={b.gasLimit} /></span>],
                ['Base fee', b.baseFeePerGas === null ? '—' : <Count n={b.baseFeePerGas} unit="wei" />],
                ['Burnt fees', <Eth wei={b.burntFees} />],
                ['Size', <Count n={b.size} unit="bytes" />],
                ['State root', <span class="mono break">{b.stateRoot}</span>],
                ['Extra data', <span class="mono break">{b.extraData}</span>],
              ]}
            />
          </Section>
          <Section title="Transactions">
            <TxTable items={b.transactions} label="block transactions" />
            {b.transactionCount > b.transactions.length ? <p class="muted">The first {b.transactions.length} of {b.transactionCount} are shown.</p> : null}
          </Section>
        </>
      )}
    </Loading>
  );
}
