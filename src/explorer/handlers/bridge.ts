// The bridge: its status (svc_getBridgeStatus's fields), deposits and withdrawals newest first, and
// one of each with its attestations and signatures (views shared with JSON-RPC: src/bridge/views.ts).
import { depositView, withdrawalStatus, withdrawalView } from '../../bridge/views.js';
import type { Handler, Schema } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { decodeCursor, listPage, PAGE } from '../pagination.js';
import { be } from '../store.js';

const amount: Schema = { type: 'string', description: 'smallest unit, decimal' };
const address: Schema = { type: 'string', description: 'checksummed address' };
const integerOrNull: Schema = { type: ['integer', 'null'] };

export const bridgeStatusSchema: Schema = {
  type: 'object',
  properties: {
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
  },
};

export const bridgeDepositSchema: Schema = {
  type: 'object',
  properties: {
    nonce: { type: 'integer' },
    status: { type: 'string', enum: ['pending', 'minted'] },
    mintedAt: integerOrNull,
    token: { type: ['string', 'null'], description: 'external token, 0x000…0 for ETH' },
    sender: { type: ['string', 'null'] },
    recipient: { type: ['string', 'null'] },
    amount: { type: ['string', 'null'] },
    attestations: {
      type: 'array',
      items: { type: 'object', properties: { content: { type: 'string' }, token: address, sender: address, recipient: address, amount, attesters: { type: 'array', items: address } } },
    },
  },
};

export const bridgeWithdrawalSchema: Schema = {
  type: 'object',
  properties: {
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
    signatures: { type: 'array', items: { type: 'object', properties: { validator: address, signature: { type: 'string' } } } },
    releaseAttesters: { type: 'array', items: address },
  },
};

const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;

export const bridgeHandlers: Record<string, Handler> = {
  getBridgeStatus: (_input, services) => {
    const config = services.node.app.bridge.config;
    return {
      ...services.node.bridge.status(),
      externalChainId: config?.chainId ?? null,
      contract: config?.contract ?? null,
      confirmations: config?.confirmations ?? null,
    };
  },

  listBridgeDeposits: ({ query }, services) => {
    const list = services.node.app.bridge
      .deposits()
      .filter((d) => query.status === undefined || (query.status === 'minted') === (d.minted !== null))
      .reverse()
      .map((d) => ({ key: be(d.nonce, 8), value: d }));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 8, (e) => depositView(e.value));
  },

  getBridgeDeposit: ({ params }, services) => {
    const d = services.node.app.bridge.deposit(params.nonce as number);
    if (!d) throw new NotFoundError(`bridge deposit ${params.nonce as number} not found`);
    return depositView(d);
  },

  listBridgeWithdrawals: ({ query }, services) => {
    const list = services.node.app.bridge
      .withdrawals()
      .filter((w) => query.status === undefined || withdrawalStatus(w) === query.status)
      .reverse()
      .map((w) => ({ key: be(w.id, 8), value: w }));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 8, (e) => withdrawalView(e.value));
  },

  getBridgeWithdrawal: ({ params }, services) => {
    const w = services.node.app.bridge.withdrawal(params.id as number);
    if (!w) throw new NotFoundError(`bridge withdrawal ${params.id as number} not found`);
    return withdrawalView(w);
  },
};
