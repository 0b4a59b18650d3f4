// Stats: totals from the index and the chain.
import { averageBlockTimeMs, blockWindow, firstBlockAtOrAfter, statsWindowStart, transactionsPerSecond } from '../../chain/block-time.js';
import { system } from '../../params.js';
import { routeModule, type ExplorerServices, type Handlers } from '../definition.js';
import { TOTAL_ADDRESSES, TOTAL_TOKENS, TOTAL_TRANSACTIONS } from '../indexer/records.js';
import { statsRouteDefs } from '../routes/stats.js';


/** Transactions per second over the blocks after `oldest` up to the head. */
function tpsSince(services: ExplorerServices, oldest: number): number {
  return transactionsPerSecond(blockWindow(services.node.chain, oldest));
}


export const statsHandlers: Handlers<typeof statsRouteDefs> = {
  getStats: (_input, services) => {
    const { chain, app, queries } = services.node;
    const { indexes } = services;
    const head = chain.head();
    const validators = queries.staking.validators();
    const window = blockWindow(chain, statsWindowStart(head.number, 100));
    return {
      blocks: head.number + 1,
      latestBlock: head.number,
      transactions: indexes.meta.get(TOTAL_TRANSACTIONS) ?? 0,
      addresses: indexes.meta.get(TOTAL_ADDRESSES) ?? 0,
      tokens: indexes.meta.get(TOTAL_TOKENS) ?? 0,
      validators: validators.length,
      activeValidators: validators.filter((v) => v.status === 'active').length,
      totalStaked: queries.staking.totals().totalStaked.toString(),
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
    const { chain, app, queries } = node;
    const head = chain.head().number;
    const balanceOf = (a: string) => chain.getAccount(Buffer.from(a.slice(2), 'hex'), head).balance;
    const totals = queries.staking.totals();
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

export const statsRoutes = routeModule(statsRouteDefs, statsHandlers);
