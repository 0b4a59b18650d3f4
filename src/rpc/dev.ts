// The development methods Hardhat and Foundry users script against (evm_*, hardhat_*, anvil_*), and
// eth_sendTransaction from an impersonated account. Served by a solo devnet node only: each edit is
// a dev message carried by a block the method mines at once (src/consensus/dev-chain.ts), and the
// answer comes once that block is committed. Elsewhere every one answers -32004 with the reason.
import type { Hex } from 'viem';
import { core } from '../native/index.js';
import { toAddress } from '../modules/kernel/module.js';
import { impersonatedRaw, type DevMessage, type ImpersonatedTx } from '../chain/devnet-messages.js';
import { DevRequestError, type DevChain } from '../consensus/dev-chain.js';
import { InvalidParamsError, MethodNotSupportedError, TransactionRejectedError } from './errors.js';
import { toData, toQuantity } from './hex.js';
import { method, optional, required, type MethodTable, type RpcContext, type RpcMethod } from './method.js';
import { failure as estimateFailure } from './eth/call.js';
import { NO_KEYS } from './eth/unsupported.js';
import { InvalidValueError, parseAddress, parseBytes, parseCallObject, parseHash, parseQuantity, parseStorageSlot } from './validate.js';

const DEVNET_ONLY = 'development method: served on the devnet only';

/** A tip of 1 gwei, what an impersonated transaction that names no fees offers (as Hardhat does). */
const DEFAULT_TIP = 1_000_000_000n;

/** A quantity given as hex or as a JSON number (Hardhat takes both), of at most `bits` bits. */
function quantityOrNumber(bits: number) {
  return (value: unknown): bigint => {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) throw new InvalidValueError(`${value} is not a non-negative integer`);
      return BigInt(value);
    }
    return parseQuantity(value, bits);
  };
}
const seconds = quantityOrNumber(64);
const address = (value: unknown): Hex => toAddress(parseAddress(value));

/** The node's development controls, or -32004 where the node serves none. */
function devOf(ctx: RpcContext, name: string): DevChain {
  const dev = ctx.services.dev;
  if (!dev) throw new MethodNotSupportedError(name, DEVNET_ONLY);
  return dev;
}

/** Runs a development request; one that cannot be done as asked is -32602 and changes nothing. */
async function attempt<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DevRequestError) throw new InvalidParamsError(err.message, { cause: err });
    throw err;
  }
}

/** Mines one block with `message` in it. */
function edit(ctx: RpcContext, name: string, message: DevMessage): Promise<unknown> {
  const dev = devOf(ctx, name);
  return attempt(() => dev.mine([message]));
}

/** The same method as hardhat_<name> (answers true) and anvil_<name> (answers null). */
function both(name: string, make: (full: string) => (ctx: RpcContext, values: unknown[]) => Promise<unknown>, args: RpcMethod['args']): MethodTable {
  const hardhat = make(`hardhat_${name}`);
  const anvil = make(`anvil_${name}`);
  return {
    [`hardhat_${name}`]: {
      args,
      run: async (ctx, values) => {
        await hardhat(ctx, values);
        return true;
      },
    },
    [`anvil_${name}`]: {
      args,
      run: async (ctx, values) => {
        await anvil(ctx, values);
        return null;
      },
    },
  };
}

/** eth_sendTransaction from an impersonated account: checked as the block will check it, then mined in a block of its own. */
async function sendImpersonated(ctx: RpcContext, dev: DevChain, from: Hex, call: ReturnType<typeof parseCallObject>): Promise<string> {
  const { chain, config } = ctx.services;
  const r = call.request;
  if (call.chainId !== undefined && call.chainId !== BigInt(config.chainId)) {
    throw new InvalidParamsError(`invalid argument 0: chainId does not match node's (have=${call.chainId}, want=${config.chainId})`);
  }
  if (r.accessList || r.authorizationList) throw new InvalidParamsError('invalid argument 0: an impersonated transaction carries no access or authorization list');
  const head = chain.head();
  const account = chain.getAccount(r.from!, head.number);
  const baseFee = chain.nextBaseFee();
  const tip = r.gasPrice ?? r.maxPriorityFeePerGas ?? (r.maxFeePerGas !== undefined && r.maxFeePerGas < DEFAULT_TIP ? r.maxFeePerGas : DEFAULT_TIP);
  const maxFee = r.gasPrice ?? r.maxFeePerGas ?? 2n * baseFee + tip;
  let gas = r.gas;
  if (gas === undefined) {
    const estimate = await chain.estimateGas({ ...r, from: r.from! }, head.number);
    if (estimate.status !== 'success') throw estimateFailure(estimate);
    gas = estimate.gas;
  }
  const tx: ImpersonatedTx = {
    from,
    to: r.to ? toAddress(r.to) : null,
    value: r.value ?? 0n,
    data: toData(r.data ?? Buffer.alloc(0)) as Hex,
    gas,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: tip,
    nonce: r.nonce ?? account.nonce,
  };
  // The block builder's own checks (nonce, fees, balance, intrinsic gas), so that a refusal mines nothing.
  const raw = impersonatedRaw(tx, config.chainId);
  const code = chain.getCode(r.from!, head.number);
  const check = core.precheckTransaction(raw, r.from!, {
    chainId: config.chainId,
    gasLimit: head.gasLimit,
    gasUsed: 0,
    baseFeePerGas: baseFee,
    nonce: account.nonce,
    balance: account.balance,
    ...(code.length > 0 ? { code } : {}),
  });
  if (check.verdict !== 'include') throw new TransactionRejectedError(check.reason ?? `the transaction needs more gas than a block holds (${head.gasLimit})`);
  const hash = core.keccak256(raw);
  const produced = await attempt(() => dev.mine([{ kind: 'transaction', body: tx }]));
  const refused = produced.rejected.find((x) => x.hash.equals(hash));
  if (refused) throw new TransactionRejectedError(refused.reason);
  return toData(hash);
}

export const devMethods: MethodTable = {
  evm_mine: method([optional(seconds)], async (ctx, [timestamp]) => {
    const dev = devOf(ctx, 'evm_mine');
    // Hardhat: 0 (or none) mines at the clock's time.
    await attempt(() => (timestamp ? dev.mineAt(timestamp) : dev.mine()));
    return '0x0';
  }),
  evm_increaseTime: method([required(seconds)], (ctx, [by]) => {
    const dev = devOf(ctx, 'evm_increaseTime');
    // Hardhat answers the total offset in seconds as a decimal string.
    return attempt(() => dev.increaseTime(by).toString());
  }),
  evm_setNextBlockTimestamp: method([required(seconds)], (ctx, [timestamp]) => {
    const dev = devOf(ctx, 'evm_setNextBlockTimestamp');
    return attempt(() => {
      dev.setNextBlockTimestamp(timestamp);
      return timestamp.toString();
    });
  }),
  // Hardhat's answers: the id as a quantity; true when reverted, false (nothing changed) for an id not held.
  evm_snapshot: method([], (ctx) => toQuantity(devOf(ctx, 'evm_snapshot').snapshots.snapshot())),
  evm_revert: method([required(quantityOrNumber(64))], (ctx, [id]) => devOf(ctx, 'evm_revert').snapshots.revert(id)),
  hardhat_mine: method([optional(seconds), optional(seconds)], async (ctx, [count, interval]) => {
    const dev = devOf(ctx, 'hardhat_mine');
    await attempt(() => dev.mineMany(count ?? 1n, interval ?? 1n));
    return true;
  }),
  anvil_mine: method([optional(seconds), optional(seconds)], async (ctx, [count, interval]) => {
    const dev = devOf(ctx, 'anvil_mine');
    await attempt(() => dev.mineMany(count ?? 1n, interval ?? 0n));
    return null;
  }),
  ...both(
    'setBalance',
    (name) => async (ctx, [a, balance]) => edit(ctx, name, { kind: 'setBalance', body: { address: a as Hex, balance: balance as bigint } }),
    [required(address), required((v) => parseQuantity(v))],
  ),
  ...both(
    'setCode',
    (name) => async (ctx, [a, code]) => edit(ctx, name, { kind: 'setCode', body: { address: a as Hex, code: toData(code as Buffer) as Hex } }),
    [required(address), required(parseBytes)],
  ),
  ...both(
    'setNonce',
    (name) => async (ctx, [a, nonce]) => {
      const dev = devOf(ctx, name);
      const current = ctx.services.chain.getAccount(parseAddress(a), ctx.services.chain.head().number).nonce;
      // Hardhat refuses to lower a nonce (transactions already mined would become valid again); anvil sets any.
      if (name.startsWith('hardhat_') && (nonce as bigint) < current) throw new InvalidParamsError(`New nonce (${nonce}) must not be smaller than the existing nonce (${current})`);
      return attempt(() => dev.mine([{ kind: 'setNonce', body: { address: a as Hex, nonce: nonce as bigint } }]));
    },
    [required(address), required(quantityOrNumber(64))],
  ),
  ...both(
    'setStorageAt',
    (name) => async (ctx, [a, slot, value]) =>
      edit(ctx, name, { kind: 'setStorageAt', body: { address: a as Hex, slot: toData(slot as Buffer) as Hex, value: toData(value as Buffer) as Hex } }),
    [required(address), required(parseStorageSlot), required(parseHash)],
  ),
  ...both(
    'impersonateAccount',
    (name) => async (ctx, [a]) => devOf(ctx, name).impersonate(a as Hex),
    [required(address)],
  ),
  ...both(
    'stopImpersonatingAccount',
    (name) => async (ctx, [a]) => devOf(ctx, name).stopImpersonating(a as Hex),
    [required(address)],
  ),
  eth_sendTransaction: method([required(parseCallObject)], async (ctx, [call]) => {
    const from = call.request.from ? toAddress(call.request.from) : undefined;
    const dev = ctx.services.dev;
    // The node holds no keys: only an account impersonated on a devnet sends without a signature.
    if (!dev || from === undefined || !dev.isImpersonated(from)) throw new MethodNotSupportedError('eth_sendTransaction', NO_KEYS);
    return sendImpersonated(ctx, dev, from, call);
  }),
};
