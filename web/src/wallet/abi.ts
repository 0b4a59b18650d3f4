// The ABI encoding of a module call: the function's selector (from the node's /network/modules,
// which reads the module's ABI file) and its arguments, each a static type in one 32-byte word.
// The module functions a wallet calls take only static types (address, uintN, bool, bytes32).
import type { SystemModuleApi } from '../../../src/explorer/routes/modules.js';

/** The answer of /network/modules (its route declares it). */
export type SystemModules = SystemModuleApi['getSystemModules']['response'];
export type SystemModule = SystemModules['modules'][number];
export type ModuleFunction = SystemModule['functions'][number];
export type AbiInput = ModuleFunction['inputs'][number];

export type AbiValue = string | bigint | number | boolean;

const word = (hex: string) => hex.padStart(64, '0');

function encodeWord(type: string, value: AbiValue): string {
  if (type === 'address') {
    const a = String(value);
    if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new Error(`not an address: ${a}`);
    return word(a.slice(2).toLowerCase());
  }
  if (type === 'bool') return word(value ? '1' : '0');
  if (type === 'bytes32') {
    const b = String(value);
    if (!/^0x[0-9a-fA-F]{64}$/.test(b)) throw new Error(`not 32 bytes: ${b}`);
    return b.slice(2).toLowerCase();
  }
  const uint = /^uint(\d+)$/.exec(type);
  if (uint) {
    const bits = Number(uint[1]);
    const v = BigInt(value);
    if (v < 0n || v >= 1n << BigInt(bits)) throw new Error(`${v} does not fit ${type}`);
    return word(v.toString(16));
  }
  throw new Error(`the page does not encode ${type} arguments`);
}

/** Calldata of `fn` with `args` in its inputs' order. */
export function encodeCall(fn: ModuleFunction, args: AbiValue[]): string {
  if (args.length !== fn.inputs.length) throw new Error(`${fn.signature} takes ${fn.inputs.length} arguments`);
  return fn.selector + fn.inputs.map((input, i) => encodeWord(input.type, args[i]!)).join('');
}

/** A decimal amount of ether ("1.5") in wei; throws on anything else. */
export function parseEther(text: string): bigint {
  const m = /^\s*(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!m || (m[1] === '' && !m[2])) throw new Error(`not an amount: ${text}`);
  const frac = m[2] ?? '';
  if (frac.length > 18) throw new Error('at most 18 decimals');
  return BigInt(m[1] || '0') * 10n ** 18n + BigInt(frac.padEnd(18, '0') || '0');
}
