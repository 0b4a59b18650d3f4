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
  const [state, setState] = useState<Loaded<T>>({ data: undefined, error: undefined, loading: path !== null });
  useEffect(() => {
    if (path === null) return;
    const abort = new AbortController();
    setState((s) => ({ data: s.data, error: undefined, loading: true }));
    api<T>(path, { signal: abort.signal }).then(
      (data) => setState({ data, error: undefined, loading: false }),
      (error: Error) => {
        if (!abort.signal.aborted) setState({ data: undefined, error, loading: false });
      },
    );
    return () => abort.abort();
  }, [path, version]);
  return state;
}
