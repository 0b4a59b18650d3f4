// eth_sendRawTransactionSync's waits (EIP-7966): one listener on the node's block events serves
// every waiting call, each found by its transaction hash, so the block path does one map lookup
// per included transaction and never waits on a caller; a wait ends with the receipt, with the
// block's refusal, or at its timeout.
import type { NodeEvents } from '../chain/events.js';
import type { Chain, ProducedBlock } from '../native/index.js';

interface Waiter {
  resolve(receipt: Record<string, unknown>): void;
  reject(reason: string): void;
}

export class TransactionWaits {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private listening = false;
  private readonly onBlock = (block: ProducedBlock): void => {
    if (this.waiting.size === 0) return;
    for (const hash of block.included) this.settle(hash, (w) => {
      const receipt = this.chain.getTransactionReceipt(hash);
      if (receipt !== null) w.resolve(receipt);
    });
    for (const r of block.rejected) this.settle(r.hash, (w) => w.reject(r.reason));
  };

  constructor(
    private readonly chain: Chain,
    private readonly events: NodeEvents,
  ) {}

  private settle(hash: Buffer, answer: (w: Waiter) => void): void {
    const key = hash.toString('hex');
    const set = this.waiting.get(key);
    if (!set) return;
    this.waiting.delete(key);
    for (const w of set) answer(w);
    this.stopIfIdle();
  }

  private stopIfIdle(): void {
    if (this.waiting.size === 0 && this.listening) {
      this.events.off('block', this.onBlock);
      this.listening = false;
    }
  }

  /** Starts watching for `hash`; call before the transaction can be mined, so that no block is missed. */
  watch(hash: Buffer, waiter: Waiter): () => void {
    const key = hash.toString('hex');
    let set = this.waiting.get(key);
    if (!set) this.waiting.set(key, (set = new Set()));
    set.add(waiter);
    if (!this.listening) {
      this.events.on('block', this.onBlock);
      this.listening = true;
    }
    return () => {
      const now = this.waiting.get(key);
      if (now?.delete(waiter) && now.size === 0) this.waiting.delete(key);
      this.stopIfIdle();
    };
  }
}

const byEvents = new WeakMap<NodeEvents, TransactionWaits>();

/** The waits of one running node (one per event bus). */
export function transactionWaits(chain: Chain, events: NodeEvents): TransactionWaits {
  let waits = byEvents.get(events);
  if (!waits) byEvents.set(events, (waits = new TransactionWaits(chain, events)));
  return waits;
}

/** A duration as Go prints it (geth's timeout texts): 20s, 1.5s, 250ms, 1m0s. */
export function goDuration(ms: number): string {
  const seconds = (v: number): string => (v < 1000 ? `${v}ms` : `${v / 1000}s`);
  if (ms < 60_000) return seconds(ms);
  const m = Math.floor(ms / 60_000);
  const rest = ms % 60_000;
  return `${m}m${rest === 0 ? '0s' : rest < 1000 ? `${rest / 1000}s` : seconds(rest)}`;
}
