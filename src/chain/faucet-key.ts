// The testnet faucet's private key, given by the operator in a key file or SVC_FAUCET_PRIVATE_KEY.
// It is held in a private field that logs, JSON and util.inspect never show; only the faucet's
// signer reads it, and no error message quotes it.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressOfPublicKey, checksumAddress } from './address.js';
import { SvcError } from '../errors.js';

/** The variable that may hold the key itself (there is no flag for it: a command line shows in `ps`). */
export const FAUCET_KEY_ENV = 'SVC_FAUCET_PRIVATE_KEY';
/** The variable that may hold the bundler's key (the same rules as the faucet's; FaucetKey holds either). */
export const BUNDLER_KEY_ENV = 'SVC_BUNDLER_PRIVATE_KEY';
/** The environment variable that holds the bridge key (a validator's operator key) itself. */
export const BRIDGE_KEY_ENV = 'SVC_BRIDGE_PRIVATE_KEY';

const KEY_HEX = /^(0x)?[0-9a-fA-F]{64}$/;

/** Raised for a key file that cannot be read or a key that is not a secp256k1 private key; never quotes the key. */
export class FaucetKeyError extends SvcError {
  override readonly name = 'FaucetKeyError';
  override readonly code = 'FAUCET_KEY';
}

/** An operator's faucet key and its address. */
export class FaucetKey {
  readonly #privateKey: `0x${string}`;
  /** EIP-55 checksummed address of the key. */
  readonly address: string;
  readonly addressBytes: Buffer;

  /** `source` names where the text came from in the error message (a file or the variable). */
  constructor(text: string, source: string) {
    const hex = text.trim();
    const invalid = `${source}: expected a secp256k1 private key, 64 hex digits with or without 0x`;
    if (!KEY_HEX.test(hex)) throw new FaucetKeyError(invalid);
    const bytes = Buffer.from(hex.replace(/^0x/, ''), 'hex');
    if (!secp256k1.utils.isValidSecretKey(bytes)) throw new FaucetKeyError(`${invalid} (it is zero or not below the curve order)`);
    this.#privateKey = `0x${bytes.toString('hex')}`;
    this.addressBytes = addressOfPublicKey(secp256k1.getPublicKey(bytes, false));
    this.address = checksumAddress(this.addressBytes);
  }

  /** The key itself, for the faucet's signer only. */
  privateKey(): `0x${string}` {
    return this.#privateKey;
  }

  toJSON(): { address: string } {
    return { address: this.address };
  }

  toString(): string {
    return `FaucetKey(${this.address})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/** Read a key file: the key as hex (0x optional), surrounding whitespace ignored. */
export function readFaucetKeyFile(file: string): FaucetKey {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new FaucetKeyError(`faucet key file ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  return new FaucetKey(text, `faucet key file ${file}`);
}
