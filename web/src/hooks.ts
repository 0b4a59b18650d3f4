// Loading API data into a component: the latest answer for the latest path, earlier ones dropped.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

/** GETs `path` (none when null) and re-GETs when it or `version` changes. */
export function useApi<T>(path: string | null, version = 0): Loaded<T> {
  const [state, setState] = useState<Loaded<T> & { path: string | null }>({ path, data: undefined, error: undefined, loading: path !== null });
  useEffect(() => {
    if (path === null) return;
    const abort = new AbortController();
    // A refresh of the same path keeps showing its data; another path's data is not this one's.
    setState((s) => ({ path, data: s.path === path ? s.data : undefined, error: undefined, loading: true }));
    api<T>(path, { signal: abort.signal }).then(
      (data) => setState({ path, data, error: undefined, loading: false }),
      (error: Error) => {
        if (!abort.signal.aborted) setState({ path, data: undefined, error, loading: false });
      },
    );
    return () => abort.abort();
  }, [path, version]);
  // Until the effect has run for a new path (this render), the previous path's answer is not shown:
  // a page moved to ?cursor=… shows "Loading…", never the rows of the page it came from.
  return state.path === path ? state : { data: undefined, error: undefined, loading: path !== null };
}
