// The bridge to the external chain (docs/bridge.md for the rules, docs/explorer.md for the shapes).
import { object, pageParams, pageSchema, routes, type Api, type FromSchema } from '../schema.js';

const positive = <const N extends string>(name: N, description: string) =>
  ({
    name,
    in: 'path',
    description,
    schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: `a positive ${description}` },
  }) as const;

const amount = { type: 'string', description: 'smallest unit, decimal' } as const;
const address = { type: 'string', description: 'checksummed address' } as const;
const integerOrNull = { type: ['integer', 'null'] } as const;

export const bridgeStatusSchema = object({
  active: { type: 'boolean', description: 'a bridge is configured, and (on a node that reads the external chain) its contract holds the module set and at least the ETH svc owes' },
  validatorCount: { type: 'integer' },
  threshold: { type: 'integer', description: 'basis points of power a decision needs (more than 2/3)' },
  totalDeposits: { type: 'integer', description: 'deposits minted' },
  totalWithdrawals: { type: 'integer', description: 'withdrawals released' },
  pendingDeposits: { type: 'integer' },
  pendingWithdrawals: { type: 'integer' },
  totalValueLocked: amount,
  externalChainId: integerOrNull,
  contract: { type: ['string', 'null'] },
  confirmations: integerOrNull,
});
export type BridgeStatus = FromSchema<typeof bridgeStatusSchema>;

export const bridgeDepositSchema = object({
  nonce: { type: 'integer' },
  status: { type: 'string', enum: ['pending', 'minted'] },
  mintedAt: integerOrNull,
  token: { type: ['string', 'null'], description: 'external token, 0x000…0 for ETH' },
  sender: { type: ['string', 'null'] },
  recipient: { type: ['string', 'null'] },
  amount: { type: ['string', 'null'] },
  attestations: {
    type: 'array',
    items: object({ content: { type: 'string' }, token: address, sender: address, recipient: address, amount, attesters: { type: 'array', items: address } }),
  },
});
export type BridgeDeposit = FromSchema<typeof bridgeDepositSchema>;

export const bridgeWithdrawalSchema = object({
  id: { type: 'integer' },
  status: { type: 'string', enum: ['signing', 'ready', 'released'] },
  token: address,
  from: address,
  recipient: address,
  amount,
  burnedAt: { type: 'integer' },
  readyAt: integerOrNull,
  releasedAt: integerOrNull,
  digest: { type: 'string', description: "the contract's withdrawalDigest the validators sign" },
  signatures: { type: 'array', items: object({ validator: address, signature: { type: 'string' } }) },
  releaseAttesters: { type: 'array', items: address },
});
export type BridgeWithdrawal = FromSchema<typeof bridgeWithdrawalSchema>;

export const bridgeRouteDefs = routes([
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
]);

export type BridgeApi = Api<typeof bridgeRouteDefs>;
