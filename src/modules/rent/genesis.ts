// Rent's part of the genesis (docs/rent.md): no account owes anything, none is dormant, and the
// records are filed under the genesis rules (rentSchedule of the genesis parameters) until
// governance first changes one of them. The accounts exempt from rent are the system modules' and
// those the app names (the contracts dApps and the node rely on).
import { moduleAccounts } from '../../params.js';
import type { Address, RentGlobal, RentSchedule } from './types.js';

/** Rent's global record at genesis. */
export function emptyGlobal(): RentGlobal {
  return { deposits: 0n, dormantCount: 0, rentCollected: 0n, feesCollected: 0n, accounts: 0 };
}

/** The rules of `p` that decide what a record owes and when it is checked for dormancy. */
export function rentSchedule(p: RentSchedule): RentSchedule {
  return { rentPerSlotPerEpoch: p.rentPerSlotPerEpoch, dormancyOwedLimit: p.dormancyOwedLimit, dormancyEpochs: p.dormancyEpochs };
}

/** The accounts exempt from rent: `exempt` (what the app names) and every system module's account, lower case. */
export function exemptAccounts(exempt: readonly string[]): ReadonlySet<Address> {
  return new Set([...exempt, ...moduleAccounts].map((a) => a.toLowerCase() as Address));
}
