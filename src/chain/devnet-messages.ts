// Devnet system messages: the development edits Hardhat and Foundry users script against
// (hardhat_setBalance, anvil_setCode, …) and transactions sent from an impersonated account. Like
// every change of consensus state they arrive in a block: each is a system message of the "dev"
// kind that the block applies before its transactions, so a replay of the chain's blocks reaches the
// same roots. A chain accepts them only when its genesis block says it is a devnet (isDevnetGenesis):
// a testnet or mainnet block carrying one is refused by processProposal.
import { keccak256, serializeTransaction, type Hex } from 'viem';
import { decodeMessage, encodeMessage } from '../modules/kernel/messages.js';
import type { Address } from '../modules/kernel/records.js';

/** The module name dev messages carry (no system module holds it: the app applies them). */
export const DEV_MODULE = 'dev';

/** The genesis extra data of the built-in devnet ("svc devnet"): what makes a chain a devnet. */
export const DEVNET_GENESIS_EXTRA = Buffer.from('svc devnet', 'utf8');

/** Whether a chain whose genesis block has this extra data takes dev messages. */
export function isDevnetGenesis(extraData: Buffer): boolean {
  return extraData.equals(DEVNET_GENESIS_EXTRA);
}

/** Most dev messages in one block. */
export const MAX_DEV_MESSAGES = 1_000;
/** Most bytes of code one setCode edit or one impersonated transaction's data may carry. */
export const MAX_DEV_CODE_BYTES = 128 * 1024;

const MAX_U256 = (1n << 256n) - 1n;
/** A nonce must leave room for one more transaction (EIP-2681), and a safe integer for the encoders. */
const MAX_NONCE = BigInt(Number.MAX_SAFE_INTEGER);

/** A transaction run as if `from` had signed it (eth_sendTransaction from an impersonated account). */
export interface ImpersonatedTx {
  from: Address;
  /** null: a contract creation. */
  to: Address | null;
  value: bigint;
  data: Hex;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  nonce: bigint;
}

/** One dev message, as the app applies it. */
export type DevMessage =
  | { kind: 'setBalance'; body: { address: Address; balance: bigint } }
  | { kind: 'setNonce'; body: { address: Address; nonce: bigint } }
  | { kind: 'setCode'; body: { address: Address; code: Hex } }
  | { kind: 'setStorageAt'; body: { address: Address; slot: Hex; value: Hex } }
  | { kind: 'transaction'; body: ImpersonatedTx };

/** The canonical bytes of a dev message (the kernel's message codec). */
export function encodeDevMessage(m: DevMessage): Buffer {
  return encodeMessage({ module: DEV_MODULE, kind: m.kind, body: m.body });
}

/** A block's messages split into the dev messages (checked, in order) and the modules' (left to the registry). */
export interface SplitMessages {
  dev: DevMessage[];
  modules: Buffer[];
}

/**
 * Splits a block's messages; a string says why its dev messages cannot be in a block of this chain
 * (the chain is not a devnet, a message is malformed, too many). Messages that do not decode are left
 * to the registry, which refuses them with its own reason.
 */
export function splitMessages(raw: readonly Buffer[], devnet: boolean, isModule: (address: Address) => boolean): SplitMessages | string {
  const dev: DevMessage[] = [];
  const modules: Buffer[] = [];
  for (const [i, bytes] of raw.entries()) {
    let decoded;
    try {
      decoded = decodeMessage(bytes);
    } catch {
      modules.push(bytes);
      continue;
    }
    if (decoded.module !== DEV_MODULE) {
      modules.push(bytes);
      continue;
    }
    if (!devnet) return `message ${i} is a development message, which only a devnet chain accepts`;
    const problem = devMessageProblem(decoded.kind, decoded.body, isModule);
    if (problem !== null) return `dev message ${i}: ${problem}`;
    if (!encodeMessage(decoded).equals(bytes)) return `dev message ${i} is not in its canonical encoding`;
    dev.push({ kind: decoded.kind, body: decoded.body } as DevMessage);
  }
  if (dev.length > MAX_DEV_MESSAGES) return `${dev.length} dev messages, limit ${MAX_DEV_MESSAGES}`;
  return { dev, modules };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isAddress = (v: unknown): v is Address => typeof v === 'string' && /^0x[0-9a-f]{40}$/.test(v);
const isWord = (v: unknown): v is Hex => typeof v === 'string' && /^0x[0-9a-f]{64}$/.test(v);
const isBytes = (v: unknown): v is Hex => typeof v === 'string' && /^0x([0-9a-f]{2})*$/.test(v) && v.length <= 2 + 2 * MAX_DEV_CODE_BYTES;
const inRange = (v: unknown, max: bigint): v is bigint => typeof v === 'bigint' && v >= 0n && v <= max;

/** Why a dev message's body is not one of its kind; null when it is. */
function devMessageProblem(kind: string, body: unknown, isModule: (address: Address) => boolean): string | null {
  if (!isObject(body)) return 'the body is not an object';
  const fields = (names: string[]): string | null =>
    Object.keys(body).sort().join(',') === [...names].sort().join(',') ? null : `a ${kind} message has exactly the fields ${names.join(', ')}`;
  const account = (address: unknown): string | null => {
    if (!isAddress(address)) return 'the address is not 20 lowercase hex bytes';
    return isModule(address) ? `${address} is a system module's account, which development methods do not edit` : null;
  };
  switch (kind) {
    case 'setBalance':
      return fields(['address', 'balance']) ?? account(body.address) ?? (inRange(body.balance, MAX_U256) ? null : 'the balance is not a 256-bit quantity');
    case 'setNonce':
      return fields(['address', 'nonce']) ?? account(body.address) ?? (inRange(body.nonce, MAX_NONCE) ? null : `the nonce is not at most ${MAX_NONCE}`);
    case 'setCode':
      return fields(['address', 'code']) ?? account(body.address) ?? (isBytes(body.code) ? null : `the code is not lowercase hex bytes of at most ${MAX_DEV_CODE_BYTES}`);
    case 'setStorageAt':
      return fields(['address', 'slot', 'value']) ?? account(body.address) ?? (isWord(body.slot) && isWord(body.value) ? null : 'the slot and value are not 32-byte lowercase hex words');
    case 'transaction': {
      const problem = fields(['data', 'from', 'gas', 'maxFeePerGas', 'maxPriorityFeePerGas', 'nonce', 'to', 'value']) ?? account(body.from);
      if (problem !== null) return problem;
      if (body.to !== null && !isAddress(body.to)) return 'to is neither null nor 20 lowercase hex bytes';
      if (body.to !== null && isModule(body.to)) return 'an impersonated transaction to a system module is not supported';
      if (!isBytes(body.data)) return `the data is not lowercase hex bytes of at most ${MAX_DEV_CODE_BYTES}`;
      if (!inRange(body.value, MAX_U256) || !inRange(body.maxFeePerGas, MAX_U256) || !inRange(body.maxPriorityFeePerGas, MAX_U256)) return 'value and fees are 256-bit quantities';
      if (!inRange(body.gas, MAX_NONCE) || !inRange(body.nonce, MAX_NONCE)) return `gas and nonce are at most ${MAX_NONCE}`;
      return null;
    }
    default:
      return `unknown kind ${JSON.stringify(kind).slice(0, 40)}`;
  }
}

/**
 * The transaction an impersonated message runs: an EIP-1559 transaction of this chain with
 * Hardhat's marker signature (r = s = the sender's address as a number, y parity 0), which recovers
 * to no one: the block runs it as `from`'s, and its hash is keccak256 of this encoding.
 */
export function impersonatedRaw(tx: ImpersonatedTx, chainId: number): Buffer {
  const marker = `0x${tx.from.slice(2).padStart(64, '0')}` as Hex;
  const serialized = serializeTransaction(
    {
      type: 'eip1559',
      chainId,
      nonce: Number(tx.nonce),
      ...(tx.to !== null ? { to: tx.to } : {}),
      value: tx.value,
      data: tx.data,
      gas: tx.gas,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    },
    { r: marker, s: marker, yParity: 0 },
  );
  return Buffer.from(serialized.slice(2), 'hex');
}

/** The hash an impersonated transaction is known by. */
export function impersonatedHash(tx: ImpersonatedTx, chainId: number): Buffer {
  return Buffer.from(keccak256(impersonatedRaw(tx, chainId)).slice(2), 'hex');
}

/** The raw transactions a block's dev messages put in its body (a replay takes them from the messages, not from the body). */
export function carriedTransactions(messages: readonly Buffer[], chainId: number): Buffer[] {
  const out: Buffer[] = [];
  for (const bytes of messages) {
    try {
      const m = decodeMessage(bytes);
      if (m.module === DEV_MODULE && m.kind === 'transaction') out.push(impersonatedRaw(m.body as ImpersonatedTx, chainId));
    } catch {
      // Not a dev message: nothing it carries is in the body.
    }
  }
  return out;
}
