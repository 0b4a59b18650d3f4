// The ABCI socket server CometBFT connects to: on each of its connections (consensus, mempool,
// query, snapshot) a stream of requests, each a protobuf `tendermint.abci.Request` prefixed with
// its length as a uvarint, answered in order by `tendermint.abci.Response`s framed the same way.
// The message types are generated from CometBFT's .proto files (./proto, scripts/gen-abci-proto.mjs).
//
// Requests of a connection are answered in the order they came. CheckTx requests run concurrently
// (the pool admits them in arrival order and decodes a turn's worth together); every other request
// waits for the ones before it, so FinalizeBlock and Commit never overlap. The answers of one
// event-loop turn are written together.
import net from 'node:net';
import { existsSync, rmSync } from 'node:fs';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { sizeDelimitedDecodeStream, sizeDelimitedEncode } from '@bufbuild/protobuf/wire';
import type { Logger } from 'pino';
import { RequestSchema, ResponseSchema, type Request, type Response } from './proto/tendermint/abci/types_pb.js';

/** What an ABCI request asks for, by its case, and the response value it is answered with. */
type Case = Exclude<Request['value']['case'], undefined>;
type RequestOf<C extends Case> = Extract<Request['value'], { case: C }>['value'];
type ResponseValue = MessageInitShape<typeof ResponseSchema>['value'];

/** The application behind the socket: one handler per request. */
export type AbciHandler = (kind: Case, request: RequestOf<Case>) => Promise<ResponseValue>;
export type { ResponseValue as AbciResponseValue };

/** Largest request read (a block's transactions arrive in one FinalizeBlock): CometBFT's max block size is 100 MiB. */
const READ_MAX_BYTES = 104_857_600;

export interface AbciServer {
  /** Where CometBFT connects: tcp://host:port or unix://path. */
  address: string;
  close(): Promise<void>;
}

/** Listens on `address` (tcp://host:port, port 0 for a free one, or unix://path). */
export async function startAbciServer(address: string, handle: AbciHandler, log: Logger): Promise<AbciServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', (err) => log.debug({ err }, 'ABCI connection error'));
    void serveConnection(socket, handle, log);
  });
  const listenOn = parseAddress(address);
  if ('path' in listenOn && existsSync(listenOn.path)) rmSync(listenOn.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenOn, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  const actual = typeof bound === 'string' || bound === null || 'path' in listenOn ? address : `tcp://${listenOn.host ?? '127.0.0.1'}:${bound.port}`;
  return {
    address: actual,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function parseAddress(address: string): { host?: string; port: number } | { path: string } {
  if (address.startsWith('unix://')) return { path: address.slice('unix://'.length) };
  const m = /^(?:tcp:\/\/)?([^:]+|\[[^\]]+\]):(\d+)$/.exec(address);
  if (!m) throw new Error(`ABCI address "${address}" is neither tcp://host:port nor unix://path`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

async function serveConnection(socket: net.Socket, handle: AbciHandler, log: Logger): Promise<void> {
  // The tail of the answers: each one is written after the one before it.
  let written: Promise<void> = Promise.resolve();
  // The tail of the requests that must not overlap (everything but CheckTx).
  let serial: Promise<unknown> = Promise.resolve();
  let checks: Promise<unknown>[] = [];
  // The answers of one event-loop turn leave in one write (CheckTx and recheck come in thousands):
  // the socket is corked at the turn's first answer and uncorked after the turn.
  let corked = false;
  const write = (response: Response): void => {
    if (socket.destroyed) return;
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    socket.write(sizeDelimitedEncode(ResponseSchema, response));
  };
  const answer = async (request: Request): Promise<Response> => {
    const { case: kind, value } = request.value;
    if (kind === undefined) return create(ResponseSchema, { value: { case: 'exception', value: { error: 'empty request' } } });
    try {
      const responseValue = await handle(kind, value as never);
      return create(ResponseSchema, { value: responseValue });
    } catch (err) {
      log.error({ err, request: kind }, 'ABCI request failed');
      return create(ResponseSchema, { value: { case: 'exception', value: { error: err instanceof Error ? err.message : String(err) } } });
    }
  };
  try {
    for await (const request of sizeDelimitedDecodeStream(RequestSchema, socket, { readMaxBytes: READ_MAX_BYTES })) {
      let pending: Promise<Response>;
      if (request.value.case === 'checkTx') {
        pending = serial.then(() => answer(request));
        checks.push(pending);
      } else {
        const before = [serial, ...checks];
        checks = [];
        pending = Promise.all(before).then(() => answer(request));
        serial = pending;
      }
      written = written.then(async () => write(await pending));
    }
  } catch (err) {
    if (!socket.destroyed) log.error({ err }, 'ABCI connection closed: a request did not decode');
  } finally {
    await written.catch(() => undefined);
    socket.destroy();
  }
}
