// Search: exact matches first (block, transaction, address), then tokens and validators by name.
import { toAddress } from '../../modules/kernel/module.js';
import { routeModule, type Handlers } from '../definition.js';
import { addr, firstServedBlock, num, tokenView } from '../views.js';
import { searchRouteDefs, type SearchHit } from '../routes/search.js';

const MAX_RESULTS = 20;

export const searchHandlers: Handlers<typeof searchRouteDefs> = {
  search: ({ query }, { node, indexes }) => {
    const q = (query.q as string).trim();
    const { chain, mempool, queries } = node;
    const results: SearchHit[] = [];
    if (/^\d{1,15}$/.test(q)) {
      const block = chain.getBlockSummary({ number: Number(q) });
      if (block && num(block.number) >= firstServedBlock(chain)) results.push({ type: 'block', number: num(block.number), hash: block.hash as string });
    }
    if (/^0x[0-9a-fA-F]{64}$/.test(q)) {
      const bytes = Buffer.from(q.slice(2), 'hex');
      const tx = chain.getTransactionByHash(bytes);
      if (tx) results.push({ type: 'transaction', hash: tx.hash as string, blockNumber: num(tx.blockNumber) });
      else if (mempool.get(bytes)) results.push({ type: 'transaction', hash: q.toLowerCase(), blockNumber: null, pending: true });
      const block = chain.getBlockSummary({ hash: bytes });
      if (block && num(block.number) >= firstServedBlock(chain)) results.push({ type: 'block', number: num(block.number), hash: block.hash as string });
    }
    if (/^0x[0-9a-fA-F]{40}$/.test(q)) {
      const key = Buffer.from(q.slice(2), 'hex');
      const token = indexes.tokens.get(key);
      const validator = queries.staking.validator(toAddress(key));
      const isContract = chain.getCode(key, chain.head().number).length > 0;
      results.push({ type: token ? 'token' : isContract ? 'contract' : 'address', address: addr(q), ...(token ? { token: tokenView(token) } : {}) });
      if (validator) results.push({ type: 'validator', address: addr(q), moniker: validator.moniker });
    }
    const term = q.toLowerCase();
    const seen = new Set<string>();
    for (const e of indexes.tokenSearch.scan(Buffer.from(term, 'utf8'), undefined, MAX_RESULTS, false)) {
      const tokenKey = e.key.subarray(e.key.length - 20);
      const id = tokenKey.toString('hex');
      if (seen.has(id)) continue;
      seen.add(id);
      const token = indexes.tokens.get(tokenKey);
      if (token) results.push({ type: 'token', address: addr(token.address), token: tokenView(token) });
    }
    for (const v of queries.staking.validators()) {
      if (results.length >= MAX_RESULTS) break;
      if (v.moniker.toLowerCase().includes(term)) results.push({ type: 'validator', address: addr(v.address), moniker: v.moniker });
    }
    return results.slice(0, MAX_RESULTS);
  },
};

export const searchRoutes = routeModule(searchRouteDefs, searchHandlers);
