// svc_getAccountRentInfo (spec "Account rent info", docs/rent.md): an account's storage deposit,
// slot count, activity, dormancy and rent owed at the head, from the rent module's records; the
// address EIP-55 checksummed, as every address this API answers.
import { checksumAddress } from '../../chain/address.js';
import { toAddress } from '../../modules/kernel/module.js';
import { method, required, type MethodTable } from '../method.js';
import { parseAddress } from '../validate.js';

export const rentMethods: MethodTable = {
  svc_getAccountRentInfo: method([required(parseAddress)], (ctx, [address]) => {
    const { queries } = ctx.services;
    const info = queries.rent.info(toAddress(address), queries.staking.currentEpoch);
    return { ...info, address: checksumAddress(address) };
  }),
};
