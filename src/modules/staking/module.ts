// The staking system module: transactions addressed to params.system.stakingAddress are decoded
// with the module's ABI (abi/staking.json) and applied to the ledger; the module decides each
// outcome (success or revert, gas, logs, payouts) and the native block builder charges and records
// it like any transaction. Block hooks mint and split the block reward, count liveness and close
// epochs. Its records live in the chain's app column family under "staking/".
import { readFileSync } from 'node:fs';
import { encodeFunctionResult, type Abi, type Hex } from 'viem';
import type { BalanceMove, Chain, ModuleLog, RecordWrite } from '../../native/index.js';
import { system, type StakingParams } from '../../params.js';
import {
  abiEvents,
  addressBuffer,
  decodeModuleCall,
  isOutcome,
  moduleLog,
  noChange,
  reverter,
  type BlockContext,
  type BlockInfo,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import { contributionScores, type ScoreBreakdown } from './score.js';
import { isEpochLastBlock } from './epoch.js';
import { BANNED, doubleSignPenalty, spotCheckPenalty } from './penalties.js';
import type { ModuleMessage } from '../kernel/messages.js';
import { StakingLedger } from './ledger.js';
import { blockRewardFor, inferenceMinersShareBps, splitBlockReward } from './rewards.js';
import type { Address, CommitVote, LedgerEvent, LedgerResult, Payout } from './types.js';

const hexToBuffer = (h: Hex): Buffer => Buffer.from(h.slice(2), 'hex');

/** The module's ABI, shipped as JSON so wallets and explorers can read it too. */
export const STAKING_ABI = JSON.parse(readFileSync(new URL('../../../../abi/staking.json', import.meta.url), 'utf8')) as Abi;

const RECORD_PREFIX = Buffer.from('staking/', 'utf8');

const STAKING: Address = system.stakingAddress;
const TREASURY: Address = system.treasuryAddress;

/** What the end of a block did. */
export interface BlockEnd {
  /** Mints of the validators' and treasury's parts, and burns; the miners' share is left to the compute module. */
  moves: BalanceMove[];
  /** The whole block reward minted (validators, treasury and miners). */
  minted: bigint;
  /** The inference miners' part of `minted` (15% grown with the active miners), not in `moves`. */
  minersShare: bigint;
  /** The share it was computed with, basis points. */
  minersShareBps: number;
  burned: bigint;
  events: LedgerEvent[];
}

const EVENTS = abiEvents(STAKING_ABI);

/** One EVM log for a ledger event (block-level events such as RewardsDistributed have none). */
function logOf(e: LedgerEvent): ModuleLog | undefined {
  const make = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);
  switch (e.type) {
    case 'ValidatorRegistered':
      return make('ValidatorRegistered', { validator: e.validator }, [
        { type: 'string', value: e.moniker },
        { type: 'uint16', value: e.commissionBps },
        { type: 'uint256', value: e.selfStake },
      ]);
    case 'Delegated':
      return make('Delegated', { delegator: e.delegator, validator: e.validator }, [
        { type: 'uint256', value: e.amount },
        { type: 'uint256', value: e.shares },
      ]);
    case 'Undelegated':
      return make('Undelegated', { delegator: e.delegator, validator: e.validator }, [
        { type: 'uint256', value: e.amount },
        { type: 'uint64', value: BigInt(e.completesAt) },
      ]);
    case 'Withdrawn':
      return make('Withdrawn', { delegator: e.delegator, validator: e.validator }, [{ type: 'uint256', value: e.amount }]);
    case 'RewardsClaimed':
      return make('RewardsClaimed', { delegator: e.delegator, validator: e.validator }, [
        { type: 'uint256', value: e.rewards },
        { type: 'uint256', value: e.commission },
      ]);
    case 'CommissionChanged':
      return make('CommissionChanged', { validator: e.validator }, [
        { type: 'uint16', value: e.oldBps },
        { type: 'uint16', value: e.newBps },
      ]);
    case 'Unjailed':
      return make('Unjailed', { validator: e.validator }, []);
    case 'Jailed':
      return make('Jailed', { validator: e.validator }, [
        { type: 'uint64', value: BigInt(e.until) },
        { type: 'string', value: e.reason },
      ]);
    case 'Slashed':
      return make('Slashed', { validator: e.validator }, [
        { type: 'uint16', value: e.fractionBps },
        { type: 'uint256', value: e.tokensBurned + e.unbondingBurned },
        { type: 'string', value: e.reason },
      ]);
    case 'RewardsDistributed':
      return undefined;
  }
}

function payoutMoves(payouts: Payout[]): BalanceMove[] {
  return payouts.filter((p) => p.amount > 0n).map((p) => ({ from: addressBuffer(STAKING), to: addressBuffer(p.to), amount: p.amount }));
}

/** What staking reads of the compute module (its keeper, in Cosmos SDK's words). */
export interface ComputeKeeper {
  /** The compute and accuracy parts (0..10000) of the given validators' scores. */
  computeParts(validators: readonly Address[], epoch: number): Map<Address, { computeBps: number; accuracyBps: number }>;
  /** Failed spot-checks of the previous block: the validator each failed proof came through is slashed and jailed. */
  takePenaltiesDue(): { validator: Address; reason: string; infractionHeight: number }[];
  /** Miners with an accepted proof lately (before this block's proofs): the miners' share of the reward grows with them. */
  minersWithRecentProofs(epoch: number, now: number): number;
}

/** Duplicate-vote evidence against a validator (its operator address) for a block at `height`. */
export interface Evidence {
  validator: Address;
  height: number;
}

/** Evidence a block may carry (CometBFT bounds it by bytes; this bounds the work of one block). */
const MAX_EVIDENCE_PER_BLOCK = 100;
/** Votes a block's last-commit message may list (CometBFT's set is the epoch's active set, far fewer). */
const MAX_COMMIT_VOTES = 10_000;
const COMMIT_FLAGS: readonly string[] = ['commit', 'absent', 'nil'] satisfies CommitVote['flag'][];

export class StakingModule implements SystemModule {
  readonly name = 'staking';
  readonly address: Address = STAKING;
  readonly abi: Abi = STAKING_ABI;
  /** Spot-check penalties ordered for the block being built, applied at its end. */
  private pendingPenalties: { validator: Address; reason: string; infractionHeight: number | undefined }[] = [];
  /** The block's duplicate-vote evidence (system messages from the consensus engine), applied by its endBlock. */
  private evidence: Evidence[] = [];
  /** The block's decided last commit (a system message from the consensus engine), counted by its endBlock; none on the solo chain. */
  private lastCommit: CommitVote[] | undefined;
  /** The inference miners' part of the block reward decided by the last endBlock: the compute module mints and pays it. */
  private minersShareOfBlock: { height: number; amount: bigint } | null = null;
  private compute: ComputeKeeper | undefined;

  private constructor(
    private ledger: StakingLedger,
    readonly params: StakingParams,
    private readonly genesis: () => StakingLedger,
  ) {}

  /** The module as committed at the chain's head; a chain without staking records starts from `genesis`. */
  static load(chain: Chain, params: StakingParams, genesis: () => StakingLedger): StakingModule {
    return new StakingModule(StakingModule.ledgerAt(chain, params, genesis), params, genesis);
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

  /** Wires the compute module's keeper (scores, spot-check penalties, active miners). */
  setComputeKeeper(keeper: ComputeKeeper): void {
    this.compute = keeper;
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

  /**
   * The staking messages a block may carry, which only the consensus engine gives (CometBFT's
   * FinalizeBlock request, turned into messages by the node for every block the same way, so they
   * are stored with the block and a replay applies them too); a proposer cannot put one among its
   * transactions (the CometBFT app refuses it):
   *   evidence  duplicate-vote evidence: { validator, height }
   *   commit    the decided last commit, at most one: { votes: [{ validator, flag }] }, flag
   *             commit, absent or nil (BlockIDFlag), each validator once; liveness counts it
   */
  checkMessages(messages: readonly ModuleMessage[]): string | null {
    const evidence = messages.filter((m) => m.kind === 'evidence');
    if (evidence.length > MAX_EVIDENCE_PER_BLOCK) return `${evidence.length} pieces of evidence, limit ${MAX_EVIDENCE_PER_BLOCK}`;
    if (messages.filter((m) => m.kind === 'commit').length > 1) return 'more than one last commit';
    for (const m of messages) {
      if (m.kind === 'commit') {
        const problem = commitProblem(m.body);
        if (problem !== null) return problem;
        continue;
      }
      if (m.kind !== 'evidence') return `unknown message kind ${m.kind}`;
      const b = m.body as Record<string, unknown>;
      const ok =
        typeof b === 'object' && b !== null && Object.keys(b).sort().join() === 'height,validator' &&
        typeof b.validator === 'string' && /^0x[0-9a-f]{40}$/.test(b.validator) &&
        typeof b.height === 'number' && Number.isSafeInteger(b.height) && b.height >= 0;
      if (!ok) return 'evidence has exactly a lowercase 0x validator and a height';
    }
    return null;
  }

  deliverMessages(messages: readonly ModuleMessage[]): void {
    this.evidence = messages.filter((m) => m.kind === 'evidence').map((m) => m.body as Evidence);
    const commit = messages.find((m) => m.kind === 'commit');
    this.lastCommit = commit ? (commit.body as { votes: CommitVote[] }).votes : undefined;
  }

  /** Start of a block: the previous block's failed spot-checks are ordered as penalties (a wallet without stake has nothing to slash). */
  beginBlock(_block: BlockInfo): HookResult {
    for (const due of this.compute?.takePenaltiesDue() ?? []) {
      if (this.ledger.validator(due.validator)) this.penalizeFailedSpotCheck(due.validator, due.reason, due.infractionHeight);
    }
    return noChange();
  }

  /** End of a block: liveness, the block reward (less the miners' share, minted by compute), epochs. See blockEnd(). */
  endBlock(block: BlockInfo): HookResult {
    const activeMiners = this.compute?.minersWithRecentProofs(block.epoch, block.now) ?? 0;
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

  private run(ledger: StakingLedger, call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    const revert = reverter(call);
    const decoded = decodeModuleCall(this.name, STAKING_ABI, call);
    if (isOutcome(decoded)) return decoded;
    const name = decoded.functionName;
    const required = call.intrinsicGas + BigInt(this.params.gas[name as keyof StakingParams['gas']] ?? 0);
    if (call.gasLimit < required) return revert('out of gas', call.gasLimit);
    const fn = STAKING_ABI.find((f) => f.type === 'function' && f.name === name) as { stateMutability: string } | undefined;
    if (call.value > 0n && fn?.stateMutability !== 'payable') return revert(`staking: ${name} is not payable`, required);

    const result = this.apply(ledger, call, name, decoded.args, ctx);
    if (!result.ok) return revert(`staking: ${result.reason}`, required);
    const logs = result.events.map(logOf).filter((l): l is ModuleLog => l !== undefined);
    return { success: true, gasUsed: required, returnData: result.returnData, logs, moves: payoutMoves(result.payouts) };
  }

  private apply(
    ledger: StakingLedger,
    call: ModuleCall,
    name: string,
    args: readonly unknown[],
    ctx: BlockContext,
  ): (LedgerResult & { returnData: Buffer }) | { ok: false; reason: string } {
    const from = call.from;
    const encode = (result: unknown): Buffer =>
      hexToBuffer(encodeFunctionResult({ abi: STAKING_ABI, functionName: name, result } as never));
    const done = (r: LedgerResult, returnData: Buffer = Buffer.alloc(0)) => (r.ok ? { ...r, returnData } : r);
    const view = (result: unknown) => ({ ok: true as const, events: [], payouts: [], returnData: encode(result) });
    const lower = (a: unknown) => (a as string).toLowerCase() as Address;
    switch (name) {
      case 'registerValidator': {
        // The overload with a bytes32 consensus key registers the validator's Ed25519 key for CometBFT networks.
        const [moniker, commissionBps, maxCommissionBps, maxChangeBpsPerDay, consensusKey] = args as [string, number, number, number, string | undefined];
        const description = { moniker, commissionBps, maxCommissionBps, maxChangeBpsPerDay, ...(consensusKey !== undefined ? { consensusKey: consensusKey.toLowerCase() } : {}) };
        return done(ledger.registerValidator(from, description, call.value, ctx.height, ctx.now));
      }
      case 'delegate':
        return done(ledger.delegate(from, lower(args[0]), call.value, ctx.height));
      case 'undelegate': {
        const r = ledger.undelegate(from, lower(args[0]), args[1] as bigint, ctx.height, ctx.now);
        return r.ok ? { ...r, returnData: encode(BigInt(r.completesAt)) } : r;
      }
      case 'withdraw': {
        const r = ledger.withdraw(from, ctx.now);
        return r.ok ? { ...r, returnData: encode(r.amount) } : r;
      }
      case 'claimRewards': {
        const r = ledger.claimRewards(from, lower(args[0]));
        return r.ok ? { ...r, returnData: encode([r.rewards, r.commission]) } : r;
      }
      case 'editCommission':
        return done(ledger.editCommission(from, args[0] as number, ctx.now));
      case 'unjail':
        return done(ledger.unjail(from, ctx.now));
      case 'getValidator': {
        const v = ledger.validator(lower(args[0]));
        if (!v) return { ok: false, reason: 'validator not found' };
        return view([v.moniker, v.tokens, v.selfStake, v.commissionBps, v.status, BigInt(v.jailedUntil)]);
      }
      case 'getDelegation': {
        const d = ledger.delegation(lower(args[0]), lower(args[1]));
        return view(d ? [d.amount, d.shares, d.pendingRewards] : [0n, 0n, 0n]);
      }
      case 'getStakeInfo': {
        const s = ledger.stakeInfo(lower(args[0]));
        return view([s.stakedAmount, s.unstakingAmount, BigInt(s.unstakingCompletesAt), s.pendingRewards]);
      }
      default:
        return { ok: false, reason: `unknown function ${name}` };
    }
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
    return contributionScores(validators, this.params, this.compute?.computeParts(validators.map((v) => v.address), this.ledger.currentEpoch));
  }

  /**
   * End of a block: count liveness (the block's last commit when it carries one, else `signers` signed; the proposer proposed), mint the block reward
   * (times the stake-ratio multiplier) and split it: the treasury's share, the inference miners'
   * share (grown with `activeMiners`, the compute module's count; returned as minersShare: the compute
   * module mints and pays it), and the validators' share by contribution score, commission first,
   * then delegators pro rata. Closes the epoch on its last block.
   */
  blockEnd(ctx: BlockContext, proposer: Address, signers: readonly Address[], supply: bigint, activeMiners = 0): BlockEnd {
    const events: LedgerEvent[] = [];
    let burned = 0n;
    for (const e of this.evidence.splice(0)) {
      const v = this.ledger.validator(e.validator);
      // A validator banned already has paid for its key's infractions (Cosmos: tombstoned once).
      if (!v || v.jailedUntil === BANNED) continue;
      const order = doubleSignPenalty(this.params, Math.min(e.height, ctx.height));
      const r = this.ledger.slash(e.validator, order.fractionBps, order.infractionHeight, order.jailUntil, order.reason, ctx.height);
      if (!r.ok) throw new Error(`double-sign penalty of ${e.validator} refused: ${r.reason}`);
      events.push(...r.events);
      burned += r.burned;
    }
    for (const p of this.pendingPenalties.splice(0)) {
      const order = spotCheckPenalty(this.params, p.infractionHeight ?? ctx.height, ctx.now);
      const r = this.ledger.slash(p.validator, order.fractionBps, order.infractionHeight, order.jailUntil, p.reason, ctx.height);
      if (!r.ok) throw new Error(`penalty of ${p.validator} refused: ${r.reason}`);
      events.push(...r.events);
      burned += r.burned;
    }
    if (this.ledger.validator(proposer)) {
      const record = this.ledger.recordBlock(ctx.height, proposer, signers, ctx.now, this.lastCommit);
      events.push(...record.events);
      burned += record.burned;
    }

    const minted = blockRewardFor(this.ledger.totals().totalStaked, supply, this.params);
    const minersShareBps = inferenceMinersShareBps(activeMiners, this.params);
    const split = splitBlockReward(minted, this.params, minersShareBps);
    const shares = this.validatorShares(split.validators);
    let distributed = 0n;
    if (shares.size > 0) {
      const r = this.ledger.distribute(shares);
      if (!r.ok) throw new Error(`reward distribution refused: ${r.reason}`);
      events.push(...r.events);
      distributed = r.total;
    }
    const moves: BalanceMove[] = [];
    if (distributed > 0n) moves.push({ to: addressBuffer(STAKING), amount: distributed });
    // The miners' share is minted by the compute module, which pays it by FLOPs.
    const toTreasury = minted - distributed - split.inferenceMiners;
    if (toTreasury > 0n) moves.push({ to: addressBuffer(TREASURY), amount: toTreasury });
    if (burned > 0n) moves.push({ from: addressBuffer(STAKING), amount: burned });

    if (isEpochLastBlock(ctx.height, this.params)) {
      // The next epoch's set: stake times contribution score decides who is in; power follows stake.
      const scores = this.scores();
      this.ledger.endEpoch(this.ledger.currentEpoch, ctx.height, (v) => v.tokens * BigInt(scores.get(v.operator)?.totalBps ?? 0));
    }
    return { moves, minted, minersShare: split.inferenceMiners, minersShareBps, burned, events };
  }

  /** The validators' part of a reward split by contribution score among the active set; the rounding remainder goes to the best score. */
  private validatorShares(total: bigint): Map<Address, bigint> {
    const scores = this.scores();
    const active = this.ledger.validators().filter((v) => v.status === 'active');
    const weights = active.map((v) => ({ address: v.address, weight: BigInt(scores.get(v.address)?.totalBps ?? 0) }));
    const sum = weights.reduce((a, w) => a + w.weight, 0n);
    const out = new Map<Address, bigint>();
    if (total === 0n || sum === 0n) return out;
    let given = 0n;
    for (const w of weights) {
      const amount = (total * w.weight) / sum;
      out.set(w.address, amount);
      given += amount;
    }
    const best = [...weights].sort((a, b) => (a.weight !== b.weight ? (a.weight > b.weight ? -1 : 1) : a.address < b.address ? -1 : 1))[0]!;
    out.set(best.address, (out.get(best.address) ?? 0n) + (total - given));
    return out;
  }
}

/** Why a last-commit message's body is not { votes: [{ validator, flag }] } with each validator once; null when it is. */
function commitProblem(body: unknown): string | null {
  const b = body as Record<string, unknown>;
  if (typeof b !== 'object' || b === null || Object.keys(b).join() !== 'votes' || !Array.isArray(b.votes)) return 'a last commit has exactly a list of votes';
  if (b.votes.length > MAX_COMMIT_VOTES) return `a last commit of ${b.votes.length} votes, limit ${MAX_COMMIT_VOTES}`;
  const seen = new Set<string>();
  for (const v of b.votes as unknown[]) {
    const vote = v as Record<string, unknown>;
    const ok =
      typeof vote === 'object' && vote !== null && Object.keys(vote).sort().join() === 'flag,validator' &&
      typeof vote.validator === 'string' && /^0x[0-9a-f]{40}$/.test(vote.validator) &&
      typeof vote.flag === 'string' && COMMIT_FLAGS.includes(vote.flag);
    if (!ok) return 'a last commit\'s vote has exactly a lowercase 0x validator and a flag (commit, absent or nil)';
    if (seen.has(vote.validator as string)) return `a last commit lists ${vote.validator as string} twice`;
    seen.add(vote.validator as string);
  }
  return null;
}
