// 20-byte account addresses: parsing from user input and EIP-55 checksummed rendering.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { SvcError } from '../errors.js';

const ADDRESS_HEX = /^0x[0-9a-fA-F]{40}$/;

/** Raised for an address that is not 0x followed by 40 hex digits, or whose mixed case fails EIP-55. */
export class InvalidAddressError extends SvcError {
  override readonly name = 'InvalidAddressError';
  override readonly code = 'INVALID_ADDRESS';
  constructor(readonly input: string, reason: string) {
    super(`invalid address ${JSON.stringify(input)}: ${reason}`);
  }
}

/** Parse a 0x-prefixed address; a mixed-case input must carry a valid EIP-55 checksum. */
export function parseAddress(input: string): Buffer {
  if (!ADDRESS_HEX.test(input)) throw new InvalidAddressError(input, 'expected 0x followed by 40 hex digits');
  const bytes = Buffer.from(input.slice(2), 'hex');
  const body = input.slice(2);
  const mixedCase = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixedCase && checksumAddress(bytes) !== input) throw new InvalidAddressError(input, 'bad EIP-55 checksum');
  return bytes;
}

/** EIP-55 checksummed 0x rendering of a 20-byte address. */
export function checksumAddress(address: Uint8Array): string {
  if (address.length !== 20) throw new InvalidAddressError(Buffer.from(address).toString('hex'), 'expected 20 bytes');
  const lower = Buffer.from(address).toString('hex');
  const hash = keccak_256(Buffer.from(lower, 'ascii'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

/** Address of a secp256k1 public key (65-byte uncompressed form): the last 20 bytes of keccak256(x || y). */
export function addressOfPublicKey(uncompressed: Uint8Array): Buffer {
  if (uncompressed.length !== 65 || uncompressed[0] !== 0x04) {
    throw new Error('expected a 65-byte uncompressed secp256k1 public key');
  }
  return Buffer.from(keccak_256(uncompressed.subarray(1)).subarray(12));
}
