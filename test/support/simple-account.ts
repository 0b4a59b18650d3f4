// The SimpleAccount of @account-abstraction/contracts as tests drive it: its factory's and its own
// functions, and the owner's signature of a user operation (an EIP-191 signature of the operation's
// hash, as SimpleAccount v0.6 and v0.7 check it).
import { parseAbi, type Address, type LocalAccount } from 'viem';
import { getUserOperationHash, type UserOperation } from 'viem/account-abstraction';
import { ENTRY_POINT_V06, ENTRY_POINT_V07 } from '../../src/chain/account-abstraction.js';

export const SIMPLE_ACCOUNT_FACTORY_ABI = parseAbi([
  'function createAccount(address owner, uint256 salt) returns (address)',
  'function getAddress(address owner, uint256 salt) view returns (address)',
  'function accountImplementation() view returns (address)',
]);

export const SIMPLE_ACCOUNT_ABI = parseAbi([
  'function owner() view returns (address)',
  'function entryPoint() view returns (address)',
  'function execute(address dest, uint256 value, bytes func)',
]);

/** Signs `op` for the genesis EntryPoint of its version on chain `chainId` (the signature is set on `op`); returns the operation's hash. */
export async function signUserOperation<V extends '0.6' | '0.7'>(owner: LocalAccount, version: V, op: UserOperation<V>, chainId: number): Promise<`0x${string}`> {
  const entryPointAddress: Address = version === '0.6' ? ENTRY_POINT_V06 : ENTRY_POINT_V07;
  const hash = getUserOperationHash({ chainId, entryPointAddress, entryPointVersion: version, userOperation: op } as never);
  (op as { signature: `0x${string}` }).signature = await owner.signMessage({ message: { raw: hash } });
  return hash;
}
