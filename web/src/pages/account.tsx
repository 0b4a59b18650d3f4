// Accounts: register, sign in and out (the refresh cookie), the watchlist and API keys (a new key is
// shown once), all through the explorer's auth routes.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { login, logout, register, useSession } from '../auth.js';
import { AddressLink, Age, Loading, Section, Table } from '../components.js';
import { utc } from '../format.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import type { ApiKeyApi } from '../../../src/explorer/routes/api-keys.js';
import type { WatchlistApi } from '../../../src/explorer/routes/watchlist.js';
import type { explorer } from '../../../src/params.js';

/**
 * The server's account limits the forms check first. Written out so that the bundle carries none of
 * the node's constants; their types are params.ts' literals, so the type check fails when one differs.
 */
const limits: Pick<typeof explorer, 'passwordMinLength' | 'passwordMaxLength' | 'labelMaxLength' | 'watchlistPerAccount'> = {
  passwordMinLength: 8,
  passwordMaxLength: 128,
  labelMaxLength: 64,
  watchlistPerAccount: 100,
};

function field(e: Event, name: string): string {
  return ((e.currentTarget as HTMLFormElement).elements.namedItem(name) as HTMLInputElement).value;
}

function SignIn() {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = (action: typeof login) => async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await action(field(e, 'email'), field(e, 'password'));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h1>Account</h1>
      {error ? <p class="error" role="alert">{error}</p> : null}
      <div class="columns">
        <Section title="Sign in">
          <form class="stack" onSubmit={submit(login)} aria-label="sign in">
            <label>Email <input name="email" type="email" autoComplete="username" required /></label>
            <label>Password <input name="password" type="password" autoComplete="current-password" required /></label>
            <button type="submit" disabled={busy}>Sign in</button>
          </form>
        </Section>
        <Section title="Register">
          <form class="stack" onSubmit={submit(register)} aria-label="register">
            <label>Email <input name="email" type="email" autoComplete="username" required /></label>
            <label>Password ({limits.passwordMinLength} to {limits.passwordMaxLength} characters) <input name="password" type="password" autoComplete="new-password" minLength={limits.passwordMinLength} maxLength={limits.passwordMaxLength} required /></label>
            <button type="submit" disabled={busy}>Register</button>
          </form>
        </Section>
      </div>
    </>
  );
}

function Watchlist() {
  const [version, setVersion] = useState(0);
  const [error, setError] = useState('');
  // An account watches at most explorer.watchlistPerAccount (100) addresses: one page holds them all.
  const list = useApi<WatchlistApi['listWatchlist']['response']>(`/watchlist?limit=${limits.watchlistPerAccount}`, version);
  const add = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setError('');
    try {
      await api('/watchlist', { method: 'POST', body: { address: field(e, 'address').trim(), name: field(e, 'name') } });
      form.reset();
      setVersion((v) => v + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async (id: string) => {
    await api(`/watchlist/${id}`, { method: 'DELETE' }).catch((err: Error) => setError(err.message));
    setVersion((v) => v + 1);
  };
  return (
    <Section title="Watchlist">
      <Loading state={list}>
        {({ items }) => (
          <Table
            label="watchlist"
            head={['Address', 'Name', 'Latest activity', '']}
            empty="You watch no addresses yet."
            rows={items.map((w) => [
              <AddressLink address={w.address} label={w.address} />,
              w.name,
              w.latestActivity ? <span>{w.latestActivity.direction} <a href={`/tx/${w.latestActivity.txHash}`}>tx</a> (<Age at={w.latestActivity.timestamp} />)</span> : '—',
              <button type="button" onClick={() => remove(w.id)}>Remove</button>,
            ])}
          />
        )}
      </Loading>
      <form class="inline" onSubmit={add} aria-label="watch an address">
        <label>Address <input name="address" required pattern="0x[0-9a-fA-F]{40}" placeholder="0x…" size={44} /></label>
        <label>Name <input name="name" maxLength={limits.labelMaxLength} /></label>
        <button type="submit">Watch</button>
      </form>
      {error ? <p class="error" role="alert">{error}</p> : null}
    </Section>
  );
}

function ApiKeys() {
  const [version, setVersion] = useState(0);
  const [error, setError] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const keys = useApi<ApiKeyApi['listApiKeys']['response']>('/api-keys', version);
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setError('');
    try {
      const key = await api<ApiKeyApi['createApiKey']['response']>('/api-keys', { method: 'POST', body: { name: field(e, 'name') } });
      setCreated({ name: key.name, key: key.key });
      form.reset();
      setVersion((v) => v + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const revoke = async (id: string) => {
    await api(`/api-keys/${id}`, { method: 'DELETE' }).catch((err: Error) => setError(err.message));
    setVersion((v) => v + 1);
  };
  return (
    <Section title="API keys">
      {created ? (
        <div class="notice" role="status">
          <p>Your new key “{created.name}”, shown this once: store it now.</p>
          <output class="mono break" data-api-key>{created.key}</output>
        </div>
      ) : null}
      <Loading state={keys}>
        {(k) => (
          <>
            <Table
              label="API keys"
              head={['Name', 'Prefix', 'Tier', 'Created', 'Requests today', '']}
              empty="No API keys yet."
              rows={k.items.map((key) => [key.name, <span class="mono">{key.prefix}…</span>, key.tier, utc(Date.parse(key.createdAt) / 1000), key.requestsToday, <button type="button" onClick={() => revoke(key.id)}>Revoke</button>])}
            />
            <p class="muted">{k.items.length} of {k.maxKeys} keys. Send a key as ?apikey= or the X-Api-Key header.</p>
          </>
        )}
      </Loading>
      <form class="inline" onSubmit={create} aria-label="create an API key">
        <label>Key name <input name="name" required maxLength={limits.labelMaxLength} /></label>
        <button type="submit">Create key</button>
      </form>
      {error ? <p class="error" role="alert">{error}</p> : null}
    </Section>
  );
}

export function Account() {
  const session = useSession();
  if (!session) return <SignIn />;
  const signOut = async () => {
    await logout();
    navigate('/account', true);
  };
  return (
    <>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{session.email}</strong>. <button type="button" onClick={signOut}>Sign out</button>
      </p>
      <Watchlist />
      <ApiKeys />
    </>
  );
}
