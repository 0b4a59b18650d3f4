// eth_simulateV1 through a node (docs/rpc.md): viem's simulateCalls and simulateBlocks against a
// devnet — calls that see each other's writes, a revert reported per call, logs, state and block
// overrides, blocks numbered and timed after the base — and the refusals.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseEther, type Address, type Chain, type PrivateKeyAccount, type PublicClient, type Transport, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { compileContracts } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

describe('eth_simulateV1', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let client: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let target: Address;
  const contracts = compileContracts('Tracing.sol');
  const abi = contracts.TraceTarget!.abi;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-simulate-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    const chain = svcDevnet(node.rpcUrl);
    client = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 25 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(10)[7]!), chain, transport: http(node.rpcUrl), pollingInterval: 25 });
    const hash = await wallet.deployContract({ abi, bytecode: contracts.TraceTarget!.bytecode });
    target = (await client.waitForTransactionReceipt({ hash })).contractAddress!;
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs viem's simulateCalls: each call sees the last's writes, a revert is reported per call, logs come back", async () => {
    const head = await client.getBlockNumber();
    const { results } = await client.simulateCalls({
      account: wallet.account.address,
      calls: [
        { to: target, abi, functionName: 'hit', args: [41n], value: 3n },
        { to: target, abi, functionName: 'x' },
        { to: target, abi, functionName: 'boom' },
      ],
    });
    assert.equal(results[0]!.status, 'success');
    assert.equal(results[0]!.logs!.length, 1);
    assert.equal(results[0]!.logs![0]!.address.toLowerCase(), target.toLowerCase());
    assert.equal(results[1]!.status, 'success');
    assert.equal(results[1]!.result, 41n, 'the second call reads what the first wrote');
    assert.equal(results[2]!.status, 'failure');
    assert.match(String(results[2]!.error), /boom/);
    // Nothing was written: the chain still reads 0.
    assert.equal(await client.readContract({ address: target, abi, functionName: 'x' }), 0n);
    assert.ok((await client.getBlockNumber()) >= head);
  });

  it('applies state and block overrides per block and numbers the blocks after the base', async () => {
    const base = await client.getBlock();
    const poor = '0x000000000000000000000000000000000000d00d' as Address;
    const blocks = await client.simulateBlocks({
      blockNumber: base.number,
      blocks: [
        {
          stateOverrides: [{ address: poor, balance: parseEther('2') }, { address: target, stateDiff: [{ slot: `0x${'0'.repeat(64)}`, value: `0x${'0'.repeat(62)}2a` }] }],
          calls: [
            { account: poor, to: target, abi, functionName: 'x' },
            { account: poor, to: target, data: encodeFunctionData({ abi, functionName: 'hit', args: [5n] }), value: parseEther('1') },
          ],
        },
        { blockOverrides: { time: base.timestamp + 100n }, calls: [{ account: poor, to: target, abi, functionName: 'x' }] },
      ],
    });
    assert.equal(blocks.length, 2);
    assert.equal(blocks[0]!.number, base.number + 1n);
    assert.equal(blocks[1]!.number, base.number + 2n);
    assert.equal(blocks[1]!.timestamp, base.timestamp + 100n);
    assert.equal(blocks[1]!.parentHash, blocks[0]!.hash);
    assert.equal(blocks[0]!.calls[0]!.result, 42n, 'the stateDiff override');
    assert.equal(blocks[0]!.calls[1]!.status, 'success', 'paid from the overridden balance');
    assert.equal(blocks[1]!.calls[0]!.result, 5n, 'the next block sees the first block');
    assert.ok(blocks[0]!.gasUsed > 21_000n);
  });

  it('refuses what it does not serve, and malformed input, with the codes geth uses', async () => {
    const refused = (params: unknown[]) =>
      rpc(node.rpcUrl, 'eth_simulateV1', params).then(
        () => assert.fail('answered'),
        (err: unknown) => err as JsonRpcError,
      );
    assert.equal((await refused([{ blockStateCalls: [{ calls: [] }], returnFullTransactions: true }])).code, -32602);
    assert.equal((await refused([{ blockStateCalls: [{ calls: [] }], traceTransfers: 1 }])).code, -32602);
    assert.equal((await refused([{ blockStateCalls: 'x' }])).code, -32602);
    assert.equal((await refused([{ blockStateCalls: [{ calls: [{ to: '0x12' }] }] }])).code, -32602);
    assert.equal((await refused([{ blockStateCalls: Array.from({ length: 257 }, () => ({ calls: [] })) }])).code, -38026);
    const head = await client.getBlockNumber();
    assert.equal((await refused([{ blockStateCalls: [{ blockOverrides: { number: `0x${head.toString(16)}` }, calls: [] }] }, 'latest'])).code, -38020);
    const invalid = await refused([
      { blockStateCalls: [{ calls: [{ from: wallet.account.address, to: target, nonce: '0x0' }] }], validation: true },
    ]);
    assert.equal(invalid.code, -38014);
  });
});
