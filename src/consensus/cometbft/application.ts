// svc-node as an ABCI 2.0 application: CometBFT's requests mapped onto the app's block steps
// (src/chain/app.ts) and the pool.
//
//   Info            the head: its height and root (the handshake replays what CometBFT has beyond it)
//   InitChain       checks CometBFT's genesis against the node's and answers with the genesis
//                   validator set (consensus keys and voting power from the staking module) and root
//   CheckTx         an EVM transaction: the pool's admission rules, geth's texts; a system message:
//                   its shape and signatures, then the module's queue; a user operation: the
//                   bundler's ERC-7562 validation into its pool. Recheck keeps what the pool, the
//                   queues and the bundler's pool still hold.
//   PrepareProposal the app's own proposal (pool by tip in nonce order, queued messages), led by the
//                   bundles this node's bundler builds for it, as block transactions
//                   (./block-txs.ts) within CometBFT's byte limit; never a gossiped user operation
//   ProcessProposal the app's check of a proposal: height, time, header fields, decoding, signatures
//   FinalizeBlock   executes: app_hash is the block's state root, over the EVM state and every
//                   module's records; the validator updates: at an epoch's end the new set, and
//                   power 0 for a validator the block jailed or banned
//   Commit          the one write batch
//
// The block's time is CometBFT's header time (milliseconds); its coinbase is the proposer's operator
// address, found by its consensus key. What CometBFT decided about the block beyond its
// transactions goes into the block's stored messages, so a replay of the block data applies it
// too: the decided last commit (each listed validator's vote: commit, absent or nil), which the
// staking module's liveness counts, and the duplicate-vote evidence.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { core, type Chain, type ProducedBlock } from '../../native/index.js';
import type { ChainApp, Proposal } from '../../chain/app.js';
import type { Mempool } from '../../chain/mempool.js';
import { AlreadyKnownError, TxPoolError } from '../../chain/pool.js';
import { PoolJournalError } from '../../chain/pool-journal.js';
import type { NodeEvents } from '../../chain/events.js';
import type { NodeMetrics } from '../../metrics.js';
import type { AbciHandler, AbciResponseValue } from './abci-server.js';
import { announceBlock, type BlockProduction } from '../production.js';
import { consensusAddress } from './home.js';
import { classifyTx, extraDataTx, messageTx, splitBlockTxs } from './block-txs.js';
import { create } from '@bufbuild/protobuf';
import { parseSnapshotMetadata, snapshotHash, SNAPSHOT_FORMAT, type SnapshotStore } from './snapshots.js';
import { ResponseApplySnapshotChunk_Result, CheckTxType, ResponseOfferSnapshot_Result, ValidatorUpdateSchema, type CommitInfo, type Misbehavior, type ValidatorUpdate } from './proto/tendermint/abci/types_pb.js';
import { decodeMessage, encodeMessage } from '../../modules/kernel/messages.js';
import { BlockIDFlag } from './proto/tendermint/types/validator_pb.js';
import { toAddress } from '../../modules/kernel/module.js';
import type { CommitVote } from '../../modules/staking/types.js';
import { SvcError } from '../../errors.js';
import { chain as chainParams, CLIENT_NAME } from '../../params.js';

/** CheckTx codes: 0 admits; the rest name why not (the log carries geth's text). */
export const CHECK_TX = { ok: 0, rejected: 1, malformed: 2, gone: 3 } as const;

/** CometBFT's BlockIDFlag of a last-commit vote, in the staking module's words. */
const COMMIT_FLAG: Partial<Record<BlockIDFlag, CommitVote['flag']>> = {
  [BlockIDFlag.BLOCK_ID_FLAG_COMMIT]: 'commit',
  [BlockIDFlag.BLOCK_ID_FLAG_ABSENT]: 'absent',
  [BlockIDFlag.BLOCK_ID_FLAG_NIL]: 'nil',
};

/** ABCI's app version of this state machine. */
const APP_VERSION = 1n;

/** Milliseconds of a protobuf timestamp. */
export function timestampMs(t: Timestamp | undefined): number {
  if (!t) throw new AbciAppError('a block without a time');
  return Number(t.seconds) * 1000 + Math.floor(t.nanos / 1_000_000);
}

export class AbciAppError extends SvcError {
  override readonly name = 'AbciAppError';
  override readonly code = 'ABCI_APP';
}

export interface CometApplicationOptions {
  app: ChainApp;
  chain: Chain;
  mempool: Mempool;
  events: NodeEvents;
  metrics: NodeMetrics;
  log: Logger;
  production: BlockProduction;
  /** The CometBFT chain id the genesis names (svc-<chain id>). */
  chainId: string;
  /** Extra data this node puts in the blocks it proposes (its compute mode is added by the app). */
  extraData?: Buffer;
  /** State sync snapshots this node takes and serves. */
  snapshots?: SnapshotStore;
}

/**
 * The node's bundler as the mempool sees it (src/aa/bundler.ts): user operations gossip through
 * CometBFT's mempool into every node's bundler pool, and the proposer bundles them.
 */
export interface UserOperationGate {
  /** CheckTx: null when the operation is (now) pooled, else why not. */
  admitGossiped(operation: Uint8Array): Promise<string | null>;
  /** Recheck: whether the operation is still pooled (not bundled, replaced or invalid). */
  recheckGossiped(operation: Uint8Array): Promise<boolean>;
  /** The handleOps transactions this node puts first in its proposal, paying `beneficiary`. */
  proposalBundles(beneficiary: Buffer): Promise<Buffer[]>;
}

/** One member of the validator set CometBFT runs: its Ed25519 key and voting power. */
interface SetMember {
  publicKey: Buffer;
  power: bigint;
}

export class CometApplication {
  private readonly log: Logger;
  private readonly extraData: Buffer;
  /** The snapshot being restored by state sync. */
  private restoring: { height: number; appHash: Buffer; hashes: Buffer[]; next: number; started: number } | null = null;
  /** The block FinalizeBlock executed, waiting for Commit. */
  private pending: { height: number; started: number; release: () => void } | null = null;
  /** Waiting for the next committed block (the driver's produceNext). */
  private readonly waiters: ((block: ProducedBlock) => void)[] = [];
  /** The bundler, once the node has one (it is built after the application). */
  private userOperations: UserOperationGate | undefined;

  constructor(private readonly opts: CometApplicationOptions) {
    this.log = opts.log.child({ module: 'abci' });
    this.extraData = opts.extraData ?? Buffer.from(CLIENT_NAME, 'utf8');
  }

  /** The ABCI handler: one method per request. */
  readonly handle: AbciHandler = async (kind, request): Promise<AbciResponseValue> => {
    switch (kind) {
      case 'echo':
        return { case: 'echo', value: { message: (request as { message: string }).message } };
      case 'flush':
        return { case: 'flush', value: {} };
      case 'info':
        return { case: 'info', value: this.info() };
      case 'initChain':
        return { case: 'initChain', value: this.initChain(request as Parameters<CometApplication['initChain']>[0]) };
      case 'query':
        return { case: 'query', value: { code: 1, log: 'svc-node answers queries over its JSON-RPC and explorer APIs, not ABCI Query' } };
      case 'checkTx': {
        const verdict = await this.checkTx(request as { tx: Uint8Array; type: CheckTxType });
        if (verdict.code !== CHECK_TX.ok && this.log.isLevelEnabled('debug')) {
          this.log.debug({ code: verdict.code, reason: verdict.log, recheck: (request as { type: CheckTxType }).type === CheckTxType.RECHECK }, 'CheckTx refused');
        }
        return { case: 'checkTx', value: verdict };
      }
      case 'prepareProposal':
        return { case: 'prepareProposal', value: await this.prepareProposal(request as Parameters<CometApplication['prepareProposal']>[0]) };
      case 'processProposal':
        return { case: 'processProposal', value: await this.processProposal(request as Parameters<CometApplication['processProposal']>[0]) };
      case 'finalizeBlock':
        return { case: 'finalizeBlock', value: await this.finalizeBlock(request as Parameters<CometApplication['finalizeBlock']>[0]) };
      case 'commit':
        return { case: 'commit', value: await this.commit() };
      case 'extendVote':
        return { case: 'extendVote', value: { voteExtension: new Uint8Array() } };
      case 'verifyVoteExtension':
        return { case: 'verifyVoteExtension', value: { status: 1 /* ACCEPT */ } };
      case 'listSnapshots':
        return { case: 'listSnapshots', value: { snapshots: (this.opts.snapshots?.list() ?? []).map((e) => ({ ...e, height: BigInt(e.height) })) } };
      case 'offerSnapshot':
        return { case: 'offerSnapshot', value: { result: this.offerSnapshot(request as Parameters<CometApplication['offerSnapshot']>[0]) } };
      case 'loadSnapshotChunk': {
        const req = request as { height: bigint; format: number; chunk: number };
        return { case: 'loadSnapshotChunk', value: { chunk: (await this.opts.snapshots?.loadChunk(Number(req.height), req.format, req.chunk)) ?? new Uint8Array() } };
      }
      case 'applySnapshotChunk':
        return { case: 'applySnapshotChunk', value: await this.applySnapshotChunk(request as Parameters<CometApplication['applySnapshotChunk']>[0]) };
      default:
        throw new AbciAppError(`unknown ABCI request ${String(kind)}`);
    }
  };

  /** Lets gossiped user operations into the bundler's pool and its bundles into this node's proposals. */
  useUserOperations(gate: UserOperationGate): void {
    this.userOperations = gate;
  }

  /** Resolves with the next committed block. */
  nextCommit(): Promise<ProducedBlock> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  // ---- state sync (./snapshots.ts) ----

  /** OfferSnapshot: a snapshot of a known format whose metadata lists its chunks' hashes, into an empty node. */
  private offerSnapshot(req: { snapshot?: { height: bigint; format: number; chunks: number; hash: Uint8Array; metadata: Uint8Array }; appHash: Uint8Array }): ResponseOfferSnapshot_Result {
    const snap = req.snapshot;
    if (!snap) return ResponseOfferSnapshot_Result.REJECT;
    if (snap.format !== SNAPSHOT_FORMAT) return ResponseOfferSnapshot_Result.REJECT_FORMAT;
    const hashes = parseSnapshotMetadata(snap.metadata);
    if (!hashes || hashes.length !== snap.chunks || hashes.length === 0 || !snapshotHash(hashes).equals(Buffer.from(snap.hash)) || req.appHash.length !== 32) {
      this.log.warn({ height: Number(snap.height) }, 'state sync snapshot offered with metadata that does not match its hash; rejected');
      return ResponseOfferSnapshot_Result.REJECT;
    }
    if (this.opts.chain.head().number !== 0) {
      this.log.warn({ head: this.opts.chain.head().number }, 'state sync offered to a node that has blocks; aborted');
      return ResponseOfferSnapshot_Result.ABORT;
    }
    try {
      this.opts.chain.restoreBegin();
    } catch (err) {
      this.log.error({ err }, 'state sync restore cannot start');
      return ResponseOfferSnapshot_Result.ABORT;
    }
    this.restoring = { height: Number(snap.height), appHash: Buffer.from(req.appHash), hashes, next: 0, started: performance.now() };
    this.log.info({ height: Number(snap.height), chunks: hashes.length }, 'state sync: restoring snapshot');
    return ResponseOfferSnapshot_Result.ACCEPT;
  }

  /**
   * ApplySnapshotChunk: each chunk checked against its hash and written; after the last the state
   * is verified against the trusted app hash. The hashing, the writing and the verification run on
   * the native block lane, so the event loop (the other ABCI connections, health, every reader) is
   * not held meanwhile; the snapshot connection's requests are answered one at a time, in order
   * (./abci-server.ts), so the next chunk comes after this one's answer.
   */
  private async applySnapshotChunk(req: { index: number; chunk: Uint8Array; sender: string }) {
    const r = this.restoring;
    if (!r) return { result: ResponseApplySnapshotChunk_Result.ABORT, refetchChunks: [], rejectSenders: [] };
    if (req.index !== r.next || req.index >= r.hashes.length) return { result: ResponseApplySnapshotChunk_Result.RETRY_SNAPSHOT, refetchChunks: [], rejectSenders: [] };
    try {
      if (!(await this.opts.chain.restoreChunk(Buffer.from(req.chunk.buffer, req.chunk.byteOffset, req.chunk.byteLength), r.hashes[req.index]!))) {
        this.log.warn({ index: req.index, sender: req.sender }, 'state sync chunk does not match its hash; fetched again from another peer');
        return { result: ResponseApplySnapshotChunk_Result.RETRY, refetchChunks: [req.index], rejectSenders: req.sender ? [req.sender] : [] };
      }
      r.next += 1;
      if (r.next < r.hashes.length) return { result: ResponseApplySnapshotChunk_Result.ACCEPT, refetchChunks: [], rejectSenders: [] };
      await this.opts.chain.restoreFinish(r.height, r.appHash);
    } catch (err) {
      this.restoring = null;
      this.log.warn({ err, height: r.height }, 'state sync snapshot refused; CometBFT tries another');
      return { result: ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT, refetchChunks: [], rejectSenders: [] };
    }
    this.restoring = null;
    this.opts.app.restored();
    this.opts.metrics.headBlock.set(r.height);
    this.log.info({ height: r.height, ms: Math.round(performance.now() - r.started) }, 'state sync: snapshot restored and verified; state below it is not held');
    return { result: ResponseApplySnapshotChunk_Result.ACCEPT, refetchChunks: [], rejectSenders: [] };
  }

  // ---- Info / InitChain ----

  private info() {
    const head = this.opts.chain.head();
    return {
      data: CLIENT_NAME,
      version: CLIENT_NAME,
      appVersion: APP_VERSION,
      lastBlockHeight: BigInt(head.number),
      // Block 0 is the app's genesis, before CometBFT's first block: InitChain answers with its root.
      lastBlockAppHash: head.number === 0 ? new Uint8Array() : head.stateRoot,
    };
  }

  private initChain(req: { chainId: string; initialHeight: bigint; validators: { pubKey?: { sum: { case?: string; value?: unknown } }; power: bigint }[] }) {
    if (req.chainId !== this.opts.chainId) throw new AbciAppError(`CometBFT's genesis is for chain "${req.chainId}", this node's for "${this.opts.chainId}"`);
    if (req.initialHeight !== 1n) throw new AbciAppError(`initial height ${req.initialHeight}: the app's first block is 1`);
    const set = this.consensusSet();
    if (set.length === 0) throw new AbciAppError('the genesis has no validator with a consensus key: CometBFT needs at least one');
    // CometBFT's genesis.json lists the validators too; they must be the app's (svc-node testnet init writes both).
    if (req.validators.length > 0) {
      const theirs = req.validators.map((v) => `${Buffer.from(v.pubKey?.sum.value as Uint8Array).toString('hex')}:${v.power}`).sort();
      const ours = set.map((m) => `${m.publicKey.toString('hex')}:${m.power}`).sort();
      if (theirs.join() !== ours.join()) {
        throw new AbciAppError(`CometBFT's genesis validators (${theirs.join(', ')}) are not the app genesis's (${ours.join(', ')})`);
      }
    }
    const head = this.opts.chain.head();
    return { validators: set.map(toUpdate), appHash: head.stateRoot };
  }

  // ---- the mempool ----

  private async checkTx(req: { tx: Uint8Array; type: CheckTxType }) {
    let tx;
    try {
      tx = classifyTx(req.tx);
    } catch (err) {
      return { code: CHECK_TX.malformed, log: (err as Error).message };
    }
    const { mempool, app } = this.opts;
    if (req.type === CheckTxType.RECHECK) {
      // After a block: keep what the pool or the module queues still hold.
      if (tx.kind === 'evm') return mempool.get(core.keccak256(tx.raw)) ? { code: CHECK_TX.ok } : { code: CHECK_TX.gone, log: 'no longer in the pool' };
      if (tx.kind === 'message') return app.modules.isMessageQueued(tx.message) ? { code: CHECK_TX.ok } : { code: CHECK_TX.gone, log: 'no longer queued' };
      if (tx.kind === 'userOperation') {
        const kept = (await this.userOperations?.recheckGossiped(tx.operation)) ?? false;
        return kept ? { code: CHECK_TX.ok } : { code: CHECK_TX.gone, log: 'no longer in the user operation pool (bundled, replaced or invalid)' };
      }
      return { code: CHECK_TX.malformed, log: 'extra data is the proposer\'s, not a transaction' };
    }
    if (tx.kind === 'extraData') return { code: CHECK_TX.malformed, log: 'extra data is the proposer\'s, not a transaction' };
    if (tx.kind === 'message') {
      const problem = await app.modules.admitMessage(tx.message, app.chainId);
      return problem === null ? { code: CHECK_TX.ok } : { code: CHECK_TX.rejected, log: problem };
    }
    if (tx.kind === 'userOperation') {
      if (!this.userOperations) return { code: CHECK_TX.rejected, log: 'this node takes no user operations' };
      const problem = await this.userOperations.admitGossiped(tx.operation);
      return problem === null ? { code: CHECK_TX.ok } : { code: CHECK_TX.rejected, log: problem };
    }
    // Already pooled: handed over by this node's RPC (the pool first, then CometBFT), or a copy
    // of a pooled transaction from a peer. Through, so that it is gossiped, without decoding it again.
    if (mempool.get(core.keccak256(tx.raw))) return { code: CHECK_TX.ok };
    try {
      await mempool.submit(tx.raw);
      return { code: CHECK_TX.ok };
    } catch (err) {
      // In the pool already: submitted to this node (the pool first, then CometBFT); CometBFT's own
      // cache keeps a peer from sending it twice. Through, so that it is gossiped.
      if (err instanceof AlreadyKnownError) return { code: CHECK_TX.ok };
      if (err instanceof TxPoolError) return { code: CHECK_TX.rejected, log: err.message };
      // Not journaled: the pool dropped it again, and so does CometBFT's mempool on this node.
      if (err instanceof PoolJournalError) return { code: CHECK_TX.rejected, log: err.message };
      throw err;
    }
  }

  // ---- proposals ----

  private async prepareProposal(req: { maxTxBytes: bigint; height: bigint; time?: Timestamp; proposerAddress: Uint8Array }) {
    const { app, chain } = this.opts;
    const head = chain.head();
    if (Number(req.height) !== head.number + 1) throw new AbciAppError(`PrepareProposal at height ${req.height} on the head ${head.number}`);
    const proposer = this.operatorOf(Buffer.from(req.proposerAddress));
    // CometBFT's req.txs (its mempool, gossiped user operations among them) are not used: the
    // app's pool holds every EVM transaction CheckTx admitted, and user operations reach a block
    // only inside the bundles the proposer's bundler builds on the head state.
    const bundles = ((await this.userOperations?.proposalBundles(proposer)) ?? []).slice(0, chainParams.maxTxsPerBlock);
    if (chain.head().number !== head.number) throw new AbciAppError(`the head moved to ${chain.head().number} while PrepareProposal at height ${req.height} ran`);
    const proposal = app.prepareProposal({
      timestampMs: timestampMs(req.time),
      coinbase: proposer,
      extraData: this.extraData,
      maxTxs: chainParams.maxTxsPerBlock - bundles.length,
      signers: [],
    });
    const txs: Uint8Array[] = [];
    let bytes = 0;
    const limit = Number(req.maxTxBytes);
    // CometBFT counts each transaction with its protobuf framing (a tag byte and the length).
    const fits = (tx: Buffer): boolean => {
      const size = tx.length + 1 + varintLength(tx.length);
      if (bytes + size > limit) return false;
      bytes += size;
      txs.push(tx);
      return true;
    };
    if (proposal.extraData.length > 0) fits(extraDataTx(proposal.extraData));
    for (const m of proposal.messages) if (!fits(messageTx(m))) break;
    // The bundles first (they were simulated on the head state), then the pool's transactions; a
    // suffix may be cut: each sender keeps a prefix of its nonces.
    for (const raw of bundles) if (!fits(raw)) break;
    for (const raw of proposal.txs) if (!fits(raw)) break;
    return { txs };
  }

  private async processProposal(req: BlockRequest) {
    let proposal: Proposal;
    try {
      proposal = this.proposalOf(req);
    } catch (err) {
      this.log.warn({ height: Number(req.height), reason: (err as Error).message }, 'refused a proposal');
      return { status: 2 /* REJECT */ };
    }
    const verdict = await this.opts.app.processProposal(proposal);
    if (!verdict.accept) {
      this.log.warn({ height: proposal.height, reason: verdict.reason }, 'refused a proposal');
      return { status: 2 /* REJECT */ };
    }
    return { status: 1 /* ACCEPT */ };
  }

  // ---- execution ----

  private async finalizeBlock(req: BlockRequest) {
    const { app, staking } = { app: this.opts.app, staking: this.opts.app.queries.staking };
    const started = performance.now();
    const proposal = this.proposalOf(req);
    // A decided block: on a node that did not process it (block sync, a replay) it is checked here.
    const verdict = await app.processProposal(proposal);
    if (!verdict.accept) throw new AbciAppError(`CometBFT decided block ${proposal.height}, which this app refuses: ${verdict.reason}`);
    const setBefore = this.consensusSet();
    const release = app.holdForBlock();
    let produced;
    try {
      produced = await app.finalizeBlock(proposal);
    } catch (err) {
      release();
      throw err;
    }
    this.pending = { height: proposal.height, started, release };
    const validatorUpdates = this.setChanges(setBefore, this.consensusSet(), proposal.height);
    if (validatorUpdates.length > 0) this.log.info({ height: proposal.height, epoch: staking.currentEpoch, updates: validatorUpdates.length }, 'validator set changes');
    // One result per block transaction: what each EVM transaction did is in its receipt (eth_getTransactionReceipt).
    const txResults = req.txs.map(() => ({ code: 0 }));
    return { txResults, validatorUpdates, appHash: produced.head.stateRoot, events: [] };
  }

  /** The node is stopping and CometBFT is gone: a commit under way finishes; a block finalized and never committed is dropped (CometBFT hands it again after a restart). */
  async shutdown(): Promise<void> {
    await this.committing;
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    this.opts.app.discardFinalized(new AbciAppError(`block ${pending.height} was finalized but CometBFT stopped before Commit`));
    pending.release();
  }

  private committing: Promise<unknown> = Promise.resolve();

  private commit() {
    const run = this.commitPending();
    this.committing = run.catch(() => undefined);
    return run;
  }

  private async commitPending() {
    const pending = this.pending;
    if (!pending) throw new AbciAppError('Commit without FinalizeBlock');
    this.pending = null;
    try {
      const { produced } = await this.opts.app.commit();
      const seconds = (performance.now() - pending.started) / 1000;
      this.opts.production.committed();
      announceBlock(produced, seconds, { events: this.opts.events, metrics: this.opts.metrics, log: this.log });
      // Taken from the view pinned now, on a worker thread: the next block does not wait for it.
      this.opts.snapshots?.committed(produced.head.number);
      for (const w of this.waiters.splice(0)) w(produced);
    } finally {
      pending.release();
    }
    // Every block is kept: the node serves the whole chain over JSON-RPC.
    return { retainHeight: 0n };
  }

  // ---- mapping CometBFT's block onto the app's proposal ----

  private proposalOf(req: BlockRequest): Proposal {
    const { extraData, messages, evm } = splitBlockTxs(req.txs);
    for (const m of messages) {
      if (decodeMessage(m).module === 'staking') throw new AbciAppError('a block transaction carries staking evidence, which only the consensus engine gives');
    }
    // Duplicate-vote evidence CometBFT committed with the block, and the decided last commit:
    // messages to the staking module, stored with the block like every other, so a replay applies
    // them too.
    const byAddress = this.operatorsByConsensusAddress();
    for (const m of req.misbehavior) {
      const operator = m.validator ? byAddress.get(Buffer.from(m.validator.address).toString('hex')) : undefined;
      if (!operator) continue;
      messages.push(encodeMessage({ module: 'staking', kind: 'evidence', body: { validator: toAddress(operator), height: Number(m.height) } }));
    }
    messages.push(encodeMessage({ module: 'staking', kind: 'commit', body: { votes: this.commitVotes(req.proposedLastCommit ?? req.decidedLastCommit, byAddress) } }));
    return {
      height: Number(req.height),
      timestampMs: timestampMs(req.time),
      coinbase: this.operatorOf(Buffer.from(req.proposerAddress)),
      extraData,
      // Liveness comes from the commit message; signers are the solo driver's.
      signers: [],
      txs: evm,
      messages,
    };
  }

  /**
   * The decided last commit as the staking module reads it: each listed validator's operator and
   * vote (BlockIDFlag commit, absent or nil), in the commit's order. Block 1's has no votes.
   */
  private commitVotes(commit: CommitInfo | undefined, byAddress: Map<string, Buffer>): CommitVote[] {
    const out: CommitVote[] = [];
    for (const vote of commit?.votes ?? []) {
      if (!vote.validator) continue;
      const operator = byAddress.get(Buffer.from(vote.validator.address).toString('hex'));
      if (!operator) continue;
      const flag = COMMIT_FLAG[vote.blockIdFlag];
      if (!flag) throw new AbciAppError(`a last-commit vote with BlockIDFlag ${vote.blockIdFlag}`);
      out.push({ validator: toAddress(operator), flag });
    }
    return out;
  }

  /** The operator address of the validator whose consensus key has this address. */
  private operatorOf(address: Buffer): Buffer {
    const operator = this.operatorsByConsensusAddress().get(address.toString('hex'));
    if (!operator) throw new AbciAppError(`no validator has the consensus address ${address.toString('hex')}`);
    return operator;
  }

  private operatorsByConsensusAddress(): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (const v of this.opts.app.queries.staking.validators()) {
      if (v.consensusKey) out.set(consensusAddress(hexBytes(v.consensusKey)).toString('hex'), hexBytes(v.operator));
    }
    return out;
  }

  /**
   * The validator set CometBFT runs after the head's block, a function of the staking state: the
   * current epoch's members with a consensus key that are still active (a validator jailed or
   * banned during the epoch has left it), by key, with the epoch's voting power.
   */
  private consensusSet(): SetMember[] {
    const out: SetMember[] = this.opts.app.queries.staking
      .consensusMembers()
      .map(({ validator: v, votingPower }) => ({ publicKey: hexBytes(v.consensusKey!), power: votingPower }));
    return out.sort((a, b) => Buffer.compare(a.publicKey, b.publicKey));
  }

  /**
   * CometBFT's validator updates of a block: from the set before it to the set after it, changed
   * powers and power 0 for those who left (at an epoch's end the new set; within an epoch, a
   * validator jailed or banned by this block leaves at once, as Cosmos removes it at the end of
   * that block). CometBFT applies them from the block after next.
   */
  private setChanges(before: readonly SetMember[], after: readonly SetMember[], height: number): ValidatorUpdate[] {
    const old = new Map(before.map((m) => [m.publicKey.toString('hex'), m.power]));
    const updates: SetMember[] = [];
    for (const m of after) {
      if (old.get(m.publicKey.toString('hex')) !== m.power) updates.push(m);
      old.delete(m.publicKey.toString('hex'));
    }
    for (const key of [...old.keys()].sort()) updates.push({ publicKey: Buffer.from(key, 'hex'), power: 0n });
    if (updates.length > 0 && after.length === 0) {
      // CometBFT cannot run without validators: the old set stays until one can be chosen.
      this.log.error({ height }, 'no validator with a consensus key would be left: the set is left as it was');
      return [];
    }
    return updates.map(toUpdate);
  }
}

type BlockRequest = {
  txs: Uint8Array[];
  misbehavior: Misbehavior[];
  height: bigint;
  time?: Timestamp;
  proposerAddress: Uint8Array;
  proposedLastCommit?: CommitInfo;
  decidedLastCommit?: CommitInfo;
};

function toUpdate(m: SetMember): ValidatorUpdate {
  return create(ValidatorUpdateSchema, { pubKey: { sum: { case: 'ed25519', value: m.publicKey } }, power: m.power });
}

function hexBytes(hex: string): Buffer {
  return Buffer.from(hex.slice(2), 'hex');
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}
