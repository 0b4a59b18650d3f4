// The explorer's live feed: socket.io on the explorer's own HTTP server, with rooms after Blockscout's
// channels. Mined objects are published once the indexer has indexed their block and are read from
// the indexes, so each payload is what the REST route answers for the same object.
import type http from 'node:http';
import type { Logger } from 'pino';
import { Server as SocketServer, type Socket } from 'socket.io';
import type { ProducedBlock } from '../../native/index.js';
import { EDGE_HEADERS } from '../../net/edge-headers.js';
import { ws as wsParams } from '../../params.js';
import { explorerProposalEventView } from '../handlers/governance.js';
import { bridgeEventView } from '../../modules/bridge/queries.js';
import { rentEventView } from '../../modules/rent/queries.js';
import { validatorView } from '../handlers/network.js';
import { addressKey } from '../indexer/records.js';
import type { ExplorerServices } from '../definition.js';
import { be } from '../store.js';
import { addr, blockView, pendingView, transferView, txSummaryView } from '../views.js';
import { FIXED_ROOMS, InvalidRoomError, OBJECT_EVENTS, parseRoom } from './rooms.js';

/** A running live feed. */
export interface LiveFeed {
  /** Disconnects every client and stops following the node; call before the explorer's server closes. */
  close(): Promise<void>;
}

/** The acknowledgement of join and leave: the explorer's envelope. */
type Ack = { ok: true; data: { room: string } } | { ok: false; error: string };

/** Index entries read per scan while publishing one block. */
const SCAN_PAGE = 1_000;
/** How often clients are checked for packets piling up between blocks (pending transactions). */
const SLOW_SWEEP_MS = 1_000;

/** Packets waiting for one client (engine.io keeps them in its private write buffer while the client does not read). */
function queuedPackets(socket: Socket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}

/** Attaches the live feed to a running explorer. */
export function attachLiveFeed(explorer: { server: { http: http.Server }; services: ExplorerServices }, log: Logger): LiveFeed {
  const feedLog = log.child({ module: 'live-feed' });
  const { node, indexer, indexes } = explorer.services;
  // CORS open as the REST API: explorers in browsers connect from their own origin.
  const io = new SocketServer(explorer.server.http, { serveClient: false, cors: { origin: '*' } });
  // The edge headers of every answer (src/net/edge-headers.ts) on engine.io's own: its polling answers and the 101 of its WebSocket upgrade.
  io.engine.on('headers', (headers: Record<string, string>) => Object.assign(headers, EDGE_HEADERS));
  const rooms = io.of('/').adapter.rooms;
  const members = (room: string): number => rooms.get(room)?.size ?? 0;
  // The room goes with each event, so a client in several rooms knows which one an event is for.
  const publish = (room: string, event: string, payload: unknown): void => {
    io.to(room).emit(event, payload, room);
  };
  const addressRooms = new Set<string>();
  const tokenRooms = new Set<string>();
  io.of('/').adapter.on('create-room', (room: string) => {
    if (room.startsWith('addresses:')) addressRooms.add(room);
    else if (room.startsWith('tokens:')) tokenRooms.add(room);
  });
  io.of('/').adapter.on('delete-room', (room: string) => {
    addressRooms.delete(room);
    tokenRooms.delete(room);
  });

  io.on('connection', (socket) => {
    const answer = (ack: unknown, run: () => string): void => {
      let reply: Ack;
      try {
        reply = { ok: true, data: { room: run() } };
      } catch (err) {
        if (!(err instanceof InvalidRoomError)) throw err;
        reply = { ok: false, error: err.message };
      }
      if (typeof ack === 'function') (ack as (reply: Ack) => void)(reply);
    };
    socket.on('join', (room: unknown, ack: unknown) =>
      answer(ack, () => {
        const name = parseRoom(room);
        // socket.rooms holds the socket's own id room too.
        if (!socket.rooms.has(name) && socket.rooms.size - 1 >= wsParams.liveMaxRoomsPerSocket) {
          throw new InvalidRoomError(`at most ${wsParams.liveMaxRoomsPerSocket} rooms per connection; leave one first`);
        }
        void socket.join(name);
        return name;
      }),
    );
    socket.on('leave', (room: unknown, ack: unknown) =>
      answer(ack, () => {
        const name = parseRoom(room);
        void socket.leave(name);
        return name;
      }),
    );
  });

  /** Clients that stopped reading are cut before their queue grows without bound. */
  const dropSlow = (): void => {
    for (const socket of io.of('/').sockets.values()) {
      const queued = queuedPackets(socket);
      if (queued <= wsParams.liveMaxQueuedPackets) continue;
      feedLog.warn({ id: socket.id, queued }, 'live feed client too slow: disconnected');
      socket.disconnect(true);
    }
  };
  const sweep = setInterval(dropSlow, SLOW_SWEEP_MS);
  sweep.unref();

  const publishBlock = (
    number: number,
    validatorChanges: Record<string, unknown>[],
    proposalEvents: Record<string, unknown>[],
    bridgeEvents: Record<string, unknown>[],
    rentEvents: Record<string, unknown>[],
  ): void => {
    const { chain } = node;
    if (members('blocks:new_block') > 0) {
      const block = chain.getBlockSummary({ number });
      if (block) publish('blocks:new_block', FIXED_ROOMS['blocks:new_block'], blockView(block));
    }
    const blockKey = be(number, 8);
    if (members('transactions:new_transaction') > 0) {
      for (let from: Buffer | undefined; ; ) {
        const page = indexes.txs.scan(blockKey, from, SCAN_PAGE, false);
        for (const e of page) publish('transactions:new_transaction', FIXED_ROOMS['transactions:new_transaction'], txSummaryView(e.value));
        if (page.length < SCAN_PAGE) break;
        from = page[page.length - 1]!.key;
      }
    }
    // Per-object rooms read the same index entries as /addresses/{a}/... and /tokens/{a}/transfers.
    for (const room of addressRooms) {
      if (members(room) === 0) continue;
      const sub = Buffer.concat([addressKey(room.slice('addresses:'.length) as `0x${string}`), blockKey]);
      for (let from: Buffer | undefined; ; ) {
        const page = indexes.addressTxs.scan(sub, from, SCAN_PAGE, false);
        for (const e of page) {
          const tx = indexes.txs.get(e.key.subarray(20));
          if (tx) publish(room, OBJECT_EVENTS.transaction, { ...txSummaryView(tx), roles: e.value.roles });
        }
        if (page.length < SCAN_PAGE) break;
        from = page[page.length - 1]!.key;
      }
      for (let from: Buffer | undefined; ; ) {
        const page = indexes.addressTransfers.scan(sub, from, SCAN_PAGE, false);
        for (const e of page) {
          publish(room, OBJECT_EVENTS.tokenTransfer, transferView(e.value, indexes.tokens.get(addressKey(e.value.token))));
        }
        if (page.length < SCAN_PAGE) break;
        from = page[page.length - 1]!.key;
      }
    }
    for (const room of tokenRooms) {
      if (members(room) === 0) continue;
      const tokenKey = addressKey(room.slice('tokens:'.length) as `0x${string}`);
      const token = indexes.tokens.get(tokenKey);
      const sub = Buffer.concat([tokenKey, blockKey]);
      for (let from: Buffer | undefined; ; ) {
        const page = indexes.tokenTransfers.scan(sub, from, SCAN_PAGE, false);
        for (const e of page) publish(room, OBJECT_EVENTS.tokenTransfer, transferView(e.value, token));
        if (page.length < SCAN_PAGE) break;
        from = page[page.length - 1]!.key;
      }
    }
    for (const change of validatorChanges) publish('validators:changes', FIXED_ROOMS['validators:changes'], change);
    for (const event of proposalEvents) publish('governance:proposals', FIXED_ROOMS['governance:proposals'], event);
    for (const event of bridgeEvents) publish('bridge:events', FIXED_ROOMS['bridge:events'], event);
    for (const event of rentEvents) publish('rent:events', FIXED_ROOMS['rent:events'], event);
    dropSlow();
  };

  // Validator changes are found at commit time (the ledger moves on with the next block) and published in block order.
  const validators = node.queries.staking.validatorWatch();
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  const onBlock = (produced: ProducedBlock): void => {
    const number = produced.head.number;
    let changes: Record<string, unknown>[] = [];
    try {
      const found = validators.next();
      if (found.length > 0 && members('validators:changes') > 0) {
        const scores = node.queries.staking.scores();
        changes = found.map((c) => ({
          address: addr(c.address),
          changes: c.kinds,
          previousStatus: c.previousStatus,
          blockNumber: number,
          validator: c.validator === undefined ? null : validatorView(c.validator, scores.get(c.address)),
          slashes: c.slashes.map((s) => ({ height: s.height, fractionBps: s.fractionBps, burned: (s.tokensBurned + s.unbondingBurned).toString(), reason: s.reason })),
        }));
      }
    } catch (err) {
      feedLog.error({ err, number }, 'live feed could not read validator changes');
    }
    // Governance events too are the last committed block's, read now and published in block order.
    let proposalEvents: Record<string, unknown>[] = [];
    try {
      if (members('governance:proposals') > 0) {
        proposalEvents = node.queries.governance.blockEvents(number).map(explorerProposalEventView);
      }
    } catch (err) {
      feedLog.error({ err, number }, 'live feed could not read governance events');
    }
    // The bridge's mints, ready withdrawals and releases of the block, read the same way.
    let bridgeEvents: Record<string, unknown>[] = [];
    try {
      if (members('bridge:events') > 0) bridgeEvents = node.queries.bridge.blockEvents(number).map(bridgeEventView);
    } catch (err) {
      feedLog.error({ err, number }, 'live feed could not read bridge events');
    }
    // Accounts made dormant and reactivated in the block.
    let rentEvents: Record<string, unknown>[] = [];
    try {
      if (members('rent:events') > 0) {
        rentEvents = node.queries.rent.blockEvents(number).map((e) => rentEventView(e, { amount: (v) => v.toString(), quantity: (v) => v }));
      }
    } catch (err) {
      feedLog.error({ err, number }, 'live feed could not read rent events');
    }
    queue = queue
      .then(async () => {
        if (closed) return;
        await indexer.catchUp();
        if (closed) return;
        if (indexer.indexedHeight() < number) {
          feedLog.warn({ number, indexed: indexer.indexedHeight() }, 'live feed: block not indexed, not published');
          return;
        }
        publishBlock(number, changes, proposalEvents, bridgeEvents, rentEvents);
      })
      .catch((err: unknown) => feedLog.error({ err, number }, 'live feed could not publish a block'));
  };

  const onPendingTransaction = (hash: Buffer): void => {
    try {
      if (members('transactions:new_pending_transaction') === 0) return;
      const pooled = node.mempool.get(hash);
      if (!pooled) return;
      const view = pendingView(node.chain.pendingTransactionJson(pooled.raw, pooled.tx.from));
      publish('transactions:new_pending_transaction', FIXED_ROOMS['transactions:new_pending_transaction'], view);
    } catch (err) {
      feedLog.error({ err }, 'live feed could not publish a pending transaction');
    }
  };

  node.events.on('block', onBlock);
  node.events.on('pendingTransaction', onPendingTransaction);
  feedLog.info({ rooms: [...Object.keys(FIXED_ROOMS), 'addresses:<address>', 'tokens:<address>'] }, 'live feed attached');

  return {
    async close() {
      if (closed) return;
      closed = true;
      node.events.off('block', onBlock);
      node.events.off('pendingTransaction', onPendingTransaction);
      clearInterval(sweep);
      io.disconnectSockets(true);
      // Not io.close(): that would close the explorer's HTTP server, which the explorer closes itself.
      io.engine.close();
      await queue;
    },
  };
}
