// The explorer's REST API on this origin: every answer is {ok, data} or {ok: false, error}.

export const API = '/api/v1';

/** An answer with ok = false: the API's message and the HTTP status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A page of a keyset-paginated list, as the routes declare it. */
export type { Page } from '../../src/explorer/schema.js';

let accessToken: string | null = null;

/** The access token of the signed-in user (kept in memory only; the refresh cookie outlives it). */
export function setAccessToken(token: string | null): void {
  accessToken = token;
}

export function signedIn(): boolean {
  return accessToken !== null;
}

/** Calls `path` under /api/v1 and returns the envelope's data, or throws ApiError. */
export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers['authorization'] = `Bearer ${accessToken}`;
  const res = await fetch(`${API}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? null : JSON.stringify(init.body),
    credentials: 'same-origin',
    ...(init.signal ? { signal: init.signal } : {}),
  });
  let body: { ok: boolean; data?: T; error?: string };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new ApiError(`HTTP ${res.status}`, res.status);
  }
  if (!body.ok) throw new ApiError(body.error ?? `HTTP ${res.status}`, res.status);
  return body.data as T;
}

/** A path with its query string, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
