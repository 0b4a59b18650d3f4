// The rent module's record and view shapes (docs/rent.md).
import type { Address } from '../kernel/records.js';
export type { Address };

/**
 * One account that holds (or held) storage: what its deposit covers and what it owes. Rent is
 * computed lazily: `owed` is exact at `settledEpoch`, and grows by the uncovered slots times the
 * rate for every epoch after it.
 */
export interface RentRecord {
  address: Address;
  /** Non-zero storage slots, as the native store counted them at the last block that changed them. */
  slots: number;
  /** Slots a deposit covers (at most `slots`). */
  covered: number;
  /** Wei the module holds for this account's covered slots. */
  deposit: bigint;
  /** Rent owed at `settledEpoch`, in wei. */
  owed: bigint;
  settledEpoch: number;
  /** The last epoch a block's execution loaded the account's code (a call, a creation, a read). */
  lastActiveEpoch: number;
  dormant: boolean;
  /** The epoch start at which dormancy is next checked; null when the account cannot become dormant as it is. */
  dueEpoch: number | null;
  /** Rent paid so far, in wei. */
  rentPaid: bigint;
}

export interface RentGlobal {
  /** Wei the module holds for every account's deposits (its balance). */
  deposits: bigint;
  /** Accounts dormant now. */
  dormantCount: number;
  /** Rent paid to the treasury, in wei. */
  rentCollected: bigint;
  /** Reactivation fees paid to the treasury, in wei. */
  feesCollected: bigint;
  /** Accounts with a rent record. */
  accounts: number;
  /**
   * The rules every record's rent was settled and its dormancy check filed under (absent: the
   * genesis rules). When governance changes one, the next block settles every record under these,
   * files its check again under the new ones and records them here.
   */
  filedUnder?: RentSchedule;
}

/** The rent rules that decide what a record owes and when it is checked for dormancy. */
export interface RentSchedule {
  rentPerSlotPerEpoch: bigint;
  dormancyOwedLimit: bigint;
  dormancyEpochs: number;
}

/** svc_getAccountRentInfo (spec "Account rent info"). */
export interface AccountRentInfo {
  address: Address;
  storageDeposit: string;
  storageSlotCount: number;
  lastActiveEpoch: number;
  isDormant: boolean;
  rentOwed: string;
  currentEpoch: number;
  reactivationFee: string;
}

/** A change the rent module made in a block (the live feed and the WebSocket subscription). */
export type RentEvent =
  | { kind: 'dormant'; height: number; account: Address; epoch: number; rentOwed: bigint }
  | { kind: 'reactivated'; height: number; account: Address; epoch: number; payer: Address; rentPaid: bigint; fee: bigint; txHash: string };
