// The explorer's indexer, TypeScript side. Blocks are indexed natively in their own atomic batch
// (crates/svc-index) while the index is current; here the node brings an index that is behind up
// to date block by block (data dirs made before the index existed) and reads the names, symbols
// and decimals of newly seen tokens (with eth_call), which the native side queues for it.
import type { Logger } from 'pino';
import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex as ViemHex } from 'viem';
import { NativeError, type Chain } from '../../native/index.js';
import { be, commit, type Write } from '../store.js';
import { addressKey, ExplorerIndexes, INDEXED_HEIGHT, INTERNAL_HEIGHT, position, type Hex, type InternalTxRecord, type TokenType } from './records.js';

export class Indexer {
  readonly indexes: ExplorerIndexes;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Milliseconds the last backfilled block took, and the most any took since start. */
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

  /** The last block whose internal transactions are indexed (0 before any). */
  internalHeight(): number {
    const h = this.indexes.meta.get(INTERNAL_HEIGHT);
    return h === undefined ? 0 : h;
  }

  /** Blocks the index is behind the chain's head. */
  lag(): number {
    return this.chain.head().number - this.indexedHeight();
  }

  /** Backfills up to the head and reads queued token metadata, after any run in flight. */
  catchUp(): Promise<void> {
    this.running = this.running.then(() => this.run()).catch((err: unknown) => this.log.error({ err }, 'indexing failed'));
    return this.running;
  }

  /** Resolves when the run in flight (if any) has finished its steps. */
  idle(): Promise<void> {
    return this.running;
  }

  /** Stops after the block in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    // A node that joined by state sync holds no blocks before its snapshot's (a few ancestors at
    // most): its index starts after the snapshot, where block production indexes each block.
    const from = this.chain.stateFrom();
    if (from > 0 && this.indexedHeight() < from) {
      commit(this.chain, 'explorer', [this.indexes.meta.putWrite(INDEXED_HEIGHT, from), this.indexes.meta.putWrite(INTERNAL_HEIGHT, from)]);
      this.log.info({ snapshot: from, from: from + 1 }, 'the explorer index starts after the state sync snapshot');
    }
    while (!this.stopped) {
      const next = this.indexedHeight() + 1;
      if (next > this.chain.head().number) break;
      const started = performance.now();
      // False when block production indexed it first: the loop then reads the new height.
      await this.chain.indexStoredBlock(next);
      this.lastBlockMs = performance.now() - started;
      this.maxBlockMs = Math.max(this.maxBlockMs, this.lastBlockMs);
    }
    // Internal transactions: each indexed block re-executed with a call tracer, in block order.
    while (!this.stopped && this.internalHeight() < this.indexedHeight()) await this.indexInternal(this.internalHeight() + 1);
    for (const entry of this.indexes.metadataQueue.scan(Buffer.alloc(0), undefined, 100, false)) {
      if (this.stopped) return;
      const token = `0x${entry.key.toString('hex')}` as Hex;
      const type = this.indexes.tokens.get(entry.key)?.type ?? 'ERC-20';
      const m = await this.metadata(token, type);
      this.chain.setTokenMetadata(entry.key, m.name ?? undefined, m.symbol ?? undefined, m.decimals ?? undefined);
    }
  }

  /**
   * Block `number`'s internal transactions (value moved by calls inside its transactions, contracts
   * created, self-destructs) by transaction and by address, with the height, in one batch. A block
   * written before the node kept what re-executing it needs has none to give: it is passed over.
   */
  private async indexInternal(number: number): Promise<void> {
    let found: Awaited<ReturnType<Chain['internalTransactions']>> = [];
    try {
      found = await this.chain.internalTransactions(number);
    } catch (err) {
      if (!(err instanceof NativeError && err.code === 'TRACE_UNAVAILABLE')) throw err;
      if (!this.warnedUnavailable) this.log.info({ number }, 'internal transactions are not indexed for blocks from before the node kept what re-executing them needs');
      this.warnedUnavailable = true;
    }
    const timestamp = Number(BigInt((this.chain.getBlockSummary({ number }) as { timestamp?: string } | null)?.timestamp ?? '0x0'));
    const writes: Write[] = [];
    const seq = new Map<number, number>();
    for (const t of found) {
      const index = seq.get(t.txIndex) ?? 0;
      seq.set(t.txIndex, index + 1);
      const record: InternalTxRecord = {
        txHash: `0x${t.txHash.toString('hex')}`,
        blockNumber: number,
        txIndex: t.txIndex,
        index,
        traceAddress: t.traceAddress,
        type: t.kind as InternalTxRecord['type'],
        from: `0x${t.from.toString('hex')}`,
        to: `0x${t.to.toString('hex')}`,
        value: t.value,
        gas: t.gas,
        gasUsed: t.gasUsed,
        error: t.error ?? null,
        timestamp,
      };
      writes.push(this.indexes.internalTxs.putWrite(Buffer.concat([t.txHash, be(index, 4)]), record));
      const at = Buffer.concat([position(number, t.txIndex), be(index, 4)]);
      for (const a of new Set([record.from, record.to])) writes.push(this.indexes.addressInternalTxs.putWrite(Buffer.concat([addressKey(a), at]), record));
    }
    writes.push(this.indexes.meta.putWrite(INTERNAL_HEIGHT, number));
    commit(this.chain, 'explorer', writes);
  }

  private warnedUnavailable = false;

  /** name(), symbol() and decimals() at the head, where the contract answers them (null otherwise). */
  private async metadata(token: Hex, type: TokenType): Promise<{ name: string | null; symbol: string | null; decimals: number | null }> {
    const head = this.chain.head().number;
    const read = async (functionName: 'name' | 'symbol' | 'decimals'): Promise<unknown> => {
      try {
        const data = encodeFunctionData({ abi: erc20Abi, functionName } as never) as ViemHex;
        const r = await this.chain.call({ to: Buffer.from(token.slice(2), 'hex'), data: Buffer.from(data.slice(2), 'hex') }, head);
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
      decimals: typeof decimals === 'number' && decimals <= 255 ? decimals : null,
    };
  }
}
