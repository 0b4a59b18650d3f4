// The OpenAPI 3.1 document of the explorer, generated from the route definitions.
import { packageVersion } from '../version.js';
import type { RouteDef, Schema } from './definition.js';

const envelope = (data: Schema): Schema => ({
  type: 'object',
  required: ['ok', 'data'],
  properties: { ok: { const: true }, data },
});

const errorEnvelope: Schema = {
  type: 'object',
  required: ['ok', 'error'],
  properties: { ok: { const: false }, error: { type: 'string' } },
};

export function openApiDocument(routes: readonly RouteDef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const op: Record<string, unknown> = {
      operationId: r.id,
      summary: r.summary,
      tags: [r.category],
      parameters: (r.params ?? []).map((p) => ({ name: p.name, in: p.in, required: p.in === 'path' || p.required === true, description: p.description, schema: p.schema })),
      responses: {
        [String(r.status ?? 200)]: { description: 'success', content: { 'application/json': { schema: envelope(r.response) } } },
        default: { description: 'failure', content: { 'application/json': { schema: errorEnvelope } } },
      },
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: r.body } } };
    op.security = r.auth === 'user' ? [{ bearer: [] }] : [{}, { apiKeyQuery: [] }, { apiKeyHeader: [] }];
    (paths[r.path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc explorer API', version: packageVersion(), description: 'Blocks, transactions, addresses, contracts, tokens, analytics and the svc network. Every response is {ok, data} or {ok, error}.' },
    servers: [{ url: '/api/v1' }],
    tags: [...new Set(routes.map((r) => r.category))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'apikey' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
    },
  };
}
