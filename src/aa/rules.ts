// ERC-7562's validation rules, applied to the native tracer's record of simulateValidation: each
// frame below the EntryPoint belongs to the entity whose phase the EntryPoint called (the factory
// through the SenderCreator, the account, the paymaster); its opcodes, calls, code accesses and
// storage accesses are checked against the entity's rules and stake. A broken rule is an ERC-7769
// -32502 (opcode or storage rule) or -32505 (stake too low) with the rule's number in the message.
//
// Enforced: OP-011 (banned opcodes; BALANCE/SELFBALANCE only for staked entities, OP-080), OP-012 (GAS
// only before a call), OP-020 (out of gas), OP-031 (CREATE2 once, by the factory only), OP-041/042
// (EXTCODESIZE/EXTCODEHASH and calls to addresses without code, but the sender being created),
// OP-052..054 (calls into the EntryPoint: depositTo, or the sender's plain transfer), OP-061 (value
// only to the EntryPoint), OP-062 (precompiles), STO-010/021/022 (the account's own and associated
// storage; associated before deployment only with a staked factory), STO-031/032/033 (an entity's own
// storage, storage associated with it, read-only access elsewhere: staked entities only), and a
// paymaster that returns a context must be staked. Not enforced: EXTCODECOPY of addresses without code
// (its result is not on the stack) and COD-010 (code hashes between simulation and bundling: the
// bundle simulates every operation again on the head it is built on).
import { getAddress, type Address } from 'viem';
import type { TracedFrame, ValidationTraceResult } from '../native/index.js';
import { rpcErrorCode } from '../params.js';
import { isStaked, UserOperationRejectedError, type ValidationFacts } from './simulation.js';

type Entity = 'factory' | 'account' | 'paymaster';

/** OP-011: opcodes no validation may run (block environment, origin, self-destruct, blob data). */
const BANNED: ReadonlyMap<number, string> = new Map([
  [0x32, 'ORIGIN'],
  [0x3a, 'GASPRICE'],
  [0x40, 'BLOCKHASH'],
  [0x41, 'COINBASE'],
  [0x42, 'TIMESTAMP'],
  [0x43, 'NUMBER'],
  [0x44, 'PREVRANDAO'],
  [0x45, 'GASLIMIT'],
  [0x48, 'BASEFEE'],
  [0x49, 'BLOBHASH'],
  [0x4a, 'BLOBBASEFEE'],
  [0xff, 'SELFDESTRUCT'],
]);
/** OP-080: allowed for staked entities only. */
const STAKED_ONLY: ReadonlyMap<number, string> = new Map([
  [0x31, 'BALANCE'],
  [0x47, 'SELFBALANCE'],
]);
const CREATE = 0xf0;
const CREATE2 = 0xf5;
/** depositTo(address). */
const DEPOSIT_TO = 'b760faf9';
/** OP-062: the precompiles a validation may call (0x01..0x0a, and P-256 verification at 0x100). */
function isAllowedPrecompile(address: string): boolean {
  const n = BigInt(address);
  return (n >= 1n && n <= 10n) || n === 0x100n;
}
function isPrecompileRange(address: string): boolean {
  return BigInt(address) <= 0x1ffn;
}

/** The operation's parties, as the bundler knows them before the simulation. */
export interface RuleContext {
  entryPoint: Address;
  sender: Address;
  factory: Address | undefined;
  paymaster: Address | undefined;
  /** Whether the sender had code before the operation (no factory runs then). */
  senderDeployed: boolean;
}

function hex(b: Buffer): string {
  return `0x${b.toString('hex')}`;
}

function refuse(code: number, message: string): never {
  throw new UserOperationRejectedError(code, message);
}

/** Slots associated with each address: keccak(A ‖ x) from the trace's preimages (A left-padded to a word). */
function associations(trace: ValidationTraceResult): Map<string, bigint[]> {
  const out = new Map<string, bigint[]>();
  for (const [word, hash] of trace.keccak) {
    if (!word || !hash || !word.subarray(0, 12).every((b) => b === 0)) continue;
    const address = hex(word.subarray(12));
    let list = out.get(address);
    if (!list) out.set(address, (list = []));
    list.push(BigInt(hex(hash)));
  }
  return out;
}

/** STO's "associated with A": the slot is A itself, or keccak(A ‖ x) + n for n < 128. */
function isAssociated(slot: bigint, address: string, assoc: Map<string, bigint[]>): boolean {
  if (slot === BigInt(address)) return true;
  for (const base of assoc.get(address) ?? []) if (slot >= base && slot - base < 128n) return true;
  return false;
}

/** Checks the ERC-7562 rules on `facts.trace`; throws the ERC-7769 error of the first rule broken. */
export function checkValidationRules(ctx: RuleContext, facts: ValidationFacts, senderCreator: Address): void {
  const { trace } = facts;
  const frames = trace.frames;
  const entryPoint = ctx.entryPoint.toLowerCase();
  const sender = ctx.sender.toLowerCase();
  const creator = senderCreator.toLowerCase();
  const entityAddress: Record<Entity, string | undefined> = {
    factory: ctx.factory?.toLowerCase(),
    account: sender,
    paymaster: ctx.paymaster?.toLowerCase(),
  };
  const staked: Record<Entity, boolean> = {
    factory: isStaked(facts.factory),
    account: isStaked(facts.sender),
    paymaster: isStaked(facts.paymaster),
  };
  const title = (e: Entity) => (e === 'account' ? 'account' : e);

  // Each frame's entity: that of its ancestor the EntryPoint (frame 0) called.
  const entityOf: (Entity | undefined)[] = new Array(frames.length).fill(undefined);
  frames.forEach((f, i) => {
    if (f.parent < 0) return;
    if (f.parent === 0) {
      const to = hex(f.to);
      if (to === creator) entityOf[i] = 'factory';
      else if (to === sender) entityOf[i] = 'account';
      else if (entityAddress.paymaster && to === entityAddress.paymaster) entityOf[i] = 'paymaster';
      return;
    }
    entityOf[i] = entityOf[f.parent];
  });

  const assoc = associations(trace);
  const create2ByFactory: number[] = [];
  frames.forEach((f: TracedFrame, i) => {
    const entity = entityOf[i];
    if (!entity) return;
    const name = title(entity);
    const to = hex(f.to);
    const from = hex(f.from);
    const runsEntryPoint = hex(f.codeAddress) === entryPoint;
    const runsSenderCreator = hex(f.codeAddress) === creator;

    // Calls into the EntryPoint (OP-052..054), value transfers (OP-061), precompiles (OP-062), empty code (OP-041).
    if (to === entryPoint && f.parent !== -1 && !runsSenderCreator) {
      const selector = f.selector.toString('hex');
      const fromSenderPlain = selector === '' && from === sender;
      if (selector !== DEPOSIT_TO && !fromSenderPlain) {
        refuse(rpcErrorCode.opcodeValidation, `${name} called the EntryPoint with ${selector ? `0x${selector}` : 'plain data'}: only depositTo, or the sender's plain transfer, is allowed during validation (ERC-7562 OP-052..054)`);
      }
    } else if (f.value > 0n && (f.kind === 'CALL' || f.kind === 'CALLCODE') && f.parent !== 0) {
      refuse(rpcErrorCode.opcodeValidation, `${name} sent value to ${getAddress(to)} during validation: only the EntryPoint may receive value (ERC-7562 OP-061)`);
    }
    if (f.kind !== 'CREATE' && f.kind !== 'CREATE2' && !f.hasCode && to !== entryPoint) {
      const code = hex(f.codeAddress);
      if (isPrecompileRange(code)) {
        if (!isAllowedPrecompile(code)) refuse(rpcErrorCode.opcodeValidation, `${name} called precompile ${getAddress(code)}, which validation may not use (ERC-7562 OP-062)`);
      } else if (!(code === sender && entity === 'factory')) {
        refuse(rpcErrorCode.opcodeValidation, `${name} called ${getAddress(code)}, which has no code (ERC-7562 OP-041)`);
      }
    }
    if (f.outOfGas) refuse(rpcErrorCode.opcodeValidation, `${name} ran out of gas during validation (ERC-7562 OP-020)`);
    if (runsEntryPoint || runsSenderCreator) return; // their own opcodes and storage are the EntryPoint's.

    for (const [op, count] of f.opcodes) {
      const banned = BANNED.get(op!);
      if (banned) refuse(rpcErrorCode.opcodeValidation, `${name} used the banned opcode ${banned} during validation (ERC-7562 OP-011)`);
      const stakedOnly = STAKED_ONLY.get(op!);
      if (stakedOnly && !staked[entity]) refuse(rpcErrorCode.opcodeValidation, `unstaked ${name} used ${stakedOnly} during validation (ERC-7562 OP-080)`);
      if (op === CREATE2) create2ByFactory.push(entity === 'factory' ? count! : Number.POSITIVE_INFINITY);
      if (op === CREATE && !(entity === 'account' && ctx.factory)) {
        refuse(rpcErrorCode.opcodeValidation, `${name} used CREATE during validation (ERC-7562 OP-011/OP-032)`);
      }
    }
    if (f.gasNotBeforeCall) refuse(rpcErrorCode.opcodeValidation, `${name} used GAS other than right before a call (ERC-7562 OP-012)`);
    for (const access of f.codeAccesses) {
      const target = hex(access.address);
      if (access.hasCode === false && target !== sender && !isPrecompileRange(target)) {
        refuse(rpcErrorCode.opcodeValidation, `${name} inspected the code of ${getAddress(target)}, which has none (ERC-7562 OP-041)`);
      }
    }

    // Storage (STO-010..033).
    const own = entityAddress[entity]!;
    for (const s of f.storage) {
      const address = hex(s.address);
      const slot = BigInt(hex(s.slot));
      const where = `${getAddress(address)} slot ${hex(s.slot)}`;
      if (address === sender) continue; // STO-010
      if (isAssociated(slot, sender, assoc)) {
        // STO-021/022: before the account exists, only a staked factory makes its associated storage safe.
        if (!ctx.senderDeployed && ctx.factory && !staked.factory) {
          refuse(rpcErrorCode.opcodeValidation, `${name} accessed storage associated with the sender (${where}) while the sender is created by an unstaked factory (ERC-7562 STO-022)`);
        }
        continue;
      }
      if (address === own || isAssociated(slot, own, assoc) || (!s.write && !s.transient)) {
        if (!staked[entity]) {
          const rule = address === own ? 'STO-031' : isAssociated(slot, own, assoc) ? 'STO-032' : 'STO-033';
          refuse(rpcErrorCode.opcodeValidation, `unstaked ${name} ${getAddress(own)} ${s.write ? 'wrote' : 'read'} ${where} (ERC-7562 ${rule})`);
        }
        continue;
      }
      refuse(rpcErrorCode.opcodeValidation, `${name} wrote ${where}, storage no entity of the operation owns (ERC-7562 STO)`);
    }
  });
  const create2 = create2ByFactory.reduce((a, b) => a + b, 0);
  if (create2 > 1) refuse(rpcErrorCode.opcodeValidation, 'CREATE2 is allowed once during validation, by the factory creating the sender (ERC-7562 OP-031)');

  if (ctx.paymaster && facts.paymasterContext !== '0x' && !staked.paymaster) {
    refuse(rpcErrorCode.stakeTooLow, `unstaked paymaster ${ctx.paymaster} returned a context: a paymaster with postOp must be staked (ERC-7562)`);
  }
}
