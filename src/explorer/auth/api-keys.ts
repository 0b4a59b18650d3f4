// API keys: `svc_` + random base62, shown once and stored only as a SHA-256 hash. An account
// holds at most apiKeysPerAccount keys; creation counts and writes with no await in between, so
// concurrent requests cannot pass the cap. Tiers are changed by the operator, never by the user.
import { createHash, randomBytes } from 'node:crypto';
import { explorer as params } from '../../params.js';
import { ConflictError, NotFoundError } from '../envelope.js';
import { commit } from '../store.js';
import { idKey, newId, type ApiKeyRecord, type ApiKeyTier, type UsersStore } from './store.js';
import type { DailyUsage } from './usage.js';

const PREFIX = 'svc_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${PREFIX}[0-9A-Za-z]{${params.apiKeyRandomChars}}$`);

const keyHash = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** `svc_` and apiKeyRandomChars uniformly random base62 characters. */
export function generateApiKey(): string {
  let out = PREFIX;
  while (out.length < PREFIX.length + params.apiKeyRandomChars) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: bytes above it are dropped so every character is equally likely.
      if (byte < 248 && out.length < PREFIX.length + params.apiKeyRandomChars) out += BASE62[byte % 62];
    }
  }
  return out;
}

export class ApiKeys {
  constructor(
    private readonly store: UsersStore,
    private readonly usage: DailyUsage,
  ) {}

  /** Creates a key for the user; the key itself is returned here and never again. */
  create(userId: string, name: string): { record: ApiKeyRecord; key: string } {
    const user = idKey(userId);
    if (this.store.count(this.store.userApiKeys, user, params.apiKeysPerAccount) >= params.apiKeysPerAccount) {
      throw new ConflictError(`API key limit reached: an account may hold at most ${params.apiKeysPerAccount} keys; revoke one first`);
    }
    const key = generateApiKey();
    const hash = keyHash(key);
    const record: ApiKeyRecord = {
      id: newId(),
      hash: hash.toString('hex'),
      userId,
      name,
      prefix: key.slice(0, params.apiKeyShownChars),
      tier: params.defaultTier,
      createdAt: new Date().toISOString(),
    };
    commit(this.store.chain, 'users', [
      this.store.apiKeys.putWrite(idKey(record.id), record),
      this.store.userApiKeys.putWrite(Buffer.concat([user, idKey(record.id)]), 1),
      this.store.apiKeyHashes.putWrite(hash, record.id),
    ]);
    return { record, key };
  }

  /** The user's keys, oldest first. */
  list(userId: string): ApiKeyRecord[] {
    return this.store.userApiKeys
      .scan(idKey(userId), undefined, 1_000, false)
      .map((e) => this.store.apiKeys.get(e.key.subarray(16)))
      .filter((r): r is ApiKeyRecord => r !== undefined);
  }

  count(userId: string): number {
    return this.store.count(this.store.userApiKeys, idKey(userId), 1_000);
  }

  /** The user's key `keyId`; 404 when it does not exist or belongs to someone else. */
  owned(userId: string, keyId: string): ApiKeyRecord {
    const record = this.store.apiKeys.get(idKey(keyId));
    if (!record || record.userId !== userId) throw new NotFoundError(`API key ${keyId} not found`);
    return record;
  }

  /** Revokes the user's key: it stops working at once and its usage counts go. */
  revoke(userId: string, keyId: string): void {
    const record = this.owned(userId, keyId);
    commit(this.store.chain, 'users', [
      this.store.apiKeys.deleteWrite(idKey(record.id)),
      this.store.userApiKeys.deleteWrite(Buffer.concat([idKey(userId), idKey(record.id)])),
      this.store.apiKeyHashes.deleteWrite(Buffer.from(record.hash, 'hex')),
      ...this.usage.forget(record.id),
    ]);
  }

  /** The live key record of a presented key, or undefined for unknown and revoked keys. */
  resolve(key: string): ApiKeyRecord | undefined {
    if (!KEY_PATTERN.test(key)) return undefined;
    const hash = keyHash(key);
    const keyId = this.store.apiKeyHashes.get(hash);
    const record = keyId === undefined ? undefined : this.store.apiKeys.get(idKey(keyId));
    return record?.hash === hash.toString('hex') ? record : undefined;
  }

  /** Operator action: moves a key to another tier. */
  setTier(keyId: string, tier: ApiKeyTier): ApiKeyRecord {
    const record = this.store.apiKeys.get(idKey(keyId));
    if (!record) throw new NotFoundError(`API key ${keyId} not found`);
    const updated = { ...record, tier };
    this.store.apiKeys.put(idKey(keyId), updated);
    return updated;
  }
}
