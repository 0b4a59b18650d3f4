// The bridge to the external chain: its status and contract there, the deposits attested on svc and
// the withdrawals burned here (a page at a time), and one of each with the validators' attestations,
// signatures and the release the external contract made.
import type { Page } from '../api.js';
import { withQuery } from '../api.js';
import { AddressLink, BlockLink, Count, Eth, Facts, Loading, Pager, Section, Table } from '../components.js';
import { group } from '../format.js';
import { useApi } from '../hooks.js';
import type { BridgeDeposit, BridgeStatus, BridgeWithdrawal } from '../../../src/explorer/routes/bridge.js';

const ETH_TOKEN = /^0x0{40}$/;

/** A bridged amount: ETH (token 0x0…0) with its unit, another token in its smallest unit. */
function BridgedAmount({ token, amount }: { token: string | null; amount: string | null }) {
  if (amount === null || token === null) return <span class="muted">—</span>;
  if (ETH_TOKEN.test(token)) return <Eth wei={amount} />;
  return <span title={`${group(amount)} (smallest unit of ${token})`}>{group(amount)} units</span>;
}

/** The external token: ETH, or its address there (not an account on svc, so not linked). */
function ExternalToken({ token }: { token: string | null }) {
  if (token === null) return <span class="muted">—</span>;
  return ETH_TOKEN.test(token) ? <span>ETH</span> : <span class="mono" title={token}>{token}</span>;
}

function BridgeState({ status }: { status: string }) {
  return <span class={`badge ${status === 'minted' || status === 'released' ? 'good' : ''}`}>{status}</span>;
}

const atBlock = (n: number | null) => (n === null ? <span class="muted">—</span> : <BlockLink number={n} />);

export function Bridge({ depositsCursor, withdrawalsCursor }: { depositsCursor: string | null; withdrawalsCursor: string | null }) {
  const status = useApi<BridgeStatus>('/bridge');
  const deposits = useApi<Page<BridgeDeposit>>(withQuery('/bridge/deposits', { limit: 25, cursor: depositsCursor }));
  const withdrawals = useApi<Page<BridgeWithdrawal>>(withQuery('/bridge/withdrawals', { limit: 25, cursor: withdrawalsCursor }));
  const keep = (param: string, value: string | null) => withQuery('/bridge', { [param]: value });
  return (
    <>
      <h1>Bridge</h1>
      <Section title="Status">
        <Loading state={status}>
          {(s) => (
            <Facts
              rows={[
                ['State', <span class={`badge ${s.active ? 'good' : 'bad'}`}>{s.active ? 'active' : 'inactive'}</span>],
                ['External chain', s.externalChainId === null ? <span class="muted">none configured</span> : <span>chain id {s.externalChainId}</span>],
                ['Contract there', s.contract === null ? <span class="muted">—</span> : <span class="mono break">{s.contract}</span>],
                ['Confirmations waited', s.confirmations === null ? <span class="muted">—</span> : <Count n={s.confirmations} />],
                ['Validators', <Count n={s.validatorCount} />],
                ['Threshold', `${s.threshold / 100}% of power`],
                ['Deposits minted', <Count n={s.totalDeposits} />],
                ['Deposits pending', <Count n={s.pendingDeposits} />],
                ['Withdrawals released', <Count n={s.totalWithdrawals} />],
                ['Withdrawals pending', <Count n={s.pendingWithdrawals} />],
                ['ETH locked there', <Eth wei={s.totalValueLocked} />],
              ]}
            />
          )}
        </Loading>
      </Section>
      <Section title="Deposits">
        <Loading state={deposits}>
          {(p) => (
            <>
              <Table
                label="bridge deposits"
                head={['Nonce', 'Status', 'Token', 'Amount', 'Recipient', 'Minted at', 'Attestations']}
                empty="No deposits attested yet."
                rows={p.items.map((d) => [
                  <a href={`/bridge/deposits/${d.nonce}`}>#{d.nonce}</a>,
                  <BridgeState status={d.status} />,
                  <ExternalToken token={d.token} />,
                  <BridgedAmount token={d.token} amount={d.amount} />,
                  <AddressLink address={d.recipient} />,
                  atBlock(d.mintedAt),
                  <Count n={d.attestations.length} />,
                ])}
              />
              <Pager base={keep('withdrawals', withdrawalsCursor)} next={p.next} prev={p.prev} param="deposits" />
            </>
          )}
        </Loading>
      </Section>
      <Section title="Withdrawals">
        <Loading state={withdrawals}>
          {(p) => (
            <>
              <Table
                label="bridge withdrawals"
                head={['Id', 'Status', 'Token', 'Amount', 'From', 'To (external)', 'Burned at', 'Released at']}
                empty="No withdrawals yet."
                rows={p.items.map((w) => [
                  <a href={`/bridge/withdrawals/${w.id}`}>#{w.id}</a>,
                  <BridgeState status={w.status} />,
                  <ExternalToken token={w.token} />,
                  <BridgedAmount token={w.token} amount={w.amount} />,
                  <AddressLink address={w.from} />,
                  <span class="mono" title={w.recipient}>{w.recipient}</span>,
                  atBlock(w.burnedAt),
                  atBlock(w.releasedAt),
                ])}
              />
              <Pager base={keep('deposits', depositsCursor)} next={p.next} prev={p.prev} param="withdrawals" />
            </>
          )}
        </Loading>
      </Section>
    </>
  );
}

export function BridgeDepositPage({ nonce }: { nonce: string }) {
  const deposit = useApi<BridgeDeposit>(`/bridge/deposits/${encodeURIComponent(nonce)}`);
  return (
    <Loading state={deposit}>
      {(d) => (
        <>
          <h1>Bridge deposit #{d.nonce}</h1>
          <p>
            <a href="/bridge">Bridge</a>
          </p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Status', <BridgeState status={d.status} />],
                ['Token', <ExternalToken token={d.token} />],
                ['Amount', <BridgedAmount token={d.token} amount={d.amount} />],
                ['Sender (external)', d.sender === null ? <span class="muted">—</span> : <span class="mono break">{d.sender}</span>],
                ['Recipient', <AddressLink address={d.recipient} label={d.recipient ?? undefined} />],
                ['Minted at', atBlock(d.mintedAt)],
              ]}
            />
          </Section>
          <Section title={`Attestations (${d.attestations.length})`}>
            <p class="muted">Each content the validators attested for this nonce; the one holding more than the threshold of power is minted.</p>
            <Table
              label="attestations"
              head={['Content', 'Token', 'Amount', 'Sender', 'Recipient', 'Attesters']}
              empty="No attestations."
              rows={d.attestations.map((a) => [
                <span class="mono long">{a.content}</span>,
                <ExternalToken token={a.token} />,
                <BridgedAmount token={a.token} amount={a.amount} />,
                <span class="mono" title={a.sender}>{a.sender}</span>,
                <AddressLink address={a.recipient} />,
                <span>{a.attesters.map((x) => <AddressLink key={x} address={x} label={x} />)}</span>,
              ])}
            />
          </Section>
        </>
      )}
    </Loading>
  );
}

export function BridgeWithdrawalPage({ id }: { id: string }) {
  const withdrawal = useApi<BridgeWithdrawal>(`/bridge/withdrawals/${encodeURIComponent(id)}`);
  return (
    <Loading state={withdrawal}>
      {(w) => (
        <>
          <h1>Bridge withdrawal #{w.id}</h1>
          <p>
            <a href="/bridge">Bridge</a>
          </p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Status', <BridgeState status={w.status} />],
                ['Token', <ExternalToken token={w.token} />],
                ['Amount', <BridgedAmount token={w.token} amount={w.amount} />],
                ['From', <AddressLink address={w.from} label={w.from} />],
                ['To (external)', <span class="mono break">{w.recipient}</span>],
                ['Burned at', atBlock(w.burnedAt)],
                ['Signed enough at', atBlock(w.readyAt)],
                ['Release attested at', atBlock(w.releasedAt)],
                ['Digest', <span class="mono break">{w.digest}</span>],
              ]}
            />
          </Section>
          <Section title={`Signatures (${w.signatures.length})`}>
            {w.signatures.length === 0 ? (
              <p class="muted">No signatures yet.</p>
            ) : (
              <ul class="attesters" aria-label="signatures">
                {w.signatures.map((s) => (
                  <li key={s.validator}>
                    <AddressLink address={s.validator} label={s.validator} />
                    <div class="mono break" data-signature>{s.signature}</div>
                  </li>
                ))}
              </ul>
            )}
          </Section>
          <Section title={`Release on the external chain (${w.releaseAttesters.length} attester(s))`}>
            {w.releaseAttesters.length === 0 ? (
              <p class="muted">No validator has attested the release yet.</p>
            ) : (
              <ul class="attesters" aria-label="release attesters">
                {w.releaseAttesters.map((x) => (
                  <li key={x}>
                    <AddressLink address={x} label={x} />
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
