// User operations (ERC-4337): the genesis EntryPoints' UserOperationEvent logs, newest first — all
// of them, or one sender's (the address route) — and one operation by its hash with its bundle
// transaction and the logs of its execution (the rule eth_getUserOperationReceipt follows).
import { ENTRY_POINT_VERSIONS, findUserOperationEvent, USER_OPERATION_EVENT, userOperationExecutionLogs } from '../../chain/user-operation-events.js';
import type { Chain } from '../../native/index.js';
import { rpc as rpcParams } from '../../params.js';
import { routeModule, type Handlers } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { decodeCursor, encodeCursor, PAGE } from '../pagination.js';
import { be, readBe } from '../store.js';
import { userOperationRouteDefs, type LocatedUserOperation } from '../routes/user-operations.js';
import { addr, logView, num, userOperationView } from '../views.js';

type Log = { address: string; topics: string[]; data: string; blockNumber: unknown; logIndex: unknown; transactionHash: unknown };

const USER_OPERATION_TOPIC = Buffer.from(USER_OPERATION_EVENT.slice(2), 'hex');
const ENTRY_POINT_KEYS = ENTRY_POINT_VERSIONS.map((e) => Buffer.from(e.address.slice(2), 'hex'));

/**
 * A page of user operations, newest first: the genesis EntryPoints' UserOperationEvent logs (topic
 * 2 the sender when `sender` is given), through the native log query (header blooms, then
 * receipts), back at most rpc.userOperationLookbackBlocks blocks from the head, as
 * eth_getUserOperationReceipt looks for them. The cursor is the (block, log index) of the last one shown.
 */
export async function userOperationPage(chain: Pick<Chain, 'head' | 'getLogs'>, sender: string | null, cursorText: string | undefined, limit: number) {
  const cursor = decodeCursor(cursorText);
  const head = chain.head().number;
  const lowest = Math.max(0, head - rpcParams.userOperationLookbackBlocks + 1);
  let upper = cursor ? readBe(Buffer.from(cursor.after, 'hex').subarray(0, 8)) : head;
  const lastShown = cursor ? readBe(Buffer.from(cursor.after, 'hex').subarray(8)) : Number.MAX_SAFE_INTEGER;
  const topics = sender === null ? [[USER_OPERATION_TOPIC]] : [[USER_OPERATION_TOPIC], null, [Buffer.concat([Buffer.alloc(12), Buffer.from(sender.slice(2), 'hex')])]];
  const items: LocatedUserOperation[] = [];
  while (items.length < limit && upper >= lowest) {
    const lower = Math.max(lowest, upper - rpcParams.maxLogBlockRange + 1);
    const found = await chain.getLogs({ fromBlock: lower, toBlock: upper, addresses: ENTRY_POINT_KEYS, topics, limit: rpcParams.maxLogResults });
    const logs = (found.logs as unknown as Log[])
      .filter((l) => cursor === undefined || num(l.blockNumber) < upper || (num(l.blockNumber) === upper && num(l.logIndex) < lastShown))
      .reverse();
    for (const l of logs) {
      if (items.length >= limit) break;
      items.push({ ...userOperationView(l), transactionHash: l.transactionHash as string, blockNumber: num(l.blockNumber), logIndex: num(l.logIndex) });
    }
    if (items.length >= limit) break;
    upper = lower - 1;
  }
  const last = items[items.length - 1];
  const more = last !== undefined && (items.length === limit || upper >= lowest);
  return {
    items,
    next: more ? encodeCursor({ after: Buffer.concat([be(last.blockNumber, 8), be(last.logIndex, 4)]).toString('hex'), direction: 'older' }) : null,
    prev: null,
  };
}

export const userOperationHandlers: Handlers<typeof userOperationRouteDefs> = {
  listUserOperations: ({ query }, { node }) =>
    userOperationPage(node.chain, null, query.cursor as string | undefined, (query.limit as number | undefined) ?? PAGE.defaultLimit),

  getUserOperation: async ({ params }, { node }) => {
    const { chain } = node;
    const hash = (params.hash as string).toLowerCase();
    const event = await findUserOperationEvent(chain, Buffer.from(hash.slice(2), 'hex'));
    if (event === null) throw new NotFoundError(`user operation ${hash} not found in the last ${rpcParams.userOperationLookbackBlocks} blocks`);
    const txHash = Buffer.from(event.transactionHash.slice(2), 'hex');
    const receipt = chain.getTransactionReceipt(txHash) as { from: string; logs: Log[] } | null;
    if (receipt === null) throw new NotFoundError(`user operation ${hash}: its bundle transaction ${event.transactionHash} has no receipt`);
    const block = num(event.blockNumber);
    return {
      ...userOperationView(event),
      transactionHash: event.transactionHash,
      blockNumber: block,
      logIndex: num(event.logIndex),
      timestamp: num(chain.getBlockSummary({ number: block })?.timestamp),
      bundler: addr(receipt.from),
      logs: userOperationExecutionLogs(receipt.logs, receipt.logs.find((l) => num(l.logIndex) === num(event.logIndex)) ?? (event as unknown as Log)).map((l) => logView(l as never)),
    };
  },
};

export const userOperationRoutes = routeModule(userOperationRouteDefs, userOperationHandlers);
