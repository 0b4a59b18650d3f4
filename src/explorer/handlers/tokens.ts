// Tokens: read from the index.
import { routeModule, type ExplorerServices, type Handlers } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import type { TokenRecord } from '../indexer/records.js';
import { decodeCursor, keysetPage, PAGE } from '../pagination.js';
import type { Entry } from '../store.js';
import { addr, refuseIndexedBalances, tokenView, transferView } from '../views.js';
import { tokenRouteDefs } from '../routes/tokens.js';

const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;
const keyOf = (a: unknown) => Buffer.from((a as string).slice(2), 'hex');

function tokenOrThrow(services: ExplorerServices, address: unknown): { key: Buffer; token: TokenRecord } {
  const key = keyOf(address);
  const token = services.indexes.tokens.get(key);
  if (!token) throw new NotFoundError(`no token seen at ${address as string}`);
  return { key, token };
}

/** Entries under `sub` with keys relative to it, for keyset pages. */
function under<T>(scan: (from: Buffer | undefined, limit: number, reverse: boolean) => Entry<T>[], sub: Buffer) {
  return (from: Buffer | undefined, limit: number, reverse: boolean) =>
    scan(from === undefined ? undefined : Buffer.concat([sub, from]), limit, reverse).map((e) => ({ key: e.key.subarray(sub.length), value: e.value }));
}

export const tokenHandlers: Handlers<typeof tokenRouteDefs> = {
  listTokens: ({ query }, { indexes }) => {
    const type = query.type as string | undefined;
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      // "next" goes on in address order.
      (from, limit, forward) => {
        const out: Entry<TokenRecord>[] = [];
        let at = from;
        for (;;) {
          const chunk = indexes.tokens.scan(Buffer.alloc(0), at, limit * 2, !forward);
          for (const e of chunk) {
            if (type === undefined || e.value.type === type) out.push(e);
            if (out.length >= limit) return out;
          }
          if (chunk.length < limit * 2) return out;
          at = chunk[chunk.length - 1]!.key;
        }
      },
      (e) => tokenView(e.value),
    );
  },

  getToken: ({ params }, services) => tokenView(tokenOrThrow(services, params.address).token),

  getTokenHolders: ({ params, query }, services) => {
    refuseIndexedBalances(services.node.chain);
    const { key } = tokenOrThrow(services, params.address);
    const { holdersByBalance } = services.indexes;
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      // Forward scans of this index run from the largest balance: "next" is forward.
      under((from, limit, next) => holdersByBalance.scan(key, from, limit, !next), key),
      (e) => ({ address: addr(`0x${e.key.subarray(32).toString('hex')}`), balance: e.value.toString() }),
    );
  },

  getTokenTransfers: ({ params, query }, services) => {
    const { key, token } = tokenOrThrow(services, params.address);
    const { tokenTransfers } = services.indexes;
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      // Newest first: "next" scans backward.
      under((from, limit, next) => tokenTransfers.scan(key, from, limit, next), key),
      (e) => transferView(e.value, token),
    );
  },

  getTokenInstances: ({ params, query }, services) => {
    const { key, token } = tokenOrThrow(services, params.address);
    if (token.type === 'ERC-20') return { items: [], next: null, prev: null };
    const { instances } = services.indexes;
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      under((from, limit, forward) => instances.scan(key, from, limit, !forward), key),
      (e) => ({ tokenId: e.value.tokenId.toString(), owner: addr(e.value.owner), supply: e.value.supply.toString() }),
    );
  },
};

export const tokenRoutes = routeModule(tokenRouteDefs, tokenHandlers);
