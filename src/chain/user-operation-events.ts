// ERC-4337's UserOperationEvent of the genesis EntryPoints (v0.6 and v0.7 emit the same event):
// its topic, which EntryPoint emitted a log, and its decoding. The RPC's ERC-7769 reads and the
// explorer's transaction details and address pages share it.
import { decodeEventLog, toEventSelector, type Address, type Hex } from 'viem';
import { entryPoint07Abi } from 'viem/account-abstraction';
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
