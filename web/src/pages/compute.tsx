// Compute (proof-of-contribution inference): the module's totals, the approved models, the miners,
// the open tasks and the accepted proofs with their spot-check verdicts; one task, one proof and one
// miner with its proofs' counters, rewards and open tasks (docs/compute.md, the /compute/* routes).
import type { ComponentChildren } from 'preact';
import { withQuery, type Page } from '../api.js';
import { AddressLink, BlockLink, Count, Eth, Facts, Loading, Pager, Section, Table } from '../components.js';
import { short } from '../format.js';
import { useApi } from '../hooks.js';
import type { ComputeApi, ComputeMiner as Miner, ComputeProof as Proof, ComputeStats, ComputeTask as Task } from '../../../src/explorer/routes/compute.js';
import type { LeaderboardApi } from '../../../src/explorer/routes/leaderboard.js';

type ApprovedModel = ComputeApi['getComputeModels']['response'][number];
type MinerRank = LeaderboardApi['getMinerLeaderboard']['response'][number];

const GOOD = new Set(['passed', 'completed', 'approved', 'active']);
const BAD = new Set(['failed', 'expired', 'retired', 'jailed']);

/** A state as a badge: green where it went well, red where it did not, plain while open. */
function State({ value }: { value: string }) {
  return <span class={`badge ${GOOD.has(value) ? 'good' : BAD.has(value) ? 'bad' : ''}`}>{value}</span>;
}

function TaskLink({ id }: { id: string }) {
  return <a class="mono" href={`/compute/task/${id}`} title={id}>{short(id, 8)}</a>;
}

function ProofLink({ id }: { id: string }) {
  return <a class="mono" href={`/compute/proof/${id}`} title={id}>{short(id, 8)}</a>;
}

function MinerLink({ address }: { address: string | null }) {
  if (!address) return <span class="muted">—</span>;
  return <a class="mono" href={`/compute/miner/${address}`} title={address}>{short(address)}</a>;
}

export function ProofTable({ items, label }: { items: Proof[]; label: string }) {
  return (
    <Table
      label={label}
      head={['Proof', 'Task', 'Miner', 'Model', 'FLOPs', 'Block', 'Block reward', 'Spot-check']}
      empty="No proofs accepted yet."
      rows={items.map((p) => [<ProofLink id={p.proofId} />, <TaskLink id={p.taskId} />, <MinerLink address={p.miner} />, p.modelId, <Count n={p.flops} />, <BlockLink number={p.includedAt} />, <Eth wei={p.blockReward} />, <State value={p.spotCheck} />])}
    />
  );
}

function TaskTable({ items, label }: { items: Task[]; label: string }) {
  return (
    <Table
      label={label}
      head={['Task', 'Kind', 'Model', 'Status', 'Assigned to', 'Deadline epoch', 'Fee']}
      empty="No open tasks."
      rows={items.map((t) => [<TaskLink id={t.taskId} />, t.kind, t.modelId, <State value={t.status} />, <MinerLink address={t.assignedTo} />, t.deadlineEpoch ?? '—', <Eth wei={t.fee} />])}
    />
  );
}

export function Compute({ proofsCursor, tasksCursor }: { proofsCursor: string | null; tasksCursor: string | null }) {
  const stats = useApi<ComputeStats>('/compute/stats');
  const models = useApi<ApprovedModel[]>('/compute/models');
  const miners = useApi<MinerRank[]>('/leaderboard/miners?limit=100');
  const tasks = useApi<Page<Task>>(withQuery('/compute/tasks', { limit: 25, cursor: tasksCursor }));
  const proofs = useApi<Page<Proof>>(withQuery('/compute/proofs', { limit: 25, cursor: proofsCursor }));
  return (
    <>
      <h1>Compute</h1>
      <Section title="Totals">
        <Loading state={stats}>
          {(s) => (
            <Facts
              rows={[
                ['Compute mode of this node', s.computeMode],
                ['Epoch', <Count n={s.epoch} />],
                ['Tasks open / completed / expired', `${s.tasks['open'] ?? 0} / ${s.tasks['completed'] ?? 0} / ${s.tasks['expired'] ?? 0}`],
                ['Proofs accepted', <Count n={(s.proofs['accepted'] as number | undefined) ?? 0} />],
                ['Spot-checks passed / failed', `${s.spotChecks['passed'] ?? 0} / ${s.spotChecks['failed'] ?? 0}`],
                ['Total FLOPs', <Count n={s.totalFlops} />],
                ['Miners registered / active', `${s.miners['registered'] ?? 0} / ${s.miners['active'] ?? 0}`],
                ...Object.entries(s.rewardsPaid).map(([k, v]): [string, ComponentChildren] => [`Rewards paid: ${k}`, <Eth wei={v} />]),
              ]}
            />
          )}
        </Loading>
      </Section>
      <Section title="Approved models">
        <Loading state={models}>
          {(ms) => (
            <Table
              label="approved models"
              head={['Model', 'Tier', 'Dims', 'Status', 'Approved at', 'By proposal', 'Files pinned by']}
              empty="No models."
              rows={ms.map((m) => [
                m.id,
                m.tier,
                m.dims,
                <span><State value={m.status} />{m.refusedFromBlock === null ? '' : ` from block ${m.refusedFromBlock}`}</span>,
                <BlockLink number={m.approvedAtBlock} />,
                m.approvedBy === null ? 'genesis' : <a href={`/governance/proposals/${m.approvedBy}`}>#{m.approvedBy}</a>,
                m.pinnedBy,
              ])}
            />
          )}
        </Loading>
      </Section>
      <Section title="Miners">
        <Loading state={miners}>
          {(ms) => (
            <Table
              label="compute miners"
              head={['Rank', 'Miner', 'Status', 'Tier', 'Proofs', 'Spot-checks passed / failed', 'FLOPs', 'Rewards']}
              empty="No inference miners registered."
              rows={ms.map((m) => [m.rank, <MinerLink address={m.wallet} />, <State value={m.status} />, m.tier, <Count n={m.proofsAccepted} />, `${m.spotChecksPassed} / ${m.spotChecksFailed}`, <Count n={m.flops} />, <Eth wei={(BigInt(m.blockRewards) + BigInt(m.feeRewards)).toString()} />])}
            />
          )}
        </Loading>
      </Section>
      <Section title="Open tasks">
        <Loading state={tasks}>
          {(p) => (
            <>
              <TaskTable items={p.items} label="open tasks" />
              <Pager base="/compute" param="tasks" next={p.next} prev={p.prev} />
            </>
          )}
        </Loading>
      </Section>
      <Section title="Accepted proofs">
        <Loading state={proofs}>
          {(p) => (
            <>
              <ProofTable items={p.items} label="accepted proofs" />
              <Pager base="/compute" param="proofs" next={p.next} prev={p.prev} />
            </>
          )}
        </Loading>
      </Section>
    </>
  );
}

export function ComputeTask({ id }: { id: string }) {
  const task = useApi<Task>(`/compute/tasks/${encodeURIComponent(id)}`);
  return (
    <Loading state={task}>
      {(t) => (
        <>
          <h1>Inference task</h1>
          <p class="mono break">{t.taskId}</p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Status', <State value={t.status} />],
                ['Kind', t.kind],
                ['Model', t.modelId],
                ['Created at block', <span><BlockLink number={t.createdAt} /> (epoch {t.createdEpoch})</span>],
                ['Submitter', t.submitter ? <AddressLink address={t.submitter} label={t.submitter} /> : 'the chain (challenge)'],
                ['Fee', <Eth wei={t.fee} />],
                ['Assigned to', <MinerLink address={t.assignedTo} />],
                ['Assigned in epoch', t.assignedEpoch ?? '—'],
                ['Deadline epoch', t.deadlineEpoch ?? '—'],
                ['Reassignments', <Count n={t.reassignments} />],
                ['Completed at block', t.completedAt === null ? '—' : <BlockLink number={t.completedAt} />],
                ['Refunded', <Eth wei={t.refunded} />],
                ['Input hash', <span class="mono break">{t.inputHash}</span>],
                ['Input', <span class="break">{t.input}</span>],
              ]}
            />
          </Section>
          <Section title="Result">
            {t.result ? (
              <Facts
                rows={[
                  ['Proof', <ProofLink id={t.result.proofId} />],
                  ['Miner', <MinerLink address={t.result.miner} />],
                  ['Validator', <AddressLink address={t.result.validator} />],
                  ['Output hash', <span class="mono break">{t.result.outputHash}</span>],
                  ['Spot-check', <State value={t.result.spotCheck} />],
                ]}
              />
            ) : (
              <p class="muted">No accepted proof yet.</p>
            )}
          </Section>
        </>
      )}
    </Loading>
  );
}

export function ComputeProof({ id }: { id: string }) {
  const proof = useApi<Proof>(`/compute/proofs/${encodeURIComponent(id)}`);
  return (
    <Loading state={proof}>
      {(p) => (
        <>
          <h1>Inference proof</h1>
          <p class="mono break">{p.proofId}</p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Spot-check', <State value={p.spotCheck} />],
                [
                  'Spot-check result',
                  p.spotCheckResult
                    ? `cosine ${p.spotCheckResult.cosine}, max abs diff ${p.spotCheckResult.maxAbsDiff}, hash ${p.spotCheckResult.hashMatches ? 'matches' : 'differs'}, at block ${p.spotCheckResult.checkedAt}`
                    : '—',
                ],
                ['Task', <span><TaskLink id={p.taskId} /> ({p.taskKind})</span>],
                ['Miner', <MinerLink address={p.miner} />],
                ['Validator', <AddressLink address={p.validator} />],
                ['Model', p.modelId],
                ['Included at block', <BlockLink number={p.includedAt} />],
                ['FLOPs (claimed)', <span><Count n={p.flops} /> (<Count n={p.claimedFlops} />)</span>],
                ['Execution time', `${p.executionTimeMs} ms`],
                ['Block reward', <Eth wei={p.blockReward} />],
                ['Fee: miner / validator / treasury', <span><Eth wei={p.fee.miner} /> / <Eth wei={p.fee.validator} /> / <Eth wei={p.fee.treasury} />{p.fee.paid ? ' (paid)' : ' (not paid)'}</span>],
                ['Input hash', <span class="mono break">{p.inputHash}</span>],
                ['Output hash', <span class="mono break">{p.outputHash}</span>],
              ]}
            />
          </Section>
        </>
      )}
    </Loading>
  );
}

export function ComputeMiner({ address, cursor }: { address: string; cursor: string | null }) {
  const miner = useApi<Miner>(`/compute/miners/${encodeURIComponent(address)}`);
  const proofs = useApi<Page<Proof>>(withQuery('/compute/proofs', { miner: address, limit: 25, cursor }));
  return (
    <Loading state={miner}>
      {(m) => (
        <>
          <h1>Inference miner</h1>
          <p><AddressLink address={m.wallet} label={m.wallet} /></p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Status', <State value={m.status} />],
                ['Tier', m.tier],
                ['Models', m.models.join(', ')],
                ['Registered at block', <BlockLink number={m.registeredAt} />],
                ['Jailed until', m.jailedUntil > 0 ? String(m.jailedUntil) : 'not jailed'],
                ['Inference score', <Count n={m.inferenceScore} />],
                ['Tasks completed', <Count n={m.tasksCompleted} />],
                ['Proofs accepted', <Count n={m.proofsAccepted} />],
                ['Spot-checks passed / failed', `${m.spotChecksPassed} / ${m.spotChecksFailed}`],
                ['FLOPs', <Count n={m.flops} />],
                ['Block rewards', <Eth wei={m.blockRewards} />],
                ['Fee rewards', <Eth wei={m.feeRewards} />],
                ['Rewards', <Eth wei={m.rewards} />],
                ['Public key', <span class="mono break">{m.publicKey}</span>],
              ]}
            />
          </Section>
          <Section title={`Open tasks (${m.openTasks.length})`}>
            <Table
              label="miner open tasks"
              head={['Task', 'Kind', 'Model', 'Assigned in epoch', 'Deadline epoch']}
              empty="No open tasks."
              rows={m.openTasks.map((t) => [<TaskLink id={t.taskId} />, t.kind, t.modelId, t.assignedEpoch ?? '—', t.deadlineEpoch ?? '—'])}
            />
          </Section>
          <Section title="Its accepted proofs">
            <Loading state={proofs}>
              {(p) => (
                <>
                  <ProofTable items={p.items} label="miner proofs" />
                  <Pager base={`/compute/miner/${address}`} next={p.next} prev={p.prev} />
                </>
              )}
            </Loading>
          </Section>
        </>
      )}
    </Loading>
  );
}
