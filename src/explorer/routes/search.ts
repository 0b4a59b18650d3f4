// Search: a block number or hash, a transaction hash, an address, a token name or symbol, or a
// validator moniker.
import type { RouteDef, RouteModule } from '../definition.js';
import { searchHandlers } from '../handlers/search.js';

const definitions: RouteDef[] = [
  {
    id: 'search',
    method: 'GET',
    path: '/search',
    category: 'Search',
    summary: 'Finds blocks, transactions, addresses, tokens (name or symbol prefix) and validators (moniker) matching q.',
    auth: 'public',
    params: [{ name: 'q', in: 'query', required: true, description: 'what to look for (1..100 characters)', schema: { type: 'string', minLength: 1, maxLength: 100 } }],
    response: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } } } },
  },
];

export const searchRoutes: RouteModule = { definitions, handlers: searchHandlers };
