// The rent module's records under "rent/": one per account that holds storage ("rent/account/<hex>"),
// the dormancy checks due at an epoch start ("rent/due/<epoch>/<hex>"), one flag per dormant account
// ("rent/dormant/<hex>", the record the native executor reads to revert calls into it) and the
// module's totals ("rent/global"). Records are read from the chain when first needed, never all at
// once, so a block costs what it touches, not what the state holds.
import type { Chain, RecordWrite } from '../../native/index.js';
import { system } from '../../params.js';
import { decodeRecord, RecordChanges } from '../kernel/records.js';
import { emptyGlobal } from './genesis.js';
import type { Address, RentGlobal, RentRecord } from './types.js';

const PREFIX = 'rent/';
const GLOBAL_KEY = `${PREFIX}global`;
const ACCOUNT = `${PREFIX}account/`;
const DUE = `${PREFIX}due/`;
/** The prefix of the dormancy flags, as the native executor reads them. */
export const DORMANT_PREFIX = `${PREFIX}dormant/`;
/** Epochs as 12 digits, so that due keys sort by epoch. */
const epochKey = (e: number) => String(e).padStart(12, '0');
const hex = (a: Address) => a.slice(2).toLowerCase();
/** Committed records kept in memory at most (a bound on the node's memory, not a rule). */
const CACHE_LIMIT = 200_000;

export { emptyGlobal };

export class RentStore {
  global: RentGlobal = emptyGlobal();
  /** Records as committed (null: none), read on first use. */
  private readonly committed = new Map<Address, RentRecord | null>();
  /** Records the block being built changed (null: deleted). */
  private readonly building = new Map<Address, RentRecord | null>();
  private readonly changes = new RecordChanges(system.rentAddress as Address);

  constructor(private chain: Chain) {
    this.loadGlobal();
  }

  private loadGlobal(): void {
    const g = this.chain.getAppValue(Buffer.from(GLOBAL_KEY));
    this.global = g ? { ...emptyGlobal(), ...decodeRecord<RentGlobal>(g) } : emptyGlobal();
  }

  /** A copy of the record of `address` as the block being built has it (change it, then save it). */
  record(address: Address): RentRecord | null {
    const r = this.peek(address);
    return r ? { ...r } : null;
  }

  private peek(address: Address): RentRecord | null {
    const a = address.toLowerCase() as Address;
    if (this.building.has(a)) return this.building.get(a)!;
    if (this.committed.has(a)) return this.committed.get(a)!;
    const bytes = this.chain.getAppValue(Buffer.from(ACCOUNT + hex(a)));
    const r = bytes ? decodeRecord<RentRecord>(bytes) : null;
    if (this.committed.size >= CACHE_LIMIT) this.committed.clear();
    this.committed.set(a, r);
    return r;
  }

  /** Whether `address` is dormant in the block being built. */
  isDormant(address: Address): boolean {
    return this.peek(address)?.dormant === true;
  }

  /** Writes `r` (the object the caller changed) for the block. */
  save(r: RentRecord): void {
    const copy = { ...r };
    this.building.set(r.address, copy);
    this.changes.mark(ACCOUNT + hex(r.address), copy);
  }

  remove(address: Address): void {
    this.building.set(address, null);
    this.changes.mark(ACCOUNT + hex(address), null);
  }

  saveGlobal(): void {
    this.changes.mark(GLOBAL_KEY, this.global);
  }

  setDue(epoch: number, address: Address, on: boolean): void {
    this.changes.mark(`${DUE}${epochKey(epoch)}/${hex(address)}`, on ? 1 : null);
  }

  /** The accounts whose dormancy is checked at `epoch`'s start (committed entries; none are written for the epoch they are read in). */
  dueAt(epoch: number): Address[] {
    const prefix = `${DUE}${epochKey(epoch)}/`;
    return this.chain
      .getAppEntries(Buffer.from(prefix))
      .map((e) => `0x${e.key.subarray(prefix.length).toString('utf8')}` as Address)
      .filter((a) => this.changes.markedValue(`${prefix}${hex(a)}`) !== null);
  }

  /** Every record as the block being built has it (copies), by address: the committed ones with this block's changes over them. */
  allRecords(): RentRecord[] {
    const out = new Map<Address, RentRecord>();
    for (const e of this.chain.getAppEntries(Buffer.from(ACCOUNT))) {
      const r = decodeRecord<RentRecord>(e.value);
      out.set(r.address, r);
    }
    for (const [a, r] of this.building) {
      if (r) out.set(a, { ...r });
      else out.delete(a);
    }
    return [...out.values()].sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0));
  }

  setDormantFlag(address: Address, on: boolean): void {
    this.changes.mark(DORMANT_PREFIX + hex(address), on ? 1 : null);
  }

  takeWrites(): RecordWrite[] {
    return this.changes.take();
  }

  /** The block committed: its records are the committed ones now. */
  committedBlock(): void {
    for (const [a, r] of this.building) this.committed.set(a, r);
    this.building.clear();
  }

  reload(chain: Chain): void {
    this.chain = chain;
    this.building.clear();
    this.committed.clear();
    this.changes.clear();
    this.loadGlobal();
  }
}
