// Addresses: chain state at the head plus the index's history of the address.
import { toAddress } from '../../modules/kernel/module.js';
import type { AccountRentInfo } from '../../modules/rent/types.js';
import { rpc as rpcParams, system } from '../../params.js';
import { routeModule, type Handlers } from '../definition.js';
import type { AddressRole, InternalTxRecord } from '../indexer/records.js';
import { decodeCursor, encodeCursor, keysetPage, PAGE } from '../pagination.js';
import type { Entry } from '../store.js';
import { be, readBe } from '../store.js';
import { addressRouteDefs } from '../routes/addresses.js';
import type { Log } from '../routes/shapes.js';
import { addr, internalTxView, logView, refuseIndexedBalances, tokenView, transferView, txSummaryView } from '../views.js';
import { userOperationPage } from './user-operations.js';

const bytesOf = (a: string) => Buffer.from(a.slice(2), 'hex');
const rentFields = ({ address: _a, ...fields }: AccountRentInfo) => fields;
const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;
/** Blocks one page of logs looks through before it stops short. */
const LOG_SCAN_BLOCKS = 10_000;

export const addressHandlers: Handlers<typeof addressRouteDefs> = {
  getAddress: ({ params }, { node, indexes }) => {
    const a = params.address as string;
    const key = bytesOf(a);
    const { chain, queries } = node;
    const head = chain.head().number;
    const account = chain.getAccount(key, head);
    const code = chain.getCode(key, head);
    const contract = indexes.contracts.get(key);
    const token = indexes.tokens.get(key);
    const validator = queries.staking.validator(toAddress(key));
    const counters = indexes.counters.get(key);
    return {
      address: addr(a),
      balance: account.balance.toString(),
      nonce: Number(account.nonce),
      isContract: code.length > 0,
      codeSize: code.length,
      creator: contract ? addr(contract.creator) : null,
      creationTransaction: contract?.txHash ?? null,
      token: token ? tokenView(token) : null,
      validator: validator ? { moniker: validator.moniker, status: validator.status, stake: validator.tokens.toString() } : null,
      transactions: counters?.transactions ?? 0,
      tokenTransfers: counters?.tokenTransfers ?? 0,
      // svc_getAccountRentInfo's fields (docs/rent.md), whether the account is exempt, and the rent
      // module that takes payRent(account) and reactivate(account).
      rent: { ...rentFields(queries.rent.info(toAddress(key), queries.staking.currentEpoch)), exempt: queries.rent.isExempt(toAddress(key)), module: addr(system.rentAddress) },
    };
  },

  getAddressCounters: ({ params }, { node, indexes }) => {
    const key = bytesOf(params.address as string);
    const c = indexes.counters.get(key);
    const validator = node.queries.staking.validator(toAddress(key));
    return {
      transactions: c?.transactions ?? 0,
      tokenTransfers: c?.tokenTransfers ?? 0,
      blocksProduced: validator?.blocksProduced ?? 0,
      firstBlock: c?.firstBlock ?? null,
      lastBlock: c?.lastBlock ?? null,
    };
  },

  getAddressTransactions: ({ params, query }, { indexes }) => {
    const sub = bytesOf(params.address as string);
    const filter = query.filter as 'from' | 'to' | undefined;
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      (from, limit, older) => {
        // A filter may skip entries: keep reading until the page is full or the history ends.
        const out: Entry<AddressRole>[] = [];
        let at: Buffer | undefined = from === undefined ? undefined : Buffer.concat([sub, from]);
        for (;;) {
          const chunk = indexes.addressTxs.scan(sub, at, limit * 2, older);
          for (const e of chunk) {
            if (filter === undefined || e.value.roles.includes(filter)) out.push({ key: e.key.subarray(sub.length), value: e.value });
            if (out.length >= limit) return out;
          }
          if (chunk.length < limit * 2) return out;
          at = chunk[chunk.length - 1]!.key;
        }
      },
      (e) => ({ ...txSummaryView(e.value.tx), roles: e.value.roles }),
    );
  },

  getAddressInternalTransactions: ({ params, query }, { indexes }) => {
    const sub = bytesOf(params.address as string);
    const a = addr(params.address as string);
    const filter = query.filter as 'from' | 'to' | undefined;
    const keep = (r: InternalTxRecord) => filter === undefined || (filter === 'from' ? addr(r.from) === a : addr(r.to) === a);
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      (from, limit, older) => {
        const out: Entry<InternalTxRecord>[] = [];
        let at: Buffer | undefined = from === undefined ? undefined : Buffer.concat([sub, from]);
        for (;;) {
          const chunk = indexes.addressInternalTxs.scan(sub, at, limit * 2, older);
          for (const e of chunk) {
            if (keep(e.value)) out.push({ key: e.key.subarray(sub.length), value: e.value });
            if (out.length >= limit) return out;
          }
          if (chunk.length < limit * 2) return out;
          at = chunk[chunk.length - 1]!.key;
        }
      },
      (e) => internalTxView(e.value),
    );
  },

  getAddressTokenTransfers: ({ params, query }, { indexes }) => {
    const sub = bytesOf(params.address as string);
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      (from, limit, older) =>
        indexes.addressTransfers.scan(sub, from === undefined ? undefined : Buffer.concat([sub, from]), limit, older).map((e) => ({
          key: e.key.subarray(sub.length),
          value: e.value,
        })),
      (e) => transferView(e.value, indexes.tokens.get(bytesOf(e.value.token))),
    );
  },

  getAddressTokenBalances: ({ params }, { node, indexes }) => {
    refuseIndexedBalances(node.chain);
    const sub = bytesOf(params.address as string);
    return indexes.holdings.scan(sub, undefined, 1_000, false).map((e) => {
      const tokenKey = e.key.subarray(sub.length);
      const token = indexes.tokens.get(tokenKey);
      return { token: token ? tokenView(token) : { address: addr(`0x${tokenKey.toString('hex')}`) }, balance: e.value.toString() };
    });
  },

  getAddressLogs: async ({ params, query }, { node }) => {
    const { chain } = node;
    const key = bytesOf(params.address as string);
    const cursor = decodeCursor(query.cursor as string | undefined);
    const limit = limitOf(query);
    const head = chain.head().number;
    // Pages go back in time from the head; the cursor is the (block, log index) of the last log shown.
    let upper = cursor ? readBe(Buffer.from(cursor.after, 'hex').subarray(0, 8)) : head;
    const lastShown = cursor ? readBe(Buffer.from(cursor.after, 'hex').subarray(8)) : Number.MAX_SAFE_INTEGER;
    const items: Log[] = [];
    let scanned = 0;
    while (items.length < limit && upper >= 0 && scanned < LOG_SCAN_BLOCKS) {
      const lower = Math.max(0, upper - 999);
      const found = await chain.getLogs({ fromBlock: lower, toBlock: upper, addresses: [key], topics: [], limit: rpcParams.maxLogResults });
      const logs = found.logs
        .map(logView)
        .filter((l) => cursor === undefined || l.blockNumber < upper || (l.blockNumber === upper && l.logIndex < lastShown))
        .reverse();
      for (const l of logs) {
        if (items.length >= limit) break;
        items.push(l);
      }
      scanned += upper - lower + 1;
      upper = lower - 1;
    }
    const last = items[items.length - 1];
    const more = last !== undefined && (items.length === limit || upper >= 0);
    return {
      items,
      next: more ? encodeCursor({ after: Buffer.concat([be(last.blockNumber, 8), be(last.logIndex, 4)]).toString('hex'), direction: 'older' }) : null,
      prev: null,
    };
  },

  // The same page as /user-operations, of the operations whose sender (topic 2) is the address.
  getAddressUserOperations: ({ params, query }, { node }) => userOperationPage(node.chain, params.address as string, query.cursor as string | undefined, limitOf(query)),
};

export const addressRoutes = routeModule(addressRouteDefs, addressHandlers);
