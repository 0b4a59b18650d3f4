// The module kernel: what every system module is to the app. A system module owns an address
// (transactions to it are decided by the module, not run in the EVM), an ABI (abi/<name>.json, so
// wallets and explorers decode its calls and logs), records (its state: key/values under its
// prefix, written with the block and covered by the state root through its account's storage) and
// block hooks. The registry (registry.ts) routes through these; ChainApp knows no module by name.
//
// Every module lives in a folder of its own under src/modules/ with the same file names:
//   module.ts  the SystemModule: calls (execute/simulate), hooks, records taken for the block
//   store.ts   its records: keys, values (through records.ts's codec), load and save
//   types.ts   its record and view shapes
//   index.ts   its public surface
import type { Abi, AbiEvent, Hex } from 'viem';
import { decodeFunctionData, encodeAbiParameters, encodeEventTopics } from 'viem';
import type { BalanceMove, Chain, ModuleLog, RecordWrite } from '../../native/index.js';
import type { ModuleMessage } from './messages.js';

/** A lowercase 0x-prefixed 20-byte address. */
import type { Address } from './records.js';
export type { Address };

/** A transaction (or eth_call) addressed to a module. */
export interface ModuleCall {
  from: Address;
  value: bigint;
  data: Buffer;
  gasLimit: bigint;
  /** The transaction's intrinsic gas (21000 + calldata), charged before the module's own cost. */
  intrinsicGas: bigint;
}

/** A call that a block carries: its transaction hash is known. */
export interface ModuleTx extends ModuleCall {
  txHash: Buffer;
}

/** Where and when a call runs. */
export interface BlockContext {
  height: number;
  /** Block timestamp, seconds (the header's `timestamp`: the rules that count seconds read this). */
  now: number;
  /** The block's time in milliseconds (what rules timed below a second read). */
  nowMs: number;
  /** The epoch the block belongs to. */
  epoch: number;
}

/** The block being built, as the block hooks see it: header fields and the parent's. */
export interface BlockInfo extends BlockContext {
  epochLengthBlocks: number;
  /** Whether the block is its epoch's first (epochs may change length: see modules/staking/epoch.ts). */
  isEpochStart: boolean;
  parentHash: Buffer;
  /** The block's proposer (its coinbase). */
  proposer: Address;
  /** Validators whose signatures the block carries. */
  signers: readonly Address[];
  /** Total supply at the parent, before this block's mints and burns. */
  supplyAtParent: bigint;
  /** The header's extra data, as the proposer chose it (modules read what they announce in it). */
  extraData: Buffer;
}

/** Where a block stands in the chain's epochs (epochs may change length: see modules/staking/epoch.ts). */
export interface EpochPosition {
  epoch: number;
  /** The epoch's length, blocks. */
  lengthBlocks: number;
  /** Whether the block is its epoch's first. */
  isStart: boolean;
}

/** What a module decided for one call. */
export interface ModuleOutcome {
  success: boolean;
  gasUsed: bigint;
  /** Why it reverted (Solidity-style reason), when it did. */
  reason?: string;
  /** ABI-encoded return value (empty for reverts). */
  returnData: Buffer;
  logs: ModuleLog[];
  moves: BalanceMove[];
}

/** What a block hook did to balances and supply. */
export interface HookResult {
  /** Moves after the block's transactions. */
  moves: BalanceMove[];
  /** Moves before the block's first transaction (beginBlock only: storage deposits). */
  preMoves?: BalanceMove[];
  /** Native tokens created (rewards). */
  minted: bigint;
  /** Native tokens destroyed (slashes). */
  burned: bigint;
}

export const noChange = (): HookResult => ({ moves: [], minted: 0n, burned: 0n });

/** A system module as the kernel routes to it. */
export interface SystemModule {
  /** Short name: the folder, the ABI file and the prefix of its records ("staking"). */
  readonly name: string;
  readonly address: Address;
  readonly abi: Abi;
  /** Decides a transaction of the block being built; its changes are taken with takeWrites(). */
  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome;
  /** eth_call / eth_estimateGas at the head: the same decision on a copy, which is dropped. */
  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome;
  /** Before the block's transactions. */
  beginBlock(block: BlockInfo): HookResult;
  /** After the block's transactions. */
  endBlock(block: BlockInfo): HookResult;
  /** The records changed since the last take, for the block's write (sorted by key). */
  takeWrites(): RecordWrite[];
  /** The block committed: drop what only the block being built needed. */
  committed(): void;
  /** The block failed before its write: forget its changes and read the records at the head again. */
  reload(chain: Chain): void;
  /** Modules that take system messages: what this node proposes for the next block, taken from what it queued (reload() gives it back). */
  proposeMessages?(): ModuleMessage[];
  /** Whether these messages (the module's, in block order) can be in a block: their shapes and the block's limits; null when they can. */
  checkMessages?(messages: readonly ModuleMessage[]): string | null;
  /** Messages another node proposed (checked by checkMessages): whether the signatures they carry verify; null when they do. */
  verifyMessages?(messages: readonly ModuleMessage[], chainId: number): Promise<string | null>;
  /** The block's messages for the module, in block order, before its hooks run. */
  deliverMessages?(messages: readonly ModuleMessage[]): void;
  /**
   * A message from the network's mempool (checked and verified): queued for a block this node
   * proposes; null when queued, else why not (a kind that only a proposer may carry).
   */
  queueMessage?(message: ModuleMessage): string | null;
  /** Whether the node still queues this message (a recheck after a block keeps it in the mempool). */
  isQueued?(message: ModuleMessage): boolean;
  /** Modules that account for balances they do not hold (the treasury): every module's moves in the block, by module, as they are made. */
  observeMoves?(module: string, moves: readonly BalanceMove[]): void;
  /** The module that keeps the chain's epochs (one module has it): where a block at `height` stands in them. */
  epochOf?(height: number): EpochPosition;
  /** Modules that announce something in the blocks this node proposes: the header's extra data with their announcement added. */
  proposerExtraData?(extraData: Buffer): Buffer;
  /**
   * Modules whose rules refuse whole transactions (rent: a dormant account neither sends nor is
   * called): why a transaction from `from` to `to` (null: a creation) cannot run; null when it can.
   * Asked at admission, in the block and for eth_call at the head, so all three refuse alike.
   */
  refusal?(from: Buffer, to: Buffer | null): string | null;
  /** Modules whose rules the native executor enforces inside the block being built (rent: calls into dormant accounts revert); null when none apply. */
  blockRules?(): BlockRules | null;
}

/** What the native executor enforces for the modules in the block being built (see SystemModule.blockRules). */
export interface BlockRules {
  /** Accounts whose calls revert: flagged by records under `prefix`, with those the block made dormant and active again. */
  dormancy?: { prefix: Buffer; dormant: Buffer[]; reactivated: Buffer[] };
}

const hexToBuffer = (h: Hex): Buffer => Buffer.from(h.slice(2), 'hex');

/** The lowercase 0x address of 20 bytes. */
export function toAddress(bytes: Buffer): Address {
  return `0x${bytes.toString('hex')}`;
}

/** The 20 bytes of an address. */
export function addressBuffer(a: Address): Buffer {
  return Buffer.from(a.slice(2), 'hex');
}

/** Solidity's Error(string) revert data, so clients decode the reason as they do a contract's. */
export function revertData(reason: string): Buffer {
  return Buffer.concat([Buffer.from('08c379a0', 'hex'), hexToBuffer(encodeAbiParameters([{ type: 'string' }], [reason]))]);
}

/** A module call's revert: the reason as Error(string) data, gas used capped at the call's limit. */
export function reverter(call: Pick<ModuleCall, 'gasLimit'>): (reason: string, gasUsed: bigint) => ModuleOutcome {
  return (reason, gasUsed) => ({
    success: false,
    gasUsed: gasUsed > call.gasLimit ? call.gasLimit : gasUsed,
    reason,
    returnData: revertData(reason),
    logs: [],
    moves: [],
  });
}

/** A module call's function and arguments, as the module's ABI decodes them. */
export interface DecodedCall {
  functionName: string;
  args: readonly unknown[];
}

/**
 * Decodes a call with the module's ABI; a call without data (a plain transfer) or one the ABI does
 * not decode reverts with the module's name in the reason, charging the intrinsic gas.
 */
export function decodeModuleCall(module: string, abi: Abi, call: ModuleCall): DecodedCall | ModuleOutcome {
  const revert = reverter(call);
  if (call.data.length === 0) return revert(`${module}: plain transfers are refused, call a function`, call.intrinsicGas);
  try {
    return decodeFunctionData({ abi, data: `0x${call.data.toString('hex')}` }) as DecodedCall;
  } catch {
    return revert(`${module}: unknown function or malformed arguments`, call.intrinsicGas);
  }
}

/** Whether decodeModuleCall gave a revert rather than a call. */
export function isOutcome(d: DecodedCall | ModuleOutcome): d is ModuleOutcome {
  return 'success' in d;
}

/**
 * What a module decided for one call before changing anything: refused, or its result, its logs,
 * the balances it pays out (none unless given) and the change to make when the call is executed
 * (not when simulated).
 */
export type Decision = { ok: false; reason: string } | { ok: true; returnData: Buffer; logs: ModuleLog[]; moves?: BalanceMove[]; apply: () => void };

/**
 * A module's gas table, one shape in every module: what each function that changes state costs on
 * top of the transaction's intrinsic gas, and `view` for every read function.
 */
export type GasTable = { readonly view: number } & { readonly [functionName: string]: number };

/** runDecided's `cost` from a gas table: `view` for read functions, the function's own entry (else `view`) for the others. */
export function gasCost(table: GasTable): (functionName: string, isView: boolean) => number {
  return (name, isView) => (isView ? table.view : (table[name] ?? table.view));
}

/**
 * A module call decided before it is applied: decoded with the module's ABI, charged its intrinsic
 * gas and `cost(function, isView)`, refused when it sends value to a function that is not payable,
 * then decided; `apply` (execute, not simulate) makes the decision's change. Reverts carry the
 * module's name.
 */
export function runDecided(
  module: string,
  abi: Abi,
  call: ModuleCall,
  apply: boolean,
  cost: (functionName: string, isView: boolean) => number,
  decide: (functionName: string, args: readonly unknown[]) => Decision,
): ModuleOutcome {
  const revert = reverter(call);
  const decoded = decodeModuleCall(module, abi, call);
  if (isOutcome(decoded)) return decoded;
  const name = decoded.functionName;
  const fn = abi.find((f) => f.type === 'function' && f.name === name) as { stateMutability: string };
  const required = call.intrinsicGas + BigInt(cost(name, fn.stateMutability === 'view'));
  if (call.gasLimit < required) return revert('out of gas', call.gasLimit);
  if (call.value > 0n && fn.stateMutability !== 'payable') return revert(`${module}: ${name} is not payable`, required);
  const d = decide(name, decoded.args);
  if (!d.ok) return revert(`${module}: ${d.reason}`, required);
  if (apply) d.apply();
  return { success: true, gasUsed: required, returnData: d.returnData, logs: d.logs, moves: d.moves ?? [] };
}

/** The events of a module's ABI by name, for moduleLog. */
export function abiEvents(abi: Abi): ReadonlyMap<string, AbiEvent> {
  return new Map((abi.filter((e) => e.type === 'event') as AbiEvent[]).map((e) => [e.name, e]));
}

/** One EVM log of the module's ABI event `name`: indexed arguments as topics, the others ABI-encoded in order as data. */
export function moduleLog(
  events: ReadonlyMap<string, AbiEvent>,
  name: string,
  indexed: Record<string, unknown>,
  data: readonly { type: string; value: unknown }[],
): ModuleLog {
  const event = events.get(name);
  if (!event) throw new Error(`the module's ABI has no event ${name}`);
  const topics = encodeEventTopics({ abi: [event], eventName: name, args: indexed } as never) as Hex[];
  const encoded = encodeAbiParameters(
    data.map((d) => ({ type: d.type })),
    data.map((d) => d.value),
  );
  return { topics: topics.map(hexToBuffer), data: hexToBuffer(encoded) };
}
