// The explorer's indexer, TypeScript side. Blocks are indexed natively in their own atomic batch
// (crates/svc-index) while the index is current; here the node brings an index that is behind up
// to date block by block (data dirs made before the index existed) and reads the names, symbols
// and decimals of newly seen tokens (with eth_call), which the native side queues for it.
import type { Logger } from 'pino';
import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex as ViemHex } from 'viem';
import type { Chain } from '../../native/index.js';
import { ExplorerIndexes, INDEXED_HEIGHT, type Hex, type TokenType } from './records.js';

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

  /** Blocks the index is behind the chain's head. */
  lag(): number {
    return this.chain.head().number - this.indexedHeight();
  }

  /** Backfills up to the head and reads queued token metadata, after any run in flight. */
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
      if (next > this.chain.head().number) break;
      const started = performance.now();
      // False when block production indexed it first: the loop then reads the new height.
      await this.chain.indexStoredBlock(next);
      this.lastBlockMs = performance.now() - started;
      this.maxBlockMs = Math.max(this.maxBlockMs, this.lastBlockMs);
    }
    for (const entry of this.indexes.metadataQueue.scan(Buffer.alloc(0), undefined, 100, false)) {
      if (this.stopped) return;
      const token = `0x${entry.key.toString('hex')}` as Hex;
      const type = this.indexes.tokens.get(entry.key)?.type ?? 'ERC-20';
      const m = await this.metadata(token, type);
      this.chain.setTokenMetadata(entry.key, m.name ?? undefined, m.symbol ?? undefined, m.decimals ?? undefined);
    }
  }

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
