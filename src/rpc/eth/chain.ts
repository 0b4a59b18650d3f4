// eth_chainId, eth_blockNumber, eth_syncing, eth_accounts: what the node is and where its head is.
import { toQuantity } from '../hex.js';
import { method, type MethodTable } from '../method.js';

export const chainMethods: MethodTable = {
  eth_chainId: method([], (ctx) => toQuantity(ctx.services.config.chainId)),

  eth_blockNumber: method([], (ctx) => toQuantity(ctx.services.chain.head().number)),

  // geth's answer: false when in step, else where the sync started, stands and is going.
  eth_syncing: method([], (ctx) => {
    const { syncing, highestBlock } = ctx.services.network.sync();
    if (!syncing) return false;
    return {
      startingBlock: toQuantity(ctx.services.startingBlock),
      currentBlock: toQuantity(ctx.services.chain.head().number),
      highestBlock: toQuantity(highestBlock),
    };
  }),

  // The node holds no keys: transactions are signed by the wallet and sent with eth_sendRawTransaction.
  eth_accounts: method([], () => []),
};
