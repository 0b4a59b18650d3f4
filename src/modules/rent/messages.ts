// Rent's calls (abi/rent.json), from anyone: reactivate (a dormant account, paying the fee and the
// rent owed), payRent, coverSlots (a deposit for slots no deposit covers; payable), rentInfo (view).
// Every call runs through the kernel's runDecided; what a call pays out (refunds, the treasury's
// part) are its moves.
import { readFileSync } from 'node:fs';
import { encodeFunctionResult, type Abi } from 'viem';
import type { BalanceMove, ModuleLog } from '../../native/index.js';
import { system } from '../../params.js';
import { abiEvents, addressBuffer, gasCost, moduleLog, runDecided, type BlockContext, type Decision, type ModuleCall, type ModuleOutcome } from '../kernel/module.js';
import type { RentContext } from './context.js';
import { accountInfo, isExempt, reschedule, settle } from './rules.js';
import type { Address } from './types.js';

export const RENT_ABI = JSON.parse(readFileSync(new URL('../../../../abi/rent.json', import.meta.url), 'utf8')) as Abi;

const RENT: Address = system.rentAddress as Address;
const TREASURY: Address = system.treasuryAddress as Address;
const EVENTS = abiEvents(RENT_ABI);
const lower = (a: string): Address => a.toLowerCase() as Address;
const log = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);

/** A call to rent: charged its function's gas (rent.gas), decided, and applied when `apply` (`txHash`: the transaction's, for its event). */
export function runRentCall(rent: RentContext, call: ModuleCall, ctx: BlockContext, apply: boolean, txHash: string): ModuleOutcome {
  let moves: BalanceMove[] = [];
  const outcome = runDecided(
    'rent',
    RENT_ABI,
    call,
    apply,
    gasCost(rent.params.gas),
    (name, args) => {
      const d = decide(rent, name, args, call, ctx, txHash);
      if (d.ok) moves = d.moves;
      return d;
    },
  );
  return outcome.success ? { ...outcome, moves } : outcome;
}

function decide(rent: RentContext, name: string, args: readonly unknown[], call: ModuleCall, ctx: BlockContext, txHash: string): (Decision & { moves: BalanceMove[] }) | { ok: false; reason: string } {
  const account = lower(args[0] as string);
  const from = lower(call.from);
  const refund = (amount: bigint): BalanceMove[] => (amount > 0n ? [{ from: addressBuffer(RENT), to: addressBuffer(from), amount }] : []);
  const toTreasury = (amount: bigint): BalanceMove[] => (amount > 0n ? [{ from: addressBuffer(RENT), to: addressBuffer(TREASURY), amount }] : []);
  if (name === 'rentInfo') {
    const info = accountInfo(rent, account, ctx.epoch);
    const r = rent.store.record(account);
    const returnData = Buffer.from(
      encodeFunctionResult({
        abi: RENT_ABI,
        functionName: 'rentInfo',
        result: [BigInt(info.storageDeposit), BigInt(info.storageSlotCount), BigInt(r?.covered ?? 0), BigInt(info.lastActiveEpoch), info.isDormant, BigInt(info.rentOwed), BigInt(info.reactivationFee)],
      }).slice(2),
      'hex',
    );
    return { ok: true, returnData, logs: [], apply: () => {}, moves: [] };
  }
  const r = rent.store.record(account);
  if (isExempt(rent, account)) return { ok: false, reason: `${account} is exempt from rent` };
  if (!r) return { ok: false, reason: `${account} holds no storage and owes no rent` };
  settle(rent, r, ctx.epoch);
  const encode = (value: bigint) => Buffer.from(encodeFunctionResult({ abi: RENT_ABI, functionName: name, result: value } as never).slice(2), 'hex');
  switch (name) {
    case 'reactivate': {
      if (!r.dormant) return { ok: false, reason: `${account} is not dormant` };
      const fee = rent.params.reactivationFee;
      const owed = r.owed;
      if (call.value < fee + owed) return { ok: false, reason: `reactivation of ${account} needs ${fee + owed} wei (fee ${fee} + rent owed ${owed}), sent ${call.value}` };
      return {
        ok: true,
        returnData: Buffer.alloc(0),
        logs: [log('AccountReactivated', { account, payer: from }, [{ type: 'uint256', value: owed }, { type: 'uint256', value: fee }])],
        moves: [...toTreasury(fee + owed), ...refund(call.value - fee - owed)],
        apply: () => {
          r.owed = 0n;
          r.rentPaid += owed;
          r.dormant = false;
          r.lastActiveEpoch = ctx.epoch;
          reschedule(rent, r, ctx.epoch);
          rent.store.save(r);
          rent.store.setDormantFlag(account, false);
          const g = rent.store.global;
          g.dormantCount -= 1;
          g.rentCollected += owed;
          g.feesCollected += fee;
          rent.store.saveGlobal();
          rent.block.madeDormant = rent.block.madeDormant.filter((a) => a !== account);
          if (!rent.block.reactivated.includes(account)) rent.block.reactivated.push(account);
          rent.event({ kind: 'reactivated', height: ctx.height, account, epoch: ctx.epoch, payer: from, rentPaid: owed, fee, txHash: `0x${txHash}` });
        },
      };
    }
    case 'payRent': {
      if (r.dormant) return { ok: false, reason: `${account} is dormant: reactivate it` };
      const paid = call.value < r.owed ? call.value : r.owed;
      return {
        ok: true,
        returnData: encode(paid),
        logs: [log('RentPaid', { account, payer: from }, [{ type: 'uint256', value: paid }, { type: 'uint256', value: r.owed - paid }])],
        moves: [...toTreasury(paid), ...refund(call.value - paid)],
        apply: () => {
          r.owed -= paid;
          r.rentPaid += paid;
          reschedule(rent, r, ctx.epoch);
          rent.store.save(r);
          rent.store.global.rentCollected += paid;
          rent.store.saveGlobal();
        },
      };
    }
    case 'coverSlots': {
      const per = rent.params.depositPerSlot;
      const uncovered = BigInt(r.slots - r.covered);
      const slots = per === 0n ? uncovered : call.value / per < uncovered ? call.value / per : uncovered;
      const deposit = slots * per;
      return {
        ok: true,
        returnData: encode(slots),
        logs: [log('SlotsCovered', { account, payer: from }, [{ type: 'uint256', value: slots }, { type: 'uint256', value: deposit }])],
        moves: refund(call.value - deposit),
        apply: () => {
          r.covered += Number(slots);
          r.deposit += deposit;
          reschedule(rent, r, ctx.epoch);
          rent.store.save(r);
          rent.store.global.deposits += deposit;
          rent.store.saveGlobal();
        },
      };
    }
    default:
      return { ok: false, reason: `unknown function ${name}` };
  }
}
