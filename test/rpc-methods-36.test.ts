// The eth_* methods geth serves that tools call (docs/rpc.md): the `pending` block built from the
// pool, eth_blobBaseFee, eth_getStorageValues, eth_sendRawTransactionSync (EIP-7966),
// eth_getTransactionBySenderAndNonce, eth_getHeaderBy*, eth_protocolVersion, eth_config (EIP-7910)
// and eth_simulateV1's traceTransfers, against one devnet node whose blocks the test produces. The
// answers are checked against geth's recorded shapes and against values worked out here.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeDeployData, encodeFunctionData, getContractAddress, keccak256, pad, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID } from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { devnetConfig } from './support/node-config.js';
import { compileContracts } from './support/solc.js';

/** geth's RPCMarshalHeader keys for a Prague block (go-ethereum internal/ethapi). */
const GETH_HEADER_KEYS = [
  'baseFeePerGas', 'blobGasUsed', 'difficulty', 'excessBlobGas', 'extraData', 'gasLimit', 'gasUsed', 'hash', 'logsBloom', 'miner', 'mixHash', 'nonce',
  'number', 'parentBeaconBlockRoot', 'parentHash', 'receiptsRoot', 'requestsHash', 'sha3Uncles', 'stateRoot', 'timestamp', 'transactionsRoot', 'withdrawalsRoot',
].sort();
/** What geth's RPCMarshalBlock adds to the header. */
const GETH_BLOCK_KEYS = [...GETH_HEADER_KEYS, 'size', 'transactions', 'uncles', 'withdrawals'].sort();
/** The node's additions (docs/rpc.md): every header's millisecond time; blocks also carry geth's former totalDifficulty (0). */
const HEADER_KEYS = [...GETH_HEADER_KEYS, 'timestampMs'].sort();
const BLOCK_KEYS = [...GETH_BLOCK_KEYS, 'timestampMs', 'totalDifficulty'].sort();
/** geth's EIP-7966 answer when the wait ends (errCodeTxSyncTimeout). */
const TX_SYNC_TIMEOUT = 4;
const ETHER = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const TRANSFER_TOPIC = keccak256(toHex('Transfer(address,address,uint256)'));
const BLOCK_TIME_MS = 3_600_000;

const [alice, bob, carol] = devPrivateKeys(10).slice(4, 7).map((k) => privateKeyToAccount(k));
const contracts = compileContracts('Tracing.sol');

let dataDir: string;
let node: RunningNode;
let url: string;

async function post(method: string, params: unknown[]): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: any; error?: { code: number; message: string; data?: unknown } };
}

async function call(method: string, params: unknown[] = []): Promise<any> {
  const reply = await post(method, params);
  if (reply.error) throw Object.assign(new Error(`${method}: ${reply.error.message}`), reply.error);
  return reply.result;
}

async function callError(method: string, params: unknown[]): Promise<{ code: number; message: string; data?: unknown }> {
  const reply = await post(method, params);
  assert.ok(reply.error, `${method} should fail, got ${JSON.stringify(reply)}`);
  return reply.error;
}

async function sign(account = alice, tx: { to?: Address; data?: Hex; value?: bigint; nonce?: number } = {}): Promise<Hex> {
  const nonce = tx.nonce ?? Number(BigInt(await call('eth_getTransactionCount', [account.address, 'pending'])));
  const baseFee = BigInt(await call('eth_gasPrice'));
  return account.signTransaction({ chainId: CHAIN_ID.devnet, type: 'eip1559', gas: 300_000n, maxFeePerGas: baseFee * 2n, maxPriorityFeePerGas: 1n, to: bob.address, ...tx, nonce });
}

/** CRC-32 (IEEE), bit by bit: EIP-6122's FORK_HASH of a chain without forks is that of its genesis hash. */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

const sortedKeys = (o: object): string[] => Object.keys(o).sort();

describe('eth_* methods tools call (issue 36)', { timeout: 120_000 }, () => {
  let target: Address;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-rpc-36-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: BLOCK_TIME_MS }));
    url = `http://127.0.0.1:${node.rpcPort}/`;
    const t = contracts.TraceTarget!;
    const deploy = await call('eth_sendRawTransaction', [await sign(alice, { to: undefined, data: encodeDeployData({ abi: t.abi, bytecode: t.bytecode }) })]);
    await node.driver.produceNext();
    target = (await call('eth_getTransactionReceipt', [deploy])).contractAddress;
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers `pending` with the block after the head built from the pool, as geth does', async () => {
    const head = await call('eth_getBlockByNumber', ['latest', false]);
    const n = Number(BigInt(await call('eth_getTransactionCount', [alice.address, 'latest'])));
    const a0 = await call('eth_sendRawTransaction', [await sign(alice, { value: 5n })]);
    const a1 = await call('eth_sendRawTransaction', [await sign(alice, { value: 6n })]);
    // A nonce gap: queued, so not in the next block.
    const gap = Number(BigInt(await call('eth_getTransactionCount', [carol.address, 'latest']))) + 1;
    await call('eth_sendRawTransaction', [await sign(carol, { nonce: gap })]);

    const pending = await call('eth_getBlockByNumber', ['pending', false]);
    assert.deepEqual(sortedKeys(pending), BLOCK_KEYS);
    assert.deepEqual(sortedKeys(head), BLOCK_KEYS);
    assert.equal(BigInt(pending.number), BigInt(head.number) + 1n);
    assert.equal(pending.hash, null);
    assert.equal(pending.nonce, null);
    assert.equal(pending.miner, null);
    assert.equal(pending.parentHash, head.hash);
    assert.ok(BigInt(pending.timestamp) >= BigInt(head.timestamp));
    assert.ok(BigInt(pending.timestampMs) > BigInt(head.timestampMs));
    assert.equal(pending.baseFeePerGas, toHex(BigInt(await call('eth_gasPrice')) - BigInt(await call('eth_maxPriorityFeePerGas'))));
    assert.deepEqual(pending.transactions, [a0, a1]);
    assert.equal(await call('eth_getBlockTransactionCountByNumber', ['pending']), '0x2');
    assert.equal(await call('eth_getTransactionCount', [alice.address, 'pending']), toHex(n + 2));
    // State reads at `pending` read the head's state.
    assert.equal(await call('eth_getBalance', [alice.address, 'pending']), await call('eth_getBalance', [alice.address, 'latest']));

    const full = await call('eth_getBlockByNumber', ['pending', true]);
    assert.equal(full.transactions.length, 2);
    for (const [i, tx] of full.transactions.entries()) {
      assert.equal(tx.blockHash, null);
      assert.equal(tx.blockNumber, pending.number);
      assert.equal(tx.transactionIndex, toHex(i));
      assert.equal(tx.from.toLowerCase(), alice.address.toLowerCase());
      assert.equal(tx.to.toLowerCase(), bob.address.toLowerCase());
      assert.equal(BigInt(tx.value), BigInt(5 + i));
      assert.equal(BigInt(tx.nonce), BigInt(n + i));
    }
    assert.deepEqual(await call('eth_getTransactionByBlockNumberAndIndex', ['pending', '0x1']), full.transactions[1]);
    assert.equal(keccak256(await call('eth_getRawTransactionByBlockNumberAndIndex', ['pending', '0x0'])), a0);
    assert.equal(await call('eth_getTransactionByBlockNumberAndIndex', ['pending', '0x2']), null);

    const header = await call('eth_getHeaderByNumber', ['pending']);
    assert.deepEqual(sortedKeys(header), HEADER_KEYS);
    assert.equal(header.hash, null);
    assert.equal(header.number, pending.number);

    await node.driver.produceNext();
    const mined = await call('eth_getBlockByNumber', ['latest', false]);
    assert.deepEqual(mined.transactions, [a0, a1], 'the pending block was what the next block took');
    assert.deepEqual((await call('eth_getBlockByNumber', ['pending', false])).transactions, []);
  });

  it('finds a transaction by sender and nonce: mined, pooled, or none', async () => {
    const latest = Number(BigInt(await call('eth_getTransactionCount', [alice.address, 'latest'])));
    for (const nonce of [0, Math.floor(latest / 2), latest - 1]) {
      const tx = await call('eth_getTransactionBySenderAndNonce', [alice.address, toHex(nonce)]);
      assert.equal(BigInt(tx.nonce), BigInt(nonce));
      assert.deepEqual(tx, await call('eth_getTransactionByHash', [tx.hash]));
    }
    const pooled = await call('eth_sendRawTransaction', [await sign(alice)]);
    const found = await call('eth_getTransactionBySenderAndNonce', [alice.address, toHex(latest)]);
    assert.equal(found.hash, pooled);
    assert.equal(found.blockHash, null);
    assert.equal(await call('eth_getTransactionBySenderAndNonce', [alice.address, toHex(latest + 5)]), null);
    assert.equal(await call('eth_getTransactionBySenderAndNonce', [carol.address, '0x0']), null);
    assert.equal((await callError('eth_getTransactionBySenderAndNonce', [alice.address])).code, -32602);
    assert.equal((await callError('eth_getTransactionBySenderAndNonce', ['0x12', '0x0'])).code, -32602);
    await node.driver.produceNext();
  });

  it('eth_sendRawTransactionSync answers the receipt once mined, and code 4 with the hash at its timeout', async () => {
    const raw = await sign(alice, { value: 7n });
    const answer = post('eth_sendRawTransactionSync', [raw, 10_000]);
    await new Promise((r) => setTimeout(r, 100));
    await node.driver.produceNext();
    const { result } = await answer;
    assert.equal(result.transactionHash, keccak256(raw));
    assert.deepEqual(result, await call('eth_getTransactionReceipt', [keccak256(raw)]));
    assert.equal(result.status, '0x1');

    const late = await sign(alice);
    const timedOut = await callError('eth_sendRawTransactionSync', [late, '0xc8']);
    assert.equal(timedOut.code, TX_SYNC_TIMEOUT);
    assert.equal(timedOut.message, "The transaction was added to the transaction pool but wasn't processed in 200ms");
    assert.equal(timedOut.data, keccak256(late));
    assert.ok(await call('eth_getTransactionByHash', [keccak256(late)]), 'it stays in the pool');
    await node.driver.produceNext();

    assert.equal((await callError('eth_sendRawTransactionSync', ['0x'])).code, -32602);
    assert.equal((await callError('eth_sendRawTransactionSync', [late, 'soon'])).code, -32602);
    assert.equal((await callError('eth_sendRawTransactionSync', [late, -1])).code, -32602);
    // A refused transaction is refused at once, as eth_sendRawTransaction refuses it.
    assert.equal((await callError('eth_sendRawTransactionSync', [late])).code, -32003);
  });

  it('eth_getStorageValues reads many slots of many accounts at one block, within geth’s cap', async () => {
    const before = await call('eth_blockNumber');
    const hit = encodeFunctionData({ abi: contracts.TraceTarget!.abi, functionName: 'hit', args: [41n] });
    await call('eth_sendRawTransaction', [await sign(alice, { to: target, data: hit })]);
    await node.driver.produceNext();
    const slots = ['0x0', pad('0x1'), '0x05'];
    const answer = await call('eth_getStorageValues', [{ [target]: slots, [bob.address]: ['0x0'] }, 'latest']);
    assert.deepEqual(Object.keys(answer).sort(), [target.toLowerCase(), bob.address.toLowerCase()].sort());
    assert.deepEqual(answer[target.toLowerCase()], [pad(toHex(41)), pad('0x0'), pad('0x0')]);
    for (const [i, slot] of slots.entries()) assert.equal(answer[target.toLowerCase()][i], await call('eth_getStorageAt', [target, slot, 'latest']));
    assert.deepEqual(answer[bob.address.toLowerCase()], [pad('0x0')]);
    const old = await call('eth_getStorageValues', [{ [target]: ['0x0'] }, before]);
    assert.deepEqual(old[target.toLowerCase()], [pad('0x0')]);

    const tooMany = await callError('eth_getStorageValues', [{ [target]: Array.from({ length: 1025 }, (_, i) => toHex(i)) }, 'latest']);
    assert.equal(tooMany.code, -32602);
    assert.match(tooMany.message, /too many slots \(max 1024\)/);
    assert.match((await callError('eth_getStorageValues', [{}, 'latest'])).message, /empty request/);
    assert.equal((await callError('eth_getStorageValues', [{ '0x12': ['0x0'] }, 'latest'])).code, -32602);
    assert.equal((await callError('eth_getStorageValues', [{ [target]: '0x0' }, 'latest'])).code, -32602);
    assert.equal((await callError('eth_getStorageValues', [{ [target]: ['0x0'] }])).code, -32602);
  });

  it('serves eth_blobBaseFee, eth_getHeaderBy*, eth_protocolVersion and eth_config', async () => {
    assert.equal(await call('eth_blobBaseFee'), '0x1');
    const block = await call('eth_getBlockByNumber', ['latest', false]);
    const header = await call('eth_getHeaderByHash', [block.hash]);
    assert.deepEqual(sortedKeys(header), HEADER_KEYS);
    for (const key of HEADER_KEYS) assert.deepEqual(header[key], block[key], key);
    assert.deepEqual(await call('eth_getHeaderByNumber', [block.number]), header);
    assert.equal(await call('eth_getHeaderByNumber', [toHex(BigInt(block.number) + 100n)]), null);
    assert.equal(await call('eth_getHeaderByHash', [pad('0x1')]), null);
    assert.equal((await callError('eth_getHeaderByNumber', ['next'])).code, -32602);
    assert.equal(await call('eth_protocolVersion'), '0x44');

    const config = await call('eth_config');
    assert.deepEqual(sortedKeys(config), ['current', 'last', 'next']);
    assert.equal(config.next, null);
    assert.equal(config.last, null);
    const c = config.current;
    assert.deepEqual(sortedKeys(c), ['activationTime', 'blobSchedule', 'chainId', 'forkId', 'precompiles', 'systemContracts']);
    assert.equal(c.activationTime, 0);
    assert.equal(c.blobSchedule, null);
    assert.equal(c.chainId, await call('eth_chainId'));
    const genesis = await call('eth_getBlockByNumber', ['0x0', false]);
    assert.equal(c.forkId, `0x${crc32(Buffer.from(genesis.hash.slice(2), 'hex')).toString(16).padStart(8, '0')}`);
    assert.equal(Object.keys(c.precompiles).length, 17);
    assert.equal(c.precompiles.ECREC, '0x0000000000000000000000000000000000000001');
    assert.equal(c.precompiles.BLS12_MAP_FP2_TO_G2, '0x0000000000000000000000000000000000000011');
    // The precompiles it names answer as precompiles: sha256("") from SHA256's address.
    const sha = await call('eth_call', [{ to: c.precompiles.SHA256, data: '0x' }, 'latest']);
    assert.equal(sha, '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    for (const [name, address] of Object.entries(c.systemContracts)) {
      assert.match(name, /^[A-Z_]+_MODULE_ADDRESS$/);
      assert.match(String(address), /^0x[0-9a-f]{40}$/);
    }
    assert.ok(Object.keys(c.systemContracts).length > 0);
  });

  it('eth_simulateV1 with traceTransfers logs every ether move as an ERC-7528 Transfer, in order', async () => {
    const caller = '0x00000000000000000000000000000000000ca11e' as Address;
    const sink = '0x000000000000000000000000000000000000beef' as Address;
    const abi = contracts.TraceCaller!.abi;
    const word = (a: string): string => pad(a.toLowerCase() as Hex);
    const transfer = (from: string, to: string, value: bigint) => ({ address: ETHER, topics: [TRANSFER_TOPIC, word(from), word(to)], data: pad(toHex(value)) });
    const simulate = (traceTransfers: boolean, calls: unknown[]) =>
      call('eth_simulateV1', [
        { traceTransfers, blockStateCalls: [{ stateOverrides: { [caller]: { code: contracts.TraceCaller!.deployedBytecode, balance: toHex(10) } }, calls }] },
        'latest',
      ]);
    const nonce = Number(BigInt(await call('eth_getTransactionCount', [alice.address, 'latest'])));
    const calls = [
      { from: alice.address, to: bob.address, value: toHex(9) },
      { from: alice.address, to: caller, value: toHex(4), data: encodeFunctionData({ abi, functionName: 'fanout', args: [[bob.address, sink]] }) },
      { from: alice.address, to: caller, value: toHex(3), data: encodeFunctionData({ abi, functionName: 'nested', args: [target] }) },
      { from: alice.address, to: target, value: toHex(1), data: encodeFunctionData({ abi: contracts.TraceTarget!.abi, functionName: 'boom' }) },
      // A creation with value (init code STOP), and a self-destruct that sends the caller's balance on (its 10 wei: what came in went out).
      { from: alice.address, value: toHex(8), data: '0x00' },
      { from: alice.address, to: caller, data: encodeFunctionData({ abi, functionName: 'destroy', args: [sink] }) },
    ];
    const [traced] = await simulate(true, calls);
    const logs = traced.calls.map((c: any) => c.logs.map((l: any) => ({ address: l.address.toLowerCase(), topics: l.topics, data: l.data })));
    assert.deepEqual(logs[0], [transfer(alice.address, bob.address, 9n)]);
    assert.deepEqual(logs[1], [transfer(alice.address, caller, 4n), transfer(caller, bob.address, 2n), transfer(caller, sink, 2n)]);
    // nested: the value in, then on to the target, then the target's own Hit log; the caught revert moves nothing.
    assert.equal(logs[2].length, 3);
    assert.deepEqual(logs[2].slice(0, 2), [transfer(alice.address, caller, 3n), transfer(caller, target, 3n)]);
    assert.equal(logs[2][2].address, target.toLowerCase());
    assert.equal(traced.calls[3].status, '0x0');
    assert.deepEqual(logs[3], [], 'a reverted call moves nothing');
    assert.deepEqual(logs[4], [transfer(alice.address, getContractAddress({ from: alice.address, nonce: BigInt(nonce + 4) }), 8n)]);
    assert.deepEqual(logs[5], [transfer(caller, sink, 10n)]);
    // Log indexes run on across the block's calls.
    const indexes = traced.calls.flatMap((c: any) => c.logs.map((l: any) => Number(BigInt(l.logIndex))));
    assert.deepEqual(indexes, indexes.map((_: number, i: number) => i));

    const [plain] = await simulate(false, calls);
    assert.deepEqual(plain.calls.map((c: any) => c.logs.length), [0, 0, 1, 0, 0, 0]);
    assert.equal((await callError('eth_simulateV1', [{ traceTransfers: 'yes', blockStateCalls: [{ calls: [] }] }, 'latest'])).code, -32602);
  });
});
