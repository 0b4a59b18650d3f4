// The bridge system module (docs/bridge.md): the svc side of a lock-and-mint bridge to one external
// EVM chain whose SvcBridge contract (contracts/bridge/SvcBridge.sol) locks deposits and releases
// withdrawals signed by the bridged validator set. Transactions to params.system.bridgeAddress
// (abi/bridge.json) attest deposits and releases, withdraw, sign withdrawals and new sets, and move
// wrapped balances; at the end of each block, driven by the block's records alone, what validators
// holding more than 2/3 of bonded stake attested is decided.
//
// The folder: messages.ts (its calls), hooks.ts (begin and end block), rules.ts (digests, the
// bridged set, the threshold), keepers.ts (what it reads of staking), store.ts, types.ts,
// genesis.ts, params.ts, queries.ts; this file wires them into the SystemModule. Records live
// under "bridge/" (store.ts).
import type { Abi } from 'viem';
import type { Chain, RecordWrite } from '../../native/index.js';
import { bridge as params, system } from '../../params.js';
import type { BlockContext, BlockInfo, HookResult, ModuleCall, ModuleOutcome, ModuleTx, SystemModule } from '../kernel/module.js';
import { emptyBlockState, openWithdrawals, type BridgeBlockState, type BridgeContext } from './context.js';
import type { BridgeGenesis } from './genesis.js';
import { bridgeBeginBlock, bridgeEndBlock } from './hooks.js';
import type { BridgeKeepers } from './keepers.js';
import { BRIDGE_ABI, isBonded, runBridgeCall, wrappedBalance } from './messages.js';
import { BridgeStore } from './store.js';
import type { Address, BridgeConfig, BridgeEvent, BridgeGlobal, BridgeStatus, BridgeValset, DepositRecord, PendingValset, TokenTotals, WithdrawalRecord } from './types.js';

export { BRIDGE_ABI } from './messages.js';
export { bridgedSet, depositContentHash, passesThreshold, signedPower, valsetDigest, valsetMoved, withdrawalDigest } from './rules.js';
export type { BridgeKeepers, BridgeStake } from './keepers.js';
export type { BridgeGenesis } from './genesis.js';

const BRIDGE: Address = system.bridgeAddress as Address;
const ZERO: Address = '0x0000000000000000000000000000000000000000';

export class BridgeModule implements SystemModule {
  readonly name = 'bridge';
  readonly address: Address = BRIDGE;
  readonly abi: Abi = BRIDGE_ABI;
  /** The bridge's block events of the last block committed. */
  lastBlockEvents: BridgeEvent[] = [];
  private building: BridgeEvent[] = [];
  private readonly store: BridgeStore;
  /** Deposit nonces, withdrawal ids and the set attested in the block being built (endBlock decides them), and the native coin withdrawn in it. */
  private readonly block: BridgeBlockState = emptyBlockState();
  private readonly ctx: BridgeContext;

  constructor(
    chain: Chain,
    private readonly genesis: BridgeGenesis | null,
    svcChainId: number,
    keepers: BridgeKeepers,
  ) {
    this.store = new BridgeStore(chain);
    this.ctx = {
      store: this.store,
      keepers,
      genesis,
      svcChainId,
      block: this.block,
      config: () => this.config,
      valset: () => this.valset,
      event: (e) => this.building.push(e),
    };
  }

  // ---- reads ----

  get config(): BridgeConfig | null {
    return this.store.global.config ?? this.genesis?.config ?? null;
  }

  get valset(): BridgeValset | null {
    return this.store.global.valset ?? this.genesis?.valset ?? null;
  }

  get global(): Readonly<BridgeGlobal> {
    return this.store.global;
  }

  deposit(nonce: number): DepositRecord | undefined {
    return this.store.deposit(nonce);
  }

  withdrawal(id: number): WithdrawalRecord | undefined {
    return this.store.withdrawal(id);
  }

  deposits(): DepositRecord[] {
    return this.store.allDeposits();
  }

  withdrawals(): WithdrawalRecord[] {
    return this.store.allWithdrawals();
  }

  openWithdrawals(): WithdrawalRecord[] {
    return openWithdrawals(this.store);
  }

  wrappedBalance(token: Address, holder: Address): bigint {
    return wrappedBalance(this.store, token, holder);
  }

  /** Whether `address` is the operator of a bonded validator (whose attestations count). */
  isBonded(address: Address): boolean {
    return isBonded(this.ctx, address);
  }

  /** Per token: minted, withdrawn, released. */
  totals(): Readonly<Record<Address, TokenTotals>> {
    return this.store.global.tokens;
  }

  /**
   * svc_getBridgeStatus from the records. `active` here: an external chain is configured and no
   * newer set waits to be taken by the contract (while one does, the contract's set is behind); the
   * node narrows it with what it reads of the external contract (src/bridge/agent.ts).
   */
  status(): BridgeStatus {
    const g = this.store.global;
    const eth = g.tokens[ZERO];
    return {
      active: this.config !== null && this.store.global.pendingValset === null,
      validatorCount: this.valset?.validators.length ?? 0,
      threshold: params.thresholdBps,
      totalDeposits: g.depositsMinted,
      totalWithdrawals: g.withdrawalsReleased,
      pendingDeposits: g.pendingDeposits.length,
      pendingWithdrawals: g.pendingWithdrawals.length,
      totalValueLocked: (eth ? eth.minted - eth.released : 0n).toString(),
    };
  }

  /** The next set, while one is being signed and relayed. */
  get pendingValset(): Readonly<PendingValset> | null {
    return this.store.global.pendingValset;
  }

  // ---- the kernel's hooks ----

  reload(chain: Chain): void {
    this.store.reload(chain);
    this.building = [];
    this.block.touchedDeposits.clear();
    this.block.touchedReleases.clear();
    this.block.touchedValset = false;
    this.block.nativeWithdrawn = 0n;
  }

  takeWrites(): RecordWrite[] {
    return this.store.takeWrites();
  }

  committed(): void {
    this.store.committed();
    this.lastBlockEvents = this.building;
    this.building = [];
  }

  beginBlock(block: BlockInfo): HookResult {
    return bridgeBeginBlock(this.ctx, block);
  }

  endBlock(block: BlockInfo): HookResult {
    return bridgeEndBlock(this.ctx, block);
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return runBridgeCall(this.ctx, tx, ctx, true);
  }

  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return runBridgeCall(this.ctx, call, ctx, false);
  }
}
