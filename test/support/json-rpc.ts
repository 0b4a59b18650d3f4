// A minimal JSON-RPC client over fetch, for tests that look at the wire rather than through a library.

/** An error object returned by the node. */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface JsonRpcResponse {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/** Call one method; returns its result or throws JsonRpcError with the node's code and message. */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = (await res.json()) as JsonRpcResponse;
  if (body.error) throw new JsonRpcError(body.error.code, body.error.message, body.error.data);
  return body.result as T;
}

/** POST a raw body; returns the HTTP status and the parsed JSON (or the text when it is not JSON). */
export async function postRaw(url: string, body: string | Uint8Array): Promise<{ status: number; json: unknown; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** Socket-level causes of a failed fetch: the server is gone (refused) or went away mid-request (reset, closed). */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * Whether `err` is fetch failing because the connection was refused or dropped (what a killed node
 * does to its clients), as opposed to an answer, a JSON-RPC error or a failed assertion.
 */
export function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof TypeError) || (err.message !== 'fetch failed' && err.message !== 'terminated')) return false;
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CONNECTION_FAILURES.has(code);
}

/** Poll `probe` until it returns a value other than undefined, or fail after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
