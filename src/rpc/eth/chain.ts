// eth_chainId, eth_blockNumber, eth_syncing, eth_accounts: what the node is and where its head is.
import { toQuantity } from '../hex.js';
import { method, type MethodTable } from '../method.js';

export const chainMethods: MethodTable = {
  eth_chainId: method([], (ctx) => toQuantity(ctx.services.config.chainId)),

  eth_blockNumber: method([], (ctx) => toQuantity(ctx.services.chain.head().number)),

  // A solo node is never behind: it makes the blocks.
  eth_syncing: method([], () => false),

  // The node holds no keys: transactions are signed by the wallet and sent with eth_sendRawTransaction.
  eth_accounts: method([], () => []),
};
