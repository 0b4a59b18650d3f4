// Compares compiled runtime code with the code on chain, as Sourcify and Blockscout do: values
// written at deployment (immutables, a library's own address) are masked, and the CBOR metadata
// tail that solc appends (hash of the metadata, compiler version) may differ for a partial match.
import type { MatchKind } from './records.js';

/** Where solc left room for immutables in the runtime code: id -> byte ranges. */
export type ImmutableReferences = Record<string, { start: number; length: number }[]>;

/** The runtime code without its CBOR metadata tail, and the tail (empty when there is none). */
export function splitMetadata(code: Buffer): { body: Buffer; metadata: Buffer } {
  if (code.length < 2) return { body: code, metadata: Buffer.alloc(0) };
  // The last two bytes are the big-endian length of the CBOR map before them.
  const length = code.readUInt16BE(code.length - 2);
  const start = code.length - 2 - length;
  // A CBOR map of up to 23 entries starts with 0xa0..0xb7; anything else is not solc's tail.
  if (length === 0 || start < 0 || code[start]! < 0xa0 || code[start]! > 0xb7) return { body: code, metadata: Buffer.alloc(0) };
  return { body: code.subarray(0, start), metadata: code.subarray(start) };
}

/** PUSH20 <address> ADDRESS EQ: the call guard at the start of a deployed library. */
const LIBRARY_GUARD_PUSH20 = 0x73;

/**
 * `onChain` with the bytes that deployment fills in set to what the compiler leaves there (zeros):
 * the immutables and, for a library, its own address.
 */
export function maskDeploymentValues(onChain: Buffer, compiled: Buffer, immutables: ImmutableReferences): Buffer {
  const masked = Buffer.from(onChain);
  for (const ranges of Object.values(immutables)) {
    for (const { start, length } of ranges) {
      if (start + length <= masked.length) masked.fill(0, start, start + length);
    }
  }
  if (compiled[0] === LIBRARY_GUARD_PUSH20 && masked[0] === LIBRARY_GUARD_PUSH20 && compiled.subarray(1, 21).every((b) => b === 0)) {
    masked.fill(0, 1, 21);
  }
  return masked;
}

/** How `compiled` matches `onChain`, or null when it does not. */
export function compareRuntime(onChain: Buffer, compiled: Buffer, immutables: ImmutableReferences): MatchKind | null {
  if (compiled.length === 0 || onChain.length === 0) return null;
  const masked = maskDeploymentValues(onChain, compiled, immutables);
  if (masked.equals(compiled)) return 'full';
  const a = splitMetadata(masked);
  const b = splitMetadata(compiled);
  if (a.metadata.length > 0 && b.metadata.length > 0 && a.body.equals(b.body)) return 'partial';
  return null;
}

/** Unlinked library references (__$<hash>$__) left in compiled code. */
export function hasUnlinkedLibraries(hex: string): boolean {
  return /__\$[0-9a-fA-F]{34}\$__/.test(hex);
}
