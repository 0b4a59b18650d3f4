// Leaderboard: validators by contribution score, inference miners by inference score.
import { object, routes, type Api } from '../schema.js';
import { validatorFullSchema } from './network.js';

const int = { type: 'integer' } as const;
const str = { type: 'string' } as const;

export const leaderboardRouteDefs = routes([
  {
    id: 'getValidatorLeaderboard',
    method: 'GET',
    path: '/leaderboard/validators',
    category: 'Leaderboard',
    summary: 'Validators ranked by contribution score (then stake), with the score breakdown.',
    auth: 'public',
    params: [{ name: 'limit', in: 'query', description: 'how many (1..100, default 25)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } }],
    response: { type: 'array', items: object({ rank: int, ...validatorFullSchema.properties }) },
  },
  {
    id: 'getMinerLeaderboard',
    method: 'GET',
    path: '/leaderboard/miners',
    category: 'Leaderboard',
    summary: 'Inference miners ranked by inference score (FLOPs accepted in the score window), then by all FLOPs accepted.',
    auth: 'public',
    params: [{ name: 'limit', in: 'query', description: 'how many (1..100, default 25)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } }],
    response: {
      type: 'array',
      items: object({
        rank: int,
        wallet: str,
        status: { type: 'string', description: 'the miner status svc_getMinerInfo reports' },
        tier: str,
        models: { type: 'array', items: str },
        inferenceScore: { type: 'string', description: 'FLOPs accepted in the score window' },
        flops: { type: 'string', description: 'all FLOPs accepted' },
        tasksCompleted: int,
        proofsAccepted: int,
        spotChecksPassed: int,
        spotChecksFailed: int,
        blockRewards: { type: 'string', description: 'wei' },
        feeRewards: { type: 'string', description: 'wei' },
        jailedUntil: int,
      }),
    },
  },
]);

export type LeaderboardApi = Api<typeof leaderboardRouteDefs>;

/** A validator of the leaderboard: its rank and its full view. */
export type RankedValidator = LeaderboardApi['getValidatorLeaderboard']['response'][number];
