// ERC-4337's UserOperationEvent of the genesis EntryPoints (v0.6 and v0.7 emit the same event):
// its topic, which EntryPoint emitted a log, its decoding, finding an operation's event by its hash
// and the logs of its execution. The RPC's ERC-7769 reads and the explorer's transaction, address
// and user-operation pages share it.
import { decodeEventLog, toEventSelector, type Address, type Hex } from 'viem';
import { entryPoint07Abi } from 'viem/account-abstraction';
import type { Chain } from '../native/index.js';
import { rpc } from '../params.js';
import { ENTRY_POINT_V06, ENTRY_POINT_V07 } from './account-abstraction.js';

export type EntryPointVersion = '0.6' | '0.7';

/** topic 0 of UserOperationEvent (topic 1 = userOpHash, 2 = sender, 3 = paymaster). */
export const USER_OPERATION_EVENT = toEventSelector(
  'UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
);

/** The genesis EntryPoints, oldest first. */
export const ENTRY_POINT_VERSIONS: readonly { address: Address; version: EntryPointVersion }[] = [
  { address: ENTRY_POINT_V06 as Address, version: '0.6' },
  { address: ENTRY_POINT_V07 as Address, version: '0.7' },
];

/** The version of the genesis EntryPoint at `address`, or null for any other address. */
export function entryPointVersion(address: string): EntryPointVersion | null {
  return ENTRY_POINT_VERSIONS.find((e) => e.address.toLowerCase() === address.toLowerCase())?.version ?? null;
}

/** The canonical (checksummed) address of an EntryPoint version. */
export function entryPointAddress(version: EntryPointVersion): Address {
  return ENTRY_POINT_VERSIONS.find((e) => e.version === version)!.address;
}

export interface UserOperationEventArgs {
  userOpHash: Hex;
  sender: Address;
  paymaster: Address;
  nonce: bigint;
  success: boolean;
  actualGasCost: bigint;
  actualGasUsed: bigint;
}

/** Whether `log` is a UserOperationEvent emitted by a genesis EntryPoint. */
export function isUserOperationEvent(log: { address: string; topics: readonly string[] }): boolean {
  return log.topics[0] === USER_OPERATION_EVENT && log.topics.length === 4 && entryPointVersion(log.address) !== null;
}

/** The arguments of a UserOperationEvent log (as eth_getLogs shows a log). */
export function decodeUserOperationEvent(log: { topics: readonly string[]; data: string }): UserOperationEventArgs {
  const decoded = decodeEventLog({ abi: entryPoint07Abi, eventName: 'UserOperationEvent', topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex });
  return decoded.args;
}

const BEFORE_EXECUTION = toEventSelector('BeforeExecution()');

/** A log as the native log query answers it (eth_getLogs' shape). */
export interface UserOperationLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  [key: string]: unknown;
}

/**
 * The newest UserOperationEvent of `hash` emitted by a genesis EntryPoint, or null: topic 1 = the
 * hash, through the native log query (header blooms, then receipts), newest blocks first, one
 * eth_getLogs-sized window at a time, back at most rpc.userOperationLookbackBlocks blocks.
 */
export async function findUserOperationEvent(chain: Pick<Chain, 'head' | 'getLogs'>, hash: Buffer): Promise<UserOperationLog | null> {
  const head = chain.head().number;
  const lowest = Math.max(0, head - rpc.userOperationLookbackBlocks + 1);
  const window = rpc.maxLogBlockRange;
  for (let toBlock = head; toBlock >= lowest; toBlock -= window) {
    const fromBlock = Math.max(lowest, toBlock - window + 1);
    const found = await chain.getLogs({
      fromBlock,
      toBlock,
      addresses: ENTRY_POINT_VERSIONS.map((e) => Buffer.from(e.address.slice(2), 'hex')),
      topics: [[Buffer.from(USER_OPERATION_EVENT.slice(2), 'hex')], [hash]],
      limit: 16,
    });
    const logs = found.logs as unknown as UserOperationLog[];
    if (logs.length > 0) return logs[logs.length - 1]!;
  }
  return null;
}

/**
 * The logs of one operation's execution: after BeforeExecution or the previous operation's
 * UserOperationEvent, before its own event (the reference bundler's rule, except that an earlier
 * operation's event in the same bundle still moves the start once BeforeExecution was seen).
 */
export function userOperationExecutionLogs<L extends { address: string; topics: readonly string[]; logIndex: unknown }>(logs: L[], event: L): L[] {
  const sameAddress = (l: L) => l.address.toLowerCase() === event.address.toLowerCase();
  let start = -1;
  for (let i = 0; i < logs.length; i++) {
    const l = logs[i]!;
    if (!sameAddress(l)) continue;
    if (l.topics[0] === BEFORE_EXECUTION) start = i;
    else if (l.topics[0] === USER_OPERATION_EVENT) {
      if (l.logIndex === event.logIndex) return logs.slice(start + 1, i);
      start = i;
    }
  }
  return [];
}
