// The rent module (docs/rent.md): accounts pay for the storage they keep. A deposit per slot is
// taken from the account's balance when its slots grow and returned when they shrink; slots no
// deposit covers owe rent each epoch, computed lazily per record; an account owing more than the
// limit and inactive for long enough becomes dormant at an epoch start (its calls revert, its
// transactions are refused; its balance and storage stay as they are), until anyone pays the
// reactivation fee and the rent owed.
//
// Driven only by block data: at the start of block N it reads what block N - 1 did (the accounts
// whose slot count changed, from the native store, and the accounts with code its execution
// loaded) and, at an epoch's first block, the dormancy checks due at that epoch. Transactions to
// params.system.rentAddress (abi/rent.json): reactivate, payRent, coverSlots (payable, from
// anyone), rentInfo (view).
//
// The folder: messages.ts (its calls), hooks.ts (begin and end block), rules.ts (what a record
// owes, when it is checked, settle and reschedule), context.ts (what they share), store.ts,
// types.ts, genesis.ts, params.ts, queries.ts; this file wires them into the SystemModule, and
// answers the kernel's refusal and block rules (dormancy), the only ways rent reaches the chain.
import type { Abi } from 'viem';
import type { Chain, RecordWrite } from '../../native/index.js';
import { system, type RentParams } from '../../params.js';
import {
  addressBuffer,
  toAddress,
  type BlockContext,
  type BlockInfo,
  type BlockRules,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import type { RentBlockState, RentChain, RentContext } from './context.js';
import { exemptAccounts, rentSchedule } from './genesis.js';
import { rentBeginBlock, rentEndBlock } from './hooks.js';
import { RENT_ABI, runRentCall } from './messages.js';
import { accountInfo, dormantReason, isExempt } from './rules.js';
import { DORMANT_PREFIX, RentStore } from './store.js';
import type { AccountRentInfo, Address, RentEvent, RentGlobal, RentRecord, RentSchedule } from './types.js';

export { RENT_ABI } from './messages.js';
export { dormantReason, dueEpoch, owedAt } from './rules.js';
export { rentSchedule } from './genesis.js';
export type { RentChain } from './context.js';

const RENT: Address = system.rentAddress as Address;
const lower = (a: string): Address => a.toLowerCase() as Address;

export class RentModule implements SystemModule {
  readonly name = 'rent';
  readonly address: Address = RENT;
  readonly abi: Abi = RENT_ABI;
  /** The rent events of the last block committed. */
  lastBlockEvents: RentEvent[] = [];
  private building: RentEvent[] = [];
  private readonly store: RentStore;
  /** Accounts made dormant and active again in the block being built (the native executor's view of it). */
  private readonly block: RentBlockState = { madeDormant: [], reactivated: [] };
  private readonly ctx: RentContext;

  constructor(
    chain: Chain,
    reads: RentChain,
    params: RentParams,
    exempt: readonly string[],
    /** The genesis rules: what the records were filed under until governance first changed one. */
    genesisSchedule: RentSchedule = rentSchedule(params),
  ) {
    this.store = new RentStore(chain);
    // eth_call at the head reverts calls into dormant accounts as blocks do.
    chain.setDormancyPrefix(Buffer.from(DORMANT_PREFIX));
    this.ctx = {
      store: this.store,
      reads,
      params,
      genesisSchedule,
      exempt: exemptAccounts(exempt),
      block: this.block,
      event: (e) => this.building.push(e),
    };
  }

  // ---- reads ----

  get global(): Readonly<RentGlobal> {
    return this.store.global;
  }

  isExempt(address: string): boolean {
    return isExempt(this.ctx, address);
  }

  /** Whether `address` is dormant now (in the block being built, or at the head between blocks). */
  isDormant(address: string): boolean {
    return this.store.global.dormantCount > 0 && this.store.isDormant(lower(address));
  }

  /** Whether any account is dormant (when none is, no transaction needs a check). */
  get anyDormant(): boolean {
    return this.store.global.dormantCount > 0;
  }

  /** The account's record (a copy), if it holds or held storage. */
  record(address: string): RentRecord | null {
    return this.store.record(lower(address));
  }

  /** svc_getAccountRentInfo at `epoch` (the head's). */
  info(address: string, epoch: number): AccountRentInfo {
    return accountInfo(this.ctx, address, epoch);
  }

  // ---- the kernel's refusal and block rules ----

  /** A transaction from or to a dormant account cannot run (docs/rent.md); null when it can. */
  refusal(from: Buffer, to: Buffer | null): string | null {
    if (!this.anyDormant) return null;
    for (const a of to ? [from, to] : [from]) {
      const address = toAddress(a);
      if (this.isDormant(address)) return dormantReason(address);
    }
    return null;
  }

  /** What the native executor needs for the block being built (calls into dormant accounts revert); null when no account is dormant. */
  blockRules(): BlockRules | null {
    if (this.store.global.dormantCount === 0) return null;
    return { dormancy: { prefix: Buffer.from(DORMANT_PREFIX), dormant: this.block.madeDormant.map(addressBuffer), reactivated: this.block.reactivated.map(addressBuffer) } };
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return runRentCall(this.ctx, tx, ctx, true, tx.txHash.toString('hex'));
  }

  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return runRentCall(this.ctx, call, ctx, false, '');
  }

  // ---- hooks ----

  beginBlock(block: BlockInfo): HookResult {
    return rentBeginBlock(this.ctx, block);
  }

  endBlock(block: BlockInfo): HookResult {
    return rentEndBlock(this.ctx, block);
  }

  takeWrites(): RecordWrite[] {
    return this.store.takeWrites();
  }

  committed(): void {
    this.store.committedBlock();
    this.lastBlockEvents = this.building;
    this.building = [];
    this.block.madeDormant = [];
    this.block.reactivated = [];
  }

  reload(chain: Chain): void {
    this.store.reload(chain);
    this.building = [];
    this.block.madeDormant = [];
    this.block.reactivated = [];
  }
}
