// Blocks: read from the chain; block transactions from the index.
import { routeModule, type Handlers } from '../definition.js';
import { blockRouteDefs } from '../routes/blocks.js';
import { transfersOf, type RpcLog } from '../transfers.js';
import { addressKey, type Hex } from '../indexer/records.js';
import { decodeCursor, keysetPage, PAGE } from '../pagination.js';
import { be, readBe } from '../store.js';
import { blockDetailView, blockView, findBlock, firstServedBlock, lowerHex, num, transferView, txSummaryView } from '../views.js';

const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;

export const blockHandlers: Handlers<typeof blockRouteDefs> = {
  listBlocks: ({ query }, { node }) => {
    const { chain } = node;
    const head = chain.head().number;
    // A node that joined by state sync lists the blocks it serves, from after its snapshot.
    const first = firstServedBlock(chain);
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      (from, limit, older) => {
        const start = from === undefined ? head : readBe(from) + (older ? -1 : 1);
        const out: { key: Buffer; block: Record<string, unknown> }[] = [];
        for (let n = start; n >= first && n <= head && out.length < limit; n += older ? -1 : 1) {
          const block = chain.getBlockSummary({ number: n });
          if (block) out.push({ key: be(n, 8), block });
        }
        return out;
      },
      (e) => blockView(e.block),
    );
  },

  getBlock: ({ params }, { node, indexes }) => {
    const block = findBlock(node.chain, params.id as string);
    const number = num(block.number);
    const txs = indexes.txs.scan(be(number, 8), undefined, 100, false).map((e) => txSummaryView(e.value));
    return { ...blockDetailView(block), transactions: txs };
  },

  getBlockTransactions: ({ params, query }, { node, indexes }) => {
    const number = num(findBlock(node.chain, params.id as string).number);
    const sub = be(number, 8);
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      limitOf(query),
      // In block order: "next" goes on through the block.
      (from, limit, forward) => indexes.txs.scan(sub, from, limit, !forward),
      (e) => txSummaryView(e.value),
    );
  },

  getBlockTokenTransfers: ({ params }, { node, indexes }) => {
    const block = findBlock(node.chain, params.id as string);
    const number = num(block.number);
    const receipts = (node.chain.getBlockReceipts({ number }) ?? []) as { status: string; transactionHash: Hex; logs: RpcLog[] }[];
    const out = [];
    for (const r of receipts) {
      if (r.status !== '0x1') continue;
      for (const log of r.logs) {
        for (const t of transfersOf(log)) {
          const token = lowerHex(log.address);
          out.push(
            transferView(
              { token, ...t, txHash: r.transactionHash, blockNumber: number, logIndex: num(log.logIndex), timestamp: num(block.timestamp) },
              indexes.tokens.get(addressKey(token)),
            ),
          );
        }
      }
    }
    return out;
  },
};

export const blockRoutes = routeModule(blockRouteDefs, blockHandlers);
