// Hex encoding at the HTTP edge: quantities without leading zeros, data as full bytes.

/** A JSON-RPC quantity: "0x0", "0x2328". */
export function toQuantity(value: bigint | number): string {
  return `0x${value.toString(16)}`;
}

/** JSON-RPC data: "0x" followed by every byte. */
export function toData(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

/** Left-pads bytes to `length` (storage words are 32 bytes on the wire). */
export function leftPad(bytes: Buffer, length: number): Buffer {
  if (bytes.length >= length) return bytes;
  return Buffer.concat([Buffer.alloc(length - bytes.length), bytes]);
}
