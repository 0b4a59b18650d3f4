// Stats: totals from the index and the chain.
import { averageBlockTimeMs, blockWindow, firstBlockAtOrAfter, statsWindowStart, transactionsPerSecond } from '../../chain/block-time.js';
import { system } from '../../params.js';
import type { ExplorerServices, Handler } from '../definition.js';
import { TOTAL_ADDRESSES, TOTAL_TOKENS, TOTAL_TRANSACTIONS } from '../indexer/records.js';


/** Transactions per second over the blocks after `oldest` up to the head. */
function tpsSince(services: ExplorerServices, oldest: number): number {
  return transactionsPerSecond(blockWindow(services.node.chain, oldest));
}


export const statsHandlers: Record<string, Handler> = {
  getStats: (_input, services) => {
    const { chain, app } = services.node;
    const { indexes } = services;
    const head = chain.head();
    const validators = app.staking.state.validators();
    const window = blockWindow(chain, statsWindowStart(head.number, 100));
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
      averageBlockTimeMs: averageBlockTimeMs(window),
      tps: transactionsPerSecond(window),
      indexedBlock: services.indexer.indexedHeight(),
    };
  },

  getTps: (_input, services) => {
    const head = services.node.chain.head();
    return {
      last100Blocks: tpsSince(services, statsWindowStart(head.number, 100)),
      last24Hours: tpsSince(services, Math.max(statsWindowStart(head.number, head.number), firstBlockAtOrAfter(services.node.chain, head.timestampMs - 86_400_000) - 1)),
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
