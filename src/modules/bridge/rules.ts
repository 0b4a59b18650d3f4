// The bridge's rules that both its calls and its hooks apply, as pure functions: the digests the
// external contract checks (SvcBridge's withdrawalDigest and valsetDigest), what validators agree on
// for a deposit, the bridged set from the bonded validators, and the threshold.
import { encodeAbiParameters, keccak256, type Hex } from 'viem';
import { bridge as params } from '../../params.js';
import type { Address, BridgeConfig, BridgeValset, DepositContent } from './types.js';

/** SvcBridge's WITHDRAW_TAG and VALSET_TAG. */
const WITHDRAW_TAG = keccak256(Buffer.from('svc-bridge/withdraw/v1'));
const VALSET_TAG = keccak256(Buffer.from('svc-bridge/valset/v1'));
const lower = (a: string): Address => a.toLowerCase() as Address;

/** keccak256(abi.encode(nonce, token, sender, recipient, amount)): what validators agree on for one deposit. */
export function depositContentHash(nonce: number | bigint, c: DepositContent): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
      [BigInt(nonce), c.token, c.sender, c.recipient, c.amount],
    ),
  );
}

/** SvcBridge.withdrawalDigest(id, token, recipient, amount) for the contract `config` names. */
export function withdrawalDigest(config: BridgeConfig, svcChainId: number, id: number, token: Address, recipient: Address, amount: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
      [WITHDRAW_TAG, BigInt(config.chainId), config.contract, BigInt(svcChainId), BigInt(id), token, recipient, amount],
    ),
  );
}

/** SvcBridge.valsetDigest(validators, powers, nonce) for the contract `config` names. */
export function valsetDigest(config: BridgeConfig, svcChainId: number, set: BridgeValset): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'address[]' }, { type: 'uint256[]' }],
      [VALSET_TAG, BigInt(config.chainId), config.contract, BigInt(svcChainId), BigInt(set.nonce), set.validators, set.powers],
    ),
  );
}

/**
 * The set to bridge from the bonded validators: the largest `maxValidators` stakes (ties by
 * address), ascending by address as the contract keeps them.
 */
export function bridgedSet(bonded: readonly { address: Address; tokens: bigint }[], nonce: number): BridgeValset {
  const chosen = [...bonded]
    .filter((v) => v.tokens > 0n)
    .sort((a, b) => (a.tokens === b.tokens ? (a.address < b.address ? -1 : 1) : a.tokens > b.tokens ? -1 : 1))
    .slice(0, params.maxValidators)
    .sort((a, b) => (a.address < b.address ? -1 : 1));
  return { nonce, validators: chosen.map((v) => lower(v.address)), powers: chosen.map((v) => v.tokens) };
}

/** Whether `next` differs enough from `current` to be bridged: another membership, or powers moved by more than valsetChangeBps of the current total. */
export function valsetMoved(current: BridgeValset, next: BridgeValset): boolean {
  if (current.validators.join() !== next.validators.join()) return true;
  const total = current.powers.reduce((a, b) => a + b, 0n);
  const moved = current.powers.reduce((sum, p, i) => sum + (p > next.powers[i]! ? p - next.powers[i]! : next.powers[i]! - p), 0n);
  return moved * 10_000n > total * BigInt(params.valsetChangeBps);
}

/** Whether `part` of `total` passes the bridge's threshold: part * 3 > total * 2 (and something is at stake). */
export function passesThreshold(part: bigint, total: bigint): boolean {
  return total > 0n && part * 3n > total * 2n;
}

/** The power of `signers` in `valset`. */
export function signedPower(valset: BridgeValset, signers: readonly Address[]): bigint {
  const set = new Set(signers);
  return valset.validators.reduce((sum, v, i) => (set.has(v) ? sum + valset.powers[i]! : sum), 0n);
}

/** Whether `signers` hold more than 2/3 of `set`'s power. */
export function signedEnough(set: BridgeValset, signers: readonly Address[]): boolean {
  return passesThreshold(signedPower(set, signers), set.powers.reduce((a, b) => a + b, 0n));
}
