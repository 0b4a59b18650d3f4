// The bridge's calls (abi/bridge.json), dispatched by function:
//   attestDeposit   a bonded validator's operator reports a contract Deposit it saw at the
//                   confirmation depth; validators that attest different content for one nonce
//                   (after an external reorganisation) are counted apart.
//   withdraw        burns what leaves svc (native coin: the call's value; a wrapped token: the
//                   caller's wrapped balance) and records withdrawal `id` with the contract's digest.
//   signWithdrawal  a member of the bridged set adds its signature of that digest (checked here).
//   attestRelease   a bonded validator reports the contract's Withdrawal event for `id`.
//   signValset, attestValset  the same for a new bridged set.
//   transferWrapped moves a wrapped balance on svc.
// and the read functions. Every call runs through the kernel's runDecided; what a block's calls
// attested is decided at its end (hooks.ts).
import { readFileSync } from 'node:fs';
import { encodeFunctionResult, type Abi, type Hex } from 'viem';
import { core, type ModuleLog } from '../../native/index.js';
import { bridge as params } from '../../params.js';
import { abiEvents, gasCost, moduleLog, runDecided, type BlockContext, type Decision, type ModuleCall, type ModuleOutcome } from '../kernel/module.js';
import { tokenTotals, type BridgeContext } from './context.js';
import { depositContentHash, signedEnough, withdrawalDigest } from './rules.js';
import type { BridgeStore } from './store.js';
import type { Address, BridgeConfig, DepositContent, DepositRecord } from './types.js';

export const BRIDGE_ABI = JSON.parse(readFileSync(new URL('../../../../abi/bridge.json', import.meta.url), 'utf8')) as Abi;

const EVENTS = abiEvents(BRIDGE_ABI);
const ZERO: Address = '0x0000000000000000000000000000000000000000';
const MAX_ID = BigInt(Number.MAX_SAFE_INTEGER);
const log = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);
const lower = (a: string): Address => a.toLowerCase() as Address;

/** A holder's wrapped balance of `token`. */
export function wrappedBalance(store: BridgeStore, token: Address, holder: Address): bigint {
  return store.wrapped(lower(token), lower(holder));
}

/** A call to the bridge: charged its function's gas (bridge.gas), decided, and applied when `apply`. */
export function runBridgeCall(bridge: BridgeContext, call: ModuleCall, ctx: BlockContext, apply: boolean): ModuleOutcome {
  return runDecided('bridge', BRIDGE_ABI, call, apply, gasCost(params.gas), (name, args) => decide(bridge, call, name, args, ctx));
}

function decide(bridge: BridgeContext, call: ModuleCall, name: string, args: readonly unknown[], ctx: BlockContext): Decision {
  const result = (value: unknown): Buffer => Buffer.from(encodeFunctionResult({ abi: BRIDGE_ABI, functionName: name, result: value } as never).slice(2), 'hex');
  switch (name) {
    case 'wrappedBalanceOf':
      return { ok: true, returnData: result(wrappedBalance(bridge.store, args[0] as Address, args[1] as Address)), logs: [], apply: () => undefined };
    case 'wrappedSupply': {
      const t = bridge.store.global.tokens[lower(args[0] as string)];
      return { ok: true, returnData: result(t ? t.minted - t.withdrawn : 0n), logs: [], apply: () => undefined };
    }
    case 'withdrawalDigest': {
      const w = bridge.store.withdrawal(idOf(args[0] as bigint));
      if (!w) return { ok: false, reason: `no withdrawal ${args[0] as bigint}` };
      return { ok: true, returnData: result(w.digest), logs: [], apply: () => undefined };
    }
    case 'transferWrapped':
      return transferWrapped(bridge, call, args, result(true));
  }
  const config = bridge.config();
  if (config === null) return { ok: false, reason: 'no external chain is configured for this network' };
  switch (name) {
    case 'attestDeposit':
      return attestDeposit(bridge, call, args);
    case 'withdraw':
      return withdraw(bridge, call, args, config, ctx, result);
    case 'signWithdrawal':
      return signWithdrawal(bridge, call, args, ctx);
    case 'attestRelease':
      return attestRelease(bridge, call, args);
    case 'signValset':
      return signValset(bridge, call, args, ctx);
    case 'attestValset':
      return attestValset(bridge, call, args);
    default:
      return { ok: false, reason: `unknown function ${name}` };
  }
}

function idOf(value: bigint): number {
  return value > MAX_ID ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** Whether `address` is the operator of a bonded validator (whose attestations count). */
export function isBonded(bridge: BridgeContext, address: Address): boolean {
  return bridge.keepers.stake.bonded().some((v) => lower(v.address) === address);
}

function attestDeposit(bridge: BridgeContext, call: ModuleCall, args: readonly unknown[]): Decision {
  const [nonceArg, token, sender, recipient, amount] = args as [bigint, string, string, string, bigint];
  const g = bridge.store.global;
  if (!isBonded(bridge, call.from)) return { ok: false, reason: `${call.from} is not a bonded validator's operator` };
  if (nonceArg < 1n || nonceArg > MAX_ID) return { ok: false, reason: `deposit nonce ${nonceArg} is out of range` };
  const nonce = Number(nonceArg);
  if (nonce >= g.lowestUnminted + params.maxNonceAhead) {
    return { ok: false, reason: `deposit nonce ${nonce} is more than ${params.maxNonceAhead} beyond the lowest one not minted (${g.lowestUnminted})` };
  }
  if (amount <= 0n) return { ok: false, reason: 'a deposit of nothing cannot be attested' };
  const existing = bridge.store.deposit(nonce);
  if (existing?.minted) return { ok: false, reason: `deposit ${nonce} is already minted` };
  if (existing?.attestations.some((a) => a.attesters.includes(call.from))) return { ok: false, reason: `${call.from} already attested deposit ${nonce}` };
  const fields: DepositContent = { token: lower(token), sender: lower(sender), recipient: lower(recipient), amount };
  const content = depositContentHash(nonce, fields);
  return {
    ok: true,
    returnData: Buffer.alloc(0),
    logs: [log('DepositAttested', { nonce: nonceArg, validator: call.from, content }, [])],
    apply: () => {
      const d: DepositRecord = existing ?? { nonce, attestations: [], minted: null };
      const same = d.attestations.find((a) => a.content === content);
      if (same) same.attesters.push(call.from);
      else d.attestations.push({ content, fields, attesters: [call.from] });
      bridge.store.saveDeposit(d);
      if (!g.pendingDeposits.includes(nonce)) {
        g.pendingDeposits = [...g.pendingDeposits, nonce].sort((a, b) => a - b);
        bridge.store.saveGlobal();
      }
      bridge.block.touchedDeposits.add(nonce);
    },
  };
}

function withdraw(bridge: BridgeContext, call: ModuleCall, args: readonly unknown[], config: BridgeConfig, ctx: BlockContext, result: (v: unknown) => Buffer): Decision {
  const [tokenArg, recipientArg, amount] = args as [string, string, bigint];
  const token = lower(tokenArg);
  const recipient = lower(recipientArg);
  const g = bridge.store.global;
  if (amount <= 0n) return { ok: false, reason: 'a withdrawal of nothing' };
  if (recipient === ZERO) return { ok: false, reason: 'the recipient is the zero address' };
  const t = g.tokens[token];
  const outstanding = t ? t.minted - t.withdrawn : 0n;
  if (amount > outstanding) {
    return { ok: false, reason: `only ${outstanding} of ${token === ZERO ? 'bridged native coin' : `token ${token}`} came over the bridge; ${amount} cannot leave` };
  }
  if (token === ZERO) {
    if (call.value !== amount) return { ok: false, reason: `a native withdrawal sends its amount as the call's value (sent ${call.value}, amount ${amount})` };
  } else {
    if (call.value !== 0n) return { ok: false, reason: 'a token withdrawal sends no value' };
    const balance = bridge.store.wrapped(token, call.from);
    if (balance < amount) return { ok: false, reason: `wrapped balance ${balance} of ${token} is below ${amount}` };
  }
  const id = g.nextWithdrawalId;
  const digest = withdrawalDigest(config, bridge.svcChainId, id, token, recipient, amount);
  return {
    ok: true,
    returnData: result(BigInt(id)),
    logs: [log('WithdrawalRequested', { id: BigInt(id), token, from: call.from }, [{ type: 'address', value: recipient }, { type: 'uint256', value: amount }])],
    apply: () => {
      if (token === ZERO) bridge.block.nativeWithdrawn += amount;
      else bridge.store.setWrapped(token, call.from, bridge.store.wrapped(token, call.from) - amount);
      tokenTotals(bridge.store, token).withdrawn += amount;
      g.nextWithdrawalId = id + 1;
      g.pendingWithdrawals = [...g.pendingWithdrawals, id];
      bridge.store.saveGlobal();
      bridge.store.saveWithdrawal({
        id, token, from: call.from, recipient, amount, height: ctx.height, digest,
        signatures: [], readyHeight: null, releaseAttesters: [], releasedHeight: null,
      });
    },
  };
}

function signWithdrawal(bridge: BridgeContext, call: ModuleCall, args: readonly unknown[], ctx: BlockContext): Decision {
  const [idArg, signature] = args as [bigint, Hex];
  const w = bridge.store.withdrawals.get(idOf(idArg));
  if (!w) return { ok: false, reason: `no open withdrawal ${idArg}` };
  const valset = bridge.valset()!;
  const pending = bridge.store.global.pendingValset;
  if (!valset.validators.includes(call.from) && !pending?.validators.includes(call.from)) {
    return { ok: false, reason: `${call.from} is not in the bridged validator set (nonce ${valset.nonce}) or the one pending` };
  }
  if (w.signatures.some((s) => s.validator === call.from)) return { ok: false, reason: `${call.from} already signed withdrawal ${w.id}` };
  const signer = core.recoverSigner(Buffer.from(w.digest.slice(2), 'hex'), Buffer.from(signature.slice(2), 'hex'));
  if (signer === null || `0x${signer.toString('hex')}` !== call.from) {
    return { ok: false, reason: `the signature is not ${call.from}'s of withdrawal ${w.id}'s digest (65 bytes r, s, v with v 27 or 28 and low s)` };
  }
  return {
    ok: true,
    returnData: Buffer.alloc(0),
    logs: [log('WithdrawalSigned', { id: idArg, validator: call.from }, [])],
    apply: () => {
      w.signatures.push({ validator: call.from, signature: lower(signature) });
      w.signatures.sort((a, b) => (a.validator < b.validator ? -1 : 1));
      if (w.readyHeight === null && signedEnough(valset, w.signatures.map((s) => s.validator))) {
        w.readyHeight = ctx.height;
        bridge.event({ kind: 'withdrawal-ready', height: ctx.height, id: w.id, token: w.token, recipient: w.recipient, amount: w.amount });
      }
      bridge.store.saveWithdrawal(w);
    },
  };
}

function attestRelease(bridge: BridgeContext, call: ModuleCall, args: readonly unknown[]): Decision {
  const [idArg] = args as [bigint];
  const id = idOf(idArg);
  if (!isBonded(bridge, call.from)) return { ok: false, reason: `${call.from} is not a bonded validator's operator` };
  const w = bridge.store.withdrawals.get(id);
  if (!w) return { ok: false, reason: bridge.store.withdrawal(id) ? `withdrawal ${id} is already released` : `no withdrawal ${idArg}` };
  if (w.releaseAttesters.includes(call.from)) return { ok: false, reason: `${call.from} already attested the release of withdrawal ${id}` };
  return {
    ok: true,
    returnData: Buffer.alloc(0),
    logs: [log('ReleaseAttested', { id: idArg, validator: call.from }, [])],
    apply: () => {
      w.releaseAttesters.push(call.from);
      bridge.store.saveWithdrawal(w);
      bridge.block.touchedReleases.add(id);
    },
  };
}

function signValset(bridge: BridgeContext, call: ModuleCall, args: readonly unknown[], ctx: BlockContext): Decision {
  const [nonceArg, signature] = args as [bigint, Hex];
  const pending = bridge.store.global.pendingValset;
  if (!pending || BigInt(pending.nonce) !== nonceArg) return { ok: false, reason: `no pending validator set ${nonceArg}${pending ? ` (the pending one is ${pending.nonce})` : ''}` };
  const current = bridge.valset()!;
  if (!current.validators.includes(call.from)) return { ok: false, reason: `${call.from} is not in the bridged validator set (nonce ${current.nonce}), which signs the next` };
  if (pending.signatures.some((s) => s.validator === call.from)) return { ok: false, reason: `${call.from} already signed validator set ${pending.nonce}` };
  const signer = core.recoverSigner(Buffer.from(pending.digest.slice(2), 'hex'), Buffer.from(signature.slice(2), 'hex'));
  if (signer === null || `0x${signer.toString('hex')}` !== call.from) {
    return { ok: false, reason: `the signature is not ${call.from}'s of validator set ${pending.nonce}'s digest (65 bytes r, s, v with v 27 or 28 and low s)` };
  }
  return {
    ok: true,
    returnData: Buffer.alloc(0),
    logs: [log('ValsetSigned', { nonce: nonceArg, validator: call.from }, [])],
    apply: () => {
      const g = bridge.store.global;
      const p = g.pendingValset!;
      p.signatures = [...p.signatures, { validator: call.from, signature: lower(signature) }].sort((a, b) => (a.validator < b.validator ? -1 : 1));
      if (p.readyHeight === null && signedEnough(current, p.signatures.map((s) => s.validator))) {
        p.readyHeight = ctx.height;
        bridge.event({ kind: 'valset-ready', height: ctx.height, nonce: p.nonce, validators: p.validators, powers: p.powers });
      }
      bridge.store.saveGlobal();
    },
  };
}

function attestValset(bridge: BridgeContext, call: ModuleCall, args: readonly unknown[]): Decision {
  const [nonceArg] = args as [bigint];
  if (!isBonded(bridge, call.from)) return { ok: false, reason: `${call.from} is not a bonded validator's operator` };
  const pending = bridge.store.global.pendingValset;
  if (!pending || BigInt(pending.nonce) !== nonceArg) return { ok: false, reason: `no pending validator set ${nonceArg}${pending ? ` (the pending one is ${pending.nonce})` : ''}` };
  if (pending.attesters.includes(call.from)) return { ok: false, reason: `${call.from} already attested validator set ${pending.nonce}` };
  return {
    ok: true,
    returnData: Buffer.alloc(0),
    logs: [log('ValsetAttested', { nonce: nonceArg, validator: call.from }, [])],
    apply: () => {
      const p = bridge.store.global.pendingValset!;
      p.attesters = [...p.attesters, call.from];
      bridge.store.saveGlobal();
      bridge.block.touchedValset = true;
    },
  };
}

function transferWrapped(bridge: BridgeContext, call: ModuleCall, args: readonly unknown[], returnData: Buffer): Decision {
  const [tokenArg, toArg, amount] = args as [string, string, bigint];
  const token = lower(tokenArg);
  const to = lower(toArg);
  if (token === ZERO) return { ok: false, reason: 'the native coin is moved by plain transfers, not as a wrapped token' };
  if (to === ZERO) return { ok: false, reason: 'the recipient is the zero address' };
  const balance = bridge.store.wrapped(token, call.from);
  if (balance < amount) return { ok: false, reason: `wrapped balance ${balance} of ${token} is below ${amount}` };
  return {
    ok: true,
    returnData,
    logs: [log('WrappedTransfer', { token, from: call.from, to }, [{ type: 'uint256', value: amount }])],
    apply: () => {
      bridge.store.setWrapped(token, call.from, bridge.store.wrapped(token, call.from) - amount);
      bridge.store.setWrapped(token, to, bridge.store.wrapped(token, to) + amount);
    },
  };
}
