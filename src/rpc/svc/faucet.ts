// svc_requestFaucet: funds an address from the faucet (its state and rules: rpc/faucet.ts).
import { checksumAddress } from '../../chain/address.js';
import { toData, toQuantity } from '../hex.js';
import { method, required, type MethodTable } from '../method.js';
import { parseAddress } from '../validate.js';

export const faucetMethods: MethodTable = {
  svc_requestFaucet: method([required(parseAddress)], async (ctx, [address]) => {
    const { hash, amount } = await ctx.faucet.fund(address, ctx.client?.ip ?? '');
    return { transactionHash: toData(hash), amount: toQuantity(amount), to: checksumAddress(address) };
  }),
};
