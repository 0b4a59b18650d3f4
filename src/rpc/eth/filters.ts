// Polling filters: eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
// eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter.
import { method, optional, required, type MethodTable } from '../method.js';
import { parseBoolean, parseFilterId, parseLogQuery } from '../validate.js';
import { queryLogs } from './logs.js';

export const filterMethods: MethodTable = {
  eth_newFilter: method([required(parseLogQuery)], (ctx, [query]) => ctx.filters.installLogFilter(query)),

  eth_newBlockFilter: method([], (ctx) => ctx.filters.installBlockFilter()),

  eth_newPendingTransactionFilter: method([optional(parseBoolean)], (ctx, [fullTransactions]) =>
    ctx.filters.installPendingTransactionFilter(fullTransactions ?? false),
  ),

  eth_getFilterChanges: method([required(parseFilterId)], (ctx, [id]) => ctx.filters.takeChanges(id)),

  eth_getFilterLogs: method([required(parseFilterId)], (ctx, [id]) => queryLogs(ctx, ctx.filters.logQuery(id))),

  eth_uninstallFilter: method([required(parseFilterId)], (ctx, [id]) => ctx.filters.uninstall(id)),
};
