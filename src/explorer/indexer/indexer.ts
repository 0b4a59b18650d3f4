// The explorer's indexer: follows committed blocks and writes, per block, one atomic batch of
// index records together with the new indexed height, so a crash at any point resumes at the first
// block not fully indexed. A fresh node indexes from genesis.
import type { Logger } from 'pino';
import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex as ViemHex } from 'viem';
import type { Chain } from '../../native/index.js';
import { be, commit, type Repository, type Write } from '../store.js';
import {
  addressKey,
  descendingAmount,
  ExplorerIndexes,
  INDEXED_HEIGHT,
  position,
  TOTAL_ADDRESSES,
  TOTAL_TOKENS,
  TOTAL_TRANSACTIONS,
  tokenIdKey,
  type AddressCounters,
  type AddressRole,
  type DayStats,
  type Hex,
  type InstanceRecord,
  type TokenRecord,
  type TokenType,
  type TransferRecord,
  type TxSummary,
} from './records.js';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d4cbcf3f7ce4b1d4d';
const ZERO: Hex = '0x0000000000000000000000000000000000000000';
const SECONDS_PER_DAY = 86_400;

interface RpcTx {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  value: Hex;
  input: Hex;
  transactionIndex: Hex;
}
export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionHash: Hex;
}
interface RpcReceipt {
  status: Hex;
  gasUsed: Hex;
  effectiveGasPrice: Hex;
  contractAddress: Hex | null;
  logs: RpcLog[];
}

const lower = (a: string): Hex => a.toLowerCase() as Hex;
const topicAddress = (t: Hex): Hex => lower(`0x${t.slice(26)}`);
const word = (data: Hex, i: number): bigint => BigInt(`0x${data.slice(2 + i * 64, 2 + (i + 1) * 64) || '0'}`);

/** Decodes token movements from a log: ERC-20/721 Transfer, ERC-1155 TransferSingle/TransferBatch. */
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

/** Read-modify-write of index records within one block before its batch is written. */
class BlockBatch {
  private readonly pending = new Map<string, { repo: Repository<unknown>; key: Buffer; value: unknown }>();

  get<T>(repo: Repository<T>, key: Buffer): T | undefined {
    const hit = this.pending.get(repo.fullKey(key).toString('hex'));
    if (hit) return hit.value as T | undefined;
    return repo.get(key);
  }

  put<T>(repo: Repository<T>, key: Buffer, value: T | undefined): void {
    this.pending.set(repo.fullKey(key).toString('hex'), { repo: repo as Repository<unknown>, key, value });
  }

  writes(): Write[] {
    return [...this.pending.values()].map((p) => (p.value === undefined ? p.repo.deleteWrite(p.key) : p.repo.putWrite(p.key, p.value)));
  }
}

export class Indexer {
  readonly indexes: ExplorerIndexes;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Milliseconds the last block took to index, and the most any block took since start. */
  lastBlockMs = 0;
  maxBlockMs = 0;

  constructor(
    private readonly chain: Chain,
    private readonly log: Logger,
  ) {
    this.indexes = new ExplorerIndexes(chain);
  }

  /** The last block whose records are written (-1 before genesis is indexed). */
  indexedHeight(): number {
    const h = this.indexes.meta.get(INDEXED_HEIGHT);
    return h === undefined ? -1 : h;
  }

  /** Blocks the index is behind the chain's head. */
  lag(): number {
    return this.chain.head().number - this.indexedHeight();
  }

  /** Indexes every block up to the head, after any run in flight; resolves when caught up. */
  catchUp(): Promise<void> {
    this.running = this.running.then(() => this.run()).catch((err: unknown) => this.log.error({ err }, 'indexing failed'));
    return this.running;
  }

  /** Stops after the block in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const next = this.indexedHeight() + 1;
      if (next > this.chain.head().number) return;
      const started = performance.now();
      await this.indexBlock(next);
      this.lastBlockMs = performance.now() - started;
      this.maxBlockMs = Math.max(this.maxBlockMs, this.lastBlockMs);
    }
  }

  /** Writes block `number`'s records and the new height in one batch. */
  async indexBlock(number: number): Promise<void> {
    const { chain, indexes: ix } = this;
    const block = chain.getBlock({ number }, true);
    const receipts = chain.getBlockReceipts({ number }) as unknown as RpcReceipt[] | null;
    if (!block || !receipts) throw new Error(`block ${number} is missing`);
    const timestamp = Number(BigInt(block['timestamp'] as string));
    const txs = block['transactions'] as RpcTx[];
    const batch = new BlockBatch();
    const day = Math.floor(timestamp / SECONDS_PER_DAY);
    const dayKey = be(day, 4);
    const stats: DayStats = batch.get(ix.days, dayKey) ?? {
      day,
      blocks: 0,
      transactions: 0,
      gasUsed: 0n,
      gasPriceSum: 0n,
      blockTimeSum: 0,
      activeAddresses: 0,
      newAddresses: 0,
    };
    stats.blocks++;
    stats.gasUsed += BigInt(block['gasUsed'] as string);
    if (number > 0) {
      const parent = chain.getBlock({ number: number - 1 }, false);
      stats.blockTimeSum += timestamp - Number(BigInt((parent?.['timestamp'] as string | undefined) ?? '0x0'));
    }

    const seen = (address: Hex, blockNumber: number, kind: 'tx' | 'transfer') => {
      const key = addressKey(address);
      const c: AddressCounters = batch.get(ix.counters, key) ?? { transactions: 0, tokenTransfers: 0, firstBlock: blockNumber, lastBlock: blockNumber };
      if (c.transactions === 0 && c.tokenTransfers === 0) {
        stats.newAddresses++;
        batch.put(ix.meta, TOTAL_ADDRESSES, (batch.get(ix.meta, TOTAL_ADDRESSES) ?? 0) + 1);
      }
      if (kind === 'tx') c.transactions++;
      else c.tokenTransfers++;
      c.lastBlock = blockNumber;
      batch.put(ix.counters, key, c);
      const activeKey = Buffer.concat([dayKey, key]);
      if (batch.get(ix.dayActive, activeKey) === undefined) {
        batch.put(ix.dayActive, activeKey, 1);
        stats.activeAddresses++;
      }
    };
    const role = (address: Hex, at: Buffer, r: AddressRole['roles'][number]) => {
      const key = Buffer.concat([addressKey(address), at]);
      const current = batch.get(ix.addressTxs, key) ?? { roles: [] };
      if (!current.roles.includes(r)) current.roles.push(r);
      batch.put(ix.addressTxs, key, current);
    };

    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i]!;
      const receipt = receipts[i]!;
      const at = position(number, i);
      const from = lower(tx.from);
      const to = tx.to === null ? null : lower(tx.to);
      const created = receipt.contractAddress === null ? null : lower(receipt.contractAddress);
      const summary: TxSummary = {
        hash: tx.hash,
        blockNumber: number,
        index: i,
        timestamp,
        from,
        to,
        created,
        value: BigInt(tx.value),
        status: Number(BigInt(receipt.status)),
        gasUsed: BigInt(receipt.gasUsed),
        gasPrice: BigInt(receipt.effectiveGasPrice),
        method: (tx.input.length >= 10 ? tx.input.slice(0, 10) : tx.input) as Hex,
      };
      batch.put(ix.txs, at, summary);
      stats.transactions++;
      stats.gasPriceSum += summary.gasPrice;
      role(from, at, 'from');
      seen(from, number, 'tx');
      if (to) {
        role(to, at, 'to');
        if (to !== from) seen(to, number, 'tx');
      }
      if (created && summary.status === 1) {
        role(created, at, 'created');
        seen(created, number, 'tx');
        batch.put(ix.contracts, addressKey(created), { address: created, creator: from, txHash: tx.hash, blockNumber: number, timestamp });
      }
      if (summary.status !== 1) continue;
      for (const log of receipt.logs) {
        for (const t of transfersOf(log)) {
          await this.indexTransfer(batch, lower(log.address), t, tx.hash, number, Number(BigInt(log.logIndex)), timestamp);
          for (const party of [t.from, t.to]) {
            if (party === ZERO) continue;
            role(party, at, 'token');
            seen(party, number, 'transfer');
          }
        }
      }
    }
    batch.put(ix.days, dayKey, stats);
    batch.put(ix.meta, TOTAL_TRANSACTIONS, (batch.get(ix.meta, TOTAL_TRANSACTIONS) ?? 0) + txs.length);
    batch.put(ix.meta, INDEXED_HEIGHT, number);
    commit(chain, 'explorer', batch.writes());
  }

  private async indexTransfer(
    batch: BlockBatch,
    token: Hex,
    t: { type: TokenType; from: Hex; to: Hex; value: bigint; tokenId: bigint | null },
    txHash: Hex,
    blockNumber: number,
    logIndex: number,
    timestamp: number,
  ): Promise<void> {
    const ix = this.indexes;
    const tokenKey = addressKey(token);
    let record = batch.get(ix.tokens, tokenKey);
    if (!record) {
      record = { address: token, type: t.type, ...(await this.metadata(token, t.type, blockNumber)), holders: 0, transfers: 0, firstBlock: blockNumber };
      batch.put(ix.meta, TOTAL_TOKENS, (batch.get(ix.meta, TOTAL_TOKENS) ?? 0) + 1);
      for (const term of [record.name, record.symbol]) {
        if (term) batch.put(ix.tokenSearch, Buffer.concat([Buffer.from(term.toLowerCase().slice(0, 64), 'utf8'), Buffer.from([0]), tokenKey]), 1);
      }
    }
    record.transfers++;
    const transfer: TransferRecord = { token, type: t.type, from: t.from, to: t.to, value: t.value, tokenId: t.tokenId, txHash, blockNumber, logIndex, timestamp };
    const at = position(blockNumber, logIndex);
    batch.put(ix.tokenTransfers, Buffer.concat([tokenKey, at]), transfer);
    for (const party of new Set([t.from, t.to])) {
      if (party !== ZERO) batch.put(ix.addressTransfers, Buffer.concat([addressKey(party), at]), transfer);
    }
    // Balances (ERC-20 amounts, NFT counts per holder) follow the transfers.
    const amount = t.type === 'ERC-721' ? 1n : t.value;
    const move = (holder: Hex, delta: bigint) => {
      if (holder === ZERO || delta === 0n) return;
      const key = Buffer.concat([tokenKey, addressKey(holder)]);
      const before = batch.get(ix.balances, key) ?? 0n;
      const after = before + delta < 0n ? 0n : before + delta;
      if (before > 0n) batch.put(ix.holdersByBalance, Buffer.concat([tokenKey, descendingAmount(before), addressKey(holder)]), undefined);
      if (after > 0n) batch.put(ix.holdersByBalance, Buffer.concat([tokenKey, descendingAmount(after), addressKey(holder)]), after);
      batch.put(ix.balances, key, after > 0n ? after : undefined);
      batch.put(ix.holdings, Buffer.concat([addressKey(holder), tokenKey]), after > 0n ? after : undefined);
      if (before === 0n && after > 0n) record!.holders++;
      if (before > 0n && after === 0n) record!.holders--;
    };
    move(t.from, -amount);
    move(t.to, amount);
    if (t.tokenId !== null) {
      const key = Buffer.concat([tokenKey, tokenIdKey(t.tokenId)]);
      const inst: InstanceRecord = batch.get(ix.instances, key) ?? { token, tokenId: t.tokenId, owner: null, supply: 0n };
      if (t.type === 'ERC-721') {
        inst.owner = t.to === ZERO ? null : t.to;
        inst.supply = t.to === ZERO ? 0n : 1n;
      } else {
        if (t.from === ZERO) inst.supply += t.value;
        if (t.to === ZERO) inst.supply = inst.supply >= t.value ? inst.supply - t.value : 0n;
      }
      batch.put(ix.instances, key, inst);
    }
    batch.put(ix.tokens, tokenKey, record);
  }

  /** name(), symbol() and decimals() where the contract answers them (null otherwise). */
  private async metadata(token: Hex, type: TokenType, blockNumber: number): Promise<Pick<TokenRecord, 'name' | 'symbol' | 'decimals'>> {
    const read = async (functionName: 'name' | 'symbol' | 'decimals'): Promise<unknown> => {
      try {
        const data = encodeFunctionData({ abi: erc20Abi, functionName } as never) as ViemHex;
        const r = await this.chain.call({ to: addressKey(token), data: Buffer.from(data.slice(2), 'hex') }, blockNumber);
        if (r.status !== 'success') return null;
        return decodeFunctionResult({ abi: erc20Abi, functionName, data: `0x${r.output.toString('hex')}` } as never) as unknown;
      } catch {
        return null;
      }
    };
    const name = await read('name');
    const symbol = await read('symbol');
    const decimals = type === 'ERC-20' ? await read('decimals') : null;
    return {
      name: typeof name === 'string' ? name.slice(0, 128) : null,
      symbol: typeof symbol === 'string' ? symbol.slice(0, 32) : null,
      decimals: typeof decimals === 'number' ? decimals : null,
    };
  }
}

