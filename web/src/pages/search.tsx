// Search through the explorer's /search: one clear hit goes straight to its page, several are listed.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Loading, Section } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import type { SearchHit } from '../../../src/explorer/routes/search.js';

/** The page of a hit. */
export function hitHref(hit: SearchHit): string {
  switch (hit.type) {
    case 'block':
      return `/block/${hit.number}`;
    case 'transaction':
      return `/tx/${hit.hash}`;
    case 'token':
      return `/token/${hit.address}`;
    case 'validator':
      return `/validator/${hit.address}`;
    default:
      return `/address/${hit.address}`;
  }
}

function hitLabel(hit: SearchHit): string {
  switch (hit.type) {
    case 'block':
      return `Block ${hit.number}`;
    case 'transaction':
      return `Transaction ${hit.hash}`;
    case 'token':
      return `Token ${hit.token?.name ?? ''} (${hit.token?.symbol ?? ''}) ${hit.address}`;
    case 'validator':
      return `Validator ${hit.moniker} ${hit.address}`;
    default:
      return `Address ${hit.address}`;
  }
}

/** Exact kinds (a number, a hash, an address) win over name prefixes. */
function straightHit(hits: SearchHit[]): SearchHit | null {
  if (hits.length === 1) return hits[0]!;
  const first = hits[0];
  return first && (first.type === 'block' || first.type === 'transaction' || first.type === 'address') ? first : null;
}

export function SearchForm() {
  const [q, setQ] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const query = q.trim();
    if (!query) return;
    setBusy(true);
    setMessage('');
    try {
      const hits = await api<SearchHit[]>(`/search?q=${encodeURIComponent(query)}`);
      const hit = straightHit(hits);
      if (hit) {
        setQ('');
        navigate(hitHref(hit));
      } else {
        navigate(`/search?q=${encodeURIComponent(query)}`);
      }
    } catch (err) {
      setMessage((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="search" role="search" onSubmit={submit}>
      <label for="q" class="sr-only">Search</label>
      <input id="q" type="search" name="q" placeholder="Block, transaction, address, token" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} maxLength={100} />
      <button type="submit" disabled={busy}>Search</button>
      {message ? <span class="error" role="alert">{message}</span> : null}
    </form>
  );
}

export function SearchResults({ q }: { q: string }) {
  const hits = useApi<SearchHit[]>(q ? `/search?q=${encodeURIComponent(q)}` : null);
  return (
    <Section title={`Search: ${q}`}>
      {q ? (
        <Loading state={hits}>
          {(list) =>
            list.length === 0 ? (
              <p>Nothing matches “{q}”.</p>
            ) : (
              <ul>
                {list.map((h, i) => (
                  <li key={i}>
                    <a href={hitHref(h)}>{hitLabel(h)}</a>
                  </li>
                ))}
              </ul>
            )
          }
        </Loading>
      ) : (
        <p class="muted">Type a block number or hash, a transaction hash, an address, or a token's name or symbol.</p>
      )}
    </Section>
  );
}
