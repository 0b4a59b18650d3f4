// The explorer admin credential file (`<dataDir>/explorer-admin.json`) as the node writes it and
// the operator's CLI reads it; no server code here, so the CLI loads without the native addon.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiKeyTier } from './auth/store.js';

/** The credential file in the data dir. */
export const ADMIN_FILE = 'explorer-admin.json';
/** Path of the tier route; `:id` is the API key's id. */
export const ADMIN_TIER_PATH = '/admin/api-keys/:id/tier';

/** What the credential file holds. */
export interface AdminCredential {
  /** Base URL of the explorer, reachable from the node's host. */
  url: string;
  /** Bearer token of the admin routes (random per start). */
  token: string;
}

/** A key's tier and the limits that follow from it. */
export interface TierView {
  id: string;
  tier: ApiKeyTier;
  perSecond: number;
  /** null: no daily limit. */
  dailyLimit: number | null;
}

/** The credential of a running node on `dataDir`, or undefined when none is running there (no file). */
export function readAdminCredential(dataDir: string): AdminCredential | undefined {
  const file = path.join(dataDir, ADMIN_FILE);
  if (!existsSync(file)) return undefined;
  const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<AdminCredential>;
  if (typeof value.url !== 'string' || typeof value.token !== 'string') throw new Error(`${file} is not an explorer admin credential`);
  return { url: value.url, token: value.token };
}
