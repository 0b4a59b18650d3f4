// Leaderboard: validators by contribution score, inference miners by inference score.
import { routeModule, type Handlers } from '../definition.js';
import { validatorView } from './network.js';
import { addr } from '../views.js';
import { leaderboardRouteDefs } from '../routes/leaderboard.js';

export const leaderboardHandlers: Handlers<typeof leaderboardRouteDefs> = {
  getValidatorLeaderboard: ({ query }, { node }) => {
    const { staking } = node.queries;
    const scores = staking.scores();
    return staking
      .validators()
      .map((v) => ({ v, score: scores.get(v.address)?.totalBps ?? 0 }))
      .sort((a, b) => b.score - a.score || (a.v.tokens === b.v.tokens ? (a.v.address < b.v.address ? -1 : 1) : a.v.tokens > b.v.tokens ? -1 : 1))
      .slice(0, (query.limit as number | undefined) ?? 25)
      .map(({ v }, i) => ({ rank: i + 1, ...validatorView(v, scores.get(v.address), true) }));
  },

  getMinerLeaderboard: ({ query }, { node }) => {
    const { compute } = node.queries;
    const { head, epoch } = compute.headEpoch();
    return compute
      .minerList()
      .map((m) => ({ m, score: compute.inferenceScoreOf(m.window, epoch) }))
      .sort((a, b) => (a.score !== b.score ? (a.score > b.score ? -1 : 1) : a.m.flops !== b.m.flops ? (a.m.flops > b.m.flops ? -1 : 1) : a.m.wallet < b.m.wallet ? -1 : 1))
      .slice(0, (query.limit as number | undefined) ?? 25)
      .map(({ m, score }, i) => ({
        rank: i + 1,
        wallet: addr(m.wallet),
        status: compute.minerStatus(m, head.timestamp, epoch),
        tier: m.tier,
        models: m.models,
        inferenceScore: score.toString(),
        flops: m.flops.toString(),
        tasksCompleted: m.tasksCompleted,
        proofsAccepted: m.proofsAccepted,
        spotChecksPassed: m.spotChecksPassed,
        spotChecksFailed: m.spotChecksFailed,
        blockRewards: m.blockRewards.toString(),
        feeRewards: m.feeRewards.toString(),
        jailedUntil: m.jailedUntil,
      }));
  },
};

export const leaderboardRoutes = routeModule(leaderboardRouteDefs, leaderboardHandlers);
