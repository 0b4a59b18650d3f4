// eth_getLogs: logs over a block range (or one block by hash), capped in range, in results and in
// bytes: the answer is written natively as JSON bytes, within the reply limit.
import { rpc } from '../../params.js';
import { InvalidArgumentError, LogQueryLimitError, UnknownBlockError } from '../errors.js';
import { toQuantity } from '../hex.js';
import { method, RawJson, required, type MethodTable, type RpcContext } from '../method.js';
import { parseLogQuery, type BlockNumberOrTag, type LogQuery } from '../validate.js';

/** The logs a query matches now, as the answer's JSON bytes; shared by eth_getLogs and eth_getFilterLogs. */
export async function queryLogs(ctx: RpcContext, query: LogQuery): Promise<RawJson> {
  const { chain } = ctx.services;
  let fromBlock: number;
  let toBlock: number;
  if ('blockHash' in query.range) {
    const n = chain.blockNumberByHash(query.range.blockHash);
    if (n === null) throw new UnknownBlockError();
    fromBlock = n;
    toBlock = n;
  } else {
    const head = chain.head().number;
    // pending has no logs of its own here (blocks are sealed as they are built): it reads as latest.
    const resolve = (b: BlockNumberOrTag): bigint => ('number' in b ? b.number : BigInt(b.tag === 'earliest' ? 0 : head));
    const from = resolve(query.range.fromBlock);
    const to = resolve(query.range.toBlock);
    if (from > to) {
      throw new InvalidArgumentError(0, `invalid block range: fromBlock ${toQuantity(from)} is after toBlock ${toQuantity(to)}`);
    }
    // The cap applies to the range asked for, so an answer does not depend on how far the chain has grown.
    if (to - from + 1n > BigInt(rpc.maxLogBlockRange)) {
      const start = Number(from);
      throw new LogQueryLimitError('block range', rpc.maxLogBlockRange, start, start + rpc.maxLogBlockRange - 1);
    }
    if (from > BigInt(head)) return new RawJson(Buffer.from('[]'));
    fromBlock = Number(from);
    toBlock = Math.min(Number(to), head);
  }
  const result = await chain.getLogsJson({
    fromBlock,
    toBlock,
    addresses: query.addresses,
    topics: query.topics,
    limit: rpc.maxLogResults,
  });
  if (result.truncated) {
    throw new LogQueryLimitError('results', rpc.maxLogResults, fromBlock, Math.max(fromBlock, result.lastBlock));
  }
  return new RawJson(result.json);
}

export const logMethods: MethodTable = {
  eth_getLogs: method([required(parseLogQuery)], (ctx, [query]) => queryLogs(ctx, query)),
};
