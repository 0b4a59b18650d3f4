// The node's proof-of-work contribution in pow mode: BLAKE3 shares over (recent block hash,
// validator address, nonce) below the share target, searched natively on --pow-threads threads in
// chunks of about 100 ms (off the event loop); each share found is queued for the next block, which
// checks it with one hash. Its own counter (nonces hashed / wall time) is what the chain's estimate
// is compared with.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { core, type Chain } from '../native/index.js';
import type { ComputeModule } from '../modules/compute/module.js';
import { shareTarget } from '../modules/compute/hooks.js';
import type { Address } from '../modules/compute/types.js';
import { hexOf } from '../modules/compute/wire.js';

const CHUNK_MS = 100;
const MAX_SHARES_PER_CHUNK = 256;

export interface PowStats {
  threads: number;
  /** Nonces hashed since start. */
  hashes: bigint;
  /** Seconds spent since start (wall clock). */
  seconds: number;
  /** hashes / seconds. */
  hashrate: number;
  sharesFound: number;
}

export class PowMiner {
  private running = false;
  private loop: Promise<void> | undefined;
  private hashes = 0n;
  private startedAt = 0;
  private sharesFound = 0;
  private readonly target: Buffer;
  private readonly validatorBytes: Buffer;

  constructor(
    private readonly compute: ComputeModule,
    private readonly chain: Chain,
    private readonly validator: Address,
    readonly threads: number,
    private readonly log: Logger,
  ) {
    this.target = shareTarget(compute.params.shareDifficulty);
    this.validatorBytes = Buffer.from(validator.slice(2), 'hex');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.startedAt = performance.now();
    this.loop = this.run().catch((err: unknown) => {
      this.running = false;
      this.log.error({ err }, 'proof-of-work search stopped');
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  stats(): PowStats {
    const seconds = this.startedAt === 0 ? 0 : (performance.now() - this.startedAt) / 1000;
    return { threads: this.threads, hashes: this.hashes, seconds, hashrate: seconds > 0 ? Number(this.hashes) / seconds : 0, sharesFound: this.sharesFound };
  }

  private async run(): Promise<void> {
    let chunk = 1n << 18n;
    while (this.running) {
      const head = this.chain.head();
      const prefix = Buffer.concat([head.hash, this.validatorBytes]);
      const start = randomBytes(8).readBigUInt64BE(0) >> 1n;
      const r = await core.powSearchAll(prefix, start, chunk, this.target, this.threads, MAX_SHARES_PER_CHUNK);
      this.hashes += BigInt(r.hashed);
      // The block that takes a share checks it with one hash (ComputeModule.applyShares).
      r.nonces.forEach((nonce, i) => {
        this.sharesFound += 1;
        this.compute.queueShare({ validator: this.validator, blockHash: hexOf(head.hash), nonce, hash: hexOf(r.hashes[i]!) });
      });
      if (r.elapsedMs > 0) {
        const next = BigInt(Math.max(1 << 12, Math.floor((r.hashed / r.elapsedMs) * CHUNK_MS)));
        chunk = next;
      }
    }
  }
}
