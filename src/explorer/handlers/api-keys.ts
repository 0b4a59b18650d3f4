// API key handlers: every key belongs to the signed-in user; another user's key id is not found.
import { explorer as params } from '../../params.js';
import { authServices, signedIn, type AuthServices } from '../auth/access.js';
import type { ApiKeyRecord } from '../auth/store.js';
import { routeModule, type Handlers } from '../definition.js';
import { BadRequestError } from '../envelope.js';
import { apiKeyRouteDefs } from '../routes/api-keys.js';

/** A key as lists show it: never the key or its hash. */
function view(auth: AuthServices, r: ApiKeyRecord) {
  const lastUsedAt = auth.usage.lastUsedAt(r.id);
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    tier: r.tier,
    createdAt: r.createdAt,
    lastUsedAt: lastUsedAt === null ? null : new Date(lastUsedAt).toISOString(),
    requestsToday: auth.usage.today(r.id),
  };
}

export const apiKeyHandlers: Handlers<typeof apiKeyRouteDefs> = {
  listApiKeys({ user }, services) {
    const auth = authServices(services);
    return { items: auth.apiKeys.list(signedIn(user).id).map((r) => view(auth, r)), maxKeys: params.apiKeysPerAccount };
  },

  createApiKey({ user, body }, services) {
    const auth = authServices(services);
    const name = (body as { name: string }).name.trim();
    if (name === '') throw new BadRequestError('body.name must not be blank');
    const { record, key } = auth.apiKeys.create(signedIn(user).id, name);
    return { ...view(auth, record), key };
  },

  revokeApiKey({ user, params: p }, services) {
    const id = p['id'] as string;
    authServices(services).apiKeys.revoke(signedIn(user).id, id);
    return { id, revoked: true };
  },

  getApiKeyUsage({ user, params: p }, services) {
    const auth = authServices(services);
    const record = auth.apiKeys.owned(signedIn(user).id, p['id'] as string);
    const tier = params.tiers[record.tier];
    const requestsToday = auth.usage.today(record.id);
    const day = auth.usage.day();
    return {
      id: record.id,
      tier: record.tier,
      day: day.date,
      requestsToday,
      dailyLimit: tier.daily,
      remainingToday: tier.daily === null ? null : Math.max(0, tier.daily - requestsToday),
      perSecond: tier.perSecond,
      resetsAt: day.endsAt,
    };
  },
};

export const apiKeyRoutes = routeModule(apiKeyRouteDefs, apiKeyHandlers);
