// The address a validator seals blocks for (fees and, later, rewards go there).
import type { NodeConfig } from '../config.js';
import { parseAddress } from '../chain/address.js';
import { devAccounts } from '../chain/genesis.js';

/** Raised when no usable validator address is configured; the message says which flag to set. */
export class ValidatorAddressError extends Error {
  override readonly name = 'ValidatorAddressError';
}

/** The configured validator address, else dev account 0 on networks that have dev accounts. */
export function resolveCoinbase(config: Pick<NodeConfig, 'network' | 'validatorAddress'>): Buffer {
  if (config.validatorAddress) {
    try {
      return parseAddress(config.validatorAddress);
    } catch (err) {
      throw new ValidatorAddressError(`--validator-address: ${(err as Error).message}`);
    }
  }
  if (config.network === 'mainnet') {
    throw new ValidatorAddressError(
      'mainnet needs the validator address: pass --validator-address <0x…> (or SVC_VALIDATOR_ADDRESS)',
    );
  }
  return devAccounts()[0]!.addressBytes;
}
