// A user operation as it travels between nodes (a CometBFT network's mempool, tagged there by
// src/consensus/cometbft/block-txs.ts): UTF-8 JSON `{"entryPoint": <address>, "op": <ERC-7769
// JSON>}`, the shape eth_sendUserOperation takes, so that a peer's operation is parsed with the
// same rules as a caller's. The encoding is canonical for an operation (members in the order
// operationJson writes them): the same operation is the same bytes on every node, and CometBFT's
// mempool cache keeps one copy.
import { BundlerError } from './errors.js';
import { rpcErrorCode } from '../params.js';
import { operationJson, parseOperation, type EntryPointOperation } from './user-operation.js';

/** The operation's gossip bytes. */
export function encodeGossipedOperation(e: EntryPointOperation): Buffer {
  return Buffer.from(JSON.stringify({ entryPoint: e.entryPoint, op: operationJson(e) }), 'utf8');
}

/** The operation in gossip bytes; a BundlerError (-32602) for bytes that are none. */
export function decodeGossipedOperation(bytes: Uint8Array): EntryPointOperation {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    throw new BundlerError(rpcErrorCode.invalidParams, 'a gossiped user operation is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new BundlerError(rpcErrorCode.invalidParams, 'a gossiped user operation is not an object');
  const { entryPoint, op } = doc as { entryPoint?: unknown; op?: unknown };
  return parseOperation(op, entryPoint, 'send');
}
