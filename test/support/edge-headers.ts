// The headers every answer of every port must carry (src/net/edge-headers.ts; the native JSON-RPC
// port: crates/svc-rpc-http): checked on answers taken as fetch Headers, node:http headers or a
// hand-parsed head with lowercase names.
import assert from 'node:assert/strict';

type AnyHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: AnyHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Asserts X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer; `what` names the answer. */
export function assertEdgeHeaders(headers: AnyHeaders, what: string): void {
  assert.equal(header(headers, 'x-content-type-options'), 'nosniff', `${what}: X-Content-Type-Options`);
  assert.equal(header(headers, 'referrer-policy'), 'no-referrer', `${what}: Referrer-Policy`);
}
