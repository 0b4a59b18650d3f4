// Parsers for JSON-RPC params: hex quantities, addresses, hashes, bytes, block tags and EIP-1898
// block ids, call objects and log filters. Each throws InvalidValueError with geth's wording; the
// dispatcher prefixes it with the argument index ("invalid argument 0: ...").
import type { AccountOverrideJs, BlockOverrideJs, CallRequest, StorageWord } from '../native/index.js';
import { rpc as rpcParams } from '../params.js';
import { SvcError } from '../errors.js';
import { clip } from './errors.js';

/** A param value that does not parse; `reason` is the text after "invalid argument N: ". */
export class InvalidValueError extends SvcError {
  override name = 'InvalidValueError';
  override readonly code = 'INVALID_VALUE';
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** Runs `parse` on a member of an object, naming the member in the error. */
function member<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof InvalidValueError) throw new InvalidValueError(`${field}: ${err.reason}`);
    throw err;
  }
}

/** Each item parsed; an error names its index as `${field}[i]` (built only on failure: filters list thousands). */
function members<T>(field: string, values: readonly unknown[], parse: (value: unknown) => T): T[] {
  const out = new Array<T>(values.length);
  for (let i = 0; i < values.length; i++) {
    try {
      out[i] = parse(values[i]);
    } catch (err) {
      if (err instanceof InvalidValueError) throw new InvalidValueError(`${field}[${i}]: ${err.reason}`);
      throw err;
    }
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Checks that `value` is a 0x-prefixed string (its digits are not looked at). */
function hexString(value: unknown): asserts value is string {
  if (typeof value !== 'string') throw new InvalidValueError(`expected a hex string, got ${describe(value)}`);
  if (value.length === 0) throw new InvalidValueError('empty hex string');
  if (!value.startsWith('0x') && !value.startsWith('0X')) throw new InvalidValueError('hex string without 0x prefix');
}

/**
 * The hex digits of a 0x-prefixed string. With `maxDigits`, a longer string is refused with
 * `tooLong` before its digits are looked at, so an oversized input costs nothing.
 */
function hexDigits(value: unknown, maxDigits?: number, tooLong?: string): string {
  hexString(value);
  if (maxDigits !== undefined && value.length - 2 > maxDigits) throw new InvalidValueError(tooLong ?? 'hex string too long');
  const digits = value.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new InvalidValueError('invalid hex string');
  return digits;
}

/**
 * A hex quantity of at most `maxBits` bits (at most 256). Leading zeros are accepted ("0x01"), as
 * anvil and reth do (and the native fast path of plain reads). One with more significant digits than
 * the width holds is refused by its length before its digits are checked or converted (geth's
 * "hex number > 64 bits"): an oversized quantity costs a scan of its leading zeros at most.
 */
export function parseQuantity(value: unknown, maxBits = 256): bigint {
  hexString(value);
  const text = value;
  if (text.length === 2) throw new InvalidValueError('hex string "0x"');
  let start = 2;
  while (start < text.length - 1 && text.charCodeAt(start) === 0x30) start++;
  const significant = text.slice(start);
  if (significant.length > Math.ceil(maxBits / 4)) throw new InvalidValueError(`hex number > ${maxBits} bits`);
  if (!/^[0-9a-fA-F]+$/.test(significant)) throw new InvalidValueError('invalid hex string');
  const n = BigInt(`0x${significant}`);
  if (n >> BigInt(maxBits) !== 0n) throw new InvalidValueError(`hex number > ${maxBits} bits`);
  return n;
}

/** A hex quantity that fits in 64 bits (gas, nonces, indexes, block numbers). */
export function parseUint64(value: unknown): bigint {
  return parseQuantity(value, 64);
}

/** A hex quantity used as an index into a list; values beyond 2^53 cannot index anything. */
export function parseIndex(value: unknown): number {
  const n = parseUint64(value);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** Hex data of any length ("0x" is empty data). */
export function parseBytes(value: unknown): Buffer {
  const digits = hexDigits(value);
  if (digits.length % 2 !== 0) throw new InvalidValueError('hex string of odd length');
  return Buffer.from(digits, 'hex');
}

/** Well-formed 20- and 32-byte hex, checked in one test before the detailed checks that explain a refusal. */
const WELL_FORMED: Record<number, RegExp> = { 20: /^0x[0-9a-fA-F]{40}$/, 32: /^0x[0-9a-fA-F]{64}$/ };

function parseFixedBytes(value: unknown, length: number, typeName: string): Buffer {
  if (typeof value === 'string' && WELL_FORMED[length]?.test(value)) return Buffer.from(value.slice(2), 'hex');
  const tooLong = typeof value === 'string' ? `hex string has length ${value.length - 2}, want ${length * 2} for ${typeName}` : undefined;
  const digits = hexDigits(value, length * 2, tooLong);
  if (digits.length !== length * 2) {
    throw new InvalidValueError(`hex string has length ${digits.length}, want ${length * 2} for ${typeName}`);
  }
  return Buffer.from(digits, 'hex');
}

/** A 20-byte address (checksum case is not enforced, as in geth). */
export function parseAddress(value: unknown): Buffer {
  return parseFixedBytes(value, 20, 'address');
}

/** A 32-byte hash. */
export function parseHash(value: unknown): Buffer {
  return parseFixedBytes(value, 32, 'hash');
}

/** A storage slot: up to 32 bytes, odd length allowed ("0x0"), left-padded as geth does. */
export function parseStorageSlot(value: unknown): Buffer {
  let digits = hexDigits(value, 64, 'hex string too long, want at most 32 bytes');
  if (digits.length === 0) digits = '0';
  return Buffer.from(digits.padStart(64, '0'), 'hex');
}

export function parseBoolean(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidValueError(`expected a boolean, got ${describe(value)}`);
  return value;
}

/** Longest filter or subscription id taken: the node's own are "0x" and 32 hex digits. */
const FILTER_ID_MAX = 66;

/** A non-empty string (filter ids); a longer one than any id the node hands out is refused unread. */
export function parseFilterId(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidValueError(`expected a filter id string, got ${describe(value)}`);
  if (value.length > FILTER_ID_MAX) throw new InvalidValueError(`filter id too long: at most ${FILTER_ID_MAX} characters`);
  return value.toLowerCase();
}

export const BLOCK_TAGS = ['latest', 'pending', 'earliest', 'safe', 'finalized'] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

/** A block named by tag or by number. */
export type BlockNumberOrTag = { tag: BlockTag } | { number: bigint };

/** A block named by tag, number or hash (EIP-1898). */
export type BlockId = BlockNumberOrTag | { hash: Buffer; requireCanonical: boolean };

/** "latest" | "pending" | "earliest" | "safe" | "finalized" | hex number. */
export function parseBlockNumberOrTag(value: unknown): BlockNumberOrTag {
  if (typeof value === 'string' && (BLOCK_TAGS as readonly string[]).includes(value)) return { tag: value as BlockTag };
  if (typeof value === 'string' && !value.startsWith('0x') && !value.startsWith('0X')) {
    throw new InvalidValueError(`invalid block tag "${clip(value)}": want latest, pending, earliest, safe, finalized or a hex number`);
  }
  return { number: parseUint64(value) };
}

/** A block tag or number, a 32-byte block hash string, or an EIP-1898 object {blockNumber} / {blockHash, requireCanonical}. */
export function parseBlockId(value: unknown): BlockId {
  if (typeof value === 'string') {
    if (value.length === 66 && (value.startsWith('0x') || value.startsWith('0X'))) {
      return { hash: parseHash(value), requireCanonical: false };
    }
    return parseBlockNumberOrTag(value);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidValueError(`expected a block number, tag, hash or {blockNumber}/{blockHash} object, got ${describe(value)}`);
  }
  const o = value as Record<string, unknown>;
  const hasHash = o.blockHash !== undefined && o.blockHash !== null;
  const hasNumber = o.blockNumber !== undefined && o.blockNumber !== null;
  if (hasHash && hasNumber) throw new InvalidValueError('cannot specify both BlockHash and BlockNumber, choose one or the other');
  if (hasHash) {
    const hash = member('blockHash', () => parseHash(o.blockHash));
    const rc = o.requireCanonical;
    const requireCanonical = rc === undefined || rc === null ? false : member('requireCanonical', () => parseBoolean(rc));
    return { hash, requireCanonical };
  }
  if (hasNumber) return member('blockNumber', () => parseBlockNumberOrTag(o.blockNumber));
  throw new InvalidValueError('block object needs blockNumber or blockHash');
}

/** A call object parsed for eth_call / eth_estimateGas; `chainId` when the caller gave one. */
export interface ParsedCall {
  request: CallRequest;
  chainId: bigint | undefined;
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidValueError(`expected ${what} object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

function present(o: Record<string, unknown>, key: string): boolean {
  return o[key] !== undefined && o[key] !== null;
}

/** A transaction call object (geth's TransactionArgs): from, to, gas, fees, value, data/input, nonce, accessList, authorizationList. */
export function parseCallObject(value: unknown): ParsedCall {
  const o = objectOf(value, 'a call');
  const request: CallRequest = {};
  if (present(o, 'from')) request.from = member('from', () => parseAddress(o.from));
  if (present(o, 'to')) request.to = member('to', () => parseAddress(o.to));
  if (present(o, 'gas')) request.gas = member('gas', () => parseUint64(o.gas));
  if (present(o, 'gasPrice')) request.gasPrice = member('gasPrice', () => parseQuantity(o.gasPrice));
  if (present(o, 'maxFeePerGas')) request.maxFeePerGas = member('maxFeePerGas', () => parseQuantity(o.maxFeePerGas));
  if (present(o, 'maxPriorityFeePerGas')) {
    request.maxPriorityFeePerGas = member('maxPriorityFeePerGas', () => parseQuantity(o.maxPriorityFeePerGas));
  }
  if (present(o, 'value')) request.value = member('value', () => parseQuantity(o.value));
  if (present(o, 'nonce')) request.nonce = member('nonce', () => parseUint64(o.nonce));
  if (present(o, 'type')) member('type', () => parseUint64(o.type));

  const data = present(o, 'data') ? member('data', () => parseBytes(o.data)) : undefined;
  const input = present(o, 'input') ? member('input', () => parseBytes(o.input)) : undefined;
  if (data && input && !data.equals(input)) {
    throw new InvalidValueError('both "data" and "input" are set and not equal. Please use "input" to pass transaction call data');
  }
  const callData = input ?? data;
  if (callData) request.data = callData;

  if (present(o, 'accessList')) request.accessList = member('accessList', () => parseAccessList(o.accessList));
  if (present(o, 'authorizationList')) {
    request.authorizationList = member('authorizationList', () => parseAuthorizationList(o.authorizationList));
  }

  if (request.gasPrice !== undefined && (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined)) {
    throw new InvalidValueError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  if (
    request.maxFeePerGas !== undefined &&
    request.maxPriorityFeePerGas !== undefined &&
    request.maxFeePerGas < request.maxPriorityFeePerGas
  ) {
    throw new InvalidValueError(`maxFeePerGas (${request.maxFeePerGas}) < maxPriorityFeePerGas (${request.maxPriorityFeePerGas})`);
  }
  // Fields for transaction kinds the chain does not run are refused rather than silently ignored.
  for (const key of ['blobVersionedHashes', 'blobs', 'maxFeePerBlobGas']) {
    if (present(o, key)) throw new InvalidValueError(`${key}: blob transactions are not supported`);
  }
  const chainId = present(o, 'chainId') ? member('chainId', () => parseQuantity(o.chainId)) : undefined;
  return { request, chainId };
}

/** EIP-7702 authorizations as geth's SetCodeAuthorization: chainId, address, nonce, yParity, r, s. */
function parseAuthorizationList(value: unknown): NonNullable<CallRequest['authorizationList']> {
  if (!Array.isArray(value)) throw new InvalidValueError(`expected an array, got ${describe(value)}`);
  return value.map((item, i) =>
    member(`[${i}]`, () => {
      const entry = objectOf(item, 'an authorization');
      return {
        chainId: member('chainId', () => parseQuantity(entry.chainId)),
        address: member('address', () => parseAddress(entry.address)),
        nonce: member('nonce', () => parseUint64(entry.nonce)),
        yParity: member('yParity', () => Number(parseQuantity(entry.yParity, 8))),
        r: member('r', () => parseQuantity(entry.r)),
        s: member('s', () => parseQuantity(entry.s)),
      };
    }),
  );
}

function parseAccessList(value: unknown): { address: Buffer; storageKeys: Buffer[] }[] {
  if (!Array.isArray(value)) throw new InvalidValueError(`expected an array, got ${describe(value)}`);
  return value.map((item, i) =>
    member(`[${i}]`, () => {
      const entry = objectOf(item, 'an access list entry');
      const address = member('address', () => parseAddress(entry.address));
      const keys = entry.storageKeys ?? [];
      if (!Array.isArray(keys)) throw new InvalidValueError(`storageKeys: expected an array, got ${describe(keys)}`);
      const storageKeys = keys.map((k, j) => member(`storageKeys[${j}]`, () => parseHash(k)));
      return { address, storageKeys };
    }),
  );
}

/** One account's state override, as the native call takes it. */
export type AccountOverride = AccountOverrideJs;
/** The block overrides, as the native call takes them. */
export type BlockOverride = BlockOverrideJs;

const ACCOUNT_OVERRIDE_FIELDS = new Set(['balance', 'nonce', 'code', 'state', 'stateDiff']);

/** A storage map of a state override ({slot: value}, 32-byte hashes as in geth's map[Hash]Hash). */
function parseStorageWords(value: unknown): StorageWord[] {
  const o = objectOf(value, 'a storage');
  const entries = Object.entries(o);
  if (entries.length > rpcParams.maxOverrideSlots) {
    throw new InvalidValueError(`too many storage slots: ${entries.length} > ${rpcParams.maxOverrideSlots}`);
  }
  return entries.map(([slot, word]) => ({
    slot: member(`key ${clip(slot)}`, () => parseHash(slot)),
    value: member(clip(slot), () => parseHash(word)),
  }));
}

/** geth's state override set: {address: {balance, nonce, code, state | stateDiff}}. */
export function parseStateOverrides(value: unknown): AccountOverride[] {
  const o = objectOf(value, 'a state override');
  const entries = Object.entries(o);
  if (entries.length > rpcParams.maxOverrideAccounts) {
    throw new InvalidValueError(`too many accounts overridden: ${entries.length} > ${rpcParams.maxOverrideAccounts}`);
  }
  return entries.map(([key, fields]) =>
    member(clip(key), () => {
      const address = parseAddress(key);
      const f = objectOf(fields, 'an account override');
      for (const name of Object.keys(f)) {
        if (name === 'movePrecompileToAddress') throw new InvalidValueError('movePrecompileToAddress is not supported');
        if (!ACCOUNT_OVERRIDE_FIELDS.has(name)) {
          throw new InvalidValueError(`unknown field "${clip(name)}": want balance, nonce, code, state or stateDiff`);
        }
      }
      if (present(f, 'state') && present(f, 'stateDiff')) {
        throw new InvalidValueError(`account ${clip(key)} has both 'state' and 'stateDiff'`);
      }
      const out: AccountOverride = { address };
      if (present(f, 'balance')) out.balance = member('balance', () => parseQuantity(f.balance));
      if (present(f, 'nonce')) out.nonce = member('nonce', () => parseUint64(f.nonce));
      if (present(f, 'code')) out.code = member('code', () => parseBytes(f.code));
      if (present(f, 'state')) out.state = member('state', () => parseStorageWords(f.state));
      if (present(f, 'stateDiff')) out.stateDiff = member('stateDiff', () => parseStorageWords(f.stateDiff));
      return out;
    }),
  );
}

/** Block fields geth can override that this chain has no use for: refused rather than ignored. */
const UNSERVED_BLOCK_OVERRIDES: Record<string, string> = {
  difficulty: 'there is no difficulty on a proof-of-stake chain',
  blobBaseFee: 'the chain has no blob transactions',
  beaconRoot: 'the chain has no beacon root',
  withdrawals: 'the chain has no withdrawals',
};

/** geth's block overrides: number, time, gasLimit, feeRecipient, prevRandao, baseFeePerGas. */
export function parseBlockOverrides(value: unknown): BlockOverride {
  const o = objectOf(value, 'a block override');
  const out: BlockOverride = {};
  for (const [name, v] of Object.entries(o)) {
    if (v === undefined || v === null) continue;
    const why = UNSERVED_BLOCK_OVERRIDES[name];
    if (why !== undefined) throw new InvalidValueError(`${name}: cannot be overridden: ${why}`);
    switch (name) {
      case 'number':
        out.number = member(name, () => parseUint64(v));
        break;
      case 'time':
        out.time = member(name, () => parseUint64(v));
        break;
      case 'gasLimit':
        out.gasLimit = member(name, () => parseUint64(v));
        break;
      case 'feeRecipient':
        out.feeRecipient = member(name, () => parseAddress(v));
        break;
      case 'prevRandao':
        out.prevRandao = member(name, () => parseHash(v));
        break;
      case 'baseFeePerGas':
        out.baseFee = member(name, () => parseUint64(v));
        break;
      default:
        throw new InvalidValueError(
          `unknown field "${clip(name)}": want number, time, gasLimit, feeRecipient, prevRandao or baseFeePerGas`,
        );
    }
  }
  return out;
}

/** eth_getProof's storage keys: at most `max`, each up to 32 bytes; `exact` tells which were given as full 32-byte hashes. */
export function parseProofKeys(max: number) {
  return (value: unknown): { slot: Buffer; exact: boolean }[] => {
    if (!Array.isArray(value)) throw new InvalidValueError(`expected an array of storage keys, got ${describe(value)}`);
    if (value.length > max) throw new InvalidValueError(`too many storage keys: ${value.length} > ${max}`);
    return members('', value, (k) => ({ slot: parseStorageSlot(k), exact: typeof k === 'string' && k.length === 66 }));
  };
}

/** Criteria of eth_getLogs and eth_newFilter. */
export interface LogQuery {
  range: { fromBlock: BlockNumberOrTag; toBlock: BlockNumberOrTag } | { blockHash: Buffer };
  /** Empty = any address. */
  addresses: Buffer[];
  /** Per position: null = any topic, else any of the listed ones. */
  topics: (Buffer[] | null)[];
}

/** Topic positions a log has (LOG0..LOG4). */
const MAX_TOPICS = 4;

/** A filter object: fromBlock/toBlock or blockHash, address (one or many), topics with nulls and OR-arrays. */
export function parseLogQuery(value: unknown): LogQuery {
  const o = objectOf(value, 'a filter');
  let range: LogQuery['range'];
  if (present(o, 'blockHash')) {
    if (present(o, 'fromBlock') || present(o, 'toBlock')) {
      throw new InvalidValueError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
    }
    range = { blockHash: member('blockHash', () => parseHash(o.blockHash)) };
  } else {
    const latest: BlockNumberOrTag = { tag: 'latest' };
    range = {
      fromBlock: present(o, 'fromBlock') ? member('fromBlock', () => parseBlockNumberOrTag(o.fromBlock)) : latest,
      toBlock: present(o, 'toBlock') ? member('toBlock', () => parseBlockNumberOrTag(o.toBlock)) : latest,
    };
  }

  let addresses: Buffer[] = [];
  if (present(o, 'address')) {
    const a = o.address;
    if (Array.isArray(a) && a.length > rpcParams.maxLogFilterAddresses) {
      throw new InvalidValueError(`exceed max addresses: a filter lists at most ${rpcParams.maxLogFilterAddresses}`);
    }
    addresses = Array.isArray(a)
      ? members('address', a, parseAddress)
      : [member('address', () => parseAddress(a))];
  }

  const topics: (Buffer[] | null)[] = [];
  if (present(o, 'topics')) {
    const t = o.topics;
    if (!Array.isArray(t)) throw new InvalidValueError(`topics: expected an array, got ${describe(t)}`);
    if (t.length > MAX_TOPICS) throw new InvalidValueError('topics: exceed max topics');
    t.forEach((position, i) => topics.push(member(`topics[${i}]`, () => parseTopicPosition(position))));
  }
  return { range, addresses, topics };
}

function parseTopicPosition(value: unknown): Buffer[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) return [parseHash(value)];
  // geth: an empty OR-array, or a null inside one, makes the whole position a wildcard.
  if (value.length === 0 || value.some((v) => v === null)) return null;
  if (value.length > rpcParams.maxLogFilterTopicsPerPosition) {
    throw new InvalidValueError(`exceed max topics: a position lists at most ${rpcParams.maxLogFilterTopicsPerPosition}`);
  }
  return members('', value, parseHash);
}

/** Decimal digits of 2^64 - 1: a longer decimal string cannot be a 64-bit number. */
const UINT64_DECIMAL_DIGITS = 20;

/**
 * A 64-bit number written in decimal (geth's HexOrDecimal64 without the 0x): refused by its length
 * before it is converted, then by its value.
 */
export function parseDecimalUint64(value: string): bigint {
  if (value.length > UINT64_DECIMAL_DIGITS) throw new InvalidValueError('decimal number > 64 bits');
  if (!/^[0-9]+$/.test(value)) throw new InvalidValueError('invalid decimal number');
  const n = BigInt(value);
  if (n >> 64n !== 0n) throw new InvalidValueError('decimal number > 64 bits');
  return n;
}

/** eth_feeHistory's blockCount: a hex or decimal string, or a JSON number (geth's HexOrDecimal64). */
export function parseBlockCount(value: unknown): number {
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new InvalidValueError(`invalid block count ${value}`);
    n = BigInt(value);
  } else if (typeof value === 'string' && /^[0-9]/.test(value) && !value.startsWith('0x') && !value.startsWith('0X')) {
    n = parseDecimalUint64(value);
  } else {
    n = parseUint64(value);
  }
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** eth_feeHistory's rewardPercentiles: numbers in 0..100, strictly increasing, at most `max` of them. */
export function parsePercentiles(max: number) {
  return (value: unknown): number[] => {
    if (!Array.isArray(value)) throw new InvalidValueError(`expected an array of percentiles, got ${describe(value)}`);
    if (value.length > max) throw new InvalidValueError(`too many reward percentiles: ${value.length} > ${max}`);
    value.forEach((p, i) => {
      if (typeof p !== 'number') throw new InvalidValueError(`invalid reward percentile: #${i}: expected a number, got ${describe(p)}`);
      if (!Number.isFinite(p) || p < 0 || p > 100) {
        throw new InvalidValueError(`invalid reward percentile: #${i}: ${String(p)} is not a number in 0..100`);
      }
      if (i > 0 && p <= (value[i - 1] as number)) {
        throw new InvalidValueError(`invalid reward percentile: #${i - 1}:${String(value[i - 1])} >= #${i}:${p}`);
      }
    });
    return value as number[];
  };
}
