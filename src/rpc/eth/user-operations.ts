// ERC-7769's read side of a bundler: eth_getUserOperationByHash and eth_getUserOperationReceipt for
// user operations that any bundler or EOA put on chain through handleOps / handleAggregatedOps of
// the genesis EntryPoints (v0.6 and v0.7), answered as the reference bundler, Alto and Rundler do.
// An operation is found by its UserOperationEvent (topic 1 = the hash) through the native log query
// (header blooms, then receipts), newest blocks first, one eth_getLogs-sized window at a time,
// back at most `rpc.userOperationLookbackBlocks` blocks.
import {
  decodeEventLog,
  decodeFunctionData,
  getAddress,
  hexToBigInt,
  numberToHex,
  slice,
  size,
  toEventSelector,
  type Address,
  type Hex,
} from 'viem';
import { entryPoint06Abi, entryPoint07Abi, getUserOperationHash, type UserOperation } from 'viem/account-abstraction';
import {
  decodeUserOperationEvent,
  ENTRY_POINT_VERSIONS as entryPoints,
  entryPointVersion,
  findUserOperationEvent,
  userOperationExecutionLogs as executionLogs,
  type EntryPointVersion as Version,
  type UserOperationLog,
} from '../../chain/user-operation-events.js';
import { method, required, type MethodTable, type RpcContext } from '../method.js';
import { parseHash } from '../validate.js';

const USER_OPERATION_REVERT_REASON = toEventSelector(
  'UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)',
);
const POST_OP_REVERT_REASON = toEventSelector('PostOpRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)');

type RpcLog = UserOperationLog;

/** The newest UserOperationEvent of `hash` (the rule the explorer's user-operation page shares). */
const findEvent = (ctx: RpcContext, hash: Buffer) => findUserOperationEvent(ctx.services.chain, hash);

function versionOf(address: Hex): Version {
  // findEvent asks only the genesis EntryPoints for logs.
  return entryPointVersion(address)!;
}

/** The operations a handleOps / handleAggregatedOps call carries, or [] for other calldata. */
function operationsIn(version: Version, input: Hex): unknown[] {
  try {
    const call = decodeFunctionData({ abi: version === '0.6' ? entryPoint06Abi : entryPoint07Abi, data: input });
    if (call.functionName === 'handleOps') return [...(call.args[0] as readonly unknown[])];
    if (call.functionName === 'handleAggregatedOps') {
      return (call.args[0] as readonly { userOps: readonly unknown[] }[]).flatMap((a) => [...a.userOps]);
    }
  } catch {
    // Not a call of the EntryPoint's (a contract relayed it): the operation is not recoverable from the calldata.
  }
  return [];
}

interface PackedUserOperation {
  sender: Address;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  accountGasLimits: Hex;
  preVerificationGas: bigint;
  gasFees: Hex;
  paymasterAndData: Hex;
  signature: Hex;
}

/** v0.7's packed operation in the unpacked form of the RPC (absent factory and paymaster fields left out). */
function unpack(p: PackedUserOperation): UserOperation<'0.7'> {
  const op: UserOperation<'0.7'> = {
    sender: p.sender,
    nonce: p.nonce,
    callData: p.callData,
    verificationGasLimit: hexToBigInt(slice(p.accountGasLimits, 0, 16)),
    callGasLimit: hexToBigInt(slice(p.accountGasLimits, 16, 32)),
    preVerificationGas: p.preVerificationGas,
    maxPriorityFeePerGas: hexToBigInt(slice(p.gasFees, 0, 16)),
    maxFeePerGas: hexToBigInt(slice(p.gasFees, 16, 32)),
    signature: p.signature,
  };
  if (size(p.initCode) > 0) {
    op.factory = getAddress(slice(p.initCode, 0, 20));
    op.factoryData = size(p.initCode) > 20 ? slice(p.initCode, 20) : '0x';
  }
  if (size(p.paymasterAndData) > 0) {
    op.paymaster = getAddress(slice(p.paymasterAndData, 0, 20));
    op.paymasterVerificationGasLimit = hexToBigInt(slice(p.paymasterAndData, 20, 36));
    op.paymasterPostOpGasLimit = hexToBigInt(slice(p.paymasterAndData, 36, 52));
    op.paymasterData = size(p.paymasterAndData) > 52 ? slice(p.paymasterAndData, 52) : '0x';
  }
  return op;
}

/** bigint fields as quantities, the rest as they are (ERC-7769's JSON). */
function toRpc(op: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(op).map(([k, v]) => [k, typeof v === 'bigint' ? numberToHex(v) : v]));
}

async function userOperationByHash(ctx: RpcContext, hash: Buffer): Promise<Record<string, unknown> | null> {
  const event = await findEvent(ctx, hash);
  if (event === null) return null;
  const tx = ctx.services.chain.getTransactionByHash(Buffer.from(event.transactionHash.slice(2), 'hex')) as { input?: Hex } | null;
  if (tx === null || typeof tx.input !== 'string') return null;
  const version = versionOf(event.address);
  const entryPoint = entryPoints.find((e) => e.version === version)!.address;
  const wanted = `0x${hash.toString('hex')}`;
  const chainId = ctx.services.config.chainId;
  for (const raw of operationsIn(version, tx.input)) {
    const userOperation = version === '0.6' ? (raw as UserOperation<'0.6'>) : unpack(raw as PackedUserOperation);
    const opHash =
      version === '0.6'
        ? getUserOperationHash({ chainId, entryPointAddress: entryPoint, entryPointVersion: '0.6', userOperation: userOperation as UserOperation<'0.6'> })
        : getUserOperationHash({ chainId, entryPointAddress: entryPoint, entryPointVersion: '0.7', userOperation: userOperation as UserOperation<'0.7'> });
    if (opHash.toLowerCase() !== wanted) continue;
    return {
      userOperation: toRpc(userOperation as unknown as Record<string, unknown>),
      entryPoint,
      transactionHash: event.transactionHash,
      blockHash: event.blockHash,
      blockNumber: event.blockNumber,
    };
  }
  return null;
}

async function userOperationReceipt(ctx: RpcContext, hash: Buffer): Promise<Record<string, unknown> | null> {
  const event = await findEvent(ctx, hash);
  if (event === null) return null;
  const receipt = ctx.services.chain.getTransactionReceipt(Buffer.from(event.transactionHash.slice(2), 'hex')) as
    | ({ logs: RpcLog[] } & Record<string, unknown>)
    | null;
  if (receipt === null) return null;
  const decoded = { args: decodeUserOperationEvent(event) };
  const version = versionOf(event.address);
  const entryPoint = entryPoints.find((e) => e.version === version)!.address;
  const reasonLog =
    receipt.logs.find((l) => l.topics[0] === USER_OPERATION_REVERT_REASON && l.topics[1] === event.topics[1] && l.address.toLowerCase() === event.address.toLowerCase()) ??
    receipt.logs.find((l) => l.topics[0] === POST_OP_REVERT_REASON && l.topics[1] === event.topics[1] && l.address.toLowerCase() === event.address.toLowerCase());
  const answer: Record<string, unknown> = {
    userOpHash: decoded.args.userOpHash,
    entryPoint,
    sender: decoded.args.sender,
    nonce: numberToHex(decoded.args.nonce),
    paymaster: decoded.args.paymaster,
    actualGasCost: numberToHex(decoded.args.actualGasCost),
    actualGasUsed: numberToHex(decoded.args.actualGasUsed),
    success: decoded.args.success,
  };
  if (reasonLog) {
    const r = decodeEventLog({ abi: entryPoint07Abi, topics: reasonLog.topics as [Hex, ...Hex[]], data: reasonLog.data });
    answer.reason = (r.args as { revertReason: Hex }).revertReason;
  }
  answer.logs = executionLogs(receipt.logs, event);
  answer.receipt = receipt;
  return answer;
}

export const userOperationMethods: MethodTable = {
  eth_getUserOperationByHash: method([required(parseHash)], (ctx, [hash]) => userOperationByHash(ctx, hash)),
  eth_getUserOperationReceipt: method([required(parseHash)], (ctx, [hash]) => userOperationReceipt(ctx, hash)),
};
