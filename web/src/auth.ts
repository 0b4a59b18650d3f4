// Signing in with the explorer's auth routes: the access token lives in memory, the refresh token in
// its HttpOnly cookie; a flag in localStorage says whether a refresh is worth trying on load.
import { useEffect, useState } from 'preact/hooks';
import { api, setAccessToken } from './api.js';
import type { AuthenticationApi } from '../../src/explorer/routes/authentication.js';

const FLAG = 'svc-explorer-signed-in';

export interface Session {
  email: string;
}

/** What register, login and refresh answer. */
type Issued = AuthenticationApi['authLogin']['response'];

let session: Session | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

function set(next: Session | null): void {
  session = next;
  for (const l of listeners) l();
}

function accept(issued: Issued): void {
  setAccessToken(issued.accessToken);
  localStorage.setItem(FLAG, '1');
  clearTimeout(timer);
  // Rotate a minute before the access token expires.
  timer = setTimeout(() => void refresh(), Math.max(10, issued.expiresIn - 60) * 1000);
  set({ email: issued.user.email });
}

export async function login(email: string, password: string): Promise<void> {
  accept(await api<Issued>('/auth/login', { method: 'POST', body: { email, password } }));
}

export async function register(email: string, password: string): Promise<void> {
  accept(await api<Issued>('/auth/register', { method: 'POST', body: { email, password } }));
}

async function refresh(): Promise<void> {
  try {
    accept(await api<Issued>('/auth/refresh', { method: 'POST' }));
  } catch {
    forget();
  }
}

function forget(): void {
  clearTimeout(timer);
  setAccessToken(null);
  localStorage.removeItem(FLAG);
  set(null);
}

export async function logout(): Promise<void> {
  try {
    // JSON, as the route requires (a cross-site form cannot send it).
    await api('/auth/logout', { method: 'POST', body: {} });
  } finally {
    forget();
  }
}

/** On load: a previous sign-in's cookie is exchanged for a fresh access token. */
export async function restoreSession(): Promise<void> {
  if (localStorage.getItem(FLAG) === '1') await refresh();
}

export function useSession(): Session | null {
  const [s, setS] = useState(session);
  useEffect(() => {
    const update = () => setS(session);
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, []);
  return s;
}
