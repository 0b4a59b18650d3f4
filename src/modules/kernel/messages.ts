// System messages: what a block carries besides its transactions for the modules that decide
// them (inference proofs, miner registrations, proof-of-work shares, spot-check verdicts). Each is
// authenticated by what it carries (a miner's signatures, the work of a share) or by the block's
// proposer, who answers for its block; the modules check them again against the state when the
// block runs. They are stored with the block's body, so a replay runs them again, and the state
// root commits to each block's list (the kernel record app/messages).
import { keccak256 } from 'viem';
import { decodeRecord, encodeRecord, RecordCodecError } from './records.js';

/** One message, as its module reads it. */
export interface ModuleMessage {
  /** The module's name ("compute"). */
  module: string;
  /** What it is, in the module's words ("proof"). */
  kind: string;
  body: unknown;
}

/** The canonical bytes of a message (the kernel's record codec). */
export function encodeMessage(m: ModuleMessage): Buffer {
  return encodeRecord({ body: m.body, kind: m.kind, module: m.module });
}

/** A message from its bytes; throws RecordCodecError for bytes that are not one. */
export function decodeMessage(bytes: Buffer): ModuleMessage {
  const v = decodeRecord<Record<string, unknown>>(bytes);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new RecordCodecError('a message is an object');
  const keys = Object.keys(v).sort().join(',');
  if (keys !== 'body,kind,module' || typeof v.module !== 'string' || typeof v.kind !== 'string') {
    throw new RecordCodecError('a message has exactly the fields module, kind and body');
  }
  return { module: v.module, kind: v.kind, body: v.body };
}

/** The commitment to a block's messages kept in state: keccak256 of their concatenated hashes. */
export function messagesDigest(messages: readonly Buffer[]): Buffer {
  const hashes = messages.map((m) => Buffer.from(keccak256(m).slice(2), 'hex'));
  return Buffer.from(keccak256(Buffer.concat(hashes)).slice(2), 'hex');
}
