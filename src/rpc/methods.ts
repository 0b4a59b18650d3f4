// The method table: every JSON-RPC method this node serves over HTTP, by namespace.
import { rawDebugMethods } from './debug/raw.js';
import { blockMethods } from './eth/blocks.js';
import { bundlerMethods } from './eth/bundler.js';
import { callMethods } from './eth/call.js';
import { chainMethods } from './eth/chain.js';
import { feeMethods } from './eth/fees.js';
import { filterMethods } from './eth/filters.js';
import { logMethods } from './eth/logs.js';
import { stateMethods } from './eth/state.js';
import { transactionMethods } from './eth/transactions.js';
import { unsupportedMethods } from './eth/unsupported.js';
import { userOperationMethods } from './eth/user-operations.js';
import { method, type MethodTable, type RpcMethod } from './method.js';
import { netMethods } from './net.js';
import { txpoolMethods } from './txpool.js';
import { web3Methods } from './web3.js';
import { debugMethods } from './debug/trace.js';
import { simulateMethods } from './eth/simulate.js';
import { devMethods } from './dev.js';
import { otsMethods } from './ots/otterscan.js';
import { traceMethods } from './trace/parity.js';

/**
 * Runs `m` once no block is being committed, so it reads the modules' committed state
 * (ChainApp.settled). Every svc_* method reads module state; eth_call and eth_estimateGas wait
 * only when they call a module (src/rpc/eth/call.ts).
 */
function afterCommit(m: RpcMethod): RpcMethod {
  return {
    args: m.args,
    async run(ctx, values) {
      await ctx.services.app.settled();
      return m.run(ctx, values);
    },
  };
}

/** The table of eth_*, net_*, txpool_*, web3_*, debug_*, trace_*, ots_* and rpc_modules; other namespaces (svc_*) are added by their owners. */
export function rpcMethods(...extra: MethodTable[]): MethodTable {
  const table: MethodTable = {
    ...chainMethods,
    ...stateMethods,
    ...blockMethods,
    ...transactionMethods,
    ...callMethods,
    ...simulateMethods,
    ...feeMethods,
    ...logMethods,
    ...userOperationMethods,
    ...bundlerMethods,
    ...filterMethods,
    ...unsupportedMethods,
    ...netMethods,
    ...txpoolMethods,
    ...web3Methods,
    ...debugMethods,
    ...rawDebugMethods,
    ...traceMethods,
    ...otsMethods,
    ...devMethods,
  };
  for (const more of extra) {
    for (const [name, m] of Object.entries(more)) {
      if (name in table) throw new Error(`JSON-RPC method ${name} is defined twice`);
      table[name] = m;
    }
  }
  for (const [name, m] of Object.entries(table)) if (name.startsWith('svc_')) table[name] = afterCommit(m);
  // geth's rpc_modules: the namespaces served, each at version "1.0".
  const modules = Object.fromEntries(
    [...new Set(Object.keys(table).map((name) => name.slice(0, name.indexOf('_'))))].sort().map((ns) => [ns, '1.0']),
  );
  table.rpc_modules = method([], () => ({ ...modules, rpc: '1.0' }));
  return table;
}
