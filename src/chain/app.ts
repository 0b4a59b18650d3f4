// The state machine a consensus driver runs: it builds the next block from the pool, lets the
// system modules decide the transactions addressed to them, runs the block hooks (rewards,
// liveness, epochs), and commits everything — EVM state, module records, supply — in the one
// atomic write of the block.
import type { Logger } from 'pino';
import {
  core,
  type AccountEdit,
  type BalanceMove,
  type Chain,
  type DecodedTx,
  type HeadInfo,
  type ProduceBlockRequest,
  type ProducedBlock,
  type RecordWrite,
  type RejectedTx,
  type SystemTxOutcome,
} from '../native/index.js';
import type { StakingLedger } from '../modules/staking/ledger.js';
import { StakingModule } from '../modules/staking/module.js';
import { genesisLedger } from '../modules/staking/genesis.js';
import { GovernanceModule } from '../modules/governance/module.js';
import { LiveParams } from '../modules/governance/live-params.js';
import { BridgeModule } from '../modules/bridge/module.js';
import { bridgeGenesis, type BridgeGenesis } from '../modules/bridge/genesis.js';
import { RentModule, rentSchedule } from '../modules/rent/module.js';
import { ComputeModule, type ComputeBlockEvents } from '../modules/compute/module.js';
import { moduleQueries, type ModuleQueries } from './queries.js';
import { ModuleRegistry } from '../modules/kernel/registry.js';
import { messagesRecord, readSupply, supplyRecord } from '../modules/kernel/own-records.js';
import { addressBuffer, toAddress, type BlockContext, type BlockInfo, type BlockRules, type HookResult, type ModuleCall, type ModuleOutcome } from '../modules/kernel/module.js';
import {
  chain as chainParams,
  compute as defaultComputeParams,
  governance as defaultGovernanceParams,
  rent as defaultRentParams,
  type ComputeParams,
  type GovernanceParams,
  type RentParams,
  type StakingParams,
} from '../params.js';
import { ENTRY_POINTS, SIMPLE_ACCOUNT_FACTORY_V06, SIMPLE_ACCOUNT_FACTORY_V07 } from './account-abstraction.js';
import type { GenesisStakingParams, GenesisValidator, NetworkGenesis } from './genesis.js';
import type { Mempool } from './mempool.js';
import type { PooledTx } from './pool.js';
import { impersonatedRaw, isDevnetGenesis, splitMessages, type DevMessage, type SplitMessages } from './devnet-messages.js';

export type { ComputeBlockEvents } from '../modules/compute/module.js';

/** What a driver asks for: the next block's time, producer and signers. */
export interface BlockTemplate {
  /** Proposer's clock, milliseconds; raised to the parent's time + 1 ms when not after it (as the native builder does). */
  timestampMs: number;
  coinbase: Buffer;
  extraData: Buffer;
  maxTxs: number;
  /** Validators whose signatures the block carries (solo: the proposer alone). */
  signers: Buffer[];
  /** Dev messages the block carries after the modules' (devnet development methods, src/chain/devnet-messages.ts). */
  devMessages?: Buffer[];
}

/** A block proposal: the header fields its proposer chose and its transactions, in order. */
export interface Proposal {
  height: number;
  /**
   * The block's time in milliseconds, after the parent's. The header keeps its seconds as
   * `timestamp` (non-decreasing: blocks shorter than a second share a second) and the milliseconds
   * in `mixHash` (svc-primitives header_time_ms).
   */
  timestampMs: number;
  coinbase: Buffer;
  extraData: Buffer;
  /** Validators whose signatures the block carries (solo: the proposer alone). */
  signers: Buffer[];
  /** Raw signed transactions (EIP-2718 encodings). */
  txs: Buffer[];
  /** System messages for the modules (src/modules/kernel/messages.ts), in block order. */
  messages: Buffer[];
}

export type ProposalVerdict = { accept: true } | { accept: false; reason: string };

/** A block executed and sealed but not yet written: what commit() needs besides the native side's copy. */
interface Finalized {
  hash: Buffer;
  refused: RejectedTx[];
  supplyAfter: bigint;
  minted: bigint;
  burned: bigint;
  queuedMs: number;
}

/** A block's transactions as finalizeBlock admits them: the system ones' outcomes, the refused, the included in order, and the senders that send nothing more in it. */
interface BlockTxs {
  outcomes: SystemTxOutcome[];
  refused: RejectedTx[];
  included: PooledTx[];
  stopped: Set<string>;
}

/** What a block's dev messages do (devEdits). */
interface DevEdits {
  moves: BalanceMove[];
  edits: AccountEdit[];
  txs: PooledTx[];
  minted: bigint;
  burned: bigint;
}

export interface BuiltBlock {
  produced: ProducedBlock;
  minted: bigint;
  burned: bigint;
}

/** What a node starts its app from. */
export interface AppGenesis {
  validators: readonly GenesisValidator[];
  /** Genesis block timestamp: the validators' registration time. */
  timestamp: number;
  /** Sum of the genesis allocation's balances. */
  supply: bigint;
  /** The chain id, which signed messages commit to. */
  chainId: number;
  /** The genesis block's gas limit (default params.chain.blockGasLimit); governance may change it. */
  gasLimit?: number;
  /** The bridge's external chain and the set its contract was deployed with; none: the bridge is inactive. */
  bridge?: BridgeGenesis;
  /** Staking rules the genesis sets over the node's (the liveness window and threshold). */
  staking?: GenesisStakingParams;
  /** Whether the chain takes dev messages: its genesis block is the devnet's (isDevnetGenesis). */
  devnet?: boolean;
}

/** The app's genesis facts from a network genesis. */
export function appGenesis(genesis: NetworkGenesis): AppGenesis {
  return {
    validators: genesis.validators,
    timestamp: genesis.spec.timestamp,
    supply: genesis.spec.alloc.reduce((sum, a) => sum + a.balance, 0n),
    chainId: genesis.spec.chainId,
    gasLimit: Number(genesis.spec.gasLimit),
    ...(genesis.bridge ? { bridge: bridgeGenesis(genesis.bridge, genesis.validators, genesis.spec.chainId) } : {}),
    ...(genesis.staking ? { staking: genesis.staking } : {}),
    devnet: isDevnetGenesis(genesis.spec.extraData),
  };
}

export class ChainApp {
  readonly staking: StakingModule;
  readonly compute: ComputeModule;
  readonly governance: GovernanceModule;
  readonly bridge: BridgeModule;
  readonly rent: RentModule;
  /** The parameters every rule reads, as governance left them at the head. */
  readonly live: LiveParams;
  /** Every system module, by address; block hooks run in the registry's order. */
  readonly modules: ModuleRegistry;
  /** Each module's read views: what serving code reads of the modules (src/chain/queries.ts). */
  readonly queries: ModuleQueries;
  /** Supply after the head's mints and slashes, before its base-fee burn (see supply()). */
  private supplyBeforeHeadBurn: bigint;
  /** The messages of this node's last proposal. */
  private proposedMessages = new Set<Buffer>();
  /** Transactions of the proposals being processed, decoded, by their raw bytes (latin1): a proposal may arrive again in new buffers (ABCI's FinalizeBlock after ProcessProposal). */
  private readonly decoded = new Map<string, DecodedTx>();
  /** The block finalizeBlock sealed, waiting for commit(). */
  private finalized: Finalized | null = null;

  /** The block being executed and committed, if any (see settled()). */
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly chain: Chain,
    private readonly mempool: Mempool,
    stakingParams: StakingParams,
    private readonly genesis: AppGenesis,
    private readonly log: Logger,
    computeParams: ComputeParams = defaultComputeParams,
    governanceParams: GovernanceParams = defaultGovernanceParams,
    rentParams: RentParams = defaultRentParams,
  ) {
    this.live = new LiveParams({
      // The genesis's own staking rules (the liveness window and threshold) over the node's.
      staking: { ...stakingParams, ...genesis.staking },
      compute: computeParams,
      governance: governanceParams,
      chain: { blockGasLimit: genesis.gasLimit ?? chainParams.blockGasLimit },
      rent: rentParams,
    });
    // Governance first: it sets the live parameters to the head's before the other modules read them
    // (its keepers read staking and compute, built after it, only when called).
    const governance = new GovernanceModule(chain, this.live, {
      stake: {
        bonded: () => staking.state.validators().filter((v) => v.status === 'active').map((v) => ({ address: v.address, tokens: v.tokens, totalShares: v.totalShares })),
        delegationsOf: (voter) => staking.state.delegationsOf(voter).map((d) => ({ validator: d.validator, shares: d.shares })),
      },
      models: () => compute,
    });
    // Keepers: what each module reads of another, given to its constructor (compute, built after
    // staking, reaches staking through a lazy accessor).
    const staking = StakingModule.load(chain, this.live.staking, () => this.genesisLedger(), { compute: () => compute });
    const compute = ComputeModule.load(chain, this.live.compute, { staking });
    const bridge = new BridgeModule(chain, genesis.bridge ?? null, genesis.chainId, {
      stake: { bonded: () => staking.state.validators().filter((v) => v.status === 'active').map((v) => ({ address: v.address, tokens: v.tokens })) },
    });
    // Exempt from rent: the system modules (the module adds them) and the contracts dApps and this node rely on.
    const rent = new RentModule(
      chain,
      {
        balanceAt: (address, height) => chain.getAccount(addressBuffer(address), height).balance,
        slotCount: (address) => chain.storageSlotCount(addressBuffer(address)),
        slotChanges: (height) => chain.blockSlotChanges(height).map((c) => ({ address: toAddress(c.address), count: c.count })),
        activeCode: (height) => chain.blockActiveCode(height).map(toAddress),
      },
      this.live.rent,
      [chainParams.multicall3Address, ...ENTRY_POINTS, SIMPLE_ACCOUNT_FACTORY_V06, SIMPLE_ACCOUNT_FACTORY_V07],
      rentSchedule(rentParams),
    );
    this.staking = staking;
    this.compute = compute;
    this.governance = governance;
    this.bridge = bridge;
    this.rent = rent;
    this.queries = moduleQueries(chain, { staking, compute, governance, bridge, rent });
    // What a module's rules refuse outright (rent: a dormant account neither sends nor is called): refused at admission as in the block.
    mempool.setChainRule((tx) => this.modules.refusal(tx.from, tx.to));
    // Governance opens the block (parameter changes due from its epoch apply before any rule reads
    // them); compute then opens it (spot-check draws, task assignment, the queues it takes), then
    // staking orders the penalties it found; staking's end decides the reward that compute's end pays
    // miners; the bridge decides what the block attested by the stake staking left; governance ends
    // the block (tallies, execution, treasury spends from what the block paid in). Rent opens the
    // block after governance (its parameters) and before any other: the deposits it moves come
    // first, and dormancy decided at an epoch start holds for the whole block.
    this.modules = new ModuleRegistry([staking, compute, governance, bridge, rent], {
      begin: ['governance', 'rent', 'compute', 'staking', 'bridge'],
      end: ['staking', 'compute', 'bridge', 'rent', 'governance'],
    });
    this.supplyBeforeHeadBurn = readSupply(chain, genesis.supply);
  }

  /** The compute events of the last block made (proofs accepted, spot-checks decided). */
  get lastComputeEvents(): ComputeBlockEvents | undefined {
    return this.compute.lastBlockEvents;
  }

  /** The context of a block at `height` whose time is `timeMs` milliseconds. */
  callContext(height: number, timeMs: number): BlockContext {
    return { height, now: Math.floor(timeMs / 1000), nowMs: timeMs, epoch: this.modules.epochOf(height).epoch };
  }

  /** eth_call / eth_estimateGas of a system module at the head; undefined when `to` is not a module. */
  simulateModule(to: Buffer, call: ModuleCall, ctx: { height: number; timeMs: number }): ModuleOutcome | undefined {
    return this.modules.get(to)?.simulate(call, this.callContext(ctx.height, ctx.timeMs));
  }

  private genesisLedger(): StakingLedger {
    return genesisLedger(this.live.staking, this.genesis.validators, this.genesis.timestamp);
  }

  /** Total supply at the head: genesis + minted - burned base fees - slashed. */
  supply(): bigint {
    const head = this.chain.head();
    return this.supplyBeforeHeadBurn - BigInt(head.gasUsed) * head.baseFeePerGas;
  }

  /**
   * Resolves when no block is being executed and committed. The modules change their memory while
   * a block is built, before its write reaches the database; readers of module state (svc_*
   * methods, eth_call to a module, the explorer) wait here so they see committed state only.
   * Reads made synchronously after it resolves see the head's state.
   */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /**
   * Marks a block in flight for a driver whose steps arrive apart (ABCI's FinalizeBlock, then
   * Commit): settled() waits until the returned function is called.
   */
  holdForBlock(): () => void {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.inFlight = done;
    return () => {
      if (this.inFlight === done) this.inFlight = null;
      release();
    };
  }

  /**
   * Builds, executes and commits the next block: the four steps a consensus engine calls
   * (CometBFT's ABCI 2.0: PrepareProposal, ProcessProposal, FinalizeBlock, Commit), in order.
   */
  async produceBlock(t: BlockTemplate): Promise<BuiltBlock> {
    const run = (async () => {
      const proposal = this.prepareProposal(t);
      const verdict = await this.processProposal(proposal);
      if (!verdict.accept) {
        const err = new Error(`the node refused its own proposal at height ${proposal.height}: ${verdict.reason}`);
        this.abandon(err);
        throw err;
      }
      // One job on the block lane executes and writes the block: its answer crosses the event loop
      // once, where FinalizeBlock then Commit (ABCI's two steps) would wait for it twice.
      const committed = await this.finalizeBlock(proposal, { commit: true });
      const finalized = this.finalized;
      this.finalized = null;
      if (!finalized) throw new Error('a block committed without its finalized record');
      try {
        return this.committed(finalized, committed);
      } catch (err) {
        this.abandon(err);
        throw err;
      }
    })();
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight = done;
    try {
      return await run;
    } finally {
      if (this.inFlight === done) this.inFlight = null;
    }
  }

  /**
   * PrepareProposal: the next block's transactions from the pool (by effective tip, each sender's
   * nonces in order), module transactions first, and the header fields the proposer chooses.
   */
  prepareProposal(t: BlockTemplate): Proposal {
    const parent = this.chain.head();
    const picked = this.mempool.selectForBlock(this.chain.nextBaseFee(), t.maxTxs);
    const { systemTxs, evmTxs } = partition(picked, (to) => this.modules.isModule(to));
    const ordered = [...systemTxs, ...evmTxs];
    for (const p of ordered) this.decoded.set(p.raw.toString('latin1'), p.tx);
    return {
      height: parent.number + 1,
      // The header rules are the native block builder's (crates/svc-evm block.rs), asked through the addon.
      timestampMs: core.blockTimeMs(t.timestampMs, parent.timestampMs),
      coinbase: t.coinbase,
      // The modules' announcements (the compute mode) ride in the header's extra data.
      extraData: this.modules.proposerExtraData(t.extraData),
      signers: t.signers,
      txs: ordered.map((p) => p.raw),
      messages: [...this.ownMessages(this.modules.proposeMessages()), ...(t.devMessages ?? [])],
    };
  }

  /**
   * ProcessProposal: whether a proposal can be a block on the head: its height and time follow the
   * parent, its header fields fit, and every transaction decodes with a valid signature. What
   * depends on execution (nonces, balances, module outcomes) is decided by finalizeBlock, the same
   * way on every node.
   */
  async processProposal(p: Proposal): Promise<ProposalVerdict> {
    const parent = this.chain.head();
    if (p.height !== parent.number + 1) return { accept: false, reason: `height ${p.height} does not follow the head ${parent.number}` };
    if (!Number.isSafeInteger(p.timestampMs) || p.timestampMs < 0) return { accept: false, reason: `time ${p.timestampMs} ms is not a block time` };
    // The header rules (time after the parent's, extra data size) are the native builder's, one copy (crates/svc-evm block.rs).
    const header = core.headerProblem(parent.timestampMs, p.timestampMs, p.extraData.length);
    if (header !== null) return { accept: false, reason: header };
    if (p.coinbase.length !== 20) return { accept: false, reason: 'the coinbase is not 20 bytes' };
    if (p.txs.length > chainParams.maxTxsPerBlock) return { accept: false, reason: `${p.txs.length} transactions, limit ${chainParams.maxTxsPerBlock}` };
    const split = this.splitMessages(p.messages);
    if (typeof split === 'string') return { accept: false, reason: `messages: ${split}` };
    const messages = this.modules.checkMessages(split.modules);
    if (messages !== null) return { accept: false, reason: `messages: ${messages}` };
    // Messages this node proposed were verified when they were queued; another proposer's are verified here.
    const foreign = split.modules.filter((m) => !this.proposedMessages.has(m));
    if (foreign.length > 0) {
      const unsigned = await this.modules.verifyMessages(foreign, this.genesis.chainId);
      if (unsigned !== null) return { accept: false, reason: `messages: ${unsigned}` };
    }
    // Another proposer's transactions: those this node's pool holds were decoded (signature and
    // sender) when they were admitted, from the same bytes; the rest are decoded here.
    const unknown: Buffer[] = [];
    for (const raw of p.txs) {
      const key = raw.toString('latin1');
      if (this.decoded.has(key)) continue;
      const pooled = this.mempool.get(core.keccak256(raw));
      if (pooled && pooled.raw.equals(raw)) this.decoded.set(key, pooled.tx);
      else unknown.push(raw);
    }
    if (unknown.length > 0) {
      const outcomes = await this.chain.decodeTransactions(unknown);
      for (const [i, o] of outcomes.entries()) {
        if (!o.tx) return { accept: false, reason: `transaction ${i} of the proposal's undecoded ones does not decode: ${o.error ?? 'unknown error'}` };
        this.decoded.set(unknown[i]!.toString('latin1'), o.tx);
      }
    }
    return { accept: true };
  }

  /**
   * FinalizeBlock: executes an accepted proposal on the head: the module hooks, the module
   * transactions (decided by their module), the EVM transactions (natively), and seals the block;
   * resolves with its hash and state root. Nothing is written until commit().
   */
  async finalizeBlock(p: Proposal, options: { commit?: boolean } = {}): Promise<ProducedBlock> {
    const parent = this.chain.head();
    if (p.height !== parent.number + 1) throw new Error(`finalizeBlock of height ${p.height} on the head ${parent.number}`);
    const baseFee = this.chain.nextBaseFee();
    const ctx = this.callContext(p.height, p.timestampMs);
    const { systemTxs, evmTxs } = partition(this.proposalTxs(p), (to) => this.modules.isModule(to));
    const block = this.blockInfo(p, parent, ctx);
    try {
      const split = this.deliverMessages(p.messages);
      const begin = this.modules.beginBlock(block);
      const { preMoved, dev } = this.openingMoves(begin, split.dev, parent.number);
      const txs = this.executeSystemTxs(systemTxs, { parentHeight: parent.number, baseFee, ctx, preMoved });
      this.admitEvmTxs([...dev.txs, ...evmTxs], txs);
      // What the modules' rules ask of the native executor (calls made inside contracts into dormant accounts revert).
      const { dormancy } = this.modules.blockRules();
      const end = this.modules.endBlock(block);
      const minted = begin.minted + end.minted + dev.minted;
      const burned = begin.burned + end.burned + dev.burned;
      const supplyAfter = this.supplyBeforeHeadBurn - BigInt(parent.gasUsed) * parent.baseFeePerGas + minted - burned;
      const request = this.blockRequest(p, { txs, begin, end, dev, dormancy, appWrites: this.blockRecords(p.messages, supplyAfter) });
      const produced = options.commit ? await this.chain.produceBlock(request) : await this.chain.finalizeBlock(request);
      this.finalized = { hash: produced.head.hash, refused: txs.refused, supplyAfter, minted, burned, queuedMs: produced.timings.queuedMs };
      return produced;
    } catch (err) {
      this.abandon(err);
      throw err;
    }
  }

  /** What the native builder executes and seals: the proposal's header fields, the admitted transactions, the system outcomes, moves, records and rules. */
  private blockRequest(
    p: Proposal,
    b: { txs: BlockTxs; begin: HookResult; end: HookResult; dev: DevEdits; dormancy: BlockRules['dormancy']; appWrites: RecordWrite[] },
  ): ProduceBlockRequest {
    return {
      timestampMs: p.timestampMs,
      coinbase: p.coinbase,
      extraData: p.extraData,
      // The gas limit as governance left it when the block opened (governance's beginBlock applies changes due).
      gasLimit: this.live.chain.blockGasLimit,
      txs: b.txs.included.map((tx) => tx.raw),
      senders: b.txs.included.map((tx) => tx.tx.from),
      appWrites: b.appWrites,
      system: b.txs.outcomes,
      preMoves: [...(b.begin.preMoves ?? []), ...b.dev.moves],
      blockMoves: [...b.begin.moves, ...b.end.moves],
      messages: p.messages,
      ...(b.dormancy ? { dormancy: b.dormancy } : {}),
      ...(b.dev.edits.length > 0 ? { accountEdits: b.dev.edits } : {}),
    };
  }

  /** The proposal's transactions, as processProposal decoded them. */
  private proposalTxs(p: Proposal): PooledTx[] {
    return p.txs.map((raw): PooledTx => {
      const tx = this.decoded.get(raw.toString('latin1'));
      if (!tx) throw new Error('finalizeBlock of a proposal that was not processed: a transaction is not decoded');
      return { raw, tx, receivedAt: 0 };
    });
  }

  /** What the block hooks are told of the block: its context, its place in the epoch, its proposer and signers, the supply at its parent. */
  private blockInfo(p: Proposal, parent: HeadInfo, ctx: BlockContext): BlockInfo {
    const supplyAtParent = this.supply();
    const epoch = this.modules.epochOf(p.height);
    return {
      ...ctx,
      epochLengthBlocks: epoch.lengthBlocks,
      isEpochStart: epoch.isStart,
      parentHash: parent.hash,
      proposer: toAddress(p.coinbase),
      signers: p.signers.map(toAddress),
      supplyAtParent,
      extraData: p.extraData,
    };
  }

  /** Splits the block's messages and gives the modules theirs; the dev messages are returned (none unless the chain is a devnet). */
  private deliverMessages(messages: readonly Buffer[]): SplitMessages {
    const split = this.splitMessages(messages);
    if (typeof split === 'string') throw new Error(`finalizeBlock of a proposal whose messages are refused: ${split}`);
    this.modules.deliverMessages(split.modules);
    return split;
  }

  /**
   * The moves before the block's first transaction: beginBlock's (storage deposits), then the
   * block's development edits (devnet); with the balance change each leaves an account, by address.
   */
  private openingMoves(begin: HookResult, devMessages: readonly DevMessage[], parentHeight: number): { preMoved: Map<string, bigint>; dev: DevEdits } {
    const preMoved = new Map<string, bigint>();
    const addMoves = (moves: readonly BalanceMove[]): void => {
      for (const m of moves) {
        if (m.from) preMoved.set(m.from.toString('hex'), (preMoved.get(m.from.toString('hex')) ?? 0n) - m.amount);
        if (m.to) preMoved.set(m.to.toString('hex'), (preMoved.get(m.to.toString('hex')) ?? 0n) + m.amount);
      }
    };
    addMoves(begin.preMoves ?? []);
    const dev = this.devEdits(devMessages, parentHeight, preMoved);
    addMoves(dev.moves);
    return { preMoved, dev };
  }

  /**
   * The block's transactions to system modules, in order, each decided by its module after the
   * native builder's own checks; a sender with a refused or deferred one sends nothing more in the
   * block (its later nonces wait for the next).
   */
  private executeSystemTxs(
    systemTxs: readonly PooledTx[],
    at: { parentHeight: number; baseFee: bigint; ctx: BlockContext; preMoved: ReadonlyMap<string, bigint> },
  ): BlockTxs {
    const { chain, modules } = this;
    const txs: BlockTxs = { outcomes: [], refused: [], included: [], stopped: new Set() };
    // Each system sender's account as this block has it so far.
    const accounts = new Map<string, { nonce: bigint; balance: bigint; code?: Buffer }>();
    let gasUsed = 0n;
    for (const tx of systemTxs) {
      const key = tx.tx.from.toString('hex');
      if (txs.stopped.has(key)) continue;
      const dormant = modules.refusal(tx.tx.from, null);
      if (dormant !== null) {
        txs.refused.push({ hash: tx.tx.hash, reason: dormant });
        txs.stopped.add(key);
        continue;
      }
      if (tx.tx.type === SET_CODE_TX_TYPE) {
        // A module decides its calls without the EVM, so it cannot apply EIP-7702 delegations.
        txs.refused.push({ hash: tx.tx.hash, reason: 'EIP-7702 transaction to a system module not supported' });
        txs.stopped.add(key);
        continue;
      }
      let account = accounts.get(key);
      if (!account) {
        const { nonce, balance } = chain.getAccount(tx.tx.from, at.parentHeight);
        const code = chain.getCode(tx.tx.from, at.parentHeight);
        account = { nonce, balance: balance + (at.preMoved.get(key) ?? 0n), ...(code.length > 0 ? { code } : {}) };
        accounts.set(key, account);
      }
      // The native builder's own checks (core/precheck), run before the module decides the call.
      const check = core.precheckTransaction(tx.raw, tx.tx.from, {
        chainId: this.genesis.chainId,
        gasLimit: this.live.chain.blockGasLimit,
        gasUsed: Number(gasUsed),
        baseFeePerGas: at.baseFee,
        ...account,
      });
      if (check.verdict !== 'include') {
        if (check.verdict === 'reject') txs.refused.push({ hash: tx.tx.hash, reason: check.reason ?? 'invalid transaction' });
        txs.stopped.add(key);
        continue;
      }
      const call: ModuleCall = { from: toAddress(tx.tx.from), value: tx.tx.value, data: tx.tx.data, gasLimit: tx.tx.gasLimit, intrinsicGas: tx.tx.intrinsicGas };
      const module = modules.get(tx.tx.to)!;
      const outcome = module.execute({ ...call, txHash: tx.tx.hash }, at.ctx);
      if (outcome.success) modules.observeMoves(module.name, outcome.moves);
      account.nonce += 1n;
      account.balance -= outcome.gasUsed * check.effectiveGasPrice + (outcome.success ? tx.tx.value : 0n);
      gasUsed += outcome.gasUsed;
      txs.outcomes.push({ index: txs.included.length, success: outcome.success, gasUsed: outcome.gasUsed, logs: outcome.logs, moves: outcome.moves });
      txs.included.push(tx);
    }
    return txs;
  }

  /** The block's EVM transactions (the dev ones first), which the native builder runs: those whose sender is neither stopped nor refused by a module's rule join `txs`. */
  private admitEvmTxs(evmTxs: readonly PooledTx[], txs: BlockTxs): void {
    for (const tx of evmTxs) {
      const key = tx.tx.from.toString('hex');
      if (txs.stopped.has(key)) continue;
      const dormant = this.modules.refusal(tx.tx.from, tx.tx.to);
      if (dormant !== null) {
        txs.refused.push({ hash: tx.tx.hash, reason: dormant });
        txs.stopped.add(key);
        continue;
      }
      txs.included.push(tx);
    }
  }

  /** The block's record writes: every module's, then the kernel's own (the supply after the block, the messages digest). */
  private blockRecords(messages: readonly Buffer[], supplyAfter: bigint): RecordWrite[] {
    return [...this.modules.takeWrites(), supplyRecord(supplyAfter), ...messagesRecord(this.chain, messages)];
  }

  /** Commit: writes the finalized block in one batch; the modules and the pool move to it. */
  async commit(): Promise<BuiltBlock> {
    const finalized = this.finalized;
    if (!finalized) throw new Error('commit without a finalized block');
    this.finalized = null;
    try {
      const committed = await this.chain.commitBlock(finalized.hash);
      return this.committed(finalized, { ...committed, timings: { ...committed.timings, queuedMs: finalized.queuedMs + committed.timings.queuedMs } });
    } catch (err) {
      this.abandon(err);
      throw err;
    }
  }

  /** The modules and the pool move to the block just written (`committed`, the finalized block's). */
  private committed(finalized: Finalized, committed: ProducedBlock): BuiltBlock {
    const produced: ProducedBlock = { ...committed, rejected: [...committed.rejected, ...finalized.refused] };
    this.supplyBeforeHeadBurn = finalized.supplyAfter;
    this.modules.committed();
    this.decoded.clear();
    this.mempool.onBlock(produced);
    return { produced, minted: finalized.minted, burned: finalized.burned };
  }

  /** A block's messages split into dev messages (refused unless the chain is a devnet) and the modules'. */
  private splitMessages(messages: readonly Buffer[]): SplitMessages | string {
    return splitMessages(messages, this.genesis.devnet === true, (address) => this.modules.isModule(address));
  }

  /**
   * What a block's dev messages do, in order: balances set by minting or burning the difference
   * (so the supply follows), nonce, code and storage edits for the native builder, and impersonated
   * transactions run as their sender's (the native builder runs a transaction as the sender it is
   * given; these carry a marker signature, src/chain/devnet-messages.ts).
   */
  private devEdits(messages: readonly DevMessage[], parentHeight: number, preMoved: ReadonlyMap<string, bigint>): DevEdits {
    const moves: BalanceMove[] = [];
    const edits: AccountEdit[] = [];
    const txs: PooledTx[] = [];
    let minted = 0n;
    let burned = 0n;
    const balances = new Map<string, bigint>();
    for (const m of messages) {
      if (m.kind === 'transaction') {
        const t = m.body;
        const raw = impersonatedRaw(t, this.genesis.chainId);
        const from = addressBuffer(t.from);
        const data = Buffer.from(t.data.slice(2), 'hex');
        const tx: DecodedTx = {
          hash: core.keccak256(raw),
          from,
          to: t.to === null ? null : addressBuffer(t.to),
          type: 2,
          chainId: this.genesis.chainId,
          nonce: t.nonce,
          gasLimit: t.gas,
          maxFeePerGas: t.maxFeePerGas,
          maxPriorityFeePerGas: t.maxPriorityFeePerGas,
          value: t.value,
          data,
          intrinsicGas: 0n,
          size: raw.length,
          senderNonce: 0n,
          senderBalance: 0n,
        };
        txs.push({ raw, tx, receivedAt: 0 });
        continue;
      }
      const address = addressBuffer(m.body.address);
      if (m.kind === 'setBalance') {
        const key = address.toString('hex');
        const current = balances.get(key) ?? this.chain.getAccount(address, parentHeight).balance + (preMoved.get(key) ?? 0n);
        const target = m.body.balance;
        if (target > current) {
          moves.push({ to: address, amount: target - current });
          minted += target - current;
        } else if (target < current) {
          moves.push({ from: address, amount: current - target });
          burned += current - target;
        }
        balances.set(key, target);
      } else if (m.kind === 'setNonce') edits.push({ address, nonce: m.body.nonce });
      else if (m.kind === 'setCode') edits.push({ address, code: Buffer.from(m.body.code.slice(2), 'hex') });
      else edits.push({ address, storage: [{ slot: Buffer.from(m.body.slot.slice(2), 'hex'), value: Buffer.from(m.body.value.slice(2), 'hex') }] });
    }
    return { moves, edits, txs, minted, burned };
  }

  /** Remembers the messages of this node's own proposal (by their buffers), which processProposal need not verify again. */
  private ownMessages(messages: Buffer[]): Buffer[] {
    this.proposedMessages = new Set(messages);
    return messages;
  }

  /** Drops a block finalizeBlock executed and commit() never took (its consensus engine stopped in between). */
  discardFinalized(reason: unknown): void {
    if (this.finalized) this.abandon(reason);
  }

  /** The chain id that signed messages commit to. */
  get chainId(): number {
    return this.genesis.chainId;
  }

  /** After a state sync restore replaced the head: every module's state, the live parameters and the supply are read again from it. */
  restored(): void {
    this.finalized = null;
    this.decoded.clear();
    this.modules.reload(this.chain);
    this.modules.takeWrites();
    this.supplyBeforeHeadBurn = readSupply(this.chain, this.genesis.supply);
  }

  /** A block that will not be written: every module forgets what it applied for it. */
  private abandon(err: unknown): void {
    this.finalized = null;
    this.decoded.clear();
    this.chain.discardFinalized();
    this.modules.reload(this.chain);
    this.modules.takeWrites();
    // The driver logs the stall once; a retried block (a full disk) must not log every attempt.
    this.log.debug({ err }, 'block production failed; module state reloaded from the last commit');
  }
}

/** EIP-7702 set-code transactions. */
const SET_CODE_TX_TYPE = 4;

/**
 * Transactions to system modules (staking, compute) run before the EVM ones. A sender's system transaction joins the
 * block only if none of its earlier transactions in the block is an EVM one; the rest of that
 * sender's transactions then wait for the next block so nonces stay in order.
 */
function partition(picked: PooledTx[], isModule: (to: Buffer | null) => boolean): { systemTxs: PooledTx[]; evmTxs: PooledTx[] } {
  const systemTxs: PooledTx[] = [];
  const evmTxs: PooledTx[] = [];
  const hasEvm = new Set<string>();
  const waiting = new Set<string>();
  for (const p of picked) {
    const key = p.tx.from.toString('hex');
    if (waiting.has(key)) continue;
    if (isModule(p.tx.to)) {
      if (hasEvm.has(key)) {
        waiting.add(key);
        continue;
      }
      systemTxs.push(p);
    } else {
      hasEvm.add(key);
      evmTxs.push(p);
    }
  }
  return { systemTxs, evmTxs };
}

