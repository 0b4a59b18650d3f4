// Stats: totals from the index and the chain.
import { statsWindowStart } from '../../chain/stats-window.js';
import { system } from '../../params.js';
import type { ExplorerServices, Handler } from '../definition.js';
import { TOTAL_ADDRESSES, TOTAL_TOKENS, TOTAL_TRANSACTIONS } from '../indexer/records.js';


/** Transactions per second over the blocks after `oldest` up to the head. */
function tpsSince(services: ExplorerServices, oldest: number): number {
  const { chain } = services.node;
  const head = chain.head();
  if (head.number <= oldest) return 0;
  let txs = 0;
  for (let n = oldest + 1; n <= head.number; n++) txs += chain.getBlockTransactionCount({ number: n }) ?? 0;
  const first = chain.getBlockSummary({ number: oldest });
  const seconds = head.timestamp - Number(BigInt((first?.timestamp as string | undefined) ?? '0x0'));
  return seconds <= 0 ? 0 : Number((txs / seconds).toPrecision(6));
}

/** The first block at or after `timestamp` (binary search over block times). */
function blockAtTime(services: ExplorerServices, timestamp: number): number {
  const { chain } = services.node;
  let lo = 0;
  let hi = chain.head().number;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const t = Number(BigInt((chain.getBlockSummary({ number: mid })?.timestamp as string | undefined) ?? '0x0'));
    if (t < timestamp) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}


export const statsHandlers: Record<string, Handler> = {
  getStats: (_input, services) => {
    const { chain, app } = services.node;
    const { indexes } = services;
    const head = chain.head();
    const validators = app.staking.state.validators();
    const oldest = statsWindowStart(head.number, 100);
    const first = chain.getBlockSummary({ number: oldest });
    const span = head.number - oldest;
    return {
      blocks: head.number + 1,
      latestBlock: head.number,
      transactions: indexes.meta.get(TOTAL_TRANSACTIONS) ?? 0,
      addresses: indexes.meta.get(TOTAL_ADDRESSES) ?? 0,
      tokens: indexes.meta.get(TOTAL_TOKENS) ?? 0,
      validators: validators.length,
      activeValidators: validators.filter((v) => v.status === 'active').length,
      totalStaked: app.staking.state.totals().totalStaked.toString(),
      totalSupply: app.supply().toString(),
      averageBlockTimeMs: span === 0 ? 0 : Math.round(((head.timestamp - Number(BigInt((first?.timestamp as string | undefined) ?? '0x0'))) * 1000) / span),
      tps: tpsSince(services, oldest),
      indexedBlock: services.indexer.indexedHeight(),
    };
  },

  getTps: (_input, services) => {
    const head = services.node.chain.head();
    return {
      last100Blocks: tpsSince(services, statsWindowStart(head.number, 100)),
      last24Hours: tpsSince(services, Math.max(statsWindowStart(head.number, head.number), blockAtTime(services, head.timestamp - 86_400) - 1)),
    };
  },

  getSupply: (_input, { node }) => {
    const { chain, app } = node;
    const head = chain.head().number;
    const balanceOf = (a: string) => chain.getAccount(Buffer.from(a.slice(2), 'hex'), head).balance;
    const totals = app.staking.state.totals();
    return {
      totalSupply: app.supply().toString(),
      staked: totals.totalStaked.toString(),
      unbonding: totals.totalUnbonding.toString(),
      stakingModuleBalance: balanceOf(system.stakingAddress).toString(),
      treasuryBalance: balanceOf(system.treasuryAddress).toString(),
      burnedBySlashing: totals.burned.toString(),
    };
  },
};
