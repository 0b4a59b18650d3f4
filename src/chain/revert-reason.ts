// Decodes revert data the way geth's abi.UnpackRevert does: Error(string) and Panic(uint256).

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';
const WORD = 32;

/** Solidity's panic codes, with geth's wording. */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
]);

function word(data: Buffer, offset: number): bigint | undefined {
  if (offset + WORD > data.length) return undefined;
  return BigInt(`0x${data.subarray(offset, offset + WORD).toString('hex')}`);
}

/** The human reason in revert data, or undefined when it is a custom error or malformed. */
export function revertReason(data: Buffer): string | undefined {
  if (data.length < 4) return undefined;
  const selector = data.subarray(0, 4).toString('hex');
  const body = data.subarray(4);
  if (selector === ERROR_SELECTOR) {
    const offset = word(body, 0);
    if (offset === undefined || offset > BigInt(body.length)) return undefined;
    const length = word(body, Number(offset));
    if (length === undefined) return undefined;
    const start = Number(offset) + WORD;
    if (BigInt(start) + length > BigInt(body.length)) return undefined;
    return body.subarray(start, start + Number(length)).toString('utf8');
  }
  if (selector === PANIC_SELECTOR) {
    const code = word(body, 0);
    if (code === undefined) return undefined;
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}
