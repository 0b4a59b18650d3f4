// The compute module's messages. Its calls: the ABI (abi/compute.json) and how a call is decided for
// the kernel's one call path (submitTask, getTask). Its system messages (see
// src/modules/kernel/messages.ts): what it queued for a block, carried by the block. A message's
// shape is checked before the block runs (a proposal with a malformed one is refused); what depends
// on state (task, assignment, key, jail, a share seen before) is checked again by the block hooks,
// the same way on every node.
import { readFileSync } from 'node:fs';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { encodeFunctionResult, recoverMessageAddress, type Abi } from 'viem';
import { core } from '../../native/index.js';
import type { ComputeParams } from '../../params.js';
import type { ModuleMessage } from '../kernel/messages.js';
import { abiEvents, moduleLog, type Decision, type ModuleCall } from '../kernel/module.js';
import type { ModuleLog } from '../../native/index.js';
import type { ComputeStore } from './store.js';
import { newPublicTask, type Address } from './types.js';
import { hexOf, type Hex } from './wire.js';
import { emptyTaken, MAX_MODES_PER_BLOCK, type TakenQueues } from './queues.js';
import { COMPUTE_MODES, modeMessage, proofMessage, registrationMessage, TIERS } from './wire.js';
import type { QueuedMode, QueuedProof, QueuedRegistration } from './queues.js';

export const KINDS = ['registration', 'proof', 'share', 'verdict', 'mode'] as const;
type Kind = (typeof KINDS)[number];

const HEX = /^0x[0-9a-f]*$/;
const isHex = (v: unknown, bytes?: number): boolean => typeof v === 'string' && HEX.test(v) && (bytes === undefined || v.length === 2 + 2 * bytes);
const isInt = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isBig = (v: unknown): boolean => typeof v === 'bigint' && v >= 0n;
/** A cosine in parts per million: -1,000,000..1,000,000 (a different model's output may point away from the honest one). */
const isCosinePpm = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= -1_000_000 && v <= 1_000_000;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field checks of each kind: field -> test. */
const SHAPES: Record<Kind, Record<string, (v: unknown) => boolean>> = {
  registration: {
    wallet: (v) => isHex(v, 20),
    publicKey: (v) => isHex(v, 32),
    tier: (v) => (TIERS as readonly unknown[]).includes(v),
    models: (v) => Array.isArray(v) && v.length <= 255 && v.every((m) => typeof m === 'string'),
    sequence: isInt,
    signature: (v) => isHex(v, 64),
    walletSignature: (v) => isHex(v, 65),
  },
  proof: {
    id: (v) => isHex(v, 32),
    taskId: (v) => isHex(v, 32),
    validator: (v) => isHex(v, 20),
    miner: (v) => isHex(v, 20),
    publicKey: (v) => isHex(v, 32),
    modelId: (v) => typeof v === 'string',
    inputHash: (v) => isHex(v, 32),
    outputHash: (v) => isHex(v, 32),
    quantized: (v) => isHex(v),
    executionTimeMs: isInt,
    flops: isBig,
    claimedFlops: isBig,
    signature: (v) => isHex(v, 64),
  },
  share: {
    validator: (v) => isHex(v, 20),
    blockHash: (v) => isHex(v, 32),
    nonce: isBig,
    hash: (v) => isHex(v, 32),
  },
  verdict: {
    proofId: (v) => isHex(v, 32),
    passed: (v) => typeof v === 'boolean',
    result: (v) => isObject(v) && isCosinePpm(v.cosinePpm) && isInt(v.maxAbsDiff) && typeof v.hashMatches === 'boolean' && Object.keys(v).length === 3,
  },
  mode: {
    validator: (v) => isHex(v, 20),
    mode: (v) => (COMPUTE_MODES as readonly unknown[]).includes(v),
    height: isInt,
    publicKey: (v) => isHex(v, 32),
    signature: (v) => isHex(v, 64),
  },
};

/** Why a message's body is not of its kind; null when it is. */
function shapeProblem(kind: Kind, body: unknown): string | null {
  if (!isObject(body)) return `${kind}: the body is not an object`;
  const shape = SHAPES[kind];
  for (const [field, test] of Object.entries(shape)) if (!test(body[field])) return `${kind}: field ${field} is missing or malformed`;
  const extra = Object.keys(body).filter((k) => !(k in shape));
  return extra.length > 0 ? `${kind}: unknown field ${extra[0]}` : null;
}

/** The messages of what a block takes from the queues, in a fixed order of kinds. */
export function messagesOf(taken: TakenQueues): ModuleMessage[] {
  const m = (kind: Kind) => (body: unknown): ModuleMessage => ({ module: 'compute', kind, body });
  return [
    ...taken.registrations.map(m('registration')),
    ...taken.proofs.map(m('proof')),
    ...taken.shares.map(m('share')),
    ...taken.verdicts.map(m('verdict')),
    ...taken.modes.map(m('mode')),
  ];
}

/** Why a block's compute messages cannot be in it (a shape, a kind, or more than a block takes); null when they can. */
export function checkMessages(messages: readonly ModuleMessage[], limits: Pick<ComputeParams, 'maxRegistrationsPerBlock' | 'maxProofsPerBlock' | 'maxSharesPerBlock'>): string | null {
  const counts = { registration: 0, proof: 0, share: 0, verdict: 0, mode: 0 };
  for (const [i, msg] of messages.entries()) {
    if (!(KINDS as readonly string[]).includes(msg.kind)) return `message ${i}: unknown kind ${JSON.stringify(msg.kind)}`;
    const kind = msg.kind as Kind;
    const problem = shapeProblem(kind, msg.body);
    if (problem !== null) return `message ${i}: ${problem}`;
    counts[kind] += 1;
  }
  if (counts.registration > limits.maxRegistrationsPerBlock) return `${counts.registration} registrations, limit ${limits.maxRegistrationsPerBlock}`;
  if (counts.proof > limits.maxProofsPerBlock) return `${counts.proof} proofs, limit ${limits.maxProofsPerBlock}`;
  if (counts.share > limits.maxSharesPerBlock) return `${counts.share} shares, limit ${limits.maxSharesPerBlock}`;
  if (counts.mode > MAX_MODES_PER_BLOCK) return `${counts.mode} compute-mode announcements, limit ${MAX_MODES_PER_BLOCK}`;
  return null;
}

/** A block's compute messages (checked) as the hooks take them, by kind in block order. */
export function takenOf(messages: readonly ModuleMessage[]): TakenQueues {
  const taken = emptyTaken();
  for (const msg of messages) {
    const list = { registration: taken.registrations, proof: taken.proofs, share: taken.shares, verdict: taken.verdicts, mode: taken.modes }[msg.kind as Kind];
    (list as unknown[]).push(msg.body);
  }
  return taken;
}

const bytes = (h: string): Buffer => Buffer.from(h.slice(2), 'hex');

/**
 * Why the signed messages of another proposer's block are not what they claim; null when every one
 * is: a proof's Ed25519 signature by the key it names, a registration's Ed25519 signature and its
 * wallet's EIP-191 signature, a compute-mode announcement's Ed25519 signature by the consensus key
 * it names. (Shares prove themselves by their work and verdicts are the proposer's, checked by the
 * hooks; whether an announcement's key is its validator's is state, checked by the hooks.) The
 * messages' shapes are checked first (checkMessages).
 */
export async function verifyMessages(messages: readonly ModuleMessage[], chainId: number): Promise<string | null> {
  const items: { index: number; what: string; publicKey: Buffer; message: Buffer; signature: Buffer }[] = [];
  const wallets: { index: number; wallet: string; message: Buffer; signature: string }[] = [];
  for (const [index, msg] of messages.entries()) {
    if (msg.kind === 'proof') {
      const p = msg.body as QueuedProof;
      const message = proofMessage({
        chainId,
        taskId: bytes(p.taskId),
        validator: bytes(p.validator),
        miner: bytes(p.miner),
        modelId: p.modelId,
        inputHash: bytes(p.inputHash),
        outputHash: bytes(p.outputHash),
        executionTimeMs: p.executionTimeMs,
        flops: p.claimedFlops,
      });
      items.push({ index, what: 'the Ed25519 signature', publicKey: bytes(p.publicKey), message, signature: bytes(p.signature) });
    } else if (msg.kind === 'registration') {
      const r = msg.body as QueuedRegistration;
      const message = registrationMessage({ chainId, wallet: bytes(r.wallet), publicKey: bytes(r.publicKey), tier: r.tier, models: r.models, sequence: r.sequence });
      items.push({ index, what: 'the Ed25519 signature', publicKey: bytes(r.publicKey), message, signature: bytes(r.signature) });
      wallets.push({ index, wallet: r.wallet, message, signature: r.walletSignature });
    } else if (msg.kind === 'mode') {
      const m = msg.body as QueuedMode;
      const message = modeMessage({ chainId, validator: bytes(m.validator), mode: m.mode, height: m.height });
      items.push({ index, what: `the Ed25519 signature of ${m.validator}'s compute-mode announcement`, publicKey: bytes(m.publicKey), message, signature: bytes(m.signature) });
    }
  }
  if (items.length > 0) {
    const ok = await core.ed25519VerifyBatch(items.map(({ publicKey, message, signature }) => ({ publicKey, message, signature })));
    const bad = ok.findIndex((v) => !v);
    if (bad >= 0) return `message ${items[bad]!.index}: ${items[bad]!.what} does not verify`;
  }
  for (const w of wallets) {
    let signer = '';
    try {
      signer = (await recoverMessageAddress({ message: { raw: w.message }, signature: w.signature as `0x${string}` })).toLowerCase();
    } catch {
      signer = '';
    }
    if (signer !== w.wallet) return `message ${w.index}: the wallet signature is not ${w.wallet}'s`;
  }
  return null;
}

// ---- calls ----

export const COMPUTE_ABI = JSON.parse(readFileSync(new URL('../../../../abi/compute.json', import.meta.url), 'utf8')) as Abi;

const EVENTS = abiEvents(COMPUTE_ABI);

function taskSubmittedLog(taskId: Hex, submitter: Address, modelId: string, fee: bigint): ModuleLog {
  return moduleLog(EVENTS, 'TaskSubmitted', { taskId, submitter }, [{ type: 'string', value: modelId }, { type: 'uint256', value: fee }]);
}

/** The id of the public task a transaction creates: keccak256("svc/public-task" || tx hash). */
export function publicTaskId(txHash: Uint8Array): Hex {
  return hexOf(keccak_256(Buffer.concat([Buffer.from('svc/public-task', 'utf8'), Buffer.from(txHash)])));
}

/**
 * A call of the compute ABI decided on the store: getTask reads a task; submitTask(modelId, input)
 * opens a public task paid by the call's value, saved when the decision is applied. `dry` (a
 * simulation, whose transaction hash is not known) skips the check that the task is new.
 */
export function decideComputeCall(
  store: ComputeStore,
  params: ComputeParams,
  call: ModuleCall & { txHash: Buffer },
  name: string,
  args: readonly unknown[],
  ctx: { height: number; epoch: number },
  dry: boolean,
): Decision {
  const encode = (result: unknown): Buffer => {
    const h = encodeFunctionResult({ abi: COMPUTE_ABI, functionName: name, result } as never) as string;
    return Buffer.from(h.slice(2), 'hex');
  };
  if (name === 'getTask') {
    const id = (args[0] as string).toLowerCase() as Hex;
    const t = store.task(id);
    if (!t) return { ok: false, reason: 'task not found' };
    const p = t.proofId ? store.proof(t.proofId) : undefined;
    const zero = `0x${'00'.repeat(32)}`;
    return { ok: true, returnData: encode([t.status, t.modelId, t.fee, p?.miner ?? `0x${'00'.repeat(20)}`, p?.outputHash ?? zero]), logs: [], apply: () => {} };
  }
  // submitTask(modelId, input)
  const [modelId, input] = args as [string, string];
  if (!store.isApproved(modelId)) return { ok: false, reason: `model ${modelId} is not approved` };
  const bytes = Buffer.byteLength(input, 'utf8');
  if (bytes === 0) return { ok: false, reason: 'input is empty' };
  if (bytes > params.publicTaskMaxInputBytes) return { ok: false, reason: `input is ${bytes} bytes, the limit is ${params.publicTaskMaxInputBytes}` };
  if (call.value < params.publicTaskMinFee) return { ok: false, reason: `fee ${call.value} is below the minimum ${params.publicTaskMinFee}` };
  const waiting = store.openTasks().filter((t) => t.kind === 'public').length;
  if (waiting >= params.maxOpenPublicTasks) return { ok: false, reason: 'too many public tasks waiting, try later' };
  const id = publicTaskId(call.txHash);
  const log = taskSubmittedLog(id, call.from, modelId, call.value);
  if (!dry && (store.open.has(id) || store.task(id))) return { ok: false, reason: 'task exists' };
  return {
    ok: true,
    returnData: encode(id),
    logs: [log],
    apply: () => {
      store.saveTask(newPublicTask({ id, modelId, input, fee: call.value, submitter: call.from, createdAt: ctx.height, createdEpoch: ctx.epoch }));
      store.global.counters.tasksCreated += 1;
      store.global.counters.publicTasks += 1;
      store.saveGlobal();
    },
  };
}
