// svc_getAccountRentInfo (spec "Account rent info", docs/rent.md): an account's storage deposit,
// slot count, activity, dormancy and rent owed at the head, from the rent module's records.
import { toAddress } from '../../modules/kernel/module.js';
import { method, required, type MethodTable } from '../method.js';
import { parseAddress } from '../validate.js';

export const rentMethods: MethodTable = {
  svc_getAccountRentInfo: method([required(parseAddress)], (ctx, [address]) => {
    const app = ctx.services.app;
    return app.rent.info(toAddress(address), app.staking.state.currentEpoch);
  }),
};
