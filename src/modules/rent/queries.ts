// The rent module's read views: every read that JSON-RPC (svc_getAccountRentInfo, svcRentEvents,
// eth_call's dormancy check) and the explorer (the address page, the rent room) make of it.
// Serving code reads rent only through these.
import type { RentModule } from './module.js';
import type { AccountRentInfo, RentEvent } from './types.js';

export class RentQueries {
  constructor(private readonly module: RentModule) {}

  /** svc_getAccountRentInfo at `epoch` (the head's): deposit, slots, activity, dormancy and rent owed. */
  info(address: string, epoch: number): AccountRentInfo {
    return this.module.info(address, epoch);
  }

  /** Whether the account never owes rent (system modules and the contracts the chain relies on). */
  isExempt(address: string): boolean {
    return this.module.isExempt(address);
  }

  /** Whether any account is dormant (when none is, no call needs a check). */
  get anyDormant(): boolean {
    return this.module.anyDormant;
  }

  /** The rent events of the committed block at `height` (none once a later block committed). */
  blockEvents(height: number): RentEvent[] {
    return this.module.lastBlockEvents.filter((e) => e.height === height);
  }
}

/** How a surface writes numbers: JSON-RPC as 0x quantities, the explorer as decimal strings and integers. */
export interface RentStyle {
  amount(v: bigint): string;
  quantity(v: number): string | number;
}

/** A rent event as the WebSocket subscription (svcRentEvents) and the live feed (rent:events) send it. */
export function rentEventView(e: RentEvent, s: RentStyle): Record<string, unknown> {
  const base = { event: e.kind, account: e.account, epoch: s.quantity(e.epoch), blockNumber: s.quantity(e.height) };
  if (e.kind === 'dormant') return { ...base, rentOwed: s.amount(e.rentOwed) };
  return { ...base, payer: e.payer, rentPaid: s.amount(e.rentPaid), fee: s.amount(e.fee), transactionHash: e.txHash };
}
