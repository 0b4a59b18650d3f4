// Network: the staking module's state and this node, as the svc_* methods report them, with large
// integers as decimal strings.
import { blockTimeMs, epochDurationMs } from '../../chain/block-time.js';
import { packageVersion } from '../../version.js';
import { epochOfHeight, epochStartHeight } from '../../modules/staking/epoch.js';
import { toAddress } from '../../modules/kernel/module.js';
import { minSignedPerWindow, uptimeBps, windowMisses } from '../../modules/staking/liveness.js';
import type { ScoreBreakdown } from '../../modules/staking/score.js';
import type { ValidatorView } from '../../modules/staking/types.js';
import type { ExplorerServices, Handler, Schema } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { addr, num } from '../views.js';

export const validatorSchema: Schema = {
  type: 'object',
  properties: {
    address: { type: 'string' },
    moniker: { type: 'string' },
    totalStake: { type: 'string' },
    contributionScore: { type: 'number' },
    commission: { type: 'number' },
    status: { type: 'string' },
    uptime: { type: 'number' },
  },
};

const percent = (bps: number) => bps / 100;

export function validatorView(v: ValidatorView, score: ScoreBreakdown | undefined, full = false): Record<string, unknown> {
  const base = {
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
  const v = services.node.app.staking.state.validator(toAddress(Buffer.from((address as string).slice(2), 'hex')));
  if (!v) throw new NotFoundError(`validator ${address as string} not found`);
  return v;
}

export const networkHandlers: Record<string, Handler> = {
  listValidators: ({ query }, { node }) => {
    const { staking } = node.app;
    const scores = staking.scores();
    return staking.state
      .validators()
      .filter((v) => query.status === undefined || v.status === query.status)
      .map((v) => validatorView(v, scores.get(v.address)));
  },

  getValidator: ({ params }, services) => {
    const v = validatorOrThrow(services, params.address);
    return validatorView(v, services.node.app.staking.scores().get(v.address), true);
  },

  getValidatorDelegators: ({ params }, services) => {
    const v = validatorOrThrow(services, params.address);
    return services.node.app.staking.state
      .delegationsTo(v.address)
      .sort((a, b) => (a.amount === b.amount ? (a.delegator < b.delegator ? -1 : 1) : a.amount > b.amount ? -1 : 1))
      .map((d) => ({ delegator: addr(d.delegator), stake: d.amount.toString(), shares: d.shares.toString(), pendingRewards: d.pendingRewards.toString() }));
  },

  getValidatorSigningWindow: ({ params }, services) => {
    const v = validatorOrThrow(services, params.address);
    const { staking } = services.node.app;
    const w = staking.state.signingWindow(v.address)!;
    const misses = windowMisses(w);
    const missed = misses.filter((m) => m).length;
    const minSigned = minSignedPerWindow(staking.params);
    return {
      address: addr(v.address),
      windowSize: staking.params.signedBlocksWindow,
      counted: misses.length,
      signed: misses.length - missed,
      missed,
      minSignedPerWindow: minSigned,
      maxMissedPerWindow: staking.params.signedBlocksWindow - minSigned,
      uptime: percent(uptimeBps(w, w.size)),
      blocks: misses.map((m) => (m ? 'missed' : 'signed')),
    };
  },

  getEpoch: (_input, { node }) => {
    const { chain, app, config } = node;
    const head = chain.head();
    const params = app.staking.params;
    const epoch = epochOfHeight(head.number, params);
    const start = epochStartHeight(epoch, params);
    const set = app.staking.state.validatorSet(app.staking.state.currentEpoch);
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
    const { chain, app, config, coinbase, startingBlock } = node;
    const own = app.staking.state.validator(toAddress(coinbase));
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
