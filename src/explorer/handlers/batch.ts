// Batch: each sub-request runs through the same route, access control and envelope as on its own.
import type { Handler } from '../definition.js';

export const MAX_BATCH = 20;

export const batchHandlers: Record<string, Handler> = {
  batch: async ({ body, http }, services) => {
    const { requests } = body as { requests: { path: string }[] };
    const out = [];
    for (const r of requests) {
      const answer = await services.dispatch!(http, r.path);
      out.push({ path: r.path, status: answer.status, body: answer.body });
    }
    return out;
  },
};
