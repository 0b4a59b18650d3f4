// Leaderboard: validators by contribution score (inference miners join once the compute module exists).
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
  },];

export const leaderboardRoutes: RouteModule = { definitions, handlers: leaderboardHandlers };
