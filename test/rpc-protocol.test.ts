// JSON-RPC 2.0 over HTTP, against a real node (RocksDB in a temp dir) on a real socket.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mnemonicToAccount } from 'viem/accounts';
import type { NodeConfig } from '../src/config.js';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, chain as chainParams, rpc as rpcParams, rpcErrorCode } from '../src/params.js';
import { startRpcServer, type RpcServer } from '../src/rpc/server.js';

const account = mnemonicToAccount(chainParams.devMnemonic);
/** Slots long enough that every block in these tests is produced by the test itself. */
const BLOCK_TIME_MS = 3_600_000;

let dataDir: string;
let node: RunningNode;
let url: string;

interface RpcReply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function post(body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }, target = url): Promise<RpcReply> {
  const res = await fetch(target, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text === '' ? undefined : JSON.parse(text) };
}

async function call(method: string, params: unknown[] = []): Promise<any> {
  const { json } = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  if (json.error) throw Object.assign(new Error(json.error.message), json.error);
  return json.result;
}

async function callError(method: string, params: unknown[] = []): Promise<{ code: number; message: string; data?: any }> {
  const { json } = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  assert.ok(json.error, `${method} should fail, got ${JSON.stringify(json)}`);
  return json.error;
}

/** Signs and sends an EIP-1559 transaction from dev account 0; returns its hash. */
async function sendTransaction(tx: { to?: `0x${string}`; data?: `0x${string}`; value?: bigint }): Promise<string> {
  const nonce = Number(BigInt(await call('eth_getTransactionCount', [account.address, 'pending'])));
  const baseFee = BigInt(await call('eth_gasPrice'));
  const raw = await account.signTransaction({
    chainId: CHAIN_ID.devnet,
    type: 'eip1559',
    nonce,
    gas: 200_000n,
    maxFeePerGas: baseFee * 2n,
    maxPriorityFeePerGas: 1n,
    ...tx,
  });
  return call('eth_sendRawTransaction', [raw]);
}

function config(overrides: Partial<NodeConfig> = {}): NodeConfig {
  return devnetConfig(dataDir, { blockTimeMs: BLOCK_TIME_MS, ...overrides });
}

/** A raw HTTP request, for what fetch will not send (lying Content-Length, chunked uploads). */
function rawRequest(
  options: http.RequestOptions,
  write: (req: http.ClientRequest) => void,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: node.rpcPort, method: 'POST', path: '/', ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    // The server closes the connection on 413 while the upload may still be going: that is expected.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    write(req);
  });
}

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-rpc-test-'));
  node = await startNode(config());
  url = `http://127.0.0.1:${node.rpcPort}/`;
  await node.driver.produceNext();
});

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a single request is answered with its id echoed', () => {
  it('eth_chainId returns the chain id as a quantity', async () => {
    const { status, json, headers } = await post('{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}');
    assert.equal(status, 200);
    assert.match(headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(json, { jsonrpc: '2.0', id: 7, result: '0x2328' });
  });

  it('string, null and fractional ids come back exactly; params may be omitted', async () => {
    for (const id of ['abc', null, 1.5, 0, '']) {
      const { json } = await post(JSON.stringify({ jsonrpc: '2.0', id, method: 'net_version' }));
      assert.deepEqual(json, { jsonrpc: '2.0', id, result: String(CHAIN_ID.devnet) });
    }
  });

  it('an id that is an object, array or boolean is an invalid request answered with id null', async () => {
    for (const id of [{}, [1], true]) {
      const { json } = await post(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId' }));
      assert.equal(json.id, null);
      assert.equal(json.error.code, rpcErrorCode.invalidRequest);
    }
  });
});

describe('notifications get no reply', () => {
  it('a single notification is answered 204 with an empty body', async () => {
    const res = await post('{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]}');
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
  });

  it('a batch of only notifications is answered 204 with an empty body', async () => {
    const res = await post('[{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","method":"no_such_method"}]');
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
  });
});

describe('batches are answered in order, one response per call', () => {
  it('mixes results, errors and notifications', async () => {
    const { status, json } = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { jsonrpc: '2.0', method: 'eth_blockNumber' },
        { jsonrpc: '2.0', id: 'two', method: 'nope_nothing' },
        { jsonrpc: '2.0', id: 3, method: 'net_listening', params: [] },
      ]),
    );
    assert.equal(status, 200);
    assert.equal(json.length, 3);
    assert.deepEqual(json[0], { jsonrpc: '2.0', id: 1, result: '0x2328' });
    assert.equal(json[1].id, 'two');
    assert.equal(json[1].error.code, rpcErrorCode.methodNotFound);
    assert.deepEqual(json[2], { jsonrpc: '2.0', id: 3, result: true });
  });

  it('an empty batch is one error object with code -32600 and id null', async () => {
    const { json } = await post('[]');
    assert.deepEqual(json, { jsonrpc: '2.0', id: null, error: { code: rpcErrorCode.invalidRequest, message: 'empty batch' } });
  });

  it('non-object items are each answered -32600 with id null', async () => {
    const { json } = await post('[1, "x", null, {"jsonrpc":"2.0","id":9,"method":"eth_chainId"}]');
    assert.equal(json.length, 4);
    for (const item of json.slice(0, 3)) {
      assert.equal(item.id, null);
      assert.equal(item.error.code, rpcErrorCode.invalidRequest);
    }
    assert.deepEqual(json[3], { jsonrpc: '2.0', id: 9, result: '0x2328' });
  });

  it(`a batch over ${rpcParams.maxBatchItems} items is refused as geth does: one error carrying the first id`, async () => {
    const items = Array.from({ length: rpcParams.maxBatchItems + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i + 100, method: 'eth_chainId' }));
    const { json } = await post(JSON.stringify(items));
    assert.deepEqual(json, [{ jsonrpc: '2.0', id: 100, error: { code: rpcErrorCode.invalidRequest, message: 'batch too large' } }]);
  });

  it(`a batch of exactly ${rpcParams.maxBatchItems} items is served`, async () => {
    const items = Array.from({ length: rpcParams.maxBatchItems }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    const { json } = await post(JSON.stringify(items));
    assert.equal(json.length, rpcParams.maxBatchItems);
    assert.ok(json.every((r: any, i: number) => r.id === i && r.result === '0x2328'));
  });
});

describe('malformed requests', () => {
  it('invalid JSON is -32700 with id null', async () => {
    const { status, json } = await post('{"jsonrpc":"2.0","id":1,"method":');
    assert.equal(status, 200);
    assert.deepEqual(json, { jsonrpc: '2.0', id: null, error: { code: rpcErrorCode.parseError, message: 'parse error' } });
  });

  it('a wrong jsonrpc version or a missing method is -32600 with the id echoed', async () => {
    let { json } = await post('{"jsonrpc":"1.0","id":4,"method":"eth_chainId"}');
    assert.equal(json.id, 4);
    assert.equal(json.error.code, rpcErrorCode.invalidRequest);
    ({ json } = await post('{"jsonrpc":"2.0","id":5}'));
    assert.equal(json.id, 5);
    assert.equal(json.error.code, rpcErrorCode.invalidRequest);
    ({ json } = await post('{"jsonrpc":"2.0","id":6,"method":42}'));
    assert.equal(json.error.code, rpcErrorCode.invalidRequest);
  });

  it('an unknown method is -32601 naming it', async () => {
    const error = await callError('eth_doesNotExist');
    assert.deepEqual(error, { code: rpcErrorCode.methodNotFound, message: 'the method eth_doesNotExist does not exist/is not available' });
  });

  it('bad params are -32602 naming the argument', async () => {
    assert.deepEqual(await callError('eth_getBalance', ['f39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'latest']), {
      code: rpcErrorCode.invalidParams,
      message: 'invalid argument 0: hex string without 0x prefix',
    });
    assert.deepEqual(await callError('eth_getBalance', ['0x1234', 'latest']), {
      code: rpcErrorCode.invalidParams,
      message: 'invalid argument 0: hex string has length 4, want 40 for address',
    });
    assert.deepEqual(await callError('eth_getBalance', [account.address, 'newest']), {
      code: rpcErrorCode.invalidParams,
      message: 'invalid argument 1: invalid block tag "newest": want latest, pending, earliest, safe, finalized or a hex number',
    });
    assert.deepEqual(await callError('eth_getBalance', []), {
      code: rpcErrorCode.invalidParams,
      message: 'missing value for required argument 0',
    });
    assert.deepEqual(await callError('eth_blockNumber', [1]), {
      code: rpcErrorCode.invalidParams,
      message: 'too many arguments, want at most 0',
    });
    const { json } = await post('{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"address":"0x00"}}');
    assert.equal(json.error.code, rpcErrorCode.invalidParams);
  });

  it('eth_feeHistory percentiles must increase within 0..100', async () => {
    const error = await callError('eth_feeHistory', ['0x2', 'latest', [50, 10]]);
    assert.equal(error.code, rpcErrorCode.invalidParams);
    assert.match(error.message, /^invalid argument 2: invalid reward percentile/);
  });
});

describe('HTTP limits and headers', () => {
  it(`a body over ${rpcParams.maxBodyBytes} bytes is 413 with a JSON-RPC error, announced or streamed`, async () => {
    const announced = await rawRequest(
      { headers: { 'Content-Type': 'application/json', 'Content-Length': String(rpcParams.maxBodyBytes + 1) } },
      (req) => req.end(),
    );
    assert.equal(announced.status, 413);
    assert.equal(JSON.parse(announced.body).error.code, rpcErrorCode.invalidRequest);

    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const streamed = await rawRequest({ headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (req) => {
      let sent = 0;
      const pump = (): void => {
        while (sent <= rpcParams.maxBodyBytes) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    assert.equal(streamed.status, 413);
    assert.match(JSON.parse(streamed.body).error.message, /content length too large/);
  });

  it('a POST that is not application/json is 415', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', { 'Content-Type': 'text/plain' });
    assert.equal(res.status, 415);
    assert.equal(res.json.error.message, 'invalid content type, only application/json is supported');
    const charset = await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', { 'Content-Type': 'application/json; charset=utf-8' });
    assert.equal(charset.json.result, '0x2328');
  });

  it('CORS: any origin may call, and preflights are answered', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', { 'Content-Type': 'application/json', Origin: 'https://dapp.example' });
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: { Origin: 'https://dapp.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type');
  });

  it('GET /health reports the head and GET /metrics counts calls per method', async () => {
    const health = await fetch(new URL('/health', url));
    assert.equal(health.status, 200);
    const body = (await health.json()) as { status: string; blockNumber: string };
    assert.equal(body.status, 'ok');
    assert.equal(body.blockNumber, await call('eth_blockNumber'));
    const metrics = await (await fetch(new URL('/metrics', url))).text();
    assert.match(metrics, /svc_rpc_requests_total\{method="eth_chainId",status="ok"\} \d+/);
    assert.match(metrics, /svc_rpc_request_duration_seconds_bucket/);
  });
});

describe('rate limit per IP', () => {
  let limited: RpcServer;
  let exempting: RpcServer;
  let limitedUrl: string;
  let exemptingUrl: string;
  const LIMIT = 3;

  before(async () => {
    const base = node.services.config;
    limited = await startRpcServer({ ...node.services, config: { ...base, rpcRateLimit: LIMIT, rateLimitExemptLoopback: false } });
    exempting = await startRpcServer({ ...node.services, config: { ...base, rpcRateLimit: LIMIT, rateLimitExemptLoopback: true } });
    limitedUrl = `http://127.0.0.1:${limited.port}/`;
    exemptingUrl = `http://127.0.0.1:${exempting.port}/`;
  });
  after(async () => {
    await limited.close();
    await exempting.close();
  });

  it('over the limit is HTTP 429 with -32005 "rate limit exceeded"; a batch counts as its items', async () => {
    const one = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}';
    const batch = `[${Array(LIMIT).fill(one).join(',')}]`;
    const first = await post(batch, undefined, limitedUrl);
    assert.equal(first.status, 200);
    const refused = await post(one, undefined, limitedUrl);
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.json, { jsonrpc: '2.0', id: null, error: { code: rpcErrorCode.limitExceeded, message: 'rate limit exceeded' } });
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  });

  it('loopback is exempt when configured so', async () => {
    for (let i = 0; i < LIMIT * 3; i++) {
      assert.equal((await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', undefined, exemptingUrl)).status, 200);
    }
  });
});

describe('block tags and missing blocks', () => {
  it('a block beyond the head is null for block getters and "header not found" for state queries', async () => {
    const future = `0x${(Number(BigInt(await call('eth_blockNumber'))) + 1000).toString(16)}`;
    assert.equal(await call('eth_getBlockByNumber', [future, false]), null);
    assert.equal(await call('eth_getBlockTransactionCountByNumber', [future]), null);
    assert.deepEqual(await callError('eth_getBalance', [account.address, future]), {
      code: rpcErrorCode.resourceNotFound,
      message: 'header not found',
    });
    const unknownHash = `0x${'ab'.repeat(32)}`;
    assert.deepEqual(await callError('eth_getBalance', [account.address, { blockHash: unknownHash }]), {
      code: rpcErrorCode.resourceNotFound,
      message: 'header not found',
    });
    assert.equal(await call('eth_getBlockByHash', [unknownHash, false]), null);
  });

  it('latest, safe and finalized name the head, pending the block after it; EIP-1898 objects name blocks by number or hash', async () => {
    const head = await call('eth_getBlockByNumber', ['latest', false]);
    for (const tag of ['safe', 'finalized']) assert.equal((await call('eth_getBlockByNumber', [tag, false])).hash, head.hash);
    const pending = await call('eth_getBlockByNumber', ['pending', false]);
    assert.equal(pending.parentHash, head.hash);
    assert.equal(pending.hash, null);
    const genesis = await call('eth_getBlockByNumber', ['earliest', false]);
    assert.equal(genesis.number, '0x0');
    const byNumber = await call('eth_getBalance', [account.address, { blockNumber: '0x0' }]);
    const byHash = await call('eth_getBalance', [account.address, { blockHash: genesis.hash, requireCanonical: true }]);
    assert.equal(byNumber, byHash);
    assert.equal(BigInt(byNumber), chainParams.devAccountBalance);
  });
});

describe('transactions, receipts, reverts and logs', () => {
  // Init code that emits one LOG0 and deploys nothing: a creation whose only effect is a log.
  const LOGGING_INIT_CODE = '0x60006000a000';
  // Init code that reverts with Error("boom").
  const revertData = `0x08c379a0${(32).toString(16).padStart(64, '0')}${(4).toString(16).padStart(64, '0')}${Buffer.from('boom').toString('hex').padEnd(64, '0')}`;
  // CODECOPY the 100-byte payload that follows this 12-byte prefix to memory 0, then REVERT with it.
  const REVERTING_INIT_CODE = `0x6064600c60003960646000fd${revertData.slice(2)}`;

  it('eth_call of a revert is code 3 with the decoded reason and the revert data', async () => {
    const error = await callError('eth_call', [{ from: account.address, data: REVERTING_INIT_CODE }, 'latest']);
    assert.deepEqual(error, { code: rpcErrorCode.executionReverted, message: 'execution reverted: boom', data: revertData });
  });

  it('a malformed state override is invalid params naming the account', async () => {
    const error = await callError('eth_call', [{ to: account.address }, 'latest', { [account.address]: { balance: '0x1', state: {}, stateDiff: {} } }]);
    assert.deepEqual(error, {
      code: rpcErrorCode.invalidParams,
      message: `invalid argument 2: ${account.address}: account ${account.address} has both 'state' and 'stateDiff'`,
    });
  });

  it('a sent transaction is pending, then mined with a receipt; its log reaches filters and eth_getLogs', async () => {
    const logFilter = await call('eth_newFilter', [{}]);
    const pendingFilter = await call('eth_newPendingTransactionFilter');
    const hash = await sendTransaction({ data: LOGGING_INIT_CODE });
    assert.match(hash, /^0x[0-9a-f]{64}$/);

    const pending = await call('eth_getTransactionByHash', [hash]);
    assert.equal(pending.hash, hash);
    assert.equal(pending.blockNumber, null);
    assert.deepEqual(await call('eth_getFilterChanges', [pendingFilter]), [hash]);

    const block = await node.driver.produceNext();
    const receipt = await call('eth_getTransactionReceipt', [hash]);
    assert.equal(receipt.status, '0x1');
    assert.equal(Number(BigInt(receipt.blockNumber)), block.head.number);

    const changes = await call('eth_getFilterChanges', [logFilter]);
    assert.equal(changes.length, 1);
    assert.equal(changes[0].transactionHash, hash);
    assert.equal(changes[0].address.toLowerCase(), receipt.contractAddress.toLowerCase());
    assert.deepEqual(await call('eth_getFilterChanges', [logFilter]), []);

    const logs = await call('eth_getLogs', [{ blockHash: receipt.blockHash }]);
    assert.deepEqual(logs, changes);
    assert.deepEqual(await call('eth_getFilterLogs', [logFilter]), changes);
    assert.deepEqual(await call('eth_getLogs', [{ fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber, address: receipt.contractAddress }]), changes);
    assert.deepEqual(await call('eth_getLogs', [{ fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber, topics: [null] }]), []);
  });

  it('a mempool rejection is -32003 with geth\'s text', async () => {
    const raw = await account.signTransaction({
      chainId: CHAIN_ID.devnet,
      type: 'eip1559',
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: BigInt(await call('eth_gasPrice')) * 2n,
      maxPriorityFeePerGas: 1n,
      to: account.address,
    });
    const error = await callError('eth_sendRawTransaction', [raw]);
    assert.equal(error.code, rpcErrorCode.transactionRejected);
    assert.match(error.message, /^nonce too low/);
  });
});

describe('filters', () => {
  it('a block filter sees each new block once, and a removed filter is "filter not found"', async () => {
    const id = await call('eth_newBlockFilter');
    assert.match(id, /^0x[0-9a-f]{32}$/);
    assert.deepEqual(await call('eth_getFilterChanges', [id]), []);
    const first = await node.driver.produceNext();
    const second = await node.driver.produceNext();
    assert.deepEqual(await call('eth_getFilterChanges', [id]), [`0x${first.head.hash.toString('hex')}`, `0x${second.head.hash.toString('hex')}`]);
    assert.deepEqual(await call('eth_getFilterChanges', [id]), []);
    assert.equal(await call('eth_uninstallFilter', [id]), true);
    assert.equal(await call('eth_uninstallFilter', [id]), false);
    assert.deepEqual(await callError('eth_getFilterChanges', [id]), { code: rpcErrorCode.serverError, message: 'filter not found' });
  });
});

describe('eth_getLogs limits', () => {
  it(`a range wider than ${rpcParams.maxLogBlockRange} blocks is -32005 with a range that fits`, async () => {
    const error = await callError('eth_getLogs', [{ fromBlock: '0x5', toBlock: `0x${(5 + rpcParams.maxLogBlockRange).toString(16)}` }]);
    assert.equal(error.code, rpcErrorCode.limitExceeded);
    const suggestedTo = `0x${(5 + rpcParams.maxLogBlockRange - 1).toString(16)}`;
    assert.equal(error.message, `query exceeds max block range ${rpcParams.maxLogBlockRange}, retry with the range 0x5-${suggestedTo}`);
    assert.deepEqual(error.data, { limit: `0x${rpcParams.maxLogBlockRange.toString(16)}`, suggestedFrom: '0x5', suggestedTo });
  });

  it('blockHash with fromBlock is invalid; fromBlock after toBlock is invalid', async () => {
    const both = await callError('eth_getLogs', [{ blockHash: `0x${'00'.repeat(32)}`, fromBlock: '0x0' }]);
    assert.equal(both.code, rpcErrorCode.invalidParams);
    const reversed = await callError('eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x1' }]);
    assert.equal(reversed.code, rpcErrorCode.invalidParams);
  });
});

describe('net and web3', () => {
  it('answer with the node\'s identity', async () => {
    assert.equal(await call('net_version'), '9000');
    assert.equal(await call('net_peerCount'), '0x0');
    assert.match(await call('web3_clientVersion'), /^svc-node\/v\d+\.\d+\.\d+[^/]*\/[a-z0-9]+-[a-z0-9]+\/node\d+\.\d+\.\d+$/);
    assert.equal(await call('web3_sha3', ['0x']), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    assert.deepEqual(await call('eth_accounts'), []);
    assert.equal(await call('eth_syncing'), false);
  });

  it('signing methods are -32004: the node holds no keys', async () => {
    const error = await callError('eth_sendTransaction', [{ from: account.address }]);
    assert.equal(error.code, rpcErrorCode.methodNotSupported);
  });
});
