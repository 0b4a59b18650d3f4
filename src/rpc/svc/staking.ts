// svc_* methods of the staking module: validators, validator sets by epoch, stake, delegations and
// contribution scores. Shapes: the spec's tables; the fields it leaves open follow Cosmos SDK's
// x/staking responses in camelCase (docs/rpc.md).
import { checksumAddress } from '../../chain/address.js';
import type { ScoreBreakdown } from '../../modules/staking/queries.js';
import { toAddress } from '../../modules/kernel/module.js';
import type { Address, ValidatorView } from '../../modules/staking/types.js';
import { NotFoundError } from '../errors.js';
import { toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable, type RpcContext } from '../method.js';
import { parseAddress, parseUint64 } from '../validate.js';

/** Basis points as the percentage numbers the spec shows (87.5 for 8750). */
const percent = (bps: number): number => bps / 100;

const checksum = (a: Address): string => checksumAddress(Buffer.from(a.slice(2), 'hex'));

function breakdown(s: ScoreBreakdown | undefined): Record<string, number> {
  return {
    staking: percent(s?.staking ?? 0),
    compute: percent(s?.compute ?? 0),
    uptime: percent(s?.uptime ?? 0),
    accuracy: percent(s?.accuracy ?? 0),
    network: percent(s?.network ?? 0),
  };
}

function validatorOrThrow(ctx: RpcContext, address: Buffer): ValidatorView {
  const v = ctx.services.queries.staking.validator(toAddress(address));
  if (!v) throw new NotFoundError(`validator ${checksumAddress(address)} not found`);
  return v;
}

function summary(v: ValidatorView, score: ScoreBreakdown | undefined): Record<string, unknown> {
  return {
    address: checksum(v.address),
    totalStake: toQuantity(v.tokens),
    contributionScore: percent(score?.totalBps ?? 0),
    commission: percent(v.commissionBps),
    status: v.status,
    uptime: percent(v.uptimeBps),
    moniker: v.moniker,
  };
}

/** The spec's inference data of a validator (computeMode, providesCompute, hashrate, inferenceScore, tasksCompleted). */
function computeFields(ctx: RpcContext, addresses: readonly Address[]): Map<Address, Record<string, unknown>> {
  const { queries } = ctx.services;
  const views = queries.compute.computeViews(addresses, queries.staking.currentEpoch);
  return new Map(
    [...views].map(([a, c]) => [
      a,
      {
        computeMode: c.computeMode,
        providesCompute: c.providesCompute,
        hashrate: c.hashrate.toString(),
        inferenceScore: c.inferenceScore.toString(),
        tasksCompleted: c.tasksCompleted.toString(),
      },
    ]),
  );
}

export const stakingMethods: MethodTable = {
  svc_getValidators: method([], (ctx) => {
    const validators = ctx.services.queries.staking.scoredValidators();
    const compute = computeFields(ctx, validators.map(({ validator: v }) => v.address));
    return validators.map(({ validator: v, score }) => ({ ...summary(v, score), ...compute.get(v.address) }));
  }),

  svc_getValidator: method([required(parseAddress)], (ctx, [address]) => {
    const v = validatorOrThrow(ctx, address);
    const score = ctx.services.queries.staking.scores().get(v.address);
    return {
      ...summary(v, score),
      ...computeFields(ctx, [v.address]).get(v.address),
      operatorAddress: checksum(v.operator),
      selfStake: toQuantity(v.selfStake),
      delegatedStake: toQuantity(v.delegatedStake),
      delegatorCount: v.delegatorCount,
      scoreBreakdown: breakdown(score),
      blocksProduced: toQuantity(v.blocksProduced),
      blocksMissed: toQuantity(v.blocksMissed),
      totalRewards: toQuantity(v.totalRewards),
      registeredAt: toQuantity(v.registeredAt),
      lastActiveAt: toQuantity(v.lastActiveAt),
      maxCommission: percent(v.maxCommissionBps),
      maxCommissionChangePerDay: percent(v.maxChangeBpsPerDay),
      jailedUntil: toQuantity(v.jailedUntil),
      votingPower: toQuantity(v.votingPower),
      accumulatedCommission: toQuantity(v.commission),
      // The Ed25519 key it signs CometBFT votes with (null when registered without one).
      consensusKey: v.consensusKey ?? null,
    };
  }),

  svc_getValidatorSet: method([optional(parseUint64)], (ctx, [epoch]) => {
    const staking = ctx.services.queries.staking;
    const n = epoch === undefined ? staking.currentEpoch : Number(epoch > BigInt(Number.MAX_SAFE_INTEGER) ? -1n : epoch);
    const set = n < 0 ? undefined : staking.validatorSet(n);
    if (!set) throw new NotFoundError(`epoch ${epoch ?? n} has no validator set (current epoch ${staking.currentEpoch})`);
    return {
      epoch: toQuantity(set.epoch),
      startBlock: toQuantity(set.startHeight),
      totalVotingPower: toQuantity(set.validators.reduce((s, m) => s + m.votingPower, 0n)),
      validators: set.validators.map((m) => ({ address: checksum(m.address), votingPower: toQuantity(m.votingPower), tokens: toQuantity(m.tokens) })),
    };
  }),

  svc_getStakeInfo: method([required(parseAddress)], (ctx, [address]) => {
    const staking = ctx.services.queries.staking;
    // An address that never staked has the spec's shape too, every amount zero (a wallet shows a fresh account's stake).
    const info = staking.stakeInfo(toAddress(address));
    return {
      stakedAmount: toQuantity(info.stakedAmount),
      unstakingAmount: toQuantity(info.unstakingAmount),
      unstakingCompletesAt: toQuantity(info.unstakingCompletesAt),
      pendingRewards: toQuantity(info.pendingRewards),
    };
  }),

  svc_getDelegation: method([required(parseAddress), required(parseAddress)], (ctx, [delegator, validator]) => {
    const staking = ctx.services.queries.staking;
    validatorOrThrow(ctx, validator);
    const d = staking.delegation(toAddress(delegator), toAddress(validator));
    const unbonding = staking.unbondingsOf(toAddress(delegator)).filter((u) => u.validator === toAddress(validator));
    if (!d && unbonding.length === 0) {
      throw new NotFoundError(`no delegation from ${checksumAddress(delegator)} to ${checksumAddress(validator)}`);
    }
    return {
      delegatorAddress: checksumAddress(delegator),
      validatorAddress: checksumAddress(validator),
      shares: toQuantity(d?.shares ?? 0n),
      balance: toQuantity(d?.amount ?? 0n),
      pendingRewards: toQuantity(d?.pendingRewards ?? 0n),
      unbonding: unbonding.map((u) => ({
        balance: toQuantity(u.balance),
        initialBalance: toQuantity(u.initialBalance),
        creationHeight: toQuantity(u.creationHeight),
        completesAt: toQuantity(u.completesAt),
      })),
    };
  }),

  svc_getContributionScore: method([required(parseAddress)], (ctx, [address]) => {
    const v = validatorOrThrow(ctx, address);
    return percent(ctx.services.queries.staking.scores().get(v.address)?.totalBps ?? 0);
  }),
};
