// Governance: the proposals (kind, status, deposit, end of the vote), one proposal with its tally by
// stake drawn against the quorum, threshold and veto lines, its votes and deposits and what it did
// when it passed; and the treasury with its inflows, outflows and the spends still being paid.
import type { ComponentChildren } from 'preact';
import type { Page } from '../api.js';
import { withQuery } from '../api.js';
import { AddressLink, BlockLink, Count, Eth, Facts, Loading, Pager, Section, Table } from '../components.js';
import { eth, utc } from '../format.js';
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../hooks.js';
import type { GovernanceParams, Proposal, ProposalDeposit, ProposalVote, Treasury as TreasuryData } from '../../../src/explorer/routes/governance.js';
import type { Log } from '../../../src/explorer/routes/shapes.js';
import { ProposalActions } from '../wallet/actions.js';
import { systemModules } from '../wallet/wallet.js';

const GOOD = new Set(['passed', 'voting-period', 'applied']);
const BAD = new Set(['rejected', 'vetoed', 'no-quorum', 'expired', 'failed']);

/** A status as a badge: passed and open votes in the good colour, the ends that did nothing in the bad one. */
export function ProposalStatus({ status }: { status: string }) {
  return <span class={`badge ${GOOD.has(status) ? 'good' : BAD.has(status) ? 'bad' : ''}`}>{status}</span>;
}

export function ProposalLink({ id, title }: { id: number; title?: string }) {
  return <a href={`/governance/proposals/${id}`}>{title === undefined ? `#${id}` : `#${id} ${title}`}</a>;
}

/** A governable parameter's value in its unit: wei as ETH (exact in the title), the rest as a count and unit. */
function ParamValue({ value, unit }: { value: string | null; unit: string | null }) {
  if (value === null) return <span class="muted">—</span>;
  if (unit === 'wei') return <Eth wei={value} />;
  return <Count n={value} unit={unit ?? undefined} />;
}

const time = (t: number | null) => (t === null ? <span class="muted">—</span> : <time dateTime={new Date(t * 1000).toISOString()}>{utc(t)}</time>);

export function Governance({ cursor }: { cursor: string | null }) {
  const page = useApi<Page<Proposal>>(withQuery('/governance/proposals', { limit: 25, cursor }));
  return (
    <>
      <h1>Governance</h1>
      <p>
        <a href="/treasury">Treasury</a> · <a href="/api/v1/governance/params">Governable parameters (JSON)</a>
      </p>
      <Section title="Proposals">
        <Loading state={page}>
          {(p) => (
            <>
              <Table
                label="proposals"
                head={['Proposal', 'Kind', 'Status', 'Deposit', 'Voting ends']}
                empty="No proposals yet."
                rows={p.items.map((x) => [
                  <ProposalLink id={x.id} title={x.title} />,
                  x.kind,
                  <ProposalStatus status={x.status} />,
                  <span>
                    <Eth wei={x.totalDeposit} /> <span class="muted">of <Eth wei={x.minDeposit} /></span>
                  </span>,
                  time(x.votingEndTime),
                ])}
              />
              <Pager base="/governance" next={p.next} prev={p.prev} />
            </>
          )}
        </Loading>
      </Section>
    </>
  );
}

/** `part` of `whole` as a fraction 0..1 (0 when whole is 0). */
function fraction(part: string, whole: string | null): number {
  const w = whole === null ? 0n : BigInt(whole);
  return w === 0n ? 0 : Number((BigInt(part) * 1_000_000n) / w) / 1_000_000;
}

const OPTIONS = [
  ['yes', 'Yes'],
  ['abstain', 'Abstain'],
  ['no', 'No'],
  ['noWithVeto', 'No with veto'],
] as const;

/** One horizontal bar of stake split by option, with the rule's line at `line` (0..1) of its width. */
function StakeBar({ label, parts, whole, line, lineLabel }: { label: string; parts: { key: string; value: string }[]; whole: string; line: number; lineLabel: string }) {
  const w = 600;
  const h = 28;
  let x = 0;
  return (
    <figure class="chart tally-bar">
      <figcaption>{label}</figcaption>
      <svg viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={`${label}; ${lineLabel}`}>
        <rect x="0" y="0" width={w} height={h} class="track" />
        {parts.map((p) => {
          const width = fraction(p.value, whole) * w;
          const rect = (
            <rect key={p.key} x={x} y="0" width={width} height={h} class={`opt-${p.key}`}>
              <title>{`${p.key}: ${eth(p.value)}`}</title>
            </rect>
          );
          x += width;
          return rect;
        })}
        <line x1={line * w} y1="0" x2={line * w} y2={h} class="rule-line" />
      </svg>
      <div class="chart-range muted">
        <span>0</span>
        <span>{lineLabel}</span>
        <span>{eth(whole)}</span>
      </div>
    </figure>
  );
}

/** The tally by stake: the table of options, and bars for the quorum, the threshold and the veto. */
function Tally({ p }: { p: Proposal }) {
  const t = p.tally;
  const deciding = (BigInt(t.totalVoted) - BigInt(t.abstain)).toString();
  const all = OPTIONS.map(([key]) => ({ key, value: t[key] }));
  return (
    <Section title={t.final ? 'Final tally by stake' : 'Tally by stake so far'}>
      <Table
        label="tally"
        head={['Option', 'Stake', 'Share of votes']}
        empty=""
        rows={[
          ...OPTIONS.map(([key, name]) => [name, <Eth wei={t[key]} />, `${t.percentages[key]}%`]),
          ['Voted', <Eth wei={t.totalVoted} />, t.turnout === null ? '—' : `${t.turnout}% of bonded`],
        ]}
      />
      <div class="tally-bars">
        {t.bonded !== null ? (
          <StakeBar label={`Turnout: voted of ${eth(t.bonded)} bonded`} parts={all} whole={t.bonded} line={p.rules.quorum / 100} lineLabel={`quorum ${p.rules.quorum}%`} />
        ) : (
          <p class="muted">No stake measured yet: the vote has not started.</p>
        )}
        <StakeBar label="Yes of the votes other than abstain" parts={all.filter((o) => o.key !== 'abstain')} whole={deciding} line={p.rules.threshold / 100} lineLabel={`threshold ${p.rules.threshold}%`} />
        <StakeBar label="No with veto of all votes" parts={all.filter((o) => o.key === 'noWithVeto')} whole={t.totalVoted} line={p.rules.vetoThreshold / 100} lineLabel={`veto ${p.rules.vetoThreshold}%`} />
      </div>
      <p class="legend muted">
        {OPTIONS.map(([key, name]) => (
          <span key={key}>
            <span class={`swatch opt-${key}`} aria-hidden="true" /> {name}{' '}
          </span>
        ))}
      </p>
    </Section>
  );
}

/** What the proposal asks for, by kind. */
function Content({ p }: { p: Proposal }) {
  const c = p.content as Record<string, unknown>;
  switch (p.kind) {
    case 'parameter-change': {
      const changes = (c as { changes: { name: string; currentValue: string | null; newValue: string; unit: string | null }[] }).changes;
      return (
        <Table
          label="parameter changes"
          head={['Parameter', 'New value', 'Value now']}
          empty="No changes."
          rows={changes.map((x) => [<span class="mono">{x.name}</span>, <ParamValue value={x.newValue} unit={x.unit} />, <ParamValue value={x.currentValue} unit={x.unit} />])}
        />
      );
    }
    case 'treasury-spend': {
      const s = c as { recipient: string; amount: string; vestingEpochs: number };
      return (
        <Facts
          rows={[
            ['Recipient', <AddressLink address={s.recipient} label={s.recipient} />],
            ['Amount', <Eth wei={s.amount} />],
            ['Schedule', s.vestingEpochs === 0 ? 'paid at once' : `paid in ${s.vestingEpochs} parts, one per epoch`],
          ]}
        />
      );
    }
    case 'model-approval':
    case 'model-retirement':
      return <pre>{JSON.stringify(c, null, 2)}</pre>;
    case 'text':
      return <p class="muted">Signalling only: nothing is carried out.</p>;
  }
}

/** The spend's parts as the treasury pays them: from its pending spends while parts are left. */
function SpendPayment({ p }: { p: Proposal }) {
  const treasury = useApi<TreasuryData>('/treasury');
  const s = p.content as { recipient: string; amount: string; vestingEpochs: number };
  return (
    <Loading state={treasury}>
      {(t) => {
        const pending = t.pendingSpends.find((x) => x.proposalId === p.id);
        if (pending) {
          return (
            <Facts
              rows={[
                ['Parts paid', <span data-spend-parts>{`${pending.partsPaid} of ${pending.parts}`}</span>],
                ['Paid so far', <span data-spend-paid><Eth wei={pending.paid} /> of <Eth wei={pending.amount} /></span>],
                ['Next part at epoch', <Count n={pending.nextEpoch} />],
              ]}
            />
          );
        }
        return (
          <Facts
            rows={[
              ['Parts paid', <span data-spend-parts>all: none left among the treasury's pending spends</span>],
              ['Paid', <span data-spend-paid><Eth wei={s.amount} /> to <AddressLink address={s.recipient} /></span>],
            ]}
          />
        );
      }}
    </Loading>
  );
}

/** The parameter changes a passed proposal queued: still waiting for their epoch, or in force. */
function ParamChanges({ p }: { p: Proposal }) {
  const params = useApi<GovernanceParams>('/governance/params');
  const changes = (p.content as { changes: { name: string; newValue: string; unit: string | null }[] }).changes;
  return (
    <Loading state={params}>
      {(g) => (
        <Table
          label="parameters changed"
          head={['Parameter', 'Set to', 'Value now', 'State']}
          empty="No changes."
          rows={changes.map((x) => {
            const now = g.params.find((q) => q.name === x.name);
            const waiting = now?.pending.find((q) => q.proposalId === p.id);
            return [
              <span class="mono">{x.name}</span>,
              <ParamValue value={x.newValue} unit={x.unit} />,
              <ParamValue value={now?.value ?? null} unit={x.unit} />,
              waiting ? `waiting for epoch ${waiting.appliesAtEpoch} (now ${g.epoch})` : `epoch ${g.epoch}`,
            ];
          })}
        />
      )}
    </Loading>
  );
}

function Execution({ p }: { p: Proposal }) {
  const e = p.execution;
  if (!e) return null;
  return (
    <Section title="What it did">
      <Facts
        rows={[
          ['Result', <ProposalStatus status={e.result} />],
          ['At block', <BlockLink number={e.block} />],
          ['Detail', <span data-execution-detail>{e.detail}</span>],
          ...(e.appliesAtEpoch === null ? [] : ([['Applies from epoch', <Count n={e.appliesAtEpoch} />]] as [string, ComponentChildren][])),
        ]}
      />
      {e.result === 'applied' && p.kind === 'parameter-change' ? <ParamChanges p={p} /> : null}
      {e.result === 'applied' && p.kind === 'treasury-spend' ? <SpendPayment p={p} /> : null}
    </Section>
  );
}

export function ProposalPage({ id, votesCursor, depositsCursor }: { id: string; votesCursor: string | null; depositsCursor: string | null }) {
  const proposal = useApi<Proposal>(`/governance/proposals/${encodeURIComponent(id)}`);
  const votes = useApi<Page<ProposalVote>>(withQuery(`/governance/proposals/${encodeURIComponent(id)}/votes`, { limit: 25, cursor: votesCursor }));
  const deposits = useApi<Page<ProposalDeposit>>(withQuery(`/governance/proposals/${encodeURIComponent(id)}/deposits`, { limit: 25, cursor: depositsCursor }));
  const base = `/governance/proposals/${encodeURIComponent(id)}`;
  return (
    <Loading state={proposal}>
      {(p) => (
        <>
          <h1>
            Proposal #{p.id}: {p.title}
          </h1>
          <p>
            <a href="/governance">All proposals</a>
          </p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Status', <ProposalStatus status={p.status} />],
                ['Kind', p.kind],
                ['Proposer', <AddressLink address={p.proposer} label={p.proposer} />],
                ['Submitted', <span>block <BlockLink number={p.submitBlock} />, {utc(p.submitTime)}</span>],
                ['Deposit', <span data-total-deposit><Eth wei={p.totalDeposit} /> of <Eth wei={p.minDeposit} /> from {p.depositors} depositor(s)</span>],
                ['Deposit period ends', time(p.depositEndTime)],
                ['Voting starts', p.votingStartBlock === null ? <span class="muted">—</span> : <span>block <BlockLink number={p.votingStartBlock} />, {time(p.votingStartTime)}</span>],
                ['Voting ends', time(p.votingEndTime)],
                ['Voters', <Count n={p.voters} />],
                ['Rules', `quorum ${p.rules.quorum}%, threshold ${p.rules.threshold}%, veto ${p.rules.vetoThreshold}%`],
                ['Decided', p.finalBlock === null ? <span class="muted">not yet</span> : <span>block <BlockLink number={p.finalBlock} />, {time(p.finalTime)}</span>],
                ['Deposits', p.deposits ?? <span class="muted">held</span>],
              ]}
            />
            {p.description ? <p class="description">{p.description}</p> : null}
          </Section>
          <Section title="Vote or deposit">
            <ProposalActions id={p.id} status={p.status} />
          </Section>
          <Section title="What it asks">
            <Content p={p} />
          </Section>
          <Tally p={p} />
          <Execution p={p} />
          <Section title={`Votes (${p.voters})`}>
            <Loading state={votes}>
              {(v) => (
                <>
                  <Table
                    label="votes"
                    head={['Voter', 'Option', 'Block']}
                    empty="No votes."
                    rows={v.items.map((x) => [<AddressLink address={x.voter} label={x.voter} />, x.option, <BlockLink number={x.block} />])}
                  />
                  <Pager base={base} next={v.next} prev={v.prev} param="votes" />
                </>
              )}
            </Loading>
          </Section>
          <Section title={`Deposits (${p.depositors})`}>
            <Loading state={deposits}>
              {(d) => (
                <>
                  <Table
                    label="deposits"
                    head={['Depositor', 'Amount']}
                    empty="No deposits."
                    rows={d.items.map((x) => [<AddressLink address={x.depositor} label={x.depositor} />, <Eth wei={x.amount} />])}
                  />
                  <Pager base={base} next={d.next} prev={d.prev} param="deposits" />
                </>
              )}
            </Loading>
          </Section>
        </>
      )}
    </Loading>
  );
}

const SOURCE_NAMES: Record<string, string> = { blockRewards: 'Block rewards', taskFees: 'Task fees', spends: 'Spends' };

function ByName({ amounts, total, label, kind, totalLabel }: { amounts: Record<string, string>; total: string; label: string; kind: string; totalLabel: string }) {
  return (
    <Table
      label={label}
      head={[kind, 'Amount']}
      empty=""
      rows={[...Object.entries(amounts).map(([k, v]) => [SOURCE_NAMES[k] ?? k, <Eth wei={v} />]), [<strong>{totalLabel}</strong>, <strong><Eth wei={total} /></strong>]]}
    />
  );
}

export function Treasury() {
  const treasury = useApi<TreasuryData>('/treasury');
  return (
    <Loading state={treasury}>
      {(t) => (
        <>
          <h1>Treasury</h1>
          <p>
            <a href="/governance">Governance</a>
          </p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Address', <AddressLink address={t.address} label={t.address} />],
                ['Balance', <span data-treasury-balance><Eth wei={t.balance} /></span>],
                ['At block', <BlockLink number={t.blockNumber} />],
                ['Spends paid in full', <Count n={t.spendsPaid} />],
                ['Still to pay', <Eth wei={t.pendingSpendsTotal} />],
              ]}
            />
          </Section>
          <div class="columns">
            <Section title="Inflows">
              <ByName amounts={t.inflows} total={t.totalInflows} label="inflows" kind="Source" totalLabel="All inflows" />
            </Section>
            <Section title="Outflows">
              <ByName amounts={t.outflows} total={t.totalOutflows} label="outflows" kind="Use" totalLabel="All outflows" />
            </Section>
          </div>
          <Section title="Spends being paid">
            <Table
              label="pending spends"
              head={['Proposal', 'Recipient', 'Amount', 'Paid', 'Parts', 'Next epoch']}
              empty="No spends waiting to be paid."
              rows={t.pendingSpends.map((s) => [
                <ProposalLink id={s.proposalId} />,
                <AddressLink address={s.recipient} />,
                <Eth wei={s.amount} />,
                <Eth wei={s.paid} />,
                `${s.partsPaid} of ${s.parts}`,
                <Count n={s.nextEpoch} />,
              ])}
            />
          </Section>
        </>
      )}
    </Loading>
  );
}

/** The proposals a transaction's governance logs name (each governance event's first topic is the proposal id), linked. */
export function ProposalMentions({ logs }: { logs: Log[] }) {
  const [governance, setGovernance] = useState<string | null>(null);
  useEffect(() => {
    if (logs.length === 0) return;
    let live = true;
    systemModules().then(
      (m) => live && setGovernance(m.modules.find((x) => x.name === 'governance')?.address.toLowerCase() ?? null),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [logs.length]);
  if (governance === null) return null;
  const ids = [...new Set(logs.filter((l) => l.address.toLowerCase() === governance && l.topics[1] !== undefined).map((l) => Number(BigInt(l.topics[1]!))))];
  if (ids.length === 0) return null;
  return (
    <Section title="Governance">
      <p>
        This transaction acted on proposal{ids.length > 1 ? 's' : ''}{' '}
        {ids.map((id, i) => (
          <span key={id}>
            {i > 0 ? ', ' : ''}
            <ProposalLink id={id} />
          </span>
        ))}
        . <a href="/governance">All proposals</a>
      </p>
    </Section>
  );
}
