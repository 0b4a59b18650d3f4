// Client-side routes on the History API: every page has a real URL (the server answers index.html
// for it), links are real <a href>s, and a plain click on one moves without a reload.
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** Goes to `href` on this origin without a reload. */
export function navigate(href: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  window.scrollTo(0, 0);
  for (const l of listeners) l();
}

/** The current location, re-rendered on navigation. */
export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return loc;
}

/** Takes over plain left clicks on same-origin links that are not downloads or new tabs. */
export function interceptLinks(): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = (event.target as Element | null)?.closest('a');
    if (!a || a.target || a.hasAttribute('download') || a.origin !== window.location.origin) return;
    if (a.pathname.startsWith('/api/')) return;
    event.preventDefault();
    navigate(a.pathname + a.search);
  });
}

/** Matches `path` against a pattern like /block/:id; the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const re = new RegExp(`^${pattern.replace(/:(\w+)/g, (_m, n: string) => (names.push(n), '([^/]+)'))}/?$`);
  const m = re.exec(path);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
}
