// Network: validators, one validator with its delegators, the epoch, and this node.
import { object, routes, schemas, type Api, type FromSchema } from '../schema.js';

const validator = { name: 'address', in: 'path', description: 'validator operator address', schema: schemas.address } as const;
const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const percent = { type: 'number', description: 'percent' } as const;

/** A validator as lists show it. */
export const validatorSchema = object({
  address: str,
  moniker: str,
  totalStake: { type: 'string', description: 'wei, decimal' },
  contributionScore: percent,
  commission: percent,
  status: { type: 'string', description: 'active, inactive or jailed' },
  uptime: percent,
  votingPower: str,
});
export type Validator = FromSchema<typeof validatorSchema>;

/** A validator in full: stake split, score breakdown, blocks, rewards, slashes. */
export const validatorFullSchema = object({
  ...validatorSchema.properties,
  selfStake: str,
  delegatedStake: str,
  delegatorCount: int,
  scoreBreakdown: object({ staking: percent, compute: percent, uptime: percent, accuracy: percent, network: percent }),
  maxCommission: percent,
  blocksProduced: int,
  blocksMissed: int,
  totalRewards: str,
  accumulatedCommission: str,
  registeredAt: int,
  lastActiveAt: int,
  jailedUntil: int,
  slashes: { type: 'array', items: object({ height: int, fractionBps: int, burned: str, reason: str }) },
});
export type ValidatorFull = FromSchema<typeof validatorFullSchema>;

export const networkRouteDefs = routes([
  {
    id: 'listValidators',
    method: 'GET',
    path: '/network/validators',
    category: 'Network',
    summary: 'Every validator with stake, score, commission, status and uptime; filter by status.',
    auth: 'public',
    params: [{ name: 'status', in: 'query', description: 'active, inactive or jailed', schema: { type: 'string', enum: ['active', 'inactive', 'jailed'] } }],
    response: { type: 'array', items: validatorSchema },
  },
  {
    id: 'getValidator',
    method: 'GET',
    path: '/network/validators/{address}',
    category: 'Network',
    summary: 'One validator in full: stake split, score breakdown, blocks produced and missed, rewards, jail.',
    auth: 'public',
    params: [validator],
    response: validatorFullSchema,
  },
  {
    id: 'getValidatorDelegators',
    method: 'GET',
    path: '/network/validators/{address}/delegators',
    category: 'Network',
    summary: "A validator's delegations (delegator, stake, pending rewards), largest first.",
    auth: 'public',
    params: [validator],
    response: { type: 'array', items: object({ delegator: str, stake: str, shares: str, pendingRewards: str }) },
  },
  {
    id: 'getValidatorSigningWindow',
    method: 'GET',
    path: '/network/validators/{address}/signing-window',
    category: 'Network',
    summary:
      "A validator's downtime window (Cosmos x/slashing's signing window): the blocks counted in it, oldest first, each signed or missed, the totals, and how many it must sign per window.",
    auth: 'public',
    params: [validator],
    response: object({
      address: str,
      windowSize: { type: 'integer', description: 'staking.signedBlocksWindow' },
      counted: { type: 'integer', description: 'blocks counted in the window so far (at most windowSize)' },
      signed: int,
      missed: int,
      minSignedPerWindow: { type: 'integer', description: 'signing fewer over a full window is downtime (slash and jail)' },
      maxMissedPerWindow: int,
      uptime: { type: 'number', description: "signed share of the counted blocks, percent (the validator view's uptime)" },
      blocks: { type: 'array', description: 'the counted blocks, oldest first', items: { type: 'string', enum: ['signed', 'missed'] } },
    }),
  },
  {
    id: 'getEpoch',
    method: 'GET',
    path: '/network/epoch',
    category: 'Network',
    summary: 'The current epoch: number, first block and its time (seconds, and milliseconds as startTimeMs), length in blocks and in milliseconds at the target block time, slot of the head, active set size.',
    auth: 'public',
    response: object({
      number: int,
      startBlock: int,
      startTime: { type: 'integer', description: 'Unix seconds' },
      startTimeMs: { type: ['integer', 'null'], description: 'Unix milliseconds' },
      lengthBlocks: int,
      durationMs: { type: 'number', description: 'at the target block time' },
      slot: { type: 'integer', description: 'the head block within the epoch' },
      activeValidators: int,
    }),
  },
  {
    id: 'getNodeInfo',
    method: 'GET',
    path: '/network/node',
    category: 'Network',
    summary: 'This node: version, chain id, network, whether it validates, head, peers.',
    auth: 'public',
    response: object({
      version: str,
      chainId: int,
      network: str,
      isValidator: { type: 'boolean' },
      validatorAddress: str,
      peerCount: int,
      syncing: { type: 'boolean' },
      startingBlock: int,
      currentBlock: int,
    }),
  },
]);

export type NetworkApi = Api<typeof networkRouteDefs>;
