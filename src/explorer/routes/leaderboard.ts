// Leaderboard: validators by contribution score, inference miners by inference score.
import type { RouteDef, RouteModule } from '../definition.js';
import { leaderboardHandlers } from '../handlers/leaderboard.js';

const definitions: RouteDef[] = [
  {
    id: 'getValidatorLeaderboard',
    method: 'GET',
    path: '/leaderboard/validators',
    category: 'Leaderboard',
    summary: 'Validators ranked by contribution score (then stake), with the score breakdown.',
    auth: 'public',
    params: [{ name: 'limit', in: 'query', description: 'how many (1..100, default 25)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } }],
    response: { type: 'array', items: { type: 'object' } },
  },
  {
    id: 'getMinerLeaderboard',
    method: 'GET',
    path: '/leaderboard/miners',
    category: 'Leaderboard',
    summary: 'Inference miners ranked by inference score (FLOPs accepted in the score window), then by all FLOPs accepted.',
    auth: 'public',
    params: [{ name: 'limit', in: 'query', description: 'how many (1..100, default 25)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } }],
    response: { type: 'array', items: { type: 'object' } },
  },
];

export const leaderboardRoutes: RouteModule = { definitions, handlers: leaderboardHandlers };
