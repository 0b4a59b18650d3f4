// Batch: each sub-request runs through the same route, access control and envelope as on its own.
import { routeModule, type Handlers } from '../definition.js';
import { batchRouteDefs, type BatchApi } from '../routes/batch.js';

type Envelope = BatchApi['batch']['response'][number]['body'];

export const batchHandlers: Handlers<typeof batchRouteDefs> = {
  batch: async ({ body, http }, services) => {
    const { requests } = body;
    const out = [];
    for (const r of requests) {
      const answer = await services.dispatch!(http, r.path);
      out.push({ path: r.path, status: answer.status, body: answer.body as Envelope });
    }
    return out;
  },
};

export const batchRoutes = routeModule(batchRouteDefs, batchHandlers);
