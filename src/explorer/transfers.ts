// Token movements in logs: ERC-20 and ERC-721 Transfer, ERC-1155 TransferSingle and TransferBatch
// (the same decoding the native index applies; handlers use it for a block's or transaction's transfers).
import type { Hex, TokenType } from './indexer/records.js';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d4cbcf3f7ce4b1d4d';

export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionHash: Hex;
}

const lower = (a: string): Hex => a.toLowerCase() as Hex;
const topicAddress = (t: Hex): Hex => lower(`0x${t.slice(26)}`);
const word = (data: Hex, i: number): bigint => BigInt(`0x${data.slice(2 + i * 64, 2 + (i + 1) * 64) || '0'}`);

export function transfersOf(log: RpcLog): { type: TokenType; from: Hex; to: Hex; value: bigint; tokenId: bigint | null }[] {
  const [t0, t1, t2, t3] = log.topics;
  if (t0 === TRANSFER && t1 && t2) {
    // ERC-721 indexes the token id (four topics); ERC-20 carries the amount in data (three topics).
    if (t3) return [{ type: 'ERC-721', from: topicAddress(t1), to: topicAddress(t2), value: 1n, tokenId: BigInt(t3) }];
    if (log.data.length >= 66) return [{ type: 'ERC-20', from: topicAddress(t1), to: topicAddress(t2), value: word(log.data, 0), tokenId: null }];
    return [];
  }
  if (t0 === TRANSFER_SINGLE && t2 && t3 && log.data.length >= 130) {
    return [{ type: 'ERC-1155', from: topicAddress(t2), to: topicAddress(t3), tokenId: word(log.data, 0), value: word(log.data, 1) }];
  }
  if (t0 === TRANSFER_BATCH && t2 && t3) {
    // data: offset(ids), offset(values), ids.length, ids..., values.length, values...
    const idsAt = Number(word(log.data, 0)) / 32;
    const valuesAt = Number(word(log.data, 1)) / 32;
    const n = Number(word(log.data, idsAt));
    if (n > 10_000 || Number(word(log.data, valuesAt)) !== n) return [];
    const out = [];
    for (let i = 0; i < n; i++) {
      out.push({ type: 'ERC-1155' as const, from: topicAddress(t2), to: topicAddress(t3), tokenId: word(log.data, idsAt + 1 + i), value: word(log.data, valuesAt + 1 + i) });
    }
    return out;
  }
  return [];
}
