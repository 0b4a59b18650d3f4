// Network: validators, one validator with its delegators, the epoch, and this node.
import type { ParamDef, RouteDef, RouteModule } from '../definition.js';
import { networkHandlers, validatorSchema } from '../handlers/network.js';
import { schemas } from '../validate.js';

const validator: ParamDef = { name: 'address', in: 'path', description: 'validator operator address', schema: schemas.address };

const definitions: RouteDef[] = [
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
    response: validatorSchema,
  },
  {
    id: 'getValidatorDelegators',
    method: 'GET',
    path: '/network/validators/{address}/delegators',
    category: 'Network',
    summary: "A validator's delegations (delegator, stake, pending rewards), largest first.",
    auth: 'public',
    params: [validator],
    response: { type: 'array', items: { type: 'object' } },
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
    response: {
      type: 'object',
      properties: {
        address: { type: 'string' },
        windowSize: { type: 'integer', description: 'staking.signedBlocksWindow' },
        counted: { type: 'integer', description: 'blocks counted in the window so far (at most windowSize)' },
        signed: { type: 'integer' },
        missed: { type: 'integer' },
        minSignedPerWindow: { type: 'integer', description: 'signing fewer over a full window is downtime (slash and jail)' },
        maxMissedPerWindow: { type: 'integer' },
        uptime: { type: 'number', description: 'signed share of the counted blocks, percent (the validator view\'s uptime)' },
        blocks: { type: 'array', description: 'the counted blocks, oldest first', items: { type: 'string', enum: ['signed', 'missed'] } },
      },
    },
  },
  {
    id: 'getEpoch',
    method: 'GET',
    path: '/network/epoch',
    category: 'Network',
    summary: 'The current epoch: number, first block and its time (seconds, and milliseconds as startTimeMs), length in blocks and in milliseconds at the target block time, slot of the head, active set size.',
    auth: 'public',
    response: { type: 'object' },
  },
  {
    id: 'getNodeInfo',
    method: 'GET',
    path: '/network/node',
    category: 'Network',
    summary: 'This node: version, chain id, network, whether it validates, head, peers.',
    auth: 'public',
    response: { type: 'object' },
  },
];

export const networkRoutes: RouteModule = { definitions, handlers: networkHandlers };
