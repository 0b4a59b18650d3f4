// Leaderboard: validators by contribution score.
import type { Handler } from '../definition.js';
import { validatorView } from './network.js';

export const leaderboardHandlers: Record<string, Handler> = {
  getValidatorLeaderboard: ({ query }, { node }) => {
    const { staking } = node.app;
    const scores = staking.scores();
    return staking.state
      .validators()
      .map((v) => ({ v, score: scores.get(v.address)?.totalBps ?? 0 }))
      .sort((a, b) => b.score - a.score || (a.v.tokens === b.v.tokens ? (a.v.address < b.v.address ? -1 : 1) : a.v.tokens > b.v.tokens ? -1 : 1))
      .slice(0, (query.limit as number | undefined) ?? 25)
      .map(({ v }, i) => ({ rank: i + 1, ...validatorView(v, scores.get(v.address), true) }));
  },
};
