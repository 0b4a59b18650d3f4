// The staking system module: transactions addressed to params.system.stakingAddress are decoded
// with the module's ABI (abi/staking.json) and decided on the ledger (messages.ts) through the
// kernel's one call path; the native block builder charges and records each outcome like any
// transaction. Block hooks (hooks.ts) mint and split the block reward, count liveness and close
// epochs. Its records live in the chain's app column family under "staking/".
import type { Abi } from 'viem';
import type { Chain, RecordWrite } from '../../native/index.js';
import { system, type StakingParams } from '../../params.js';
import {
  addressBuffer,
  gasCost,
  noChange,
  runDecided,
  type BlockContext,
  type BlockInfo,
  type EpochPosition,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import { contributionScores, type ScoreBreakdown } from './score.js';
import { epochOfHeight, epochStartHeight } from './epoch.js';
import type { ModuleMessage } from '../kernel/messages.js';
import { StakingLedger } from './ledger.js';
import { closeBlock, type BlockEnd, type OrderedPenalty } from './hooks.js';
import { checkStakingMessages, decideStakingCall, deliveredStakingMessages, STAKING_ABI, type Evidence } from './messages.js';
import type { Address, CommitVote } from './types.js';
import type { StakingKeepers } from './keepers.js';

export { STAKING_ABI, type Evidence } from './messages.js';
export type { BlockEnd } from './hooks.js';

const RECORD_PREFIX = Buffer.from('staking/', 'utf8');

const STAKING: Address = system.stakingAddress;

export class StakingModule implements SystemModule {
  readonly name = 'staking';
  readonly address: Address = STAKING;
  readonly abi: Abi = STAKING_ABI;
  /** Spot-check penalties ordered for the block being built, applied at its end. */
  private pendingPenalties: OrderedPenalty[] = [];
  /** The block's duplicate-vote evidence (system messages from the consensus engine), applied by its endBlock. */
  private evidence: Evidence[] = [];
  /** The block's decided last commit (a system message from the consensus engine), counted by its endBlock; none on the solo chain. */
  private lastCommit: CommitVote[] | undefined;
  /** The inference miners' part of the block reward decided by the last endBlock: the compute module mints and pays it. */
  private minersShareOfBlock: { height: number; amount: bigint } | null = null;

  private constructor(
    private ledger: StakingLedger,
    readonly params: StakingParams,
    private readonly genesis: () => StakingLedger,
    private readonly keepers: StakingKeepers,
  ) {}

  /** The module as committed at the chain's head; a chain without staking records starts from `genesis`. */
  static load(chain: Chain, params: StakingParams, genesis: () => StakingLedger, keepers: StakingKeepers): StakingModule {
    return new StakingModule(StakingModule.ledgerAt(chain, params, genesis), params, genesis, keepers);
  }

  private static ledgerAt(chain: Chain, params: StakingParams, genesis: () => StakingLedger): StakingLedger {
    const entries = chain.getAppEntries(RECORD_PREFIX);
    if (entries.length === 0) {
      if (chain.head().number !== 0) throw new Error('the chain has blocks but no staking records: the data dir is not an svc chain of this version');
      return genesis();
    }
    return StakingLedger.restore(params, StakingModule.unprefixed(entries));
  }

  /** Throws away what was applied since the last commit (a block that failed to commit). */
  reload(chain: Chain): void {
    this.ledger = StakingModule.ledgerAt(chain, this.params, this.genesis);
    // Orders of a failed block are ordered again from the state the block is retried on.
    this.pendingPenalties = [];
    this.evidence = [];
    this.lastCommit = undefined;
    this.minersShareOfBlock = null;
  }

  /** Where a block at `height` stands in the chain's epochs (staking keeps them; they may change length: see epoch.ts). */
  epochOf(height: number): EpochPosition {
    const epoch = epochOfHeight(height, this.params);
    return { epoch, lengthBlocks: this.params.epochLengthBlocks, isStart: epochStartHeight(epoch, this.params) === height };
  }

  /** The consensus key (0x + 64 hex) of a validator's record; undefined for none or no such validator. */
  consensusKeyOf(address: Address): string | undefined {
    return this.ledger.validator(address)?.consensusKey;
  }

  /** The miners' share decided by this block's endBlock (zero before it ran). */
  minersShare(height: number): bigint {
    return this.minersShareOfBlock?.height === height ? this.minersShareOfBlock.amount : 0n;
  }

  committed(): void {
    this.minersShareOfBlock = null;
    this.evidence = [];
    this.lastCommit = undefined;
  }

  /** The staking messages a block may carry (evidence, the last commit): see messages.ts. */
  checkMessages(messages: readonly ModuleMessage[]): string | null {
    return checkStakingMessages(messages);
  }

  deliverMessages(messages: readonly ModuleMessage[]): void {
    ({ evidence: this.evidence, lastCommit: this.lastCommit } = deliveredStakingMessages(messages));
  }

  /** Start of a block: the previous block's failed spot-checks are ordered as penalties (a wallet without stake has nothing to slash). */
  beginBlock(_block: BlockInfo): HookResult {
    for (const due of this.keepers.compute().takePenaltiesDue()) {
      if (this.ledger.validator(due.validator)) this.penalizeFailedSpotCheck(due.validator, due.reason, due.infractionHeight);
    }
    return noChange();
  }

  /** End of a block: liveness, the block reward (less the miners' share, minted by compute), epochs. See blockEnd(). */
  endBlock(block: BlockInfo): HookResult {
    const activeMiners = this.keepers.compute().minersWithRecentProofs(block.epoch, block.now);
    const end = this.blockEnd(block, block.proposer, block.signers, block.supplyAtParent, activeMiners);
    this.minersShareOfBlock = { height: block.height, amount: end.minersShare };
    return { moves: end.moves, minted: end.minted - end.minersShare, burned: end.burned };
  }

  private static unprefixed(entries: { key: Buffer; value: Buffer }[]): { key: Buffer; value: Buffer }[] {
    return entries.map((e) => ({ key: e.key.subarray(RECORD_PREFIX.length), value: e.value }));
  }

  /** The ledger, for queries. */
  get state(): StakingLedger {
    return this.ledger;
  }

  /** Records changed since the last call, as the block's writes under the module's prefix (no value: deleted). */
  takeWrites(): RecordWrite[] {
    const module = addressBuffer(STAKING);
    return this.ledger.dirtyRecords().map((r) => {
      const key = Buffer.concat([RECORD_PREFIX, r.key]);
      return r.value === null ? { module, key } : { module, key, value: r.value };
    });
  }

  /** Applies a transaction addressed to the module. */
  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return this.run(this.ledger, tx, ctx);
  }

  /** eth_call / eth_estimateGas: the same call on a copy of the ledger, which is then dropped. */
  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return this.run(StakingLedger.restore(this.params, this.ledger.records()), call, ctx);
  }

  /** The kernel's call path; the call is decided on `ledger` (the module's, or a copy when simulated). */
  private run(ledger: StakingLedger, call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return runDecided(this.name, STAKING_ABI, call, true, gasCost(this.params.gas), (name, args) => decideStakingCall(ledger, call, name, args, ctx));
  }

  /**
   * Orders the spot-check penalty (params: 5% of stake burned, 6 hours in jail) for a validator;
   * the next endBlock applies it through the ledger's one slashing mechanism and burns the stake.
   * `infractionHeight` (default: that block) is the failed proof's block: unbonding started at or
   * after it is slashed too.
   */
  penalizeFailedSpotCheck(validator: Address, reason: string, infractionHeight?: number): void {
    if (!this.ledger.validator(validator)) throw new Error(`validator ${validator} not found`);
    this.pendingPenalties.push({ validator, reason, infractionHeight });
  }

  /** Contribution scores of the active validators (and the others, for queries), by address. */
  scores(): Map<Address, ScoreBreakdown> {
    const validators = this.ledger.validators();
    return contributionScores(validators, this.params, this.keepers.compute().computeViews(validators.map((v) => v.address), this.ledger.currentEpoch));
  }

  /** End of a block: see hooks.ts closeBlock(); the block's evidence and ordered penalties are taken. */
  blockEnd(ctx: BlockContext, proposer: Address, signers: readonly Address[], supply: bigint, activeMiners = 0): BlockEnd {
    const orders = { evidence: this.evidence.splice(0), penalties: this.pendingPenalties.splice(0), lastCommit: this.lastCommit };
    return closeBlock(this.ledger, this.params, ctx, proposer, signers, supply, activeMiners, orders, () => this.scores());
  }
}
