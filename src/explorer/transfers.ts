// Token movements in logs: ERC-20 and ERC-721 Transfer, ERC-1155 TransferSingle and TransferBatch.
// One decoder: the native block index's (crates/svc-index `token_movements`), asked through the
// addon, so a block's or transaction's transfers here are the ones the index recorded (a log too
// short for what it announces, such as a truncated TransferBatch, records none in both).
import { core } from '../native/index.js';
import type { Hex, TokenType } from './indexer/records.js';

export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionHash: Hex;
}

const hex = (b: Buffer): Hex => `0x${b.toString('hex')}` as Hex;

export function transfersOf(log: RpcLog): { type: TokenType; from: Hex; to: Hex; value: bigint; tokenId: bigint | null }[] {
  if (log.topics.length === 0) return [];
  const topics = log.topics.map((t) => Buffer.from(t.slice(2), 'hex'));
  if (topics.some((t) => t.length !== 32)) return [];
  return core.tokenTransfersOfLog(topics, Buffer.from(log.data.slice(2), 'hex')).map((t) => ({
    type: t.standard,
    from: hex(t.from),
    to: hex(t.to),
    value: t.value,
    tokenId: t.tokenId ?? null,
  }));
}
