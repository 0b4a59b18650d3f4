// The explorer's view of ERC-4337 and EIP-7702 on an in-process devnet: a transaction's user
// operations (from a plain EOA's handleOps on EntryPoint v0.7), an address's user operations, a
// type-4 transaction's authorization list, and a wallet following its own operations with a
// standard eth_subscribe("logs") filter on the EntryPoints' UserOperationEvent.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  http,
  pad,
  parseEther,
  parseEventLogs,
  parseGwei,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { entryPoint07Abi, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import WebSocket from 'ws';
import { ENTRY_POINT_V06, ENTRY_POINT_V07, SIMPLE_ACCOUNT_FACTORY_V07 } from '../src/chain/account-abstraction.js';
import { USER_OPERATION_EVENT } from '../src/chain/user-operation-events.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { explorerClient } from './support/explorer-client.js';
import { devnetConfig } from './support/node-config.js';
import { compileContract } from './support/solc.js';
import { SIMPLE_ACCOUNT_ABI, SIMPLE_ACCOUNT_FACTORY_ABI, signUserOperation } from './support/simple-account.js';
import { svcDevnet } from './support/viem-chain.js';

const CHAIN_ID = 9000;

interface WsLog {
  address: Hex;
  topics: Hex[];
  transactionHash: Hex;
}

interface UserOperationView {
  userOpHash: Hex;
  entryPoint: string;
  sender: string;
  paymaster: string | null;
  nonce: string;
  success: boolean;
  actualGasCost: string;
  actualGasUsed: string;
  transactionHash?: Hex;
  blockNumber?: number;
}

describe('explorer: user operations and EIP-7702 authorizations', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let base: string;
  let publicClient: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let socket: WebSocket;
  const followed: WsLog[] = [];
  const owner = privateKeyToAccount('0x7769776977697769776977697769776977697769776977697769776977697769');
  const recipient = '0x00000000000000000000000000000000000c0ffe' as Address;
  let senders: Address[];
  let first: { txHash: Hex; hashes: Hex[] };
  let second: { txHash: Hex; hash: Hex };
  const { ok } = explorerClient(() => base);

  async function send(to: Address, data: Hex): Promise<Hex> {
    const hash = await wallet.sendTransaction({ to, data, gas: 5_000_000n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return hash;
  }

  /** Signs `ops` (SimpleAccount v0.7 checks the owner's EIP-191 signature of the hash) and runs them in one handleOps. */
  async function handleOps(ops: UserOperation<'0.7'>[]): Promise<{ txHash: Hex; hashes: Hex[] }> {
    const hashes: Hex[] = [];
    for (const op of ops) {
      hashes.push(await signUserOperation(owner, '0.7', op, CHAIN_ID));
    }
    const txHash = await send(
      ENTRY_POINT_V07,
      encodeFunctionData({ abi: entryPoint07Abi, functionName: 'handleOps', args: [ops.map((o) => toPackedUserOperation(o)), wallet.account.address] }),
    );
    return { txHash, hashes };
  }

  function operation(sender: Address, nonce: bigint, salt?: bigint): UserOperation<'0.7'> {
    return {
      sender,
      nonce,
      ...(salt === undefined
        ? {}
        : { factory: SIMPLE_ACCOUNT_FACTORY_V07 as Address, factoryData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, salt] }) }),
      callData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_ABI, functionName: 'execute', args: [recipient, parseEther('0.01'), '0x'] }),
      callGasLimit: 100_000n,
      verificationGasLimit: 500_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
      signature: '0x',
    };
  }

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-explorer-user-operations-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    base = `${node.explorerUrl}/api/v1`;
    const chain = svcDevnet(node.rpcUrl);
    publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(3)[2]!), chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    senders = await Promise.all(
      [1n, 2n].map((salt) => publicClient.readContract({ address: SIMPLE_ACCOUNT_FACTORY_V07, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, salt] })),
    );
    for (const s of senders) {
      const hash = await wallet.sendTransaction({ to: s, value: parseEther('1') });
      await publicClient.waitForTransactionReceipt({ hash });
    }

    // The wallet of senders[0] follows its operations, before any is sent.
    socket = new WebSocket(node.wsUrl);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const subscribed = new Promise<string>((resolve) => {
      socket.on('message', (raw) => {
        const msg = JSON.parse(raw.toString()) as { id?: number; result?: string; method?: string; params?: { result: WsLog } };
        if (msg.id === 1) resolve(msg.result!);
        else if (msg.method === 'eth_subscription') followed.push(msg.params!.result);
      });
    });
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_subscribe',
        params: ['logs', { address: [ENTRY_POINT_V06, ENTRY_POINT_V07], topics: [USER_OPERATION_EVENT, null, pad(senders[0]!)] }],
      }),
    );
    assert.match(await subscribed, /^0x[0-9a-f]+$/);

    // One handleOps deploys both accounts; a second runs senders[0]'s next operation.
    first = await handleOps([operation(senders[0]!, 0n, 1n), operation(senders[1]!, 0n, 2n)]);
    const next = await handleOps([operation(senders[0]!, 1n)]);
    second = { txHash: next.txHash, hash: next.hashes[0]! };
  });

  after(async () => {
    socket?.close();
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("shows a handleOps transaction's user operations as its UserOperationEvents say", async () => {
    const tx = await ok<{ type: number; authorizationList: unknown; userOperations: UserOperationView[] }>(`/transactions/${first.txHash}`);
    assert.equal(tx.type, 2);
    assert.equal(tx.authorizationList, null);
    const receipt = await publicClient.getTransactionReceipt({ hash: first.txHash });
    const events = parseEventLogs({ abi: entryPoint07Abi, logs: receipt.logs, eventName: 'UserOperationEvent' });
    assert.equal(events.length, 2);
    assert.deepEqual(
      tx.userOperations,
      events.map((e) => ({
        userOpHash: e.args.userOpHash,
        entryPoint: ENTRY_POINT_V07,
        sender: getAddress(e.args.sender),
        paymaster: null,
        nonce: e.args.nonce.toString(),
        success: true,
        actualGasCost: e.args.actualGasCost.toString(),
        actualGasUsed: e.args.actualGasUsed.toString(),
      })),
    );
    assert.deepEqual(tx.userOperations.map((o) => o.userOpHash), first.hashes);
    assert.deepEqual(tx.userOperations.map((o) => o.sender), senders.map((s) => getAddress(s)));
    assert.ok(BigInt(tx.userOperations[0]!.actualGasCost) > 0n);
  });

  it('shows no user operations for a plain transfer', async () => {
    const hash = await wallet.sendTransaction({ to: recipient, value: 1n });
    await publicClient.waitForTransactionReceipt({ hash });
    const tx = await ok<{ userOperations: unknown[]; authorizationList: unknown }>(`/transactions/${hash}`);
    assert.deepEqual(tx.userOperations, []);
    assert.equal(tx.authorizationList, null);
  });

  it("lists an address's user operations newest first, one page at a time", async () => {
    const page = await ok<{ items: UserOperationView[]; next: string | null }>(`/addresses/${senders[0]}/user-operations?limit=1`);
    assert.equal(page.items.length, 1);
    assert.equal(page.items[0]!.userOpHash, second.hash);
    assert.equal(page.items[0]!.transactionHash, second.txHash);
    assert.equal(page.items[0]!.nonce, '1');
    assert.ok(page.next);
    const rest = await ok<{ items: UserOperationView[]; next: string | null }>(`/addresses/${senders[0]}/user-operations?limit=1&cursor=${page.next}`);
    assert.deepEqual(rest.items.map((o) => [o.userOpHash, o.transactionHash, o.nonce]), [[first.hashes[0], first.txHash, '0']]);
    const end = rest.next ? await ok<{ items: unknown[]; next: string | null }>(`/addresses/${senders[0]}/user-operations?limit=1&cursor=${rest.next}`) : { items: [], next: null };
    assert.deepEqual(end.items, []);
    const other = await ok<{ items: UserOperationView[] }>(`/addresses/${senders[1]}/user-operations`);
    assert.deepEqual(other.items.map((o) => o.userOpHash), [first.hashes[1]]);
    const none = await ok<{ items: unknown[]; next: string | null }>(`/addresses/${recipient}/user-operations`);
    assert.deepEqual(none, { items: [], next: null, prev: null });
  });

  it("a logs subscription on the EntryPoints' UserOperationEvent with topic 2 = sender gets that sender's operations only", async () => {
    for (let i = 0; i < 100 && followed.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      followed.map((l) => [l.address.toLowerCase(), l.topics[1], l.topics[2]!.toLowerCase(), l.transactionHash]),
      [
        [ENTRY_POINT_V07.toLowerCase(), first.hashes[0], pad(senders[0]!).toLowerCase(), first.txHash],
        [ENTRY_POINT_V07.toLowerCase(), second.hash, pad(senders[0]!).toLowerCase(), second.txHash],
      ],
    );
  });

  it("shows a type-4 transaction's authorization list", async () => {
    const delegate = compileContract('Delegate.sol', 'Delegate');
    const deployHash = await wallet.deployContract({ abi: delegate.abi, bytecode: delegate.bytecode });
    const impl = (await publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress!;
    const alice = privateKeyToAccount(devPrivateKeys(5)[4]!);
    const aliceWallet = createWalletClient({ account: alice, chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 });
    const authorization = await aliceWallet.signAuthorization({ contractAddress: impl, executor: 'self' });
    const data = encodeFunctionData({ abi: delegate.abi, functionName: 'ping' });
    const hash = await aliceWallet.sendTransaction({ authorizationList: [authorization], to: alice.address, data });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, 'success');
    const tx = await ok<{ type: number; authorizationList: Record<string, unknown>[]; userOperations: unknown[] }>(`/transactions/${hash}`);
    assert.equal(tx.type, 4);
    assert.deepEqual(tx.userOperations, []);
    assert.equal(tx.authorizationList.length, 1);
    const [a] = tx.authorizationList;
    assert.equal(a!.chainId, CHAIN_ID);
    assert.equal(a!.address, getAddress(impl));
    assert.equal(a!.nonce, Number(authorization.nonce));
    assert.equal(a!.yParity, authorization.yParity);
    assert.equal(BigInt(a!.r as string), BigInt(authorization.r));
    assert.equal(BigInt(a!.s as string), BigInt(authorization.s));
  });
});
