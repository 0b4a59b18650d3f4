// The treasury's accounts (docs/governance.md): the treasury account is not governance's, but
// governance keeps its books. Every move into or out of it, by the module that made it, is counted
// as the kernel hands the moves over (SystemModule.observeMoves); governance's own spends are
// counted where it pays them (hooks.ts). balance = inflows - outflows.
import type { BalanceMove } from '../../native/index.js';
import { isModuleAccount, system } from '../../params.js';
import { addressBuffer } from '../kernel/module.js';
import type { GovernanceStore } from './store.js';
import type { Address, GovernanceGlobal, PendingSpend } from './types.js';

export const TREASURY: Address = system.treasuryAddress as Address;

/**
 * Why a treasury spend cannot pay `recipient` (lower case); null when it can. Asked when the
 * proposal is submitted and again when it is carried out: the zero address, the treasury itself
 * and every other system module's account (params.moduleAccounts: each balance is what its
 * module's records owe) are refused.
 */
export function spendRecipientProblem(recipient: string): string | null {
  const to = recipient.toLowerCase();
  if (/^0x0{40}$/.test(to)) return 'the recipient is the zero address';
  if (to === TREASURY) return 'the recipient is the treasury itself';
  if (isModuleAccount(to)) return `the recipient ${to} is a system module's account`;
  return null;
}

/** Where a treasury inflow came from, by the module that moved it. */
function inflowSource(module: string): string {
  if (module === 'staking') return 'blockRewards';
  if (module === 'compute') return 'taskFees';
  return module;
}

/** Another module's balance moves (its hooks and its transactions): those into or out of the treasury account are its inflows and outflows. */
export function recordTreasuryMoves(store: GovernanceStore, module: string, moves: readonly BalanceMove[]): void {
  const treasury = addressBuffer(TREASURY);
  const t = store.global.treasury;
  let changed = false;
  for (const m of moves) {
    if (m.amount <= 0n) continue;
    if (m.to?.equals(treasury)) {
      const source = inflowSource(module);
      t.inflows[source] = (t.inflows[source] ?? 0n) + m.amount;
      changed = true;
    }
    if (m.from?.equals(treasury)) {
      t.outflows[module] = (t.outflows[module] ?? 0n) + m.amount;
      changed = true;
    }
  }
  if (changed) store.saveGlobal();
}

/** The treasury's accounts as readers see them. */
export interface TreasuryStatement {
  balance: bigint;
  inflows: Record<string, bigint>;
  outflows: Record<string, bigint>;
  totalInflows: bigint;
  totalOutflows: bigint;
  pendingSpends: PendingSpend[];
  pendingSpendsTotal: bigint;
  spendsPaid: number;
}

/** The treasury's accounts (copies): balance = inflows - outflows. */
export function treasuryAccounts(global: Readonly<GovernanceGlobal>): TreasuryStatement {
  const t = global.treasury;
  const totalInflows = Object.values(t.inflows).reduce((a, b) => a + b, 0n);
  const totalOutflows = Object.values(t.outflows).reduce((a, b) => a + b, 0n);
  const pendingSpends = global.pendingSpends;
  return {
    balance: totalInflows - totalOutflows,
    inflows: { ...t.inflows },
    outflows: { ...t.outflows },
    totalInflows,
    totalOutflows,
    pendingSpends: pendingSpends.map((s) => ({ ...s })),
    pendingSpendsTotal: pendingSpends.reduce((a, s) => a + (s.amount - s.paid), 0n),
    spendsPaid: t.spendsPaid,
  };
}

/** inflows - outflows, without the copies treasuryAccounts makes for readers. */
export function treasuryBalance(global: Readonly<GovernanceGlobal>): bigint {
  const t = global.treasury;
  let balance = 0n;
  for (const v of Object.values(t.inflows)) balance += v;
  for (const v of Object.values(t.outflows)) balance -= v;
  return balance;
}
