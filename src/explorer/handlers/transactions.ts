// Transactions: lists from the index, details from the chain and the pool.
import { revertReason } from '../../chain/revert-reason.js';
import { isUserOperationEvent } from '../../chain/user-operation-events.js';
import { routeModule, type ExplorerServices, type Handlers } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { transfersOf, type RpcLog } from '../transfers.js';
import { addressKey, type Hex } from '../indexer/records.js';
import { decodeCursor, keysetPage, PAGE } from '../pagination.js';
import { transactionRouteDefs } from '../routes/transactions.js';
import type { TokenTransfer, UserOperation } from '../routes/shapes.js';
import { addr, big, internalTxView, logView, lowerHex, num, pendingView, transferView, txSummaryView, userOperationView } from '../views.js';

type Rpc = Record<string, unknown>;
const hashBytes = (h: string) => Buffer.from(h.slice(2), 'hex');

function mined(services: ExplorerServices, hash: string): { tx: Rpc; receipt: Rpc } {
  const { chain } = services.node;
  const tx = chain.getTransactionByHash(hashBytes(hash));
  const receipt = chain.getTransactionReceipt(hashBytes(hash));
  if (!tx || !receipt) throw new NotFoundError(`transaction ${hash} not found`);
  return { tx, receipt };
}

function tokenTransfers(services: ExplorerServices, receipt: Rpc): TokenTransfer[] {
  if (receipt.status !== '0x1') return [];
  const block = num(receipt.blockNumber);
  const timestamp = num(services.node.chain.getBlockSummary({ number: block })?.timestamp);
  return (receipt.logs as RpcLog[]).flatMap((log) =>
    transfersOf(log).map((t) => {
      const token = lowerHex(log.address);
      return transferView(
        { token, ...t, txHash: receipt.transactionHash as Hex, blockNumber: block, logIndex: num(log.logIndex), timestamp },
        services.indexes.tokens.get(addressKey(token)),
      );
    }),
  );
}

/** Replays a failed transaction as a call on its parent block's state to recover the revert reason. */
async function failureReason(services: ExplorerServices, tx: Rpc, block: number): Promise<{ revertReason: string | null; revertData: string | null }> {
  const { chain } = services.node;
  const result = await chain.call(
    {
      from: hashBytes(tx.from as string),
      ...(tx.to ? { to: hashBytes(tx.to as string) } : {}),
      data: hashBytes(tx.input as string),
      value: BigInt(tx.value as string),
      gas: BigInt(tx.gas as string),
    },
    Math.max(0, block - 1),
  );
  if (result.status === 'revert') {
    return { revertReason: revertReason(result.output) ?? null, revertData: `0x${result.output.toString('hex')}` };
  }
  return { revertReason: result.error ?? null, revertData: null };
}

/** The user operations a transaction's handleOps ran: one per UserOperationEvent of a genesis EntryPoint, in log order. */
function userOperations(receipt: Rpc): UserOperation[] {
  return (receipt.logs as RpcLog[]).filter(isUserOperationEvent).map(userOperationView);
}

/** A type-4 transaction's authorizations as signed (the authority is not recovered); null for other types. */
function authorizations(tx: Rpc): { chainId: number; address: string; nonce: number; yParity: number; r: string; s: string }[] | null {
  if (!Array.isArray(tx.authorizationList)) return null;
  return (tx.authorizationList as Rpc[]).map((a) => ({
    chainId: num(a.chainId),
    address: addr(a.address as string),
    nonce: num(a.nonce),
    yParity: num(a.yParity),
    r: a.r as string,
    s: a.s as string,
  }));
}

export const transactionHandlers: Handlers<typeof transactionRouteDefs> = {
  listTransactions: ({ query }, { indexes }) =>
    keysetPage(
      decodeCursor(query.cursor as string | undefined),
      (query.limit as number | undefined) ?? PAGE.defaultLimit,
      (from, limit, older) => indexes.txs.scan(Buffer.alloc(0), from, limit, older),
      (e) => txSummaryView(e.value),
    ),

  listPendingTransactions: ({ query }, { node }) => {
    const { mempool, chain } = node;
    const limit = (query.limit as number | undefined) ?? PAGE.defaultLimit;
    return mempool
      .hashes()
      .slice(0, limit)
      .flatMap((h) => {
        const p = mempool.get(h);
        return p ? [pendingView(chain.pendingTransactionJson(p.raw, p.tx.from))] : [];
      });
  },

  getTransaction: async ({ params }, services) => {
    const hash = params.hash as string;
    const { chain, mempool } = services.node;
    const tx = chain.getTransactionByHash(hashBytes(hash));
    if (!tx) {
      const p = mempool.get(hashBytes(hash));
      if (!p) throw new NotFoundError(`transaction ${hash} not found`);
      return pendingView(chain.pendingTransactionJson(p.raw, p.tx.from));
    }
    const receipt = chain.getTransactionReceipt(hashBytes(hash))!;
    const block = num(receipt.blockNumber);
    const timestamp = num(chain.getBlockSummary({ number: block })?.timestamp);
    const gasUsed = BigInt(receipt.gasUsed as string);
    const price = BigInt(receipt.effectiveGasPrice as string);
    const failed = receipt.status !== '0x1';
    return {
      hash,
      blockNumber: block,
      blockHash: receipt.blockHash as string,
      index: num(receipt.transactionIndex),
      timestamp,
      confirmations: chain.head().number - block + 1,
      status: failed ? 'failed' : 'success',
      from: addr(tx.from as string),
      to: addr(tx.to as string | null),
      createdContract: addr(receipt.contractAddress as string | null),
      value: big(tx.value),
      nonce: num(tx.nonce),
      type: num(tx.type),
      gasLimit: big(tx.gas),
      gasUsed: gasUsed.toString(),
      gasPrice: price.toString(),
      maxFeePerGas: tx.maxFeePerGas === undefined ? null : big(tx.maxFeePerGas),
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas === undefined ? null : big(tx.maxPriorityFeePerGas),
      fee: (gasUsed * price).toString(),
      input: tx.input as string,
      method: (tx.input as string).length >= 10 ? (tx.input as string).slice(0, 10) : (tx.input as string),
      ...(failed ? await failureReason(services, tx, block) : { revertReason: null, revertData: null }),
      authorizationList: authorizations(tx),
      logs: (receipt.logs as Rpc[]).map(logView),
      tokenTransfers: tokenTransfers(services, receipt),
      userOperations: userOperations(receipt),
    };
  },

  getTransactionLogs: ({ params }, services) => (mined(services, params.hash as string).receipt.logs as Rpc[]).map(logView),

  getTransactionTokenTransfers: ({ params }, services) => tokenTransfers(services, mined(services, params.hash as string).receipt),

  getTransactionInternalTransactions: ({ params }, services) => {
    mined(services, params.hash as string);
    // A transaction moves value to at most this many places inside it as the index keeps them.
    return services.indexes.internalTxs.scan(hashBytes(params.hash as string), undefined, 10_000, false).map((e) => internalTxView(e.value));
  },
};

export const transactionRoutes = routeModule(transactionRouteDefs, transactionHandlers);
