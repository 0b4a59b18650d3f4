// The explorer's user data: one repository per entity in the "users" column family. Keys are
// prefix ++ binary ids, so one user's API keys or watchlist entries are one prefix scan.
import { randomBytes } from 'node:crypto';
import type { Chain } from '../../native/index.js';
import { explorer as explorerParams } from '../../params.js';
import { be, Repository } from '../store.js';
import type { Hex } from '../indexer/records.js';

export type ApiKeyTier = keyof typeof explorerParams.tiers;
export const API_KEY_TIERS = Object.keys(explorerParams.tiers) as ApiKeyTier[];

export interface UserRecord {
  id: string;
  /** Lowercased. */
  email: string;
  /** argon2id PHC string. */
  passwordHash: string;
  createdAt: string;
}

/** One issued refresh token, stored under the SHA-256 of its value (the value itself is never kept). */
export interface RefreshTokenRecord {
  family: string;
  userId: string;
  /** Unix milliseconds. */
  expiresAt: number;
  /** Set once it has been exchanged; presenting it again means it was stolen. */
  used: boolean;
}

/** Every refresh token descended from one sign-in; revoked as a whole on logout or on reuse. */
export interface RefreshTokenFamily {
  id: string;
  userId: string;
  /** Unix milliseconds: the sign-in ends then however often it refreshes. */
  expiresAt: number;
  revoked: boolean;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  /** SHA-256 of the key (hex): the key itself is never stored. */
  hash: string;
  /** The key's first characters, to tell keys apart in lists. */
  prefix: string;
  tier: ApiKeyTier;
  createdAt: string;
}

/** Requests of one key on one UTC day. */
export interface DayUsage {
  count: number;
  /** Unix milliseconds of the last request. */
  lastUsedAt: number;
}

export interface WatchlistEntry {
  id: string;
  /** Lowercase, as the explorer indexes keep addresses. */
  address: Hex;
  name: string;
  notifyIncoming: boolean;
  notifyOutgoing: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Binary form of a 16-byte hex id. */
export const idKey = (id: string): Buffer => Buffer.from(id, 'hex');

/** A new 16-byte id: 6 bytes of wall-clock milliseconds then 10 random bytes, so ids sort by creation. */
export function newId(): string {
  return Buffer.concat([be(Date.now(), 6), randomBytes(10)]).toString('hex');
}

/** Days since the Unix epoch (UTC) of a millisecond time. */
export const utcDay = (ms: number): number => Math.floor(ms / 86_400_000);

/** Every repository of the explorer's user data. */
export class UsersStore {
  readonly meta: Repository<string>;
  readonly users: Repository<UserRecord>;
  /** email -> user id. */
  readonly emails: Repository<string>;
  /** sha256(refresh token) -> record. */
  readonly refreshTokens: Repository<RefreshTokenRecord>;
  readonly refreshFamilies: Repository<RefreshTokenFamily>;
  /** key id -> key. */
  readonly apiKeys: Repository<ApiKeyRecord>;
  /** user id ++ key id -> 1: the keys of one account. */
  readonly userApiKeys: Repository<number>;
  /** sha256(API key) -> key id. */
  readonly apiKeyHashes: Repository<string>;
  /** key id ++ day (4 bytes) -> that day's requests. */
  readonly usage: Repository<DayUsage>;
  /** user id ++ entry id -> entry. */
  readonly watchlist: Repository<WatchlistEntry>;
  /** user id ++ address (20 bytes) -> entry id: one entry per address per watchlist. */
  readonly watchedAddresses: Repository<string>;

  constructor(readonly chain: Chain) {
    const repo = <T>(prefix: string) => new Repository<T>(chain, 'users', Buffer.from(prefix, 'utf8'));
    this.meta = repo('m/');
    this.users = repo('u/');
    this.emails = repo('e/');
    this.refreshTokens = repo('r/');
    this.refreshFamilies = repo('f/');
    this.apiKeys = repo('k/');
    this.userApiKeys = repo('j/');
    this.apiKeyHashes = repo('K/');
    this.usage = repo('n/');
    this.watchlist = repo('w/');
    this.watchedAddresses = repo('W/');
  }

  /** Entries under `sub` of `repo`, counted up to `max`. */
  count<T>(repo: Repository<T>, sub: Buffer, max: number): number {
    return repo.scan(sub, undefined, max, false).length;
  }
}
