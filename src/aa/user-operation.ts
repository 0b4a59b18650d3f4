// User operations as the bundler holds them: viem's UserOperation of EntryPoint v0.6 or v0.7 with
// the EntryPoint it is for, parsed from JSON-RPC (ERC-7769's shapes: v0.6's eleven members, all
// required, as the spec's svc_sendUserOperation; v0.7's unpacked members as viem sends them), its
// hash, its packed form for the EntryPoint and the entities it names.
import { concat, getAddress, size, slice, type Address, type Hex } from 'viem';
import { getUserOperationHash, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { ENTRY_POINT_V06, ENTRY_POINT_V07 } from '../chain/account-abstraction.js';
import { bundler as bundlerParams, rpcErrorCode } from '../params.js';
import { InvalidUserOperationError } from './errors.js';

export type EntryPointVersion = '0.6' | '0.7';

/** An operation for one EntryPoint: the version picks which members `op` has. */
export type EntryPointOperation =
  | { version: '0.6'; entryPoint: Address; op: UserOperation<'0.6'> }
  | { version: '0.7'; entryPoint: Address; op: UserOperation<'0.7'> };

/** The EntryPoints this node bundles for (the genesis ones), oldest first. */
export const SUPPORTED_ENTRY_POINTS: readonly { address: Address; version: EntryPointVersion }[] = [
  { address: getAddress(ENTRY_POINT_V06), version: '0.6' },
  { address: getAddress(ENTRY_POINT_V07), version: '0.7' },
];

/** The version of a supported EntryPoint, or undefined. */
export function supportedVersion(entryPoint: string): EntryPointVersion | undefined {
  return SUPPORTED_ENTRY_POINTS.find((e) => e.address.toLowerCase() === entryPoint.toLowerCase())?.version;
}

function invalid(message: string): InvalidUserOperationError {
  return new InvalidUserOperationError(rpcErrorCode.invalidParams, message);
}

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** The widths of the members: v0.6 packs its gas members in 120 bits, v0.7 in 128. */
const UINT120 = 120;
const UINT128 = 128;
const UINT256 = 256;
const MAX_UINT120 = (1n << 120n) - 1n;
const MAX_UINT128 = (1n << 128n) - 1n;

type Raw = Record<string, unknown>;

function member(raw: Raw, name: string, required: boolean): unknown {
  const value = raw[name];
  if (value === undefined || value === null) {
    if (required) throw invalid(`invalid user operation: missing ${name}`);
    return undefined;
  }
  return value;
}

function address(raw: Raw, name: string, required = true): Address | undefined {
  const value = member(raw, name, required);
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !ADDRESS.test(value)) throw invalid(`invalid user operation: ${name} must be a 20-byte address`);
  return getAddress(value);
}

function data(raw: Raw, name: string, required = true): Hex | undefined {
  const value = member(raw, name, required);
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !HEX_DATA.test(value)) throw invalid(`invalid user operation: ${name} must be hex data (0x and an even number of hex digits)`);
  return value.toLowerCase() as Hex;
}

/**
 * A quantity member of `bits` bits. One with more digits than the width holds is refused by its
 * length before it is read or converted; the message never repeats the value.
 */
function quantity(raw: Raw, name: string, bits: number, required = true): bigint | undefined {
  const value = member(raw, name, required);
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.length - 2 > bits / 4 && /^0x/i.test(value)) throw invalid(`invalid user operation: ${name}: hex number > ${bits} bits`);
  if (typeof value !== 'string' || !QUANTITY.test(value)) throw invalid(`invalid user operation: ${name} must be a hex quantity (0x without leading zeros)`);
  const n = BigInt(value);
  if (n >> BigInt(bits) !== 0n) throw invalid(`invalid user operation: ${name}: hex number > ${bits} bits`);
  return n;
}

/**
 * How strict parsing is: `send` needs every gas member (and v0.6 every member, as the spec says);
 * `estimate` takes the gas members as optional (ERC-7769's eth_estimateUserOperationGas: the
 * bundler fills them), zero when absent.
 */
export type ParseMode = 'send' | 'estimate';

/** Parses a v0.6 operation (the spec's UserOperation: every member required when sending). */
export function parseUserOperationV06(value: unknown, mode: ParseMode): UserOperation<'0.6'> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('invalid user operation: expected an object');
  const raw = value as Raw;
  const gas = mode === 'send';
  const op: UserOperation<'0.6'> = {
    sender: address(raw, 'sender')!,
    nonce: quantity(raw, 'nonce', UINT256)!,
    initCode: data(raw, 'initCode', gas) ?? '0x',
    callData: data(raw, 'callData')!,
    callGasLimit: quantity(raw, 'callGasLimit', UINT120, gas) ?? 0n,
    verificationGasLimit: quantity(raw, 'verificationGasLimit', UINT120, gas) ?? 0n,
    preVerificationGas: quantity(raw, 'preVerificationGas', UINT120, gas) ?? 0n,
    maxFeePerGas: quantity(raw, 'maxFeePerGas', UINT120, gas) ?? 0n,
    maxPriorityFeePerGas: quantity(raw, 'maxPriorityFeePerGas', UINT120, gas) ?? 0n,
    paymasterAndData: data(raw, 'paymasterAndData', gas) ?? '0x',
    signature: data(raw, 'signature')!,
  };
  const initCode = size(op.initCode ?? '0x');
  if (initCode > 0 && initCode < 20) throw invalid('invalid user operation: initCode must start with the 20-byte factory address');
  const pad = size(op.paymasterAndData ?? '0x');
  if (pad > 0 && pad < 20) throw invalid('invalid user operation: paymasterAndData must start with the 20-byte paymaster address');
  return op;
}

/** Parses a v0.7 operation in its RPC shape (factory/factoryData and the paymaster members unpacked). */
export function parseUserOperationV07(value: unknown, mode: ParseMode): UserOperation<'0.7'> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('invalid user operation: expected an object');
  const raw = value as Raw;
  const gas = mode === 'send';
  const factory = address(raw, 'factory', false);
  const factoryData = data(raw, 'factoryData', false);
  const paymaster = address(raw, 'paymaster', false);
  const op: UserOperation<'0.7'> = {
    sender: address(raw, 'sender')!,
    nonce: quantity(raw, 'nonce', UINT256)!,
    callData: data(raw, 'callData')!,
    callGasLimit: quantity(raw, 'callGasLimit', UINT128, gas) ?? 0n,
    verificationGasLimit: quantity(raw, 'verificationGasLimit', UINT128, gas) ?? 0n,
    preVerificationGas: quantity(raw, 'preVerificationGas', UINT256, gas) ?? 0n,
    maxFeePerGas: quantity(raw, 'maxFeePerGas', UINT128, gas) ?? 0n,
    maxPriorityFeePerGas: quantity(raw, 'maxPriorityFeePerGas', UINT128, gas) ?? 0n,
    signature: data(raw, 'signature')!,
  };
  if (factory) {
    op.factory = factory;
    op.factoryData = factoryData ?? '0x';
  } else if (factoryData !== undefined && factoryData !== '0x') {
    throw invalid('invalid user operation: factoryData without factory');
  }
  if (paymaster) {
    op.paymaster = paymaster;
    op.paymasterVerificationGasLimit = quantity(raw, 'paymasterVerificationGasLimit', UINT128, gas) ?? 0n;
    op.paymasterPostOpGasLimit = quantity(raw, 'paymasterPostOpGasLimit', UINT128, gas) ?? 0n;
    op.paymasterData = data(raw, 'paymasterData', false) ?? '0x';
  } else {
    for (const name of ['paymasterVerificationGasLimit', 'paymasterPostOpGasLimit', 'paymasterData']) {
      const v = raw[name];
      if (v !== undefined && v !== null && v !== '0x' && v !== '0x0') throw invalid(`invalid user operation: ${name} without paymaster`);
    }
  }
  return op;
}

/** Parses `value` for `entryPoint` (its version picks the shape); -32602 for an EntryPoint this node does not serve. */
export function parseOperation(value: unknown, entryPoint: unknown, mode: ParseMode): EntryPointOperation {
  if (typeof entryPoint !== 'string' || !ADDRESS.test(entryPoint)) throw invalid('invalid entryPoint: expected an address');
  const version = supportedVersion(entryPoint);
  if (!version) {
    throw invalid(
      `unsupported entryPoint ${entryPoint}: this node bundles for ${SUPPORTED_ENTRY_POINTS.map((e) => `${e.address} (v${e.version})`).join(' and ')}`,
    );
  }
  const parsed: EntryPointOperation =
    version === '0.6'
      ? { version, entryPoint: getAddress(entryPoint), op: parseUserOperationV06(value, mode) }
      : { version, entryPoint: getAddress(entryPoint), op: parseUserOperationV07(value, mode) };
  const bytes = operationBytes(parsed);
  if (bytes > bundlerParams.maxOperationBytes) {
    throw invalid(`invalid user operation: ${bytes} bytes encoded, above the limit of ${bundlerParams.maxOperationBytes}`);
  }
  return parsed;
}

/** The operation's hash (ERC-4337: over the operation, the EntryPoint and the chain id). */
export function operationHash(e: EntryPointOperation, chainId: number): Hex {
  return getUserOperationHash({ chainId, entryPointAddress: e.entryPoint, entryPointVersion: e.version, userOperation: e.op } as never);
}

/** v0.6's initCode, or v0.7's factory ‖ factoryData. */
export function initCodeOf(e: EntryPointOperation): Hex {
  if (e.version === '0.6') return e.op.initCode ?? '0x';
  return e.op.factory ? concat([e.op.factory, e.op.factoryData ?? '0x']) : '0x';
}

/** The factory named by the operation, or undefined. */
export function factoryOf(e: EntryPointOperation): Address | undefined {
  const init = initCodeOf(e);
  return size(init) >= 20 ? getAddress(slice(init, 0, 20)) : undefined;
}

/** The paymaster named by the operation, or undefined. */
export function paymasterOf(e: EntryPointOperation): Address | undefined {
  if (e.version === '0.7') return e.op.paymaster ? getAddress(e.op.paymaster) : undefined;
  const pad = e.op.paymasterAndData ?? '0x';
  return size(pad) >= 20 ? getAddress(slice(pad, 0, 20)) : undefined;
}

/** The struct handleOps and simulateValidation take: v0.6's as is, v0.7's packed. */
export function entryPointStruct(e: EntryPointOperation): Record<string, unknown> {
  return e.version === '0.6' ? { ...e.op } : { ...toPackedUserOperation(e.op) };
}

/** The ABI-encoded size of the operation's struct: its eleven head words and each dynamic member padded to words with its length word. */
export function operationBytes(e: EntryPointOperation): number {
  const word = (n: number) => Math.ceil(n / 32) * 32 + 32;
  const dynamic = e.version === '0.6'
    ? [e.op.initCode ?? '0x', e.op.callData, e.op.paymasterAndData ?? '0x', e.op.signature]
    : [initCodeOf(e), e.op.callData, e.op.paymaster ? concat([e.op.paymaster, e.op.paymasterData ?? '0x']) : '0x', e.op.signature];
  return 11 * 32 + dynamic.reduce((sum, d) => sum + word(size(d)), 0);
}

/** The operation in ERC-7769's JSON shape for its version (quantities as hex). */
export function operationJson(e: EntryPointOperation): Record<string, string> {
  const hex = (n: bigint) => `0x${n.toString(16)}`;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.op)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'bigint' ? hex(v) : String(v);
  }
  return out;
}

/** The largest fee per gas the operation pays at `baseFee` (EntryPoint's getUserOpGasPrice). */
export function gasPriceAt(e: EntryPointOperation, baseFee: bigint): bigint {
  const { maxFeePerGas, maxPriorityFeePerGas } = e.op;
  if (maxFeePerGas === maxPriorityFeePerGas) return maxFeePerGas;
  const price = baseFee + maxPriorityFeePerGas;
  return price < maxFeePerGas ? price : maxFeePerGas;
}

export { MAX_UINT120, MAX_UINT128 };
