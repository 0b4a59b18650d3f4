// The bridge: its status (svc_getBridgeStatus's fields), deposits and withdrawals newest first, and
// one of each with its attestations and signatures (views shared with JSON-RPC: src/modules/bridge/queries.ts).
import { depositView, withdrawalStatus, withdrawalView } from '../../modules/bridge/queries.js';
import { routeModule, type Handlers } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { decodeCursor, listPage, PAGE } from '../pagination.js';
import { be } from '../store.js';
import { bridgeRouteDefs } from '../routes/bridge.js';

const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;

export const bridgeHandlers: Handlers<typeof bridgeRouteDefs> = {
  getBridgeStatus: (_input, services) => {
    const config = services.node.queries.bridge.config;
    return {
      ...services.node.bridge.status(),
      externalChainId: config?.chainId ?? null,
      contract: config?.contract ?? null,
      confirmations: config?.confirmations ?? null,
    };
  },

  listBridgeDeposits: ({ query }, services) => {
    const list = services.node.queries.bridge
      .deposits()
      .filter((d) => query.status === undefined || (query.status === 'minted') === (d.minted !== null))
      .reverse()
      .map((d) => ({ key: be(d.nonce, 8), value: d }));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 8, (e) => depositView(e.value));
  },

  getBridgeDeposit: ({ params }, services) => {
    const d = services.node.queries.bridge.deposit(params.nonce as number);
    if (!d) throw new NotFoundError(`bridge deposit ${params.nonce as number} not found`);
    return depositView(d);
  },

  listBridgeWithdrawals: ({ query }, services) => {
    const list = services.node.queries.bridge
      .withdrawals()
      .filter((w) => query.status === undefined || withdrawalStatus(w) === query.status)
      .reverse()
      .map((w) => ({ key: be(w.id, 8), value: w }));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), list, 8, (e) => withdrawalView(e.value));
  },

  getBridgeWithdrawal: ({ params }, services) => {
    const w = services.node.queries.bridge.withdrawal(params.id as number);
    if (!w) throw new NotFoundError(`bridge withdrawal ${params.id as number} not found`);
    return withdrawalView(w);
  },
};

export const bridgeRoutes = routeModule(bridgeRouteDefs, bridgeHandlers);
