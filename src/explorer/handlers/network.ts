// Network: the staking module's state and this node, as the svc_* methods report them, with large
// integers as decimal strings.
import { blockTimeMs, epochDurationMs } from '../../chain/block-time.js';
import { packageVersion } from '../../version.js';
import { toAddress } from '../../modules/kernel/module.js';
import type { ScoreBreakdown } from '../../modules/staking/queries.js';
import type { ValidatorView } from '../../modules/staking/types.js';
import { routeModule, type ExplorerServices, type Handlers } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { addr, num } from '../views.js';
import { networkRouteDefs, type Validator, type ValidatorFull } from '../routes/network.js';

const percent = (bps: number) => bps / 100;

export function validatorView(v: ValidatorView, score: ScoreBreakdown | undefined): Validator;
export function validatorView(v: ValidatorView, score: ScoreBreakdown | undefined, full: true): ValidatorFull;
export function validatorView(v: ValidatorView, score: ScoreBreakdown | undefined, full = false): Validator | ValidatorFull {
  const base: Validator = {
    address: addr(v.address),
    moniker: v.moniker,
    totalStake: v.tokens.toString(),
    contributionScore: percent(score?.totalBps ?? 0),
    commission: percent(v.commissionBps),
    status: v.status,
    uptime: percent(v.uptimeBps),
    votingPower: v.votingPower.toString(),
  };
  if (!full) return base;
  return {
    ...base,
    selfStake: v.selfStake.toString(),
    delegatedStake: v.delegatedStake.toString(),
    delegatorCount: v.delegatorCount,
    scoreBreakdown: {
      staking: percent(score?.staking ?? 0),
      compute: percent(score?.compute ?? 0),
      uptime: percent(score?.uptime ?? 0),
      accuracy: percent(score?.accuracy ?? 0),
      network: percent(score?.network ?? 0),
    },
    maxCommission: percent(v.maxCommissionBps),
    blocksProduced: v.blocksProduced,
    blocksMissed: v.blocksMissed,
    totalRewards: v.totalRewards.toString(),
    accumulatedCommission: v.commission.toString(),
    registeredAt: v.registeredAt,
    lastActiveAt: v.lastActiveAt,
    jailedUntil: v.jailedUntil,
    slashes: v.slashes.map((s) => ({ height: s.height, fractionBps: s.fractionBps, burned: (s.tokensBurned + s.unbondingBurned).toString(), reason: s.reason })),
  };
}

function validatorOrThrow(services: ExplorerServices, address: unknown): ValidatorView {
  const v = services.node.queries.staking.validator(toAddress(Buffer.from((address as string).slice(2), 'hex')));
  if (!v) throw new NotFoundError(`validator ${address as string} not found`);
  return v;
}

export const networkHandlers: Handlers<typeof networkRouteDefs> = {
  listValidators: ({ query }, { node }) => {
    return node.queries.staking
      .scoredValidators()
      .filter(({ validator: v }) => query.status === undefined || v.status === query.status)
      .map(({ validator: v, score }) => validatorView(v, score));
  },

  getValidator: ({ params }, services) => {
    const v = validatorOrThrow(services, params.address);
    return validatorView(v, services.node.queries.staking.scores().get(v.address), true);
  },

  getValidatorDelegators: ({ params }, services) => {
    const v = validatorOrThrow(services, params.address);
    return services.node.queries.staking
      .delegationsTo(v.address)
      .sort((a, b) => (a.amount === b.amount ? (a.delegator < b.delegator ? -1 : 1) : a.amount > b.amount ? -1 : 1))
      .map((d) => ({ delegator: addr(d.delegator), stake: d.amount.toString(), shares: d.shares.toString(), pendingRewards: d.pendingRewards.toString() }));
  },

  getValidatorSigningWindow: ({ params }, services) => {
    const v = validatorOrThrow(services, params.address);
    const w = services.node.queries.staking.signingWindow(v.address)!;
    return {
      address: addr(v.address),
      windowSize: w.windowSize,
      counted: w.counted,
      signed: w.signed,
      missed: w.missed,
      minSignedPerWindow: w.minSignedPerWindow,
      maxMissedPerWindow: w.maxMissedPerWindow,
      uptime: percent(w.uptimeBps),
      blocks: w.misses.map((m) => (m ? 'missed' : 'signed')),
    };
  },

  getEpoch: (_input, { node }) => {
    const { chain, queries, config } = node;
    const head = chain.head();
    const params = queries.staking.params;
    const epoch = queries.staking.epochOf(head.number);
    const start = queries.staking.epochStart(epoch);
    const set = queries.staking.validatorSet(queries.staking.currentEpoch);
    return {
      number: epoch,
      startBlock: start,
      startTime: num(chain.getBlockSummary({ number: start })?.timestamp),
      startTimeMs: blockTimeMs(chain, start) ?? null,
      lengthBlocks: params.epochLengthBlocks,
      durationMs: epochDurationMs(chain, params.epochLengthBlocks, config.blockTimeMs, config.consensus === 'cometbft'),
      slot: head.number - start,
      activeValidators: set?.validators.length ?? 0,
    };
  },

  getNodeInfo: (_input, { node }) => {
    const { chain, queries, config, coinbase, startingBlock } = node;
    const own = queries.staking.validator(toAddress(coinbase));
    return {
      version: `svc-node/v${packageVersion()}`,
      chainId: config.chainId,
      network: config.network,
      isValidator: own?.status === 'active',
      validatorAddress: addr(`0x${coinbase.toString('hex')}`),
      peerCount: node.network.peerCount(),
      syncing: node.network.sync().syncing,
      startingBlock,
      currentBlock: chain.head().number,
    };
  },
};

export const networkRoutes = routeModule(networkRouteDefs, networkHandlers);
