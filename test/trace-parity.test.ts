// The Parity trace namespace through a node (docs/rpc.md, trace): trace_transaction, trace_get,
// trace_block and trace_filter answer reth's LocalizedTransactionTrace shape (the key sets of its
// call, create and suicide traces), with values computed from what the transactions did: a value
// transfer, a contract that creates with CREATE and CREATE2 (with value), pays an address and
// self-destructs a child, and a revert; and the filter's bounds.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, createWalletClient, encodeErrorResult, encodeFunctionData, getContractAddress, http, parseAbi, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { compileContracts } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

interface Trace {
  action: Record<string, unknown>;
  blockHash: string;
  blockNumber: number;
  result: Record<string, unknown> | null;
  error?: string;
  subtraces: number;
  traceAddress: number[];
  transactionHash: string;
  transactionPosition: number;
  type: 'call' | 'create' | 'suicide' | 'reward';
}

// reth's shapes (alloy-rpc-types-trace parity.rs, as reth's trace_transaction answers them).
const TRACE_KEYS = ['action', 'blockHash', 'blockNumber', 'result', 'subtraces', 'traceAddress', 'transactionHash', 'transactionPosition', 'type'];
const CALL_ACTION_KEYS = ['callType', 'from', 'gas', 'input', 'to', 'value'];
const CALL_RESULT_KEYS = ['gasUsed', 'output'];
const CREATE_ACTION_KEYS = ['creationMethod', 'from', 'gas', 'init', 'value'];
const CREATE_RESULT_KEYS = ['address', 'code', 'gasUsed'];
const SUICIDE_ACTION_KEYS = ['address', 'balance', 'refundAddress'];

const keys = (o: object | null | undefined) => Object.keys(o ?? {}).sort();
const lower = (a: string) => a.toLowerCase();

describe('Parity traces (trace_*)', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let url: string;
  const contracts = compileContracts('Operations.sol');
  const account = privateKeyToAccount(devPrivateKeys(10)[7]!);
  const payee: Address = '0x0000000000000000000000000000000000c0ffee';
  const salt = toHex(7n, { size: 32 });
  const tx = {} as Record<'transfer' | 'deploy' | 'spawn' | 'fail', { hash: Hex; block: number; index: number }>;
  let spawner: Address;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-parity-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    url = node.rpcUrl;
    const chain = svcDevnet(url);
    const client = createPublicClient({ chain, transport: http(url), pollingInterval: 25 });
    const wallet = createWalletClient({ account, chain, transport: http(url), pollingInterval: 25 });
    const send = async (name: keyof typeof tx, args: { to?: Address; data?: Hex; value?: bigint; gas: bigint }) => {
      const hash = await wallet.sendTransaction(args as never);
      const receipt = await client.waitForTransactionReceipt({ hash });
      tx[name] = { hash, block: Number(receipt.blockNumber), index: receipt.transactionIndex };
      return receipt;
    };
    await send('transfer', { to: payee, value: 3n, gas: 21_000n });
    spawner = (await send('deploy', { data: contracts.Spawner!.bytecode, gas: 2_000_000n })).contractAddress!;
    await send('spawn', { to: spawner, data: encodeFunctionData({ abi: contracts.Spawner!.abi, functionName: 'spawn', args: [salt, payee] }), value: 12n, gas: 1_000_000n });
    await send('fail', { to: spawner, data: encodeFunctionData({ abi: contracts.Spawner!.abi, functionName: 'fail' }), gas: 100_000n });
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const located = (t: Trace, which: keyof typeof tx) => {
    assert.deepEqual(keys(t).filter((k) => k !== 'error'), TRACE_KEYS);
    assert.equal(t.transactionHash, tx[which].hash);
    assert.equal(t.blockNumber, tx[which].block);
    assert.equal(t.transactionPosition, tx[which].index);
  };

  it('traces a value transfer as one call', async () => {
    const traces = await rpc<Trace[]>(url, 'trace_transaction', [tx.transfer.hash]);
    assert.equal(traces.length, 1);
    const [t] = traces as [Trace];
    located(t, 'transfer');
    const block = await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [toHex(tx.transfer.block), false]);
    assert.equal(t.blockHash, block.hash);
    assert.equal(t.type, 'call');
    assert.deepEqual(keys(t.action), CALL_ACTION_KEYS);
    assert.deepEqual(keys(t.result), CALL_RESULT_KEYS);
    assert.deepEqual(
      { from: lower(t.action.from as string), to: t.action.to, value: t.action.value, callType: t.action.callType, input: t.action.input },
      { from: lower(account.address), to: payee, value: '0x3', callType: 'call', input: '0x' },
    );
    assert.deepEqual(t.result, { gasUsed: '0x0', output: '0x' });
    assert.equal(t.subtraces, 0);
    assert.deepEqual(t.traceAddress, []);
  });

  it('traces creations, value moves and a self-destruct in call order with their places', async () => {
    const traces = await rpc<Trace[]>(url, 'trace_transaction', [tx.spawn.hash]);
    for (const t of traces) located(t, 'spawn');
    const c1 = lower(getContractAddress({ from: spawner, nonce: 1n }));
    const c2 = lower(getContractAddress({ opcode: 'CREATE2', from: spawner, salt, bytecode: contracts.Child!.bytecode }));
    const s = lower(spawner);
    assert.deepEqual(
      traces.map((t) => [t.type, t.traceAddress, t.subtraces]),
      [
        ['call', [], 4],
        ['create', [0], 0],
        ['create', [1], 0],
        ['call', [2], 0],
        ['call', [3], 1],
        ['suicide', [3, 0], 0],
      ],
    );
    const [top, create, create2, pay, leave, suicide] = traces as [Trace, Trace, Trace, Trace, Trace, Trace];
    assert.deepEqual([lower(top.action.from as string), lower(top.action.to as string), top.action.value], [lower(account.address), s, '0xc']);
    // The top call's gas: the limit less the intrinsic cost (21,000 and 4 or 16 per calldata byte), as reth answers it.
    const input = Buffer.from((top.action.input as string).slice(2), 'hex');
    const intrinsic = 21_000 + [...input].reduce((sum, b) => sum + (b === 0 ? 4 : 16), 0);
    assert.equal(top.action.gas, toHex(1_000_000 - intrinsic));
    for (const [t, address, method] of [[create, c1, 'create'], [create2, c2, 'create2']] as const) {
      assert.deepEqual(keys(t.action), CREATE_ACTION_KEYS);
      assert.deepEqual(keys(t.result), CREATE_RESULT_KEYS);
      assert.deepEqual([lower(t.action.from as string), t.action.value, t.action.creationMethod, t.action.init], [s, '0x4', method, contracts.Child!.bytecode]);
      assert.equal(lower(t.result!.address as string), address);
      assert.equal(t.result!.code, await rpc(url, 'eth_getCode', [c2, 'latest']), 'the deployed code');
    }
    assert.deepEqual([lower(pay.action.from as string), lower(pay.action.to as string), pay.action.value, pay.action.callType], [s, payee, '0x4', 'call']);
    assert.deepEqual([lower(leave.action.to as string), leave.action.value], [c1, '0x0']);
    assert.deepEqual(keys(suicide.action), SUICIDE_ACTION_KEYS);
    assert.deepEqual([lower(suicide.action.address as string), lower(suicide.action.refundAddress as string), suicide.action.balance, suicide.result], [c1, payee, '0x4', null]);

    // trace_get: the trace at a trace address.
    assert.deepEqual(await rpc(url, 'trace_get', [tx.spawn.hash, ['0x3', '0x0']]), suicide);
    assert.equal(await rpc(url, 'trace_get', [tx.spawn.hash, ['0x9']]), null);
  });

  it('marks a reverted call with its error, its result carrying the revert data (as reth does)', async () => {
    const [t] = await rpc<Trace[]>(url, 'trace_transaction', [tx.fail.hash]);
    assert.equal(t!.error, 'Reverted');
    assert.deepEqual(keys(t!.result), CALL_RESULT_KEYS);
    assert.equal(t!.result!.output, encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['nope'] }));
  });

  it('answers null for an unknown transaction and a block beyond the head', async () => {
    assert.equal(await rpc(url, 'trace_transaction', [`0x${'ab'.repeat(32)}`]), null);
    assert.equal(await rpc(url, 'trace_block', ['0xffffff']), null);
  });

  it('trace_block gives every transaction of the block', async () => {
    const traces = await rpc<Trace[]>(url, 'trace_block', [toHex(tx.spawn.block)]);
    const own = await rpc<Trace[]>(url, 'trace_transaction', [tx.spawn.hash]);
    assert.deepEqual(traces.filter((t) => t.transactionHash === tx.spawn.hash), own);
  });

  it('trace_filter selects by sender and receiver, then after and count', async () => {
    const range = { fromBlock: toHex(tx.transfer.block), toBlock: toHex(tx.fail.block) };
    const all = (await Promise.all((['transfer', 'deploy', 'spawn', 'fail'] as const).map((n) => rpc<Trace[]>(url, 'trace_transaction', [tx[n].hash])))).flat();
    const target = (t: Trace) => lower(String(t.action.to ?? t.action.refundAddress ?? (t.result as { address?: string } | null)?.address ?? ''));
    const from = await rpc<Trace[]>(url, 'trace_filter', [{ ...range, fromAddress: [spawner] }]);
    assert.deepEqual(from, all.filter((t) => lower(String(t.action.from ?? '')) === lower(spawner)));
    assert.equal(from.length, 4, 'two creations, the payment and the call to the child');
    const to = await rpc<Trace[]>(url, 'trace_filter', [{ ...range, toAddress: [payee] }]);
    assert.deepEqual(to, all.filter((t) => target(t) === payee));
    assert.deepEqual(to.map((t) => t.type), ['call', 'call', 'suicide'], 'the transfer, the payment and the self-destruct');
    const both = await rpc<Trace[]>(url, 'trace_filter', [{ ...range, fromAddress: [spawner], toAddress: [payee] }]);
    assert.deepEqual(both, [to[1]]);
    assert.deepEqual(await rpc(url, 'trace_filter', [{ ...range, toAddress: [payee], after: 1, count: 1 }]), [to[1]]);
  });

  it('refuses a trace_filter range or count beyond its bounds with -32602', async () => {
    const refused = async (filter: object, text: RegExp) => {
      await assert.rejects(rpc(url, 'trace_filter', [filter]), (err: unknown) => err instanceof JsonRpcError && err.code === -32602 && text.test(err.message));
    };
    await refused({ fromBlock: '0x0', toBlock: '0x64' }, /101 blocks, more than the 100/);
    await refused({ fromBlock: '0x2', toBlock: '0x1' }, /fromBlock cannot be greater than toBlock/);
    await refused({ fromBlock: '0x1', toBlock: '0x2', count: 1001 }, /count 1001/);
    await refused({ fromBlock: '0x1', toBlock: '0x2', fromAddress: ['0x12'] }, /fromAddress\[0\]/);
  });
});
