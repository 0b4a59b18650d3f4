// The state machine a consensus driver runs: it builds the next block from the pool, lets the
// system modules decide the transactions addressed to them, runs the block hooks (rewards,
// liveness, epochs), and commits everything — EVM state, module records, supply — in the one
// atomic write of the block.
import { parseTransaction, type Hex } from 'viem';
import type { Logger } from 'pino';
import type { BalanceMove, Chain, ProducedBlock, RejectedTx, SystemTxOutcome } from '../native/index.js';
import { StakingLedger } from '../modules/staking/ledger.js';
import { StakingModule, toAddress, type BlockContext, type ModuleCall, type ModuleOutcome } from '../modules/staking/module.js';
import { epochOfHeight } from '../modules/staking/epoch.js';
import { ComputeModule, type ComputeBlockContext, type TakenQueues } from '../modules/compute/module.js';
import type { ProofRecord } from '../modules/compute/types.js';
import { compute as defaultComputeParams, system, type ComputeParams, type StakingParams } from '../params.js';
import type { GenesisValidator, NetworkGenesis } from './genesis.js';
import type { Mempool } from './mempool.js';
import type { PooledTx } from './services.js';

const SUPPLY_KEY = Buffer.from('app/supply', 'utf8');
const STAKING = Buffer.from(system.stakingAddress.slice(2), 'hex');
const COMPUTE = Buffer.from(system.computeAddress.slice(2), 'hex');

/** Whether a transaction or call goes to a system module (decided in TypeScript, not the EVM). */
export function isSystemModule(to: Buffer | null | undefined): boolean {
  return to !== null && to !== undefined && (to.equals(STAKING) || to.equals(COMPUTE));
}

/** What a driver asks for: the next block's time, producer and signers. */
export interface BlockTemplate {
  /** Proposer's clock, seconds; raised to parent + 1 when not after the parent (as the native builder does). */
  timestamp: number;
  coinbase: Buffer;
  extraData: Buffer;
  maxTxs: number;
  /** Validators whose signatures the block carries (solo: the proposer alone). */
  signers: Buffer[];
}

export interface BuiltBlock {
  produced: ProducedBlock;
  minted: bigint;
  burned: bigint;
}

/** What the compute module did in a block, for subscribers. */
export interface ComputeBlockEvents {
  height: number;
  accepted: ProofRecord[];
  decided: ProofRecord[];
}

/** The staking ledger of a genesis: its validators registered at height 0 and active from epoch 0. */
export function genesisLedger(params: StakingParams, validators: readonly GenesisValidator[], timestamp: number): StakingLedger {
  const ledger = new StakingLedger(params);
  for (const v of validators) {
    const r = ledger.registerValidator(
      toAddress(v.operator),
      { moniker: v.moniker, commissionBps: v.commissionBps, maxCommissionBps: v.maxCommissionBps, maxChangeBpsPerDay: v.maxChangeBpsPerDay },
      v.selfStake,
      0,
      timestamp,
    );
    if (!r.ok) throw new Error(`genesis validator ${toAddress(v.operator)}: ${r.reason}`);
  }
  ledger.startEpoch(0, 0);
  return ledger;
}

/** Total supply from a stored record: decimal string. */
function readSupply(chain: Chain, genesisSupply: bigint): bigint {
  const value = chain.getAppValue(SUPPLY_KEY);
  return value === null ? genesisSupply : BigInt(value.toString('utf8'));
}

/** What a node starts its app from. */
export interface AppGenesis {
  validators: readonly GenesisValidator[];
  /** Genesis block timestamp: the validators' registration time. */
  timestamp: number;
  /** Sum of the genesis allocation's balances. */
  supply: bigint;
}

/** The app's genesis facts from a network genesis. */
export function appGenesis(genesis: NetworkGenesis): AppGenesis {
  return {
    validators: genesis.validators,
    timestamp: genesis.spec.timestamp,
    supply: genesis.spec.alloc.reduce((sum, a) => sum + a.balance, 0n),
  };
}

export class ChainApp {
  readonly staking: StakingModule;
  readonly compute: ComputeModule;
  /** The compute events of the last block made (proofs accepted, spot-checks decided). */
  lastComputeEvents: ComputeBlockEvents | undefined;
  /** Supply after the head's mints and slashes, before its base-fee burn (see supply()). */
  private supplyBeforeHeadBurn: bigint;

  /** The block being executed and committed, if any (see settled()). */
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly chain: Chain,
    private readonly mempool: Mempool,
    private readonly params: StakingParams,
    private readonly genesis: AppGenesis,
    private readonly log: Logger,
    readonly computeParams: ComputeParams = defaultComputeParams,
  ) {
    this.staking = StakingModule.load(chain, params, () => this.genesisLedger());
    this.compute = ComputeModule.load(chain, computeParams);
    this.staking.setComputeParts((validators) => this.compute.computeViews(validators, this.staking.state.currentEpoch));
    this.supplyBeforeHeadBurn = readSupply(chain, genesis.supply);
  }

  /** eth_call / eth_estimateGas of a system module at the head. */
  simulateModule(to: Buffer, call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    if (to.equals(COMPUTE)) return this.compute.simulate(call, { ...ctx, epoch: epochOfHeight(ctx.height, this.params) });
    return this.staking.simulate(call, ctx);
  }

  private genesisLedger(): StakingLedger {
    return genesisLedger(this.params, this.genesis.validators, this.genesis.timestamp);
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

  /** Builds, executes and commits the next block. */
  async produceBlock(t: BlockTemplate): Promise<BuiltBlock> {
    // build() changes the modules synchronously up to its first await: nothing reads in between.
    const run = this.build(t);
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

  private async build(t: BlockTemplate): Promise<BuiltBlock> {
    const { chain, mempool } = this;
    const parent = chain.head();
    const baseFee = chain.nextBaseFee();
    const ctx: BlockContext = { height: parent.number + 1, now: Math.max(t.timestamp, parent.timestamp + 1) };
    const picked = mempool.selectForBlock(baseFee, t.maxTxs);
    const { systemTxs, evmTxs } = partition(picked);
    const supplyAtParent = this.supply();

    const cctx: ComputeBlockContext = {
      height: ctx.height,
      now: ctx.now,
      epoch: epochOfHeight(ctx.height, this.params),
      epochLengthBlocks: this.params.epochLengthBlocks,
      parentHash: parent.hash,
    };
    let queues: TakenQueues | undefined;

    const outcomes: SystemTxOutcome[] = [];
    const refused: RejectedTx[] = [];
    const included: PooledTx[] = [];
    const spent = new Map<string, bigint>();
    // Senders with a refused system transaction: their later nonces wait for the next block.
    const stopped = new Set<string>();
    let gasLeft = BigInt(parent.gasLimit);
    try {
      const beginMoves = this.compute.beginBlock(cctx);
      queues = this.compute.takeQueues();
      // The previous block's failed spot-checks: the validator each proof came through is slashed 5% and jailed (a wallet without stake has nothing to slash).
      for (const due of this.compute.takePenaltiesDue()) {
        if (this.staking.state.validator(due.validator)) this.staking.penalizeFailedSpotCheck(due.validator, due.reason, due.infractionHeight);
      }
      for (const p of systemTxs) {
        const key = p.tx.from.toString('hex');
        if (stopped.has(key)) continue;
        const balance = chain.getAccount(p.tx.from, parent.number).balance - (spent.get(key) ?? 0n);
        const problem = precheck(p, balance, baseFee, gasLeft);
        if (problem !== null) {
          refused.push({ hash: p.tx.hash, reason: problem });
          stopped.add(key);
          continue;
        }
        const data = Buffer.from((parseTransaction(`0x${p.raw.toString('hex')}` as Hex).data ?? '0x').slice(2), 'hex');
        const call: ModuleCall = { from: toAddress(p.tx.from), value: p.tx.value, data, gasLimit: p.tx.gasLimit, intrinsicGas: p.tx.intrinsicGas };
        const outcome = p.tx.to!.equals(COMPUTE) ? this.compute.execute({ ...call, txHash: p.tx.hash }, cctx) : this.staking.execute(call, ctx);
        const price = effectivePrice(p, baseFee);
        spent.set(key, (spent.get(key) ?? 0n) + outcome.gasUsed * price + (outcome.success ? p.tx.value : 0n));
        gasLeft -= outcome.gasUsed;
        outcomes.push({ index: included.length, success: outcome.success, gasUsed: outcome.gasUsed, logs: outcome.logs, moves: outcome.moves });
        included.push(p);
      }
      for (const p of evmTxs) if (!stopped.has(p.tx.from.toString('hex'))) included.push(p);

      const proposer = toAddress(t.coinbase);
      // The miners' share grows with the miners that had a proof accepted lately (counted before this block's proofs).
      const activeMiners = this.compute.minersWithRecentProofs(cctx.epoch, ctx.now);
      const end = this.staking.endBlock(ctx, proposer, t.signers.map(toAddress), supplyAtParent, activeMiners);
      const cend = this.compute.endBlock(cctx, queues, end.minersShare, proposer);
      const supplyAfter = this.supplyBeforeHeadBurn - BigInt(parent.gasUsed) * parent.baseFeePerGas + end.minted - end.burned;
      const appWrites = [
        ...this.staking.takeWrites(),
        ...this.compute.takeWrites(),
        { key: SUPPLY_KEY, value: Buffer.from(supplyAfter.toString(), 'utf8') },
      ];
      const blockMoves: BalanceMove[] = [...beginMoves, ...end.moves, ...cend.moves];

      const produced = await chain.produceBlock({
        timestamp: ctx.now,
        coinbase: t.coinbase,
        extraData: t.extraData,
        gasLimit: parent.gasLimit,
        txs: included.map((p) => p.raw),
        senders: included.map((p) => p.tx.from),
        appWrites,
        system: outcomes,
        blockMoves,
      });
      this.supplyBeforeHeadBurn = supplyAfter;
      this.compute.committed();
      this.lastComputeEvents = { height: produced.head.number, accepted: cend.accepted, decided: cend.decided };
      const result = { ...produced, rejected: [...produced.rejected, ...refused] };
      mempool.onBlock(result);
      return { produced: result, minted: end.minted, burned: end.burned };
    } catch (err) {
      // Nothing was committed: the module forgets what it applied for this block.
      this.staking.reload(chain, () => this.genesisLedger());
      this.staking.takeWrites();
      this.compute.reload(chain);
      if (queues) this.compute.restoreQueues(queues);
      // The driver logs the stall once; a retried block (a full disk) must not log every attempt.
      this.log.debug({ err }, 'block production failed; module state reloaded from the last commit');
      throw err;
    }
  }
}

/**
 * Transactions to system modules (staking, compute) run before the EVM ones. A sender's system transaction joins the
 * block only if none of its earlier transactions in the block is an EVM one; the rest of that
 * sender's transactions then wait for the next block so nonces stay in order.
 */
function partition(picked: PooledTx[]): { systemTxs: PooledTx[]; evmTxs: PooledTx[] } {
  const systemTxs: PooledTx[] = [];
  const evmTxs: PooledTx[] = [];
  const hasEvm = new Set<string>();
  const waiting = new Set<string>();
  for (const p of picked) {
    const key = p.tx.from.toString('hex');
    if (waiting.has(key)) continue;
    if (isSystemModule(p.tx.to)) {
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

function effectivePrice(p: PooledTx, baseFee: bigint): bigint {
  const tip = p.tx.maxPriorityFeePerGas < p.tx.maxFeePerGas - baseFee ? p.tx.maxPriorityFeePerGas : p.tx.maxFeePerGas - baseFee;
  return baseFee + tip;
}

/** The native builder's checks of a transaction against the state, for a system transaction decided before the block runs. */
function precheck(p: PooledTx, balance: bigint, baseFee: bigint, gasLeft: bigint): string | null {
  const from = `0x${p.tx.from.toString('hex')}`;
  if (p.tx.gasLimit > gasLeft) return 'exceeds block gas limit';
  if (p.tx.maxFeePerGas < baseFee) {
    return `max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${p.tx.maxFeePerGas}, baseFee: ${baseFee}`;
  }
  const want = p.tx.gasLimit * p.tx.maxFeePerGas + p.tx.value;
  if (balance < want) return `insufficient funds for gas * price + value: address ${from} have ${balance} want ${want}`;
  return null;
}
