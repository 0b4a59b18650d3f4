// geth's debug tracing through a node (docs/rpc.md, debug): the same transactions — a transfer, two
// contract creations, nested calls with value and a caught revert and a precompile, value to three
// addresses, a reverted call, a self-destruct and a direct precompile call — are sent to svc-node and
// to Hardhat's node (EDR), and the struct logger's traces (the tracer Hardhat serves) must be equal,
// field for field; callTracer, prestateTracer and 4byteTracer (which Hardhat does not serve) are
// checked against what the transactions did; the block and call forms and bad input too.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, createWalletClient, encodeFunctionData, http, type Address, type Chain, type Hex, type PrivateKeyAccount, type PublicClient, type Transport, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { startHardhat, type HardhatPeer } from './support/hardhat.js';
import { JsonRpcError, rpc, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { compileContracts } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

interface Side {
  url: string;
  client: PublicClient<Transport, Chain>;
  wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
}

interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: { address: string; topics: string[]; data: string }[];
}

interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
  error?: string;
}
interface StructTrace {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}

/** A struct-logger trace with the representation the two references differ in taken out (see the test). */
function normalize(t: StructTrace, withMemory: boolean) {
  const word = (v: string) => BigInt(v.startsWith('0x') ? v : `0x${v || '0'}`).toString(16);
  return {
    gas: t.gas,
    failed: t.failed,
    returnValue: t.returnValue.replace(/^0x/, ''),
    structLogs: t.structLogs.map((l) => ({
      pc: l.pc,
      op: l.op,
      gas: l.gas,
      gasCost: l.gasCost,
      depth: l.depth,
      ...(l.error ? { error: l.error } : {}),
      ...(l.refund ? { refund: l.refund } : {}),
      ...(l.stack ? { stack: l.stack.map(word) } : {}),
      ...(withMemory && l.memory && l.memory.length > 0 ? { memory: l.memory.map((m) => m.replace(/^0x/, '').toLowerCase()) } : {}),
      ...(l.storage && Object.keys(l.storage).length > 0 && (l.op === 'SLOAD' || l.op === 'SSTORE')
        ? { storage: Object.fromEntries(Object.entries(l.storage).map(([k, v]) => [word(k), word(v)])) }
        : {}),
    })),
  };
}

describe('debug tracing', { timeout: 240_000 }, () => {
  let node: RunningNode;
  let hardhat: HardhatPeer;
  let dataDir: string;
  const sides: Record<'svc' | 'hardhat', Side> = {} as never;
  const contracts = compileContracts('Tracing.sol');
  const target = contracts.TraceTarget!;
  const caller = contracts.TraceCaller!;
  const key = devPrivateKeys(10)[8]!;
  const sent: { name: string; svc: Hex; hardhat: Hex }[] = [];
  const addresses = { target: '' as Address, caller: '' as Address };
  const payees: Address[] = ['0x00000000000000000000000000000000000a11ce', '0x0000000000000000000000000000000000000b0b', '0x000000000000000000000000000000000000ca4e'];

  const side = (url: string, chain: Chain): Side => ({
    url,
    client: createPublicClient({ chain, transport: http(url), pollingInterval: 25 }),
    wallet: createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(url), pollingInterval: 25 }),
  });
  /** The same transaction on both chains (same sender, nonce and gas limit), waited for. */
  const both = async (name: string, tx: { to?: Address; data?: Hex; value?: bigint; gas: bigint }) => {
    const hashes = {} as { svc: Hex; hardhat: Hex };
    for (const s of ['svc', 'hardhat'] as const) {
      const { wallet, client } = sides[s];
      const hash = tx.to ? await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value ?? 0n, gas: tx.gas }) : await wallet.sendTransaction({ data: tx.data, gas: tx.gas } as never);
      await client.waitForTransactionReceipt({ hash });
      hashes[s] = hash;
    }
    sent.push({ name, ...hashes });
    return hashes;
  };

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-trace-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    hardhat = await startHardhat({ keepRevertedTransactions: true });
    sides.svc = side(node.rpcUrl, svcDevnet(node.rpcUrl));
    sides.hardhat = side(hardhat.url, { ...svcDevnet(hardhat.url), id: 9000 });

    await both('transfer', { to: payees[0], value: 1n, gas: 21_000n });
    const deployTarget = await both('create TraceTarget', { data: target.bytecode, gas: 1_000_000n });
    addresses.target = (await sides.svc.client.getTransactionReceipt({ hash: deployTarget.svc })).contractAddress!;
    assert.equal((await sides.hardhat.client.getTransactionReceipt({ hash: deployTarget.hardhat })).contractAddress?.toLowerCase(), addresses.target.toLowerCase(), 'the same address on both chains');
    const deployCaller = await both('create TraceCaller', { data: caller.bytecode, gas: 1_000_000n });
    addresses.caller = (await sides.svc.client.getTransactionReceipt({ hash: deployCaller.svc })).contractAddress!;
    await both('nested calls with value, a caught revert and a precompile', {
      to: addresses.caller,
      data: encodeFunctionData({ abi: caller.abi, functionName: 'nested', args: [addresses.target] }),
      value: 5n,
      gas: 300_000n,
    });
    await both('value to three addresses', { to: addresses.caller, data: encodeFunctionData({ abi: caller.abi, functionName: 'fanout', args: [payees] }), value: 30n, gas: 300_000n });
    await both('a reverted call', { to: addresses.target, data: encodeFunctionData({ abi: target.abi, functionName: 'boom' }), gas: 100_000n });
    await both('a self-destruct', { to: addresses.caller, data: encodeFunctionData({ abi: caller.abi, functionName: 'destroy', args: [payees[1]!] }), gas: 100_000n });
    await both('a precompile call', { to: '0x0000000000000000000000000000000000000002', data: '0x1234', gas: 100_000n });
  });

  after(async () => {
    await node?.stop();
    await hardhat?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("gives Hardhat's struct logs for every transaction, step for step", async () => {
    for (const tx of sent) {
      for (const options of [{}, { enableMemory: true }, { disableStack: true, disableStorage: true }]) {
        const ours = await rpc<StructTrace>(node.rpcUrl, 'debug_traceTransaction', [tx.svc, options]);
        const theirs = await rpc<StructTrace>(hardhat.url, 'debug_traceTransaction', [tx.hardhat, options]);
        // Where the references differ (docs/rpc.md, debug), svc-node writes what geth writes today:
        // returnValue "0x" when empty (Hardhat ""), stack words as minimal 0x quantities (Hardhat: 64
        // hex digits, as geth before 1.11), memory only with enableMemory (Hardhat: always, geth's old
        // default) and storage at SLOAD and SSTORE (Hardhat: {} at every step). The values must be the same.
        assert.match(ours.returnValue, /^0x/, `${tx.name}: returnValue`);
        const withMemory = 'enableMemory' in options;
        if (!withMemory) assert.ok(ours.structLogs.every((l) => l.memory === undefined), `${tx.name}: no memory unless asked for`);
        assert.deepEqual(normalize(ours, withMemory), normalize(theirs, withMemory), `${tx.name} with ${JSON.stringify(options)}`);
      }
    }
    const nested = await rpc<StructTrace>(node.rpcUrl, 'debug_traceTransaction', [sent[3]!.svc]);
    assert.ok(nested.structLogs.length > 100 && nested.structLogs.some((l) => l.depth === 2), 'the nested call is traced into');
    assert.ok(nested.structLogs.some((l) => l.op === 'SSTORE' && l.storage && Object.keys(l.storage).length === 1), 'storage at SSTORE');
  });

  it('callTracer shows calls with value, the caught revert with its reason, the precompile, logs and the self-destruct', async () => {
    const trace = (hash: Hex, tracerConfig: Record<string, unknown> = {}) => rpc<CallFrame>(node.rpcUrl, 'debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig }]);
    const lower = (a: string) => a.toLowerCase();
    const fanout = await trace(sent[4]!.svc);
    assert.equal(fanout.type, 'CALL');
    assert.equal(lower(fanout.to!), lower(addresses.caller));
    assert.equal(fanout.value, '0x1e');
    assert.deepEqual(fanout.calls!.map((c) => [c.type, lower(c.to!), c.value]), payees.map((p) => ['CALL', lower(p), '0xa']));

    const nested = await trace(sent[3]!.svc, { withLog: true });
    const [hit, boom, sha] = nested.calls!;
    assert.deepEqual([hit!.type, lower(hit!.to!), hit!.value], ['CALL', lower(addresses.target), '0x5']);
    assert.equal(hit!.logs!.length, 1);
    assert.equal(boom!.error, 'execution reverted');
    assert.equal(boom!.revertReason, 'boom');
    assert.deepEqual([sha!.type, sha!.to], ['STATICCALL', '0x0000000000000000000000000000000000000002']);
    const onlyTop = await trace(sent[3]!.svc, { onlyTopCall: true });
    assert.equal(onlyTop.calls, undefined);

    const reverted = await trace(sent[5]!.svc);
    assert.equal(reverted.error, 'execution reverted');
    assert.equal(reverted.revertReason, 'boom');
    const destroyed = await trace(sent[6]!.svc);
    assert.equal(destroyed.calls![0]!.type, 'SELFDESTRUCT');
    assert.equal(lower(destroyed.calls![0]!.to!), lower(payees[1]!));
    const created = await trace(sent[1]!.svc);
    assert.equal(created.type, 'CREATE');
    assert.equal(lower(created.to!), lower(addresses.target));
    // gasUsed of the top frame is the receipt's.
    const receipt = await sides.svc.client.getTransactionReceipt({ hash: sent[3]!.svc });
    assert.equal(BigInt(nested.gasUsed), receipt.gasUsed);
  });

  it('prestateTracer and 4byteTracer report what the call read and changed', async () => {
    const hash = sent[3]!.svc;
    const pre = await rpc<Record<string, { balance?: string; storage?: Record<string, string> }>>(node.rpcUrl, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }]);
    assert.ok(pre[addresses.target.toLowerCase()], JSON.stringify(Object.keys(pre)));
    const diff = await rpc<{ pre: Record<string, { storage?: Record<string, string> }>; post: Record<string, { storage?: Record<string, string>; balance?: string }> }>(
      node.rpcUrl,
      'debug_traceTransaction',
      [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }],
    );
    const post = diff.post[addresses.target.toLowerCase()]!;
    assert.equal(post.storage!['0x0000000000000000000000000000000000000000000000000000000000000000'], '0x0000000000000000000000000000000000000000000000000000000000000007');
    assert.equal(post.balance, '0x5');
    const fourByte = await rpc<Record<string, number>>(node.rpcUrl, 'debug_traceTransaction', [hash, { tracer: '4byteTracer' }]);
    const selectors = Object.keys(fourByte).map((k) => k.split('-')[0]);
    assert.ok(selectors.includes(encodeFunctionData({ abi: target.abi, functionName: 'boom' }).slice(0, 10)), JSON.stringify(fourByte));
    assert.deepEqual(await rpc(node.rpcUrl, 'debug_traceTransaction', [hash, { tracer: 'noopTracer' }]), {});
  });

  it('traces whole blocks by number and hash, and calls', async () => {
    const receipt = await sides.svc.client.getTransactionReceipt({ hash: sent[4]!.svc });
    const byNumber = await rpc<{ txHash: string; result: CallFrame }[]>(node.rpcUrl, 'debug_traceBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`, { tracer: 'callTracer' }]);
    assert.ok(byNumber.some((t) => t.txHash === sent[4]!.svc && t.result.calls!.length === 3), JSON.stringify(byNumber).slice(0, 300));
    const byHash = await rpc(node.rpcUrl, 'debug_traceBlockByHash', [receipt.blockHash, { tracer: 'callTracer' }]);
    assert.deepEqual(byHash, byNumber);
    const call = await rpc<CallFrame>(node.rpcUrl, 'debug_traceCall', [
      { from: sides.svc.wallet.account.address, to: addresses.target, data: encodeFunctionData({ abi: target.abi, functionName: 'hit', args: [9n] }) },
      'latest',
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ]);
    assert.equal(call.logs!.length, 1);
    assert.equal(call.error, undefined);
  });

  it("indexes internal transactions for the explorer: the fanout's three transfers, per transaction and per address", async () => {
    const api = `${node.explorerUrl}/api/v1`;
    const get = async <T>(p: string) => ((await (await fetch(`${api}${p}`)).json()) as { data: T }).data;
    const fanout = sent[4]!.svc;
    const items = await waitFor(
      'internal transactions indexed',
      async () => {
        const list = await get<{ from: string; to: string; value: string; type: string; traceAddress: number[]; success: boolean }[]>(`/transactions/${fanout}/internal-transactions`);
        return list.length > 0 ? list : undefined;
      },
      20_000,
      50,
    );
    assert.deepEqual(
      items.map((t) => [t.type, t.from.toLowerCase(), t.to.toLowerCase(), t.value, t.traceAddress, t.success]),
      payees.map((p, i) => ['call', addresses.caller.toLowerCase(), p, '10', [i], true]),
    );
    const page = await get<{ items: { transactionHash: string; value: string }[] }>(`/addresses/${payees[2]}/internal-transactions`);
    assert.deepEqual(page.items.map((t) => [t.transactionHash, t.value]), [[fanout, '10']]);
    const sentBy = await get<{ items: { transactionHash: string }[] }>(`/addresses/${addresses.caller}/internal-transactions?filter=from`);
    assert.ok(sentBy.items.filter((t) => t.transactionHash === fanout).length === 3);
    // The nested call's value to the target and the self-destruct's beneficiary are there too.
    const nested = await get<{ type: string; to: string; value: string }[]>(`/transactions/${sent[3]!.svc}/internal-transactions`);
    assert.deepEqual(nested.map((t) => [t.type, t.to.toLowerCase(), t.value]), [['call', addresses.target.toLowerCase(), '5']]);
    const destroyed = await get<{ type: string; to: string }[]>(`/transactions/${sent[6]!.svc}/internal-transactions`);
    assert.deepEqual(destroyed.map((t) => [t.type, t.to.toLowerCase()]), [['selfdestruct', payees[1]]]);
    const unknown = await fetch(`${api}/transactions/0x${'ab'.repeat(32)}/internal-transactions`);
    assert.equal(unknown.status, 404);
  });

  it('answers bad input with the right codes', async () => {
    const refused = (method: string, params: unknown[]) =>
      rpc(node.rpcUrl, method, params).then(
        () => assert.fail(`${method} answered`),
        (err: unknown) => err as JsonRpcError,
      );
    assert.equal((await refused('debug_traceTransaction', [sent[3]!.svc, { tracer: 'nonsenseTracer' }])).code, -32602);
    assert.equal((await refused('debug_traceTransaction', [sent[3]!.svc, { tracer: 'function() { return 1; }' }])).code, -32602);
    assert.equal((await refused('debug_traceTransaction', [sent[3]!.svc, 'callTracer'])).code, -32602);
    assert.equal((await refused('debug_traceTransaction', ['0x1234'])).code, -32602);
    const missing = await refused('debug_traceTransaction', [`0x${'ab'.repeat(32)}`]);
    assert.equal(missing.code, -32000);
    assert.match(missing.message, /transaction not found/);
    assert.equal((await refused('debug_traceBlockByNumber', ['0xffffff'])).code, -32000);
    // Limits: a timeout that is not a duration or is above the most allowed is -32602; one too short stops the trace.
    const soon = await refused('debug_traceTransaction', [sent[3]!.svc, { timeout: 'soon' }]);
    assert.equal(soon.code, -32602);
    assert.match(soon.message, /^invalid argument 1: /);
    // An option's text is never echoed whole (a megabyte of it is answered in a short message), and
    // debug_traceCall names its options as argument 2.
    const long = await refused('debug_traceCall', [{ to: addresses.target }, 'latest', { timeout: `9${'x'.repeat(1_000_000)}` }]);
    assert.equal(long.code, -32602);
    assert.match(long.message, /^invalid argument 2: timeout "9x+…" is not a duration/);
    assert.ok(long.message.length < 200, `${long.message.length} characters`);
    const config = await refused('debug_traceCall', [{ to: addresses.target }, 'latest', { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'y'.repeat(1_000_000) } }]);
    assert.equal(config.code, -32602);
    assert.match(config.message, /^invalid argument 2: tracerConfig: /);
    assert.ok(config.message.length < 200, `${config.message.length} characters`);
    assert.equal((await refused('debug_traceTransaction', [sent[3]!.svc, { timeout: '10m' }])).code, -32602);
    const slow = await refused('debug_traceTransaction', [sent[3]!.svc, { timeout: '1ns' }]);
    assert.equal(slow.code, -32000);
    assert.match(slow.message, /execution timeout/);
    assert.ok(await rpc(node.rpcUrl, 'debug_traceTransaction', [sent[3]!.svc, { timeout: '30s', tracer: 'callTracer' }]));
    // The struct logger stops past 500,000 steps (its JSON would be over 100 MB); callTracer does not count steps.
    const spin = { from: sides.svc.wallet.account.address, to: addresses.target, data: encodeFunctionData({ abi: target.abi, functionName: 'spin', args: [40_000n] }) };
    const big = await refused('debug_traceCall', [spin, 'latest', {}]);
    assert.equal(big.code, -32000);
    assert.match(big.message, /more than 500000 steps/);
    const frame = await rpc<CallFrame>(node.rpcUrl, 'debug_traceCall', [spin, 'latest', { tracer: 'callTracer' }]);
    assert.equal(frame.error, undefined);
  });
});
