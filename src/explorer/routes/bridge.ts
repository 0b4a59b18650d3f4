// The bridge to the external chain (docs/bridge.md for the rules, docs/explorer.md for the shapes).
import type { ParamDef, RouteDef, RouteModule } from '../definition.js';
import { bridgeDepositSchema, bridgeHandlers, bridgeStatusSchema, bridgeWithdrawalSchema } from '../handlers/bridge.js';
import { pageParams, pageSchema } from '../validate.js';

const positive = (name: string, description: string): ParamDef => ({
  name,
  in: 'path',
  description,
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: `a positive ${description}` },
});

const definitions: RouteDef[] = [
  {
    id: 'getBridgeStatus',
    method: 'GET',
    path: '/bridge',
    category: 'Bridge',
    summary: "The bridge's status (svc_getBridgeStatus's fields) with its external chain, contract and confirmations.",
    auth: 'public',
    response: bridgeStatusSchema,
  },
  {
    id: 'listBridgeDeposits',
    method: 'GET',
    path: '/bridge/deposits',
    category: 'Bridge',
    summary: 'Deposits attested on svc, newest nonce first (keyset-paginated); filter by status.',
    auth: 'public',
    params: [...pageParams, { name: 'status', in: 'query', description: 'pending or minted', schema: { type: 'string', enum: ['pending', 'minted'] } }],
    response: pageSchema(bridgeDepositSchema),
  },
  {
    id: 'getBridgeDeposit',
    method: 'GET',
    path: '/bridge/deposits/{nonce}',
    category: 'Bridge',
    summary: "One deposit by the contract's nonce: what each group of validators attested, and what was minted where.",
    auth: 'public',
    params: [positive('nonce', 'deposit nonce')],
    response: bridgeDepositSchema,
  },
  {
    id: 'listBridgeWithdrawals',
    method: 'GET',
    path: '/bridge/withdrawals',
    category: 'Bridge',
    summary: 'Withdrawals burned on svc, newest first (keyset-paginated); filter by status.',
    auth: 'public',
    params: [...pageParams, { name: 'status', in: 'query', description: 'signing, ready or released', schema: { type: 'string', enum: ['signing', 'ready', 'released'] } }],
    response: pageSchema(bridgeWithdrawalSchema),
  },
  {
    id: 'getBridgeWithdrawal',
    method: 'GET',
    path: '/bridge/withdrawals/{id}',
    category: 'Bridge',
    summary: 'One withdrawal: the digest, the validators’ signatures, when it was ready and released.',
    auth: 'public',
    params: [positive('id', 'withdrawal id')],
    response: bridgeWithdrawalSchema,
  },
];

export const bridgeRoutes: RouteModule = { definitions, handlers: bridgeHandlers };
