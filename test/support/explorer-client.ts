// The explorer's envelope as tests read it: GET a route, expect success (ok) or a given refusal (refused).
import assert from 'node:assert/strict';

export interface Envelope<T = any> {
  status: number;
  ok: boolean;
  data: T;
  error?: string;
  headers: Headers;
}

export interface ExplorerClient {
  get<T = any>(route: string): Promise<Envelope<T>>;
  /** The data of a 200 envelope with ok = true. */
  ok<T = any>(route: string): Promise<T>;
  /** The error text of an envelope with ok = false and the given status. */
  refused(route: string, status: number): Promise<string>;
}

/** A client of the API under `base()` (read at each call, so tests may set it in before()). */
export function explorerClient(base: () => string): ExplorerClient {
  const get = async <T = any>(route: string): Promise<Envelope<T>> => {
    const res = await fetch(`${base()}${route}`);
    const body = (await res.json()) as { ok: boolean; data: T; error?: string };
    return { status: res.status, ok: body.ok, data: body.data, error: body.error, headers: res.headers };
  };
  return {
    get,
    async ok<T = any>(route: string): Promise<T> {
      const r = await get<T>(route);
      assert.equal(r.status, 200, `${route}: ${r.error}`);
      assert.equal(r.ok, true);
      return r.data;
    },
    async refused(route: string, status: number): Promise<string> {
      const r = await get(route);
      assert.equal(r.status, status, `${route} should be ${status}, got ${r.status} ${JSON.stringify(r.data ?? r.error)}`);
      assert.equal(r.ok, false);
      assert.equal(typeof r.error, 'string');
      return r.error!;
    },
  };
}
