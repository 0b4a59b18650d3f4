// The state machine a consensus driver runs: it builds the next block from the pool, lets the
// system modules decide the transactions addressed to them, runs the block hooks (rewards,
// liveness, epochs), and commits everything — EVM state, module records, supply — in the one
// atomic write of the block.
import { parseTransaction, type Hex } from 'viem';
import type { Logger } from 'pino';
import type { BalanceMove, Chain, ProducedBlock, RejectedTx, SystemTxOutcome } from '../native/index.js';
import { StakingLedger } from '../modules/staking/ledger.js';
import { StakingModule } from '../modules/staking/module.js';
import { epochOfHeight } from '../modules/staking/epoch.js';
import { ComputeModule, type ComputeBlockEvents } from '../modules/compute/module.js';
import { ModuleRegistry } from '../modules/kernel/registry.js';
import { addressBuffer, toAddress, type BlockContext, type BlockInfo, type ModuleCall, type ModuleOutcome } from '../modules/kernel/module.js';
import { compute as defaultComputeParams, system, type ComputeParams, type StakingParams } from '../params.js';
import type { GenesisValidator, NetworkGenesis } from './genesis.js';
import type { Mempool } from './mempool.js';
import type { PooledTx } from './services.js';

/** Total supply after the head's mints and slashes, a kernel record kept in the staking account's storage. */
const SUPPLY_KEY = Buffer.from('app/supply', 'utf8');
const SUPPLY_OWNER = addressBuffer(system.stakingAddress);

export type { ComputeBlockEvents } from '../modules/compute/module.js';

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
  /** Every system module, by address; block hooks run in the registry's order. */
  readonly modules: ModuleRegistry;
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
    const staking = StakingModule.load(chain, params, () => this.genesisLedger());
    const compute = ComputeModule.load(chain, computeParams);
    // Keepers: what each module reads of the other.
    staking.setComputeKeeper({
      computeParts: (validators, epoch) => compute.computeViews(validators, epoch),
      takePenaltiesDue: () => compute.takePenaltiesDue(),
      minersWithRecentProofs: (epoch, now) => compute.minersWithRecentProofs(epoch, now),
    });
    compute.setStakingKeeper({ minersShare: (height) => staking.minersShare(height) });
    this.staking = staking;
    this.compute = compute;
    // Compute opens the block first (spot-check draws, task assignment, the queues it takes), then
    // staking orders the penalties it found; staking's end decides the reward that compute's end pays miners.
    this.modules = new ModuleRegistry([staking, compute], { begin: ['compute', 'staking'], end: ['staking', 'compute'] });
    this.supplyBeforeHeadBurn = readSupply(chain, genesis.supply);
  }

  /** The compute events of the last block made (proofs accepted, spot-checks decided). */
  get lastComputeEvents(): ComputeBlockEvents | undefined {
    return this.compute.lastBlockEvents;
  }

  /** The context a call at `height` runs in. */
  callContext(height: number, now: number): BlockContext {
    return { height, now, epoch: epochOfHeight(height, this.params) };
  }

  /** eth_call / eth_estimateGas of a system module at the head; undefined when `to` is not a module. */
  simulateModule(to: Buffer, call: ModuleCall, ctx: { height: number; now: number }): ModuleOutcome | undefined {
    return this.modules.get(to)?.simulate(call, this.callContext(ctx.height, ctx.now));
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
    const { chain, mempool, modules } = this;
    const parent = chain.head();
    const baseFee = chain.nextBaseFee();
    const height = parent.number + 1;
    const ctx = this.callContext(height, Math.max(t.timestamp, parent.timestamp + 1));
    const picked = mempool.selectForBlock(baseFee, t.maxTxs);
    const { systemTxs, evmTxs } = partition(picked, (to) => modules.isModule(to));
    const supplyAtParent = this.supply();
    const block: BlockInfo = {
      ...ctx,
      epochLengthBlocks: this.params.epochLengthBlocks,
      parentHash: parent.hash,
      proposer: toAddress(t.coinbase),
      signers: t.signers.map(toAddress),
      supplyAtParent,
    };

    const outcomes: SystemTxOutcome[] = [];
    const refused: RejectedTx[] = [];
    const included: PooledTx[] = [];
    const spent = new Map<string, bigint>();
    // Senders with a refused system transaction: their later nonces wait for the next block.
    const stopped = new Set<string>();
    let gasLeft = BigInt(parent.gasLimit);
    try {
      const begin = modules.beginBlock(block);
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
        const outcome = modules.get(p.tx.to)!.execute({ ...call, txHash: p.tx.hash }, ctx);
        const price = effectivePrice(p, baseFee);
        spent.set(key, (spent.get(key) ?? 0n) + outcome.gasUsed * price + (outcome.success ? p.tx.value : 0n));
        gasLeft -= outcome.gasUsed;
        outcomes.push({ index: included.length, success: outcome.success, gasUsed: outcome.gasUsed, logs: outcome.logs, moves: outcome.moves });
        included.push(p);
      }
      for (const p of evmTxs) if (!stopped.has(p.tx.from.toString('hex'))) included.push(p);

      const end = modules.endBlock(block);
      const minted = begin.minted + end.minted;
      const burned = begin.burned + end.burned;
      const supplyAfter = this.supplyBeforeHeadBurn - BigInt(parent.gasUsed) * parent.baseFeePerGas + minted - burned;
      const appWrites = [...modules.takeWrites(), { module: SUPPLY_OWNER, key: SUPPLY_KEY, value: Buffer.from(supplyAfter.toString(), 'utf8') }];
      const blockMoves: BalanceMove[] = [...begin.moves, ...end.moves];

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
      modules.committed();
      const result = { ...produced, rejected: [...produced.rejected, ...refused] };
      mempool.onBlock(result);
      return { produced: result, minted, burned };
    } catch (err) {
      // Nothing was committed: every module forgets what it applied for this block.
      modules.reload(chain);
      modules.takeWrites();
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
