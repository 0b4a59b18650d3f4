// The address a validator seals blocks for (fees and, later, rewards go there).
import type { NodeConfig } from '../config.js';
import { parseAddress } from './address.js';
import { devAccounts, publicKeyRefusal } from './dev-accounts.js';
import { SvcError } from '../errors.js';

/** Raised when no usable validator address is configured; the message says which flag to set. */
export class ValidatorAddressError extends SvcError {
  override readonly name = 'ValidatorAddressError';
  override readonly code = 'VALIDATOR_ADDRESS';
}

/**
 * The configured validator address; devnet defaults to dev account 0. testnet and mainnet need one
 * (it is also the built-in testnet's genesis validator) and refuse the public dev accounts.
 */
export function resolveCoinbase(config: Pick<NodeConfig, 'network' | 'validatorAddress'>): Buffer {
  if (config.validatorAddress) {
    let address: Buffer;
    try {
      address = parseAddress(config.validatorAddress);
    } catch (err) {
      throw new ValidatorAddressError(`--validator-address: ${(err as Error).message}`);
    }
    const refusal = config.network === 'devnet' ? undefined : publicKeyRefusal('--validator-address', address, config.network);
    if (refusal) throw new ValidatorAddressError(refusal);
    return address;
  }
  if (config.network !== 'devnet') {
    throw new ValidatorAddressError(
      `${config.network} needs the validator address: pass --validator-address <0x…> (or SVC_VALIDATOR_ADDRESS); ` +
        `it is the coinbase of the blocks this node produces${config.network === 'testnet' ? ' and the built-in genesis validator' : ''}`,
    );
  }
  return devAccounts()[0]!.addressBytes;
}
