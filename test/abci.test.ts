// The ABCI socket server (uvarint-framed protobuf, answers in order, CheckTx concurrent, failures
// as exceptions), the block transactions' kinds, and the testnet's config edits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { create } from '@bufbuild/protobuf';
import { sizeDelimitedDecodeStream, sizeDelimitedEncode } from '@bufbuild/protobuf/wire';
import pino from 'pino';
import { startAbciServer, type AbciHandler, type AbciResponseValue } from '../src/consensus/cometbft/abci-server.js';
import { RequestSchema, ResponseSchema, type Request, type Response } from '../src/consensus/cometbft/proto/tendermint/abci/types_pb.js';
import { BlockTxError, classifyTx, extraDataTx, messageTx, splitBlockTxs, userOperationTx } from '../src/consensus/cometbft/block-txs.js';
import { setToml } from '../src/consensus/cometbft/testnet.js';
import { tomlValue } from '../src/consensus/cometbft/home.js';

const silent = pino({ level: 'silent' });

/** Sends requests on one connection and collects `count` responses. */
async function exchange(address: string, requests: Request[], count: number): Promise<Response[]> {
  const m = /^tcp:\/\/([^:]+):(\d+)$/.exec(address)!;
  const socket = net.connect(Number(m[2]), m[1]);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  // Written as one stream of frames, as CometBFT's client buffers them until a Flush.
  socket.write(Buffer.concat(requests.map((r) => sizeDelimitedEncode(RequestSchema, r))));
  const out: Response[] = [];
  for await (const response of sizeDelimitedDecodeStream(ResponseSchema, socket)) {
    out.push(response);
    if (out.length === count) break;
  }
  socket.destroy();
  return out;
}

const req = (value: Request['value']): Request => create(RequestSchema, { value } as never);

describe('the ABCI server', () => {
  it('answers every request of a connection in order, CheckTx concurrently, and a failure as an exception', async () => {
    const order: string[] = [];
    const handle: AbciHandler = async (kind, request): Promise<AbciResponseValue> => {
      if (kind === 'echo') return { case: 'echo', value: { message: (request as { message: string }).message } };
      if (kind === 'flush') return { case: 'flush', value: {} };
      if (kind === 'checkTx') {
        const tx = Buffer.from((request as { tx: Uint8Array }).tx).toString();
        // The first check is the slowest: its answer must still come first.
        await new Promise((r) => setTimeout(r, tx === 'a' ? 50 : 1));
        order.push(tx);
        return { case: 'checkTx', value: { code: tx === 'b' ? 1 : 0, log: tx } };
      }
      if (kind === 'info') throw new Error('the app is broken');
      return { case: 'commit', value: {} };
    };
    const server = await startAbciServer('tcp://127.0.0.1:0', handle, silent);
    try {
      const responses = await exchange(
        server.address,
        [
          req({ case: 'echo', value: { message: 'hello' } } as never),
          req({ case: 'checkTx', value: { tx: Buffer.from('a') } } as never),
          req({ case: 'checkTx', value: { tx: Buffer.from('b') } } as never),
          req({ case: 'flush', value: {} } as never),
          req({ case: 'info', value: {} } as never),
          req({ case: 'commit', value: {} } as never),
        ],
        6,
      );
      assert.deepEqual(
        responses.map((r) => r.value.case),
        ['echo', 'checkTx', 'checkTx', 'flush', 'exception', 'commit'],
      );
      assert.equal((responses[0]!.value.value as { message: string }).message, 'hello');
      assert.deepEqual(responses.slice(1, 3).map((r) => (r.value.value as { log: string }).log), ['a', 'b']);
      assert.equal((responses[2]!.value.value as { code: number }).code, 1);
      assert.match((responses[4]!.value.value as { error: string }).error, /the app is broken/);
      // The checks ran concurrently: the quick one finished first, its answer still came second.
      assert.deepEqual(order, ['b', 'a']);
    } finally {
      await server.close();
    }
  });

  it('refuses an address that is neither tcp://host:port nor unix://path', async () => {
    await assert.rejects(startAbciServer('localhost', async () => ({ case: 'flush', value: {} }), silent), /neither tcp/);
  });
});

describe('block transactions', () => {
  const legacy = Buffer.from('f86b808504a817c800825208', 'hex');
  const typed = Buffer.from('02f87082232880', 'hex');

  it('tells EVM transactions, messages and the extra data apart', () => {
    assert.deepEqual(classifyTx(legacy), { kind: 'evm', raw: legacy });
    assert.deepEqual(classifyTx(typed), { kind: 'evm', raw: typed });
    assert.deepEqual(classifyTx(messageTx(Buffer.from('{}'))), { kind: 'message', message: Buffer.from('{}') });
    assert.deepEqual(classifyTx(extraDataTx(Buffer.from('svc'))), { kind: 'extraData', extraData: Buffer.from('svc') });
    assert.throws(() => classifyTx(Buffer.alloc(0)), BlockTxError);
    assert.throws(() => classifyTx(Buffer.from([0x00, 0x09, 0x01])), /unknown transaction tag 0x0009/);
  });

  it('splits a block in its order, refusing extra data after the first place and a message after an EVM transaction', () => {
    const parts = splitBlockTxs([extraDataTx(Buffer.from('x')), messageTx(Buffer.from('m1')), messageTx(Buffer.from('m2')), typed, legacy]);
    assert.deepEqual(parts, { extraData: Buffer.from('x'), messages: [Buffer.from('m1'), Buffer.from('m2')], evm: [typed, legacy] });
    assert.throws(() => splitBlockTxs([typed, extraDataTx(Buffer.from('x'))]), /extra data must come first/);
    assert.throws(() => splitBlockTxs([typed, messageTx(Buffer.from('m'))]), /system message after an EVM transaction/);
  });

  it('tells a gossiped user operation apart and refuses it in a block (it lands inside a handleOps bundle)', () => {
    assert.deepEqual(classifyTx(userOperationTx(Buffer.from('{"op":{}}'))), { kind: 'userOperation', operation: Buffer.from('{"op":{}}') });
    assert.throws(() => splitBlockTxs([typed, userOperationTx(Buffer.from('{}'))]), /transaction 1: a user operation travels the mempool only/);
  });
});

describe('CometBFT config.toml edits', () => {
  const toml = ['moniker = "a"', '', '[rpc]', 'laddr = "tcp://127.0.0.1:26657"', '', '[p2p]', 'laddr = "tcp://0.0.0.0:26656"', 'persistent_peers = ""'].join('\n');

  it('sets a key of the right section and reads it back', () => {
    const edited = setToml(setToml(toml, 'p2p', 'laddr', '"tcp://127.0.0.1:30000"'), '', 'moniker', '"node0"');
    assert.equal(tomlValue(edited, 'p2p', 'laddr'), 'tcp://127.0.0.1:30000');
    assert.equal(tomlValue(edited, 'rpc', 'laddr'), 'tcp://127.0.0.1:26657');
    assert.equal(tomlValue(edited, '', 'moniker'), 'node0');
  });

  it('refuses a key the file does not have', () => {
    assert.throws(() => setToml(toml, 'rpc', 'nope', '1'), /has no \[rpc\] nope/);
  });
});

describe('the CometBFT RPC client', () => {
  it('hands transactions over in batches of at most rpc.max_request_batch_size and reports the refused ones by index', async () => {
    const http = await import('node:http');
    const batches: number[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const requests = JSON.parse(body) as { id: number; params: { tx: string } }[];
        batches.push(requests.length);
        // CometBFT's cache refuses a transaction it has seen: here, the one whose first byte is 0x07.
        res.end(JSON.stringify(requests.map((r) => (Buffer.from(r.params.tx, 'base64')[0] === 7 ? { jsonrpc: '2.0', id: r.id, error: { code: -32603, message: 'Internal error', data: 'tx already exists in cache' } } : { jsonrpc: '2.0', id: r.id, result: { code: 0 } }))));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { CometClient } = await import('../src/consensus/cometbft/client.js');
      const client = new CometClient(`http://127.0.0.1:${(server.address() as { port: number }).port}`, 10);
      const txs = Array.from({ length: 25 }, (_, i) => Buffer.from([i, 0xaa]));
      const refused = await client.broadcastTxsAsync(txs);
      assert.deepEqual(batches.sort((a, b) => b - a), [10, 10, 5]);
      assert.deepEqual([...refused], [[7, 'tx already exists in cache']]);
    } finally {
      server.close();
    }
  });

  it('raises when CometBFT refuses a batch as a whole', async () => {
    const http = await import('node:http');
    const server = http.createServer((_req, res) => res.end(JSON.stringify({ jsonrpc: '2.0', id: -1, error: { code: -32600, message: 'Invalid Request', data: 'batch request exceeds maximum (10) allowed number of requests' } })));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { CometClient } = await import('../src/consensus/cometbft/client.js');
      const client = new CometClient(`http://127.0.0.1:${(server.address() as { port: number }).port}`, 500);
      await assert.rejects(client.broadcastTxsAsync([Buffer.from([1])]), /refused a batch of 1 broadcasts: batch request exceeds maximum/);
    } finally {
      server.close();
    }
  });
});
