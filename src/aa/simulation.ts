// A user operation's simulation on the head state, as ERC-4337 bundlers run it: the EntryPoint's
// simulateValidation (v0.6: the EntryPoint's own, answering by revert; v0.7: EntryPointSimulations,
// placed at the EntryPoint's address for the call only, as it is never deployed) and
// simulateHandleOp for gas estimation, each watched by the native validation tracer. This file turns
// the EntryPoint's answers into facts (gas, prefund, time range, stakes) and its refusals into
// ERC-7769 errors; the ERC-7562 rules on the trace are in rules.ts.
import {
  decodeErrorResult,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  hexToBigInt,
  parseAbi,
  zeroAddress,
  type Address,
  type Hex,
} from 'viem';
import { entryPoint06Abi, entryPoint07Abi } from 'viem/account-abstraction';
import { parseAddress } from '../chain/address.js';
import { entryPointSimulationsV07 } from '../chain/entrypoints.generated.js';
import type { Chain, TracedFrame, ValidationTraceResult } from '../native/index.js';
import { bundler as bundlerParams, rpcErrorCode } from '../params.js';
import { UserOperationRejectedError } from './errors.js';
import { entryPointStruct, type EntryPointOperation } from './user-operation.js';

export { UserOperationRejectedError };

/** v0.7's EntryPointSimulations (core/EntryPointSimulations.sol of @account-abstraction/contracts 0.7.0). */
export const entryPointSimulationsAbi = parseAbi([
  'struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }',
  'struct ReturnInfo { uint256 preOpGas; uint256 prefund; uint256 accountValidationData; uint256 paymasterValidationData; bytes paymasterContext; }',
  'struct StakeInfo { uint256 stake; uint256 unstakeDelaySec; }',
  'struct AggregatorStakeInfo { address aggregator; StakeInfo stakeInfo; }',
  'struct ValidationResult { ReturnInfo returnInfo; StakeInfo senderInfo; StakeInfo factoryInfo; StakeInfo paymasterInfo; AggregatorStakeInfo aggregatorInfo; }',
  'struct ExecutionResult { uint256 preOpGas; uint256 paid; uint256 accountValidationData; uint256 paymasterValidationData; bool targetSuccess; bytes targetResult; }',
  'function simulateValidation(PackedUserOperation userOp) returns (ValidationResult)',
  'function simulateHandleOp(PackedUserOperation op, address target, bytes targetCallData) returns (ExecutionResult)',
  'error FailedOp(uint256 opIndex, string reason)',
  'error FailedOpWithRevert(uint256 opIndex, string reason, bytes inner)',
]);

const errorAbi = parseAbi(['error Error(string)', 'error FailedOp(uint256 opIndex, string reason)', 'error FailedOpWithRevert(uint256 opIndex, string reason, bytes inner)']);

/** An entity's stake in the EntryPoint. */
export interface StakeInfo {
  stake: bigint;
  unstakeDelaySec: bigint;
}

/** Whether `info` meets ERC-7562's MIN_STAKE_VALUE and MIN_UNSTAKE_DELAY. */
export function isStaked(info: StakeInfo | undefined): boolean {
  return !!info && info.stake >= bundlerParams.minStake && info.unstakeDelaySec >= BigInt(bundlerParams.minUnstakeDelaySeconds);
}

/** What simulateValidation said about an operation that the EntryPoint accepted. */
export interface ValidationFacts {
  preOpGas: bigint;
  prefund: bigint;
  /** The account's signature check failed (v0.6 sigFailed, v0.7 validation data 1). */
  signatureFailed: boolean;
  /** The paymaster's signature check failed (v0.7 paymaster validation data 1). */
  paymasterSignatureFailed: boolean;
  /** An aggregator other than "none" or "failed" (not supported). */
  aggregator: Address | undefined;
  /** Time range (seconds), the intersection of the account's and the paymaster's. */
  validAfter: bigint;
  validUntil: bigint;
  paymasterContext: Hex;
  sender: StakeInfo;
  factory: StakeInfo;
  paymaster: StakeInfo;
  trace: ValidationTraceResult;
}

const MAX_UINT48 = (1n << 48n) - 1n;

/** ERC-4337 validation data: aggregator (or 0 = valid, 1 = signature failed), validUntil (0 = forever), validAfter. */
function validationData(value: bigint): { aggregator: bigint; validUntil: bigint; validAfter: bigint } {
  const validUntil = (value >> 160n) & MAX_UINT48;
  return { aggregator: value & ((1n << 160n) - 1n), validUntil: validUntil === 0n ? MAX_UINT48 : validUntil, validAfter: value >> 208n };
}

/** The ERC-7769 code for an EntryPoint refusal "AAnn …". */
function failedOpCode(reason: string): number {
  const code = reason.slice(0, 4);
  if (code === 'AA22' || code === 'AA32') return rpcErrorCode.outOfTimeRange;
  if (code === 'AA24' || code === 'AA34') return rpcErrorCode.signatureFailed;
  if (code === 'AA93' || code === 'AA94') return rpcErrorCode.invalidParams;
  if (code.startsWith('AA3')) return rpcErrorCode.paymasterRejected;
  return rpcErrorCode.userOperationRejected;
}

/** Revert data of an inner call as text where it is Error(string), else the hex. */
function innerReason(inner: Hex): string {
  try {
    const decoded = decodeErrorResult({ abi: errorAbi, data: inner });
    if (decoded.errorName === 'Error') return `: ${decoded.args[0]}`;
  } catch {
    // Not Error(string): shown as hex below.
  }
  return inner === '0x' ? '' : ` (revert data ${inner})`;
}

/** Throws the ERC-7769 error for a FailedOp / FailedOpWithRevert / Error(string) in `data`; returns when `data` is none of them. */
export function throwIfFailedOp(data: Hex, context: string): void {
  let decoded;
  try {
    decoded = decodeErrorResult({ abi: errorAbi, data });
  } catch {
    return;
  }
  if (decoded.errorName === 'FailedOp' || decoded.errorName === 'FailedOpWithRevert') {
    const reason = decoded.args[1];
    const inner = decoded.errorName === 'FailedOpWithRevert' ? decoded.args[2] : undefined;
    const err = new UserOperationRejectedError(
      failedOpCode(reason),
      `${context}: ${reason}${inner === undefined ? '' : innerReason(inner)}`,
      inner === undefined ? { reason } : { reason, revertData: inner },
    );
    err.entryPointCode = /^AA\d\d/.exec(reason)?.[0];
    throw err;
  }
  throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `${context}: reverted: ${decoded.args[0]}`);
}

function hex(buffer: Buffer): Hex {
  return `0x${buffer.toString('hex')}`;
}

/** The code overrides a simulation of `version` needs (v0.7: EntryPointSimulations at the EntryPoint). */
function overrides(e: EntryPointOperation): { address: Buffer; code: Buffer }[] {
  if (e.version === '0.6') return [];
  return [{ address: parseAddress(e.entryPoint), code: Buffer.from(entryPointSimulationsV07.runtimeCode!.slice(2), 'hex') }];
}

async function traced(chain: Chain, e: EntryPointOperation, data: Hex): Promise<ValidationTraceResult> {
  return chain.traceCall(
    { from: parseAddress(zeroAddress), to: parseAddress(e.entryPoint), data: Buffer.from(data.slice(2), 'hex'), gas: bundlerParams.simulationGas },
    chain.head().number,
    overrides(e),
  );
}

/**
 * simulateValidation of `e` on the head state. Returns the facts when the EntryPoint accepted the
 * operation (a failed signature or an out-of-range time is reported in the facts, not thrown, so
 * that estimation can run with a well-formed signature that does not verify yet); throws the ERC-7769 error when it refused.
 */
export async function simulateValidation(chain: Chain, e: EntryPointOperation): Promise<ValidationFacts> {
  const struct = entryPointStruct(e);
  if (e.version === '0.6') {
    const trace = await traced(chain, e, encodeFunctionData({ abi: entryPoint06Abi, functionName: 'simulateValidation', args: [struct as never] }));
    const output = hex(trace.output);
    if (trace.status === 'success') {
      throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, 'simulateValidation returned without a result (not an EntryPoint v0.6?)');
    }
    if (trace.status === 'halt') throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateValidation failed: ${trace.error ?? 'halted'}`);
    let decoded;
    try {
      decoded = decodeErrorResult({ abi: entryPoint06Abi, data: output });
    } catch {
      throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateValidation reverted with unknown data ${output.slice(0, 138)}`);
    }
    if (decoded.errorName === 'FailedOp') throwIfFailedOp(output, 'user operation refused');
    if (decoded.errorName === 'ValidationResultWithAggregation') {
      throw new UserOperationRejectedError(rpcErrorCode.unsupportedAggregator, 'the account names a signature aggregator; this bundler does not support aggregation');
    }
    if (decoded.errorName !== 'ValidationResult') {
      throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateValidation reverted with ${decoded.errorName}`);
    }
    const [returnInfo, senderInfo, factoryInfo, paymasterInfo] = decoded.args as unknown as [
      { preOpGas: bigint; prefund: bigint; sigFailed: boolean; validAfter: number; validUntil: number; paymasterContext: Hex },
      StakeInfo,
      StakeInfo,
      StakeInfo,
    ];
    const validUntil = BigInt(returnInfo.validUntil);
    return {
      preOpGas: returnInfo.preOpGas,
      prefund: returnInfo.prefund,
      signatureFailed: returnInfo.sigFailed,
      paymasterSignatureFailed: false,
      aggregator: undefined,
      validAfter: BigInt(returnInfo.validAfter),
      validUntil: validUntil === 0n ? MAX_UINT48 : validUntil,
      paymasterContext: returnInfo.paymasterContext,
      sender: senderInfo,
      factory: factoryInfo,
      paymaster: paymasterInfo,
      trace,
    };
  }
  const trace = await traced(chain, e, encodeFunctionData({ abi: entryPointSimulationsAbi, functionName: 'simulateValidation', args: [struct as never] }));
  const output = hex(trace.output);
  if (trace.status === 'revert') {
    throwIfFailedOp(output, 'user operation refused');
    throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateValidation reverted${innerReason(output)}`);
  }
  if (trace.status === 'halt') throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateValidation failed: ${trace.error ?? 'halted'}`);
  const result = decodeFunctionResult({ abi: entryPointSimulationsAbi, functionName: 'simulateValidation', data: output });
  const account = validationData(result.returnInfo.accountValidationData);
  const paymaster = validationData(result.returnInfo.paymasterValidationData);
  if (paymaster.aggregator > 1n) {
    throw new UserOperationRejectedError(rpcErrorCode.paymasterRejected, 'the paymaster returned an aggregator in its validation data');
  }
  return {
    preOpGas: result.returnInfo.preOpGas,
    prefund: result.returnInfo.prefund,
    signatureFailed: account.aggregator === 1n,
    paymasterSignatureFailed: paymaster.aggregator === 1n,
    aggregator: account.aggregator > 1n ? getAddress(`0x${account.aggregator.toString(16).padStart(40, '0')}`) : undefined,
    validAfter: account.validAfter > paymaster.validAfter ? account.validAfter : paymaster.validAfter,
    validUntil: account.validUntil < paymaster.validUntil ? account.validUntil : paymaster.validUntil,
    paymasterContext: result.returnInfo.paymasterContext,
    sender: result.senderInfo,
    factory: result.factoryInfo,
    paymaster: result.paymasterInfo,
    trace,
  };
}

/** What simulateHandleOp measured: each phase's gas (from the trace) and whether the execution succeeded. */
export interface ExecutionFacts {
  preOpGas: bigint;
  /** Gas the account's execution call used, and whether it succeeded (with its revert data). */
  callGasUsed: bigint;
  callSuccess: boolean;
  callOutput: Hex;
  /** Gas the paymaster's postOp used (0 without a postOp call). */
  postOpGasUsed: bigint;
  trace: ValidationTraceResult;
}

const VALIDATE_USER_OP = { '0.6': '3a871cdd', '0.7': '19822f7c' } as const;
const POST_OP = { '0.6': 'a9a23409', '0.7': '7c627b21' } as const;

/** simulateHandleOp of `e` (validation then execution, nothing kept), measured from the trace. */
export async function simulateExecution(chain: Chain, e: EntryPointOperation): Promise<ExecutionFacts> {
  const struct = entryPointStruct(e);
  const data =
    e.version === '0.6'
      ? encodeFunctionData({ abi: entryPoint06Abi, functionName: 'simulateHandleOp', args: [struct as never, zeroAddress, '0x'] })
      : encodeFunctionData({ abi: entryPointSimulationsAbi, functionName: 'simulateHandleOp', args: [struct as never, zeroAddress, '0x'] });
  const trace = await traced(chain, e, data);
  const output = hex(trace.output);
  let preOpGas: bigint;
  if (e.version === '0.6') {
    if (trace.status !== 'revert') throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateHandleOp failed: ${trace.error ?? 'no result'}`);
    let decoded;
    try {
      decoded = decodeErrorResult({ abi: entryPoint06Abi, data: output });
    } catch {
      throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateHandleOp reverted${innerReason(output)}`);
    }
    if (decoded.errorName === 'FailedOp') throwIfFailedOp(output, 'user operation refused');
    if (decoded.errorName !== 'ExecutionResult') throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateHandleOp reverted with ${decoded.errorName}`);
    preOpGas = (decoded.args as unknown as [bigint])[0];
  } else {
    if (trace.status === 'revert') {
      throwIfFailedOp(output, 'user operation refused');
      throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateHandleOp reverted${innerReason(output)}`);
    }
    if (trace.status === 'halt') throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `simulateHandleOp failed: ${trace.error ?? 'halted'}`);
    preOpGas = decodeFunctionResult({ abi: entryPointSimulationsAbi, functionName: 'simulateHandleOp', data: output }).preOpGas;
  }
  const entryPoint = e.entryPoint.toLowerCase();
  const sender = e.op.sender.toLowerCase();
  const addr = (b: Buffer) => `0x${b.toString('hex')}`;
  // The execution call: the EntryPoint calling the sender with anything but validateUserOp (the last such frame).
  let execution: TracedFrame | undefined;
  let postOp = 0n;
  for (const f of trace.frames) {
    if (addr(f.from) !== entryPoint) continue;
    const selector = f.selector.toString('hex');
    if (addr(f.to) === sender && selector !== VALIDATE_USER_OP[e.version]) execution = f;
    if (selector === POST_OP[e.version]) postOp += f.gasUsed;
  }
  return {
    preOpGas,
    callGasUsed: execution?.gasUsed ?? 0n,
    callSuccess: execution ? execution.success : true,
    callOutput: execution ? addr(execution.output) as Hex : '0x',
    postOpGasUsed: postOp,
    trace,
  };
}

/** The EntryPoint's next nonce for `sender` under the operation's nonce key. */
export async function entryPointNonce(chain: Chain, e: EntryPointOperation): Promise<bigint> {
  const key = e.op.nonce >> 64n;
  const abi = e.version === '0.6' ? entryPoint06Abi : entryPoint07Abi;
  const data = encodeFunctionData({ abi, functionName: 'getNonce', args: [e.op.sender, key] });
  const out = await chain.call({ to: parseAddress(e.entryPoint), data: Buffer.from(data.slice(2), 'hex') }, chain.head().number);
  if (out.status !== 'success') throw new UserOperationRejectedError(rpcErrorCode.userOperationRejected, `getNonce failed: ${out.error ?? 'reverted'}`);
  return hexToBigInt(hex(out.output));
}
