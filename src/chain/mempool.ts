// The transaction pool: admission with geth's checks and error texts, pending/queued per sender,
// fee-ordered selection for the block builder, and cleanup after each block. A submitted
// transaction is offered to blocks at once and answered once the journal holds it; when the journal
// write fails it leaves the pool again (or, if a block in flight carries it, the answer waits for
// that block), so a transaction answered with an error is never mined.
// Every lookup is keyed by latin1 strings of the raw bytes, so admission costs O(1) map work
// besides the native decode (signature recovery dominates).
import { core, type Chain, type DecodedTx, type DecodeOutcome, type PrecheckVerdict, type ProducedBlock } from '../native/index.js';
import { chain as chainParams, mempool as poolParams } from '../params.js';
import { checksumAddress } from './address.js';
import type { PoolJournal } from './pool-journal.js';
import type { NodeEvents } from './events.js';
import { AlreadyKnownError, TxPoolError, type Mempool as MempoolApi, type PooledTx } from './pool.js';
import { TipHeap } from './tip-heap.js';

/** The pool's limits; every field defaults to params. */
export interface MempoolLimits {
  globalSlots: number;
  accountSlots: number;
  maxNonceGap: bigint;
  priceBumpPercent: bigint;
  maxTxSizeBytes: number;
  queuedLifetimeMs: number;
  queuedSweepIntervalMs: number;
  blockGasLimit: number;
}

export interface MempoolOptions {
  chain: Chain;
  chainId: number;
  events: NodeEvents;
  limits?: Partial<MempoolLimits>;
  /** Wall clock for pool housekeeping (admission time, queued lifetime); never used for consensus. */
  now?: () => number;
}

/** Where submit makes an admitted transaction durable (set once the journal is replayed). */
type JournalSink = Pick<PoolJournal, 'append'>;

/** A pool transaction with the bookkeeping the pool needs. */
class PoolEntry implements PooledTx {
  constructor(
    readonly raw: Buffer,
    readonly tx: DecodedTx,
    readonly receivedAt: number,
    /** Arrival order in this pool: breaks ties between equal tips (wall-clock milliseconds often tie). */
    readonly seq: number,
    readonly key: string,
    readonly account: SenderAccount,
    /** gasLimit * maxFeePerGas + value: the most the transaction can take from the sender. */
    readonly cost: bigint,
    /** Journaled (or admitted without a journal). */
    public durable: boolean,
    /** The transaction this one replaced (same sender and nonce): the latest journaled one down this chain comes back if this one's journal write fails. */
    public replaced: PoolEntry | undefined,
  ) {}

  /** The journal write failed: the entry is offered to no further block, and its caller hears an error unless a block in flight mines it. */
  failed = false;
  /** A committed block carried it. */
  mined = false;
}

/** An answer that waits for the block in flight: a transaction whose journal write failed after that block's proposal took it. */
interface Deferred {
  entry: PoolEntry;
  err: unknown;
  resolve(hash: Buffer): void;
  reject(err: unknown): void;
}

/** geth's pool text for a rule of the block builder's check that a transaction breaks (its numbers from the check). */
function poolText(v: PrecheckVerdict, from: Buffer): string {
  const [have, want] = [v.have ?? 0n, v.want ?? 0n];
  switch (v.rule) {
    case 'gas-above-block-limit':
      return 'exceeds block gas limit';
    case 'chain-id':
      return 'invalid chain id for signer';
    case 'tip-above-fee-cap':
      return 'max priority fee per gas higher than max fee per gas';
    case 'fee-cap-below-base-fee':
      return `max fee per gas less than block base fee: address ${checksumAddress(from)}, maxFeePerGas: ${have}, baseFee: ${want}`;
    case 'insufficient-funds':
      return `insufficient funds for gas * price + value: balance ${have}, tx cost ${want}, overshot ${want - have}`;
    case 'intrinsic-gas':
      return `intrinsic gas too low: gas ${have}, minimum needed ${want}`;
    case 'floor-data-gas':
      return `insufficient gas for floor data gas cost: gas ${have}, minimum needed ${want}`;
    case 'initcode-size':
      return `max initcode size exceeded: code size ${have}, limit ${want}`;
    default:
      return v.reason ?? `invalid transaction (${v.rule})`;
  }
}

/** One sender's transactions by nonce; those from `stateNonce` up to `nextNonce` are pending, the rest queued. */
class SenderAccount {
  readonly txs = new Map<bigint, PoolEntry>();
  /** Sum of the costs of `txs`. */
  spent = 0n;
  /** First nonce at or above stateNonce that the pool does not hold. */
  nextNonce: bigint;
  lastActivity: number;

  constructor(
    readonly key: string,
    readonly address: Buffer,
    public stateNonce: bigint,
    now: number,
  ) {
    this.nextNonce = stateNonce;
    this.lastActivity = now;
  }

  get pending(): number {
    return Number(this.nextNonce - this.stateNonce);
  }

  get queued(): number {
    return this.txs.size - this.pending;
  }

  /** Advance nextNonce over the contiguous run of held nonces. */
  extendRun(): void {
    while (this.txs.has(this.nextNonce)) this.nextNonce++;
  }
}

/** Effective tip a transaction pays the coinbase at the given base fee. */
export function effectiveTip(tx: DecodedTx, baseFee: bigint): bigint {
  const headroom = tx.maxFeePerGas - baseFee;
  return tx.maxPriorityFeePerGas < headroom ? tx.maxPriorityFeePerGas : headroom;
}

interface Candidate {
  entry: PoolEntry;
  tip: bigint;
}

const candidateBefore = (a: Candidate, b: Candidate): boolean =>
  a.tip !== b.tip ? a.tip > b.tip : a.entry.seq < b.entry.seq;

/** The node's transaction pool (see services.ts for the contract the RPC layer uses). */
export class Mempool implements MempoolApi {
  private readonly chain: Chain;
  private readonly chainId: number;
  private readonly events: NodeEvents;
  private readonly limits: MempoolLimits;
  private readonly now: () => number;
  private readonly byHash = new Map<string, PoolEntry>();
  private readonly senders = new Map<string, SenderAccount>();
  /** Senders holding at least one pending transaction. */
  private readonly executable = new Set<SenderAccount>();
  private pendingCount = 0;
  private arrivals = 0;
  private lastSweep: number;
  private journal: JournalSink | undefined;
  /** Submissions of this event-loop turn, decoded together off the JS thread (see submit). */
  private toDecode: { raw: Buffer; resolve(hash: Buffer): void; reject(err: unknown): void }[] = [];
  /** Decoded batches are admitted one after another, in submission order. */
  private admitting: Promise<void> = Promise.resolve();
  /** What the latest proposal took from the pool, until a block is committed (see settle). */
  private inFlight = new Set<PoolEntry>();
  /** Answers that wait for the next committed block. */
  private deferred: Deferred[] = [];

  constructor(options: MempoolOptions) {
    this.chain = options.chain;
    this.chainId = options.chainId;
    this.events = options.events;
    this.limits = {
      globalSlots: poolParams.globalSlots,
      accountSlots: poolParams.accountSlots,
      maxNonceGap: poolParams.maxNonceGap,
      priceBumpPercent: poolParams.priceBumpPercent,
      maxTxSizeBytes: poolParams.maxTxSizeBytes,
      queuedLifetimeMs: poolParams.queuedLifetimeMs,
      queuedSweepIntervalMs: poolParams.queuedSweepIntervalMs,
      blockGasLimit: chainParams.blockGasLimit,
      ...options.limits,
    };
    this.now = options.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /**
   * Forgets every transaction (the devnet's evm_revert moved the chain back: nonces and balances
   * are the snapshot's again). Answers waiting for a block get `reason`; returns how many were dropped.
   */
  reset(reason: Error): number {
    const dropped = this.byHash.size;
    this.byHash.clear();
    this.senders.clear();
    this.executable.clear();
    this.pendingCount = 0;
    this.inFlight.clear();
    const waiting = this.deferred;
    this.deferred = [];
    for (const d of waiting) d.reject(reason);
    return dropped;
  }

  /** Transactions held, pending and queued. */
  get size(): number {
    return this.byHash.size;
  }

  /** From now on, submit resolves only once the journal holds the transaction. */
  useJournal(journal: JournalSink): void {
    this.journal = journal;
  }

  /**
   * Admit a transaction and journal it; resolves with its hash once the journal holds it. The
   * transactions submitted in one event-loop turn are decoded and their senders recovered together,
   * off the JS thread (chain.decodeTransactions), then admitted in the order they were submitted.
   * Until the journal holds it the transaction is not offered to blocks (selectForBlock); when the
   * write fails it leaves the pool (see unwind) and the promise rejects with PoolJournalError.
   */
  async submit(raw: Buffer): Promise<Buffer> {
    this.checkSize(raw);
    return new Promise<Buffer>((resolve, reject) => {
      if (this.toDecode.push({ raw, resolve, reject }) === 1) setImmediate(() => this.decodeBatch());
    });
  }

  private decodeBatch(): void {
    const batch = this.toDecode;
    this.toDecode = [];
    // Decoding starts now; admission waits for the batches before this one.
    const headAtDecode = this.chain.head().number;
    const decoded = this.chain.decodeTransactions(batch.map((b) => b.raw));
    this.admitting = this.admitting.then(async () => {
      let outcomes: DecodeOutcome[];
      try {
        outcomes = await decoded;
      } catch (err) {
        for (const b of batch) b.reject(err);
        return;
      }
      // A block committed while the batch was decoded: the senders' state the decoder read is the
      // parent's (a sender whose pool transactions that block mined would be judged by its old nonce).
      if (this.chain.head().number !== headAtDecode) this.refreshSenderState(outcomes);
      for (const [i, b] of batch.entries()) {
        const { tx, error } = outcomes[i]!;
        let entry: PoolEntry;
        try {
          if (tx === undefined) throw new TxPoolError(error ?? 'transaction could not be decoded');
          entry = this.admit(b.raw, tx, this.journal === undefined);
        } catch (err) {
          b.reject(err);
          continue;
        }
        // Appended in the same turn as the admission: a rewrite of the journal (which snapshots the
        // pool) then always finds the record among the appends it answers.
        if (this.journal === undefined) b.resolve(entry.tx.hash);
        else this.journal.append(b.raw).then(() => b.resolve(this.journaled(entry)), (err: unknown) => this.journalFailed(entry, err, b));
      }
    });
  }

  /** The journal holds the entry: blocks may take it, and it is announced. */
  private journaled(entry: PoolEntry): Buffer {
    entry.durable = true;
    entry.replaced = undefined;
    if (this.byHash.get(entry.key) === entry) this.events.emit('pendingTransaction', entry.tx.hash);
    return entry.tx.hash;
  }

  /**
   * The journal could not hold the entry. Mined already: the chain holds it, and its hash is the
   * answer. Taken by the proposal of the block in flight: no later block is offered it, and the
   * answer waits for the next committed block (settle). Otherwise it leaves the pool (unwind) and
   * the caller hears the error.
   */
  private journalFailed(entry: PoolEntry, err: unknown, caller: { resolve(hash: Buffer): void; reject(err: unknown): void }): void {
    entry.failed = true;
    if (entry.mined) caller.resolve(entry.tx.hash);
    else if (this.inFlight.has(entry) && this.byHash.get(entry.key) === entry) this.deferred.push({ entry, err, resolve: caller.resolve, reject: caller.reject });
    else caller.reject(this.unwind(entry, err));
  }

  /** After a committed block: the answers that waited for it (mined: the hash; else the journal's error), and no proposal in flight. */
  private settle(): void {
    this.inFlight.clear();
    const waiting = this.deferred;
    this.deferred = [];
    for (const d of waiting) {
      if (d.entry.mined) d.resolve(d.entry.tx.hash);
      else d.reject(this.unwind(d.entry, d.err));
    }
  }

  /**
   * The journal could not hold the entry: it leaves the pool (offered to no further block),
   * a journaled transaction it replaced comes back, and the sender's pending run is recounted, so
   * its later nonces wait (queued) for the gap to be filled again. Returns the error for the caller.
   */
  private unwind(entry: PoolEntry, err: unknown): unknown {
    entry.failed = true;
    if (this.byHash.get(entry.key) !== entry) return err;
    const account = entry.account;
    const before = account.pending;
    this.detach(entry);
    // The latest replaced transaction that the journal holds (one whose own write failed cannot come back).
    let old = entry.replaced;
    while (old && (!old.durable || old.failed)) old = old.replaced;
    entry.replaced = undefined;
    const nonce = entry.tx.nonce;
    if (old && nonce >= account.stateNonce && !account.txs.has(nonce) && !this.byHash.has(old.key)) {
      account.txs.set(nonce, old);
      account.spent += old.cost;
      this.byHash.set(old.key, old);
    }
    account.nextNonce = account.stateNonce;
    account.extendRun();
    this.recount(account, before);
    this.forgetIfEmpty(account);
    return err;
  }

  /** Sets each decoded transaction's sender nonce and balance to the head's. */
  private refreshSenderState(outcomes: DecodeOutcome[]): void {
    const txs = outcomes.flatMap((o) => (o.tx ? [o.tx] : []));
    if (txs.length === 0) return;
    const states = this.chain.getAccounts(txs.map((tx) => tx.from), this.chain.head().number);
    for (const [i, tx] of txs.entries()) {
      tx.senderNonce = states[i]!.nonce;
      tx.senderBalance = states[i]!.balance;
    }
  }

  private checkSize(raw: Buffer): void {
    if (raw.length > this.limits.maxTxSizeBytes) {
      throw new TxPoolError(`oversized data: transaction size ${raw.length}, limit ${this.limits.maxTxSizeBytes}`);
    }
  }

  /** Admit a transaction without journaling it (submit is the acknowledged path; this is for replay and tests). */
  add(raw: Buffer): Buffer {
    this.checkSize(raw);
    let tx: DecodedTx;
    try {
      tx = this.chain.decodeTransaction(raw);
    } catch (err) {
      throw new TxPoolError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    return this.admit(raw, tx, true).tx.hash;
  }

  /** A chain rule the pool applies besides its own (the app's: a dormant account neither sends nor is called); null admits. */
  private chainRule: ((tx: DecodedTx) => string | null) | undefined;

  /** Sets the chain's rule for admission (ChainApp's), checked after the pool's own. */
  setChainRule(rule: (tx: DecodedTx) => string | null): void {
    this.chainRule = rule;
  }

  /**
   * The pool's rules for a decoded transaction; adds it or throws TxPoolError with geth's text. A
   * `durable` entry is offered to blocks and announced at once; else once the journal holds it.
   */
  private admit(raw: Buffer, tx: DecodedTx, durable: boolean): PoolEntry {
    const limits = this.limits;
    if (tx.chainId === null) throw new TxPoolError('only replay-protected (EIP-155) transactions allowed over RPC');
    const refused = this.chainRule?.(tx);
    if (refused) throw new TxPoolError(refused);

    const key = tx.hash.toString('latin1');
    if (this.byHash.has(key)) throw new AlreadyKnownError();

    const senderKey = tx.from.toString('latin1');
    const account = this.senders.get(senderKey);
    // The decoded tx carries the sender's state at the head, which may be newer than the pool's view.
    const stateNonce = account && account.stateNonce > tx.senderNonce ? account.stateNonce : tx.senderNonce;
    if (tx.nonce < stateNonce) throw new TxPoolError(`nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`);
    const next = this.nextNonceFrom(account, stateNonce);
    if (tx.nonce > next + limits.maxNonceGap) {
      throw new TxPoolError(`nonce too high: next nonce ${next}, tx nonce ${tx.nonce}, allowed gap ${limits.maxNonceGap}`);
    }
    // The block builder's checks (crates/svc-evm check_transaction, the one copy: gas against the
    // block's limit, the chain id, tip and fee cap against the next base fee, balance against the
    // cost, intrinsic and floor gas, initcode size), on the sender's state at the head; the nonce rules above are
    // the pool's own (it holds gaps), so the check is asked with the transaction's own nonce.
    const verdict = core.precheckTransaction(raw, tx.from, {
      chainId: this.chainId,
      gasLimit: limits.blockGasLimit,
      gasUsed: 0,
      baseFeePerGas: this.chain.nextBaseFee(),
      nonce: tx.nonce,
      balance: tx.senderBalance,
    });
    if (verdict.verdict === 'reject') throw new TxPoolError(poolText(verdict, tx.from));
    const cost = tx.gasLimit * tx.maxFeePerGas + tx.value;
    const balance = tx.senderBalance;
    const replaced = account?.txs.get(tx.nonce);
    if (account) {
      const spent = this.liveSpent(account, stateNonce);
      const added = replaced ? cost - replaced.cost : cost;
      if (balance < spent + added) {
        throw new TxPoolError(
          `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx cost ${added}, overshot ${spent + added - balance}`,
        );
      }
    }
    if (replaced && !this.bumpsEnough(replaced.tx, tx)) throw new TxPoolError('replacement transaction underpriced');
    if (!replaced) {
      if (account && account.txs.size >= limits.accountSlots) throw new TxPoolError('txpool is full');
      if (this.byHash.size >= limits.globalSlots) throw new TxPoolError('txpool is full');
    }

    const now = this.now();
    const sender = account ?? new SenderAccount(senderKey, tx.from, stateNonce, now);
    if (!account) this.senders.set(senderKey, sender);
    const before = sender.pending;
    if (replaced) this.detach(replaced);
    if (stateNonce > sender.stateNonce) this.dropBelow(sender, stateNonce);
    sender.lastActivity = now;
    const entry = new PoolEntry(raw, tx, now, this.arrivals++, key, sender, cost, durable, durable ? undefined : replaced);
    sender.txs.set(tx.nonce, entry);
    sender.spent += cost;
    this.byHash.set(key, entry);
    sender.extendRun();
    this.recount(sender, before);
    if (durable) this.events.emit('pendingTransaction', tx.hash);
    return entry;
  }

  pendingNonce(address: Buffer): bigint {
    const account = this.senders.get(address.toString('latin1'));
    if (account) return account.nextNonce;
    return this.chain.getAccount(address, this.chain.head().number).nonce;
  }

  get(hash: Buffer): PooledTx | undefined {
    return this.byHash.get(hash.toString('latin1'));
  }

  hashes(): Buffer[] {
    const out: Buffer[] = [];
    for (const entry of this.byHash.values()) out.push(entry.tx.hash);
    return out;
  }

  /**
   * Every pool transaction's raw bytes for the journal: in admission order, except that each sender's
   * transactions take its slots in nonce order, so a replay never meets a nonce gap the pool would refuse.
   */
  journalEntries(): Buffer[] {
    const slots: { seq: number; raw: Buffer }[] = [];
    for (const account of this.senders.values()) {
      const entries = [...account.txs.values()];
      const seqs = entries.map((e) => e.seq).sort((a, b) => a - b);
      entries.sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : a.tx.nonce > b.tx.nonce ? 1 : 0));
      entries.forEach((entry, i) => slots.push({ seq: seqs[i]!, raw: entry.raw }));
    }
    return slots.sort((a, b) => a.seq - b.seq).map((s) => s.raw);
  }

  stats(): { pending: number; queued: number } {
    return { pending: this.pendingCount, queued: this.byHash.size - this.pendingCount };
  }

  senderAddresses(): Buffer[] {
    return [...this.senders.values()].map((a) => a.address);
  }

  /** Pending and queued transactions of one sender, in nonce order. */
  senderTransactions(address: Buffer): { pending: PooledTx[]; queued: PooledTx[] } {
    const account = this.senders.get(address.toString('latin1'));
    const pending: PooledTx[] = [];
    const queued: PooledTx[] = [];
    if (!account) return { pending, queued };
    for (const nonce of [...account.txs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const entry = account.txs.get(nonce)!;
      (nonce < account.nextNonce ? pending : queued).push(entry);
    }
    return { pending, queued };
  }

  /**
   * Executable transactions for the next block: across senders by effective tip (highest first,
   * then earliest admitted), within a sender in nonce order; a sender's run stops at a gap, at a
   * transaction whose fee cap is below `baseFee`, or at one whose journal write failed. A
   * transaction whose journal write is still running is offered (its answer waits for the journal).
   */
  selectForBlock(baseFee: bigint, maxTxs: number): PooledTx[] {
    const selected = this.pick(baseFee, maxTxs, undefined);
    this.inFlight = new Set(selected);
    return selected;
  }

  /**
   * What the next block would take (the `pending` block): selectForBlock's order, within `gasLimit`
   * counted by the transactions' gas limits (a sender whose next transaction does not fit stops
   * there, as geth's miner skips it); the pool is left as it is.
   */
  nextBlock(baseFee: bigint, gasLimit: bigint, maxTxs: number): PooledTx[] {
    return this.pick(baseFee, maxTxs, gasLimit);
  }

  private pick(baseFee: bigint, maxTxs: number, gasLimit: bigint | undefined): PoolEntry[] {
    const heap = new TipHeap<Candidate>(candidateBefore);
    for (const account of this.executable) {
      const first = account.txs.get(account.stateNonce);
      if (first && !first.failed && first.tx.maxFeePerGas >= baseFee) heap.push({ entry: first, tip: effectiveTip(first.tx, baseFee) });
    }
    const selected: PoolEntry[] = [];
    let gasLeft = gasLimit;
    while (selected.length < maxTxs) {
      const best = heap.pop();
      if (!best) break;
      if (gasLeft !== undefined) {
        if (best.entry.tx.gasLimit > gasLeft) continue;
        gasLeft -= best.entry.tx.gasLimit;
      }
      selected.push(best.entry);
      const account = best.entry.account;
      const nonce = best.entry.tx.nonce + 1n;
      if (nonce >= account.nextNonce) continue;
      const next = account.txs.get(nonce);
      if (next && !next.failed && next.tx.maxFeePerGas >= baseFee) heap.push({ entry: next, tip: effectiveTip(next.tx, baseFee) });
    }
    return selected;
  }

  /**
   * Apply a committed block: drop its included and rejected transactions, refresh the state of the
   * senders it touched (dropping now-stale and unpayable transactions), keep deferred ones.
   */
  onBlock(produced: ProducedBlock): void {
    // The head's gas limit caps what the pool admits (governance may change it at an epoch).
    this.limits.blockGasLimit = produced.head.gasLimit;
    const touched = new Map<string, Buffer>();
    for (const hash of produced.included) {
      const entry = this.byHash.get(hash.toString('latin1'));
      if (entry) {
        entry.mined = true;
        this.detach(entry);
        touched.set(entry.account.key, entry.account.address);
        continue;
      }
      // Included but not from this pool (another proposer's block): find its sender to drop stale txs.
      const from = this.chain.getTransactionByHash(hash)?.['from'];
      if (typeof from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(from)) {
        const address = Buffer.from(from.slice(2), 'hex');
        touched.set(address.toString('latin1'), address);
      }
    }
    for (const { hash } of produced.rejected) {
      const entry = this.byHash.get(hash.toString('latin1'));
      if (!entry) continue;
      this.detach(entry);
      touched.set(entry.account.key, entry.account.address);
    }
    const refresh: SenderAccount[] = [];
    for (const key of touched.keys()) {
      const account = this.senders.get(key);
      if (account) refresh.push(account);
    }
    const states = this.chain.getAccounts(refresh.map((a) => a.address), produced.head.number);
    for (const [i, account] of refresh.entries()) this.resync(account, states[i]!.nonce, states[i]!.balance);
    this.settle();
    this.sweepQueued();
  }

  /** The sender's next nonce counting contiguous pool transactions, from a state nonce. */
  private nextNonceFrom(account: SenderAccount | undefined, stateNonce: bigint): bigint {
    if (!account) return stateNonce;
    if (stateNonce === account.stateNonce) return account.nextNonce;
    let next = stateNonce > account.nextNonce ? stateNonce : account.nextNonce;
    while (account.txs.has(next)) next++;
    return next;
  }

  /** Cost of the sender's pool transactions that can still execute (nonce at or above the state nonce). */
  private liveSpent(account: SenderAccount, stateNonce: bigint): bigint {
    if (stateNonce === account.stateNonce) return account.spent;
    let spent = 0n;
    for (const entry of account.txs.values()) if (entry.tx.nonce >= stateNonce) spent += entry.cost;
    return spent;
  }

  /** geth's rule: both fee caps strictly higher and at least priceBumpPercent above the old ones. */
  private bumpsEnough(old: DecodedTx, tx: DecodedTx): boolean {
    if (tx.maxFeePerGas <= old.maxFeePerGas || tx.maxPriorityFeePerGas <= old.maxPriorityFeePerGas) return false;
    const factor = 100n + this.limits.priceBumpPercent;
    return (
      tx.maxFeePerGas >= (old.maxFeePerGas * factor) / 100n &&
      tx.maxPriorityFeePerGas >= (old.maxPriorityFeePerGas * factor) / 100n
    );
  }

  /** Take an entry out of the indexes; the caller then recomputes nextNonce and the counts (resync or recount). */
  private detach(entry: PoolEntry): void {
    this.byHash.delete(entry.key);
    const account = entry.account;
    if (account.txs.get(entry.tx.nonce) === entry) {
      account.txs.delete(entry.tx.nonce);
      account.spent -= entry.cost;
    }
  }

  private dropBelow(account: SenderAccount, stateNonce: bigint): void {
    for (const [nonce, entry] of account.txs) if (nonce < stateNonce) this.detach(entry);
    account.stateNonce = stateNonce;
    if (account.nextNonce < stateNonce) account.nextNonce = stateNonce;
  }

  /** Bring a sender to its state after a block: stale nonces and unaffordable transactions go. */
  private resync(account: SenderAccount, stateNonce: bigint, balance: bigint): void {
    const before = account.pending;
    for (const [nonce, entry] of account.txs) {
      if (nonce < stateNonce || entry.cost > balance) this.detach(entry);
    }
    account.stateNonce = stateNonce;
    account.nextNonce = stateNonce;
    account.extendRun();
    this.recount(account, before);
    this.forgetIfEmpty(account);
  }

  /** Drop queued transactions of senders silent for longer than the queued lifetime. */
  private sweepQueued(): void {
    const now = this.now();
    if (now - this.lastSweep < this.limits.queuedSweepIntervalMs) return;
    this.lastSweep = now;
    for (const account of [...this.senders.values()]) {
      if (account.queued === 0 || now - account.lastActivity <= this.limits.queuedLifetimeMs) continue;
      for (const [nonce, entry] of account.txs) if (nonce >= account.nextNonce) this.detach(entry);
      this.forgetIfEmpty(account);
    }
  }

  private recount(account: SenderAccount, pendingBefore: number): void {
    const after = account.pending;
    this.pendingCount += after - pendingBefore;
    if (after > 0) this.executable.add(account);
    else this.executable.delete(account);
  }

  private forgetIfEmpty(account: SenderAccount): void {
    if (account.txs.size > 0) return;
    this.senders.delete(account.key);
    this.executable.delete(account);
  }
}
