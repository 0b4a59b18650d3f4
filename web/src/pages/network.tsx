// The network: validators (ranked by contribution score) and one validator with its delegators,
// inference miners and compute totals, the current epoch, and the gas oracle.
import { AddressLink, BarChart, BlockLink, Count, Eth, Facts, Gwei, Loading, Section, Status, Table } from '../components.js';
import { count, gwei, utc } from '../format.js';
import { useApi } from '../hooks.js';
import type { ComputeStats } from '../../../src/explorer/routes/compute.js';
import type { GasOracleApi } from '../../../src/explorer/routes/gas-oracle.js';
import type { LeaderboardApi, RankedValidator } from '../../../src/explorer/routes/leaderboard.js';
import type { NetworkApi, ValidatorFull } from '../../../src/explorer/routes/network.js';
import { DelegationActions } from '../wallet/actions.js';

const percent = (v: number) => `${v}%`;

function Breakdown({ score }: { score: Record<string, number> }) {
  return <span class="wrap">{Object.entries(score).map(([k, v]) => `${k} ${v}%`).join(' · ')}</span>;
}

export function Validators() {
  const list = useApi<RankedValidator[]>('/leaderboard/validators');
  return (
    <Section title="Validators">
      <Loading state={list}>
        {(vs) => (
          <Table
            label="validators"
            head={['Rank', 'Validator', 'Status', 'Stake', 'Score', 'Score breakdown', 'Uptime', 'Commission']}
            empty="No validators."
            rows={vs.map((v) => [v.rank ?? '', <a href={`/validator/${v.address}`}>{v.moniker || v.address}</a>, <Status status={v.status} />, <Eth wei={v.totalStake} />, percent(v.contributionScore), <Breakdown score={v.scoreBreakdown} />, percent(v.uptime), percent(v.commission)])}
          />
        )}
      </Loading>
    </Section>
  );
}

type SigningWindowData = NetworkApi['getValidatorSigningWindow']['response'];

/** The counted blocks of the window as a grid of cells, oldest first, in rows of up to 50: signed or missed. */
function SigningChart({ blocks }: { blocks: ('signed' | 'missed')[] }) {
  const cols = Math.max(1, Math.min(50, blocks.length));
  const rows = Math.max(1, Math.ceil(blocks.length / cols));
  const cell = 12;
  return (
    <figure class="chart signing">
      <figcaption>
        Blocks counted in the window, oldest first: <span class="key signed">■</span> signed, <span class="key missed">■</span> missed
      </figcaption>
      <svg viewBox={`0 0 ${cols * cell} ${rows * cell}`} role="img" aria-label={`${blocks.filter((b) => b === 'signed').length} signed and ${blocks.filter((b) => b === 'missed').length} missed of ${blocks.length} blocks`}>
        {blocks.map((b, i) => (
          <rect key={i} x={(i % cols) * cell + 1} y={Math.floor(i / cols) * cell + 1} width={cell - 2} height={cell - 2} class={b}>
            <title>{`block ${i + 1} of ${blocks.length} counted: ${b}`}</title>
          </rect>
        ))}
      </svg>
    </figure>
  );
}

/** The validator's signed and missed blocks over the downtime window, and this node's view of the network. */
function ValidatorNetwork({ address }: { address: string }) {
  const w = useApi<SigningWindowData>(`/network/validators/${address}/signing-window`);
  const node = useApi<NetworkApi['getNodeInfo']['response']>('/network/node');
  return (
    <>
      <Section title="Signing window" id="signing-window">
        <Loading state={w}>
          {(s) => (
            <>
              <Facts
                rows={[
                  ['Signed', <Count n={s.signed} />],
                  ['Missed', <Count n={s.missed} />],
                  ['Counted', `${count(s.counted)} of ${count(s.windowSize)} blocks`],
                  ['Uptime in the window', percent(s.uptime)],
                  ['Must sign', `${count(s.minSignedPerWindow)} per ${count(s.windowSize)} blocks (more than ${count(s.maxMissedPerWindow)} missed is downtime: slashed and jailed)`],
                ]}
              />
              {s.blocks.length === 0 ? <p class="muted">No blocks counted yet: the window fills while the validator is in the active set.</p> : <SigningChart blocks={s.blocks} />}
            </>
          )}
        </Loading>
      </Section>
      <Section title="Network (as this node sees it)" id="network">
        <Loading state={node}>
          {(n) => (
            <Facts
              rows={[
                ['Peers connected', <Count n={n.peerCount} />],
                ['Syncing', n.syncing ? 'yes' : 'no'],
                ['Head', <BlockLink number={n.currentBlock} />],
                ['Network', n.network],
                ['This node validates as', <AddressLink address={n.validatorAddress} label={n.validatorAddress === address ? 'this validator' : undefined} />],
              ]}
            />
          )}
        </Loading>
      </Section>
    </>
  );
}

export function Validator({ address }: { address: string }) {
  const v = useApi<ValidatorFull>(`/network/validators/${address}`);
  const delegators = useApi<NetworkApi['getValidatorDelegators']['response']>(`/network/validators/${address}/delegators`);
  return (
    <Loading state={v}>
      {(val) => (
        <>
          <h1>Validator {val.moniker}</h1>
          <p><AddressLink address={val.address} label={val.address} /></p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Status', <Status status={val.status} />],
                ['Total stake', <Eth wei={val.totalStake} />],
                ['Self stake', <Eth wei={val.selfStake} />],
                ['Delegated stake', <Eth wei={val.delegatedStake} />],
                ['Delegators', <Count n={val.delegatorCount} />],
                ['Voting power', <Count n={val.votingPower} />],
                ['Contribution score', percent(val.contributionScore)],
                ['Score breakdown', <Breakdown score={val.scoreBreakdown} />],
                ['Uptime', percent(val.uptime)],
                ['Commission', `${val.commission}% (max ${val.maxCommission}%)`],
                ['Blocks produced / missed', `${count(val.blocksProduced)} / ${count(val.blocksMissed)}`],
                ['Total rewards', <Eth wei={val.totalRewards} />],
                ['Accumulated commission', <Eth wei={val.accumulatedCommission} />],
                ['Registered at block', <BlockLink number={val.registeredAt} />],
                ['Last active at block', <BlockLink number={val.lastActiveAt} />],
                ['Jailed until block', val.jailedUntil > 0 ? <BlockLink number={val.jailedUntil} /> : 'not jailed'],
                ['Slashes', val.slashes.length === 0 ? 'none' : val.slashes.map((s) => `block ${s.height}: ${s.fractionBps / 100}% (${s.reason})`).join('; ')],
              ]}
            />
          </Section>
          <ValidatorNetwork address={val.address} />
          <Section title="Delegate">
            <DelegationActions validator={val.address} />
          </Section>
          <Section title="Delegators">
            <Loading state={delegators}>
              {(ds) => (
                <Table
                  label="delegators"
                  head={['Delegator', 'Stake', 'Pending rewards']}
                  empty="No delegators."
                  rows={ds.map((d) => [<AddressLink address={d.delegator} label={d.delegator} />, <Eth wei={d.stake} />, <Eth wei={d.pendingRewards} />])}
                />
              )}
            </Loading>
          </Section>
        </>
      )}
    </Loading>
  );
}

type MinerRank = LeaderboardApi['getMinerLeaderboard']['response'][number];

const scalarEntries = (o: Record<string, unknown>) => Object.entries(o).filter(([, v]) => typeof v !== 'object') as [string, string | number][];

export function Miners() {
  const miners = useApi<MinerRank[]>('/leaderboard/miners');
  const stats = useApi<ComputeStats>('/compute/stats');
  return (
    <>
      <Section title="Inference miners">
        <Loading state={miners}>
          {(ms) => {
            const columns = ms[0] ? (Object.keys(ms[0]) as (keyof MinerRank)[]).filter((k) => k !== 'wallet' && typeof ms[0]![k] !== 'object') : [];
            return <Table label="miners" head={['Miner', ...columns]} empty="No inference miners have proofs yet." rows={ms.map((m) => [<AddressLink address={m.wallet} />, ...columns.map((c) => String(m[c]))])} />;
          }}
        </Loading>
      </Section>
      <Section title="Compute">
        <Loading state={stats}>
          {(s) => (
            <>
              <Facts rows={[['Compute mode', s.computeMode], ['Epoch', s.epoch], ['Total FLOPs', <Count n={s.totalFlops} />]]} />
              <h3>Models</h3>
              <Table label="models" head={['Model', 'Tier', 'Dims', 'Approved', 'Served here', 'Tasks assigned', 'Completed']} empty="No models." rows={s.models.map((m) => [m.id, m.tier, m.dims, m.approved ? 'yes' : 'no', m.servedByThisNode ? 'yes' : 'no', m.tasksAssigned, m.tasksCompleted])} />
              <div class="columns">
                <div><h3>Tasks</h3><Facts rows={scalarEntries(s.tasks).map(([k, v]) => [k, <Count n={v} />])} /></div>
                <div><h3>Proofs</h3><Facts rows={scalarEntries(s.proofs).map(([k, v]) => [k, <Count n={v} />])} /></div>
                <div><h3>Spot-checks</h3><Facts rows={scalarEntries(s.spotChecks).map(([k, v]) => [k, <Count n={v} />])} /></div>
                <div><h3>Miners</h3><Facts rows={scalarEntries(s.miners).map(([k, v]) => [k, <Count n={v} />])} /></div>
                <div><h3>Rewards paid</h3><Facts rows={Object.entries(s.rewardsPaid).map(([k, v]) => [k, <Eth wei={v} />])} /></div>
              </div>
            </>
          )}
        </Loading>
      </Section>
    </>
  );
}

export function Epoch() {
  const epoch = useApi<NetworkApi['getEpoch']['response']>('/network/epoch');
  const node = useApi<NetworkApi['getNodeInfo']['response']>('/network/node');
  return (
    <>
      <Section title="Epoch">
        <Loading state={epoch}>
          {(e) => (
            <Facts
              rows={[
                ['Epoch', e.number],
                ['First block', <BlockLink number={e.startBlock} />],
                ['Started', utc(e.startTime)],
                ['Length', `${e.lengthBlocks} blocks (${e.durationMs / 1000} s)`],
                ['Slot of the head', `${e.slot} of ${e.lengthBlocks}`],
                ['Active validators', e.activeValidators],
              ]}
            />
          )}
        </Loading>
      </Section>
      <Section title="This node">
        <Loading state={node}>
          {(n) => <Facts rows={[['Version', n.version], ['Network', `${n.network} (chain id ${n.chainId})`], ['Validates', n.isValidator ? 'yes' : 'no'], ['Peers', n.peerCount], ['Head', <BlockLink number={n.currentBlock} />]]} />}
        </Loading>
      </Section>
    </>
  );
}

export function GasOracle() {
  const oracle = useApi<GasOracleApi['getGasOracle']['response']>('/gas-oracle');
  const history = useApi<GasOracleApi['getGasHistory']['response']>('/gas-oracle/history?blocks=50');
  return (
    <>
      <Section title="Gas oracle">
        <Loading state={oracle}>
          {(o) => (
            <>
              <div class="tiles">
                <div class="tile"><span class="muted">Safe</span><strong><Gwei wei={o.safe} /></strong></div>
                <div class="tile"><span class="muted">Propose</span><strong><Gwei wei={o.propose} /></strong></div>
                <div class="tile"><span class="muted">Fast</span><strong><Gwei wei={o.fast} /></strong></div>
                <div class="tile"><span class="muted">Base fee</span><strong><Gwei wei={o.baseFee} /></strong></div>
              </div>
              <p class="muted">From the tips of the last {o.blocks} blocks (10th, 50th, 90th percentiles), up to block <BlockLink number={o.lastBlock} />.</p>
            </>
          )}
        </Loading>
      </Section>
      <Section title="Recent blocks">
        <Loading state={history}>
          {(h) => (
            <>
              <BarChart label="Base fee" points={h.map((b) => ({ label: `block ${b.block}`, value: Number(b.baseFee) }))} format={(v) => gwei(BigInt(Math.round(v)))} />
              <BarChart label="Gas used ratio" points={h.map((b) => ({ label: `block ${b.block}`, value: b.gasUsedRatio * 100 }))} format={(v) => `${v.toFixed(3)}%`} />
              <Table label="gas history" head={['Block', 'Base fee', 'Gas used', 'Tip p10', 'Tip p50', 'Tip p90']} empty="No blocks." rows={[...h].reverse().map((b) => [<BlockLink number={b.block} />, <Gwei wei={b.baseFee} />, `${(b.gasUsedRatio * 100).toFixed(3)}%`, <Gwei wei={b.tips.p10} />, <Gwei wei={b.tips.p50} />, <Gwei wei={b.tips.p90} />])} />
            </>
          )}
        </Loading>
      </Section>
    </>
  );
}
