// svc_* methods of the bridge: svc_getBridgeStatus (spec "Bridge status") from the bridge module's
// records, narrowed by what this node reads of the external contract (src/bridge/agent.ts), and
// svc_getBridgeDeposit / svc_getBridgeWithdrawal for one deposit or withdrawal with its attestations
// and signatures (docs/rpc.md, Bridge; views shared with the explorer in src/modules/bridge/queries.ts).
import { depositView, withdrawalView } from '../../modules/bridge/queries.js';
import { NotFoundError } from '../errors.js';
import { method, required, type MethodTable } from '../method.js';
import { InvalidValueError } from '../validate.js';

/** Hex digits of a 64-bit quantity: a longer id is refused by its length, before it is converted. */
const UINT64_HEX_DIGITS = 16;

/** A deposit nonce or withdrawal id: a JSON integer or a 0x quantity, 1 to 2^53 - 1. */
function parseBridgeNumber(value: unknown): number {
  let n: bigint;
  if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && value.length > 2 + UINT64_HEX_DIGITS && /^0x/i.test(value)) throw new InvalidValueError('hex number > 64 bits');
  else if (typeof value === 'string' && /^0x(0|[1-9a-f][0-9a-f]*)$/i.test(value)) n = BigInt(value);
  else throw new InvalidValueError('expected an integer or a 0x quantity');
  if (n < 1n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new InvalidValueError(`${n} is out of range (1 to 2^53 - 1)`);
  return Number(n);
}

export const bridgeMethods: MethodTable = {
  svc_getBridgeStatus: method([], (ctx) => ctx.services.bridge.status()),

  svc_getBridgeDeposit: method([required(parseBridgeNumber)], (ctx, [nonce]) => {
    const d = ctx.services.queries.bridge.deposit(nonce);
    if (!d) throw new NotFoundError(`bridge deposit ${nonce} not found`);
    return depositView(d);
  }),

  svc_getBridgeWithdrawal: method([required(parseBridgeNumber)], (ctx, [id]) => {
    const w = ctx.services.queries.bridge.withdrawal(id);
    if (!w) throw new NotFoundError(`bridge withdrawal ${id} not found`);
    return withdrawalView(w);
  }),
};


