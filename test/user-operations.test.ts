// ERC-7769 read methods: eth_getUserOperationByHash and eth_getUserOperationReceipt find user
// operations that a plain EOA put on chain through handleOps of EntryPoint v0.6 and v0.7, raw and
// through viem's bundler client.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  numberToHex,
  parseEther,
  parseEventLogs,
  parseGwei,
  toEventSelector,
  concat,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  createBundlerClient,
  entryPoint06Abi,
  entryPoint07Abi,
  toPackedUserOperation,
  UserOperationNotFoundError,
  UserOperationReceiptNotFoundError,
  type BundlerClient,
  type UserOperation,
} from 'viem/account-abstraction';
import { ENTRY_POINT_V06, ENTRY_POINT_V07, SIMPLE_ACCOUNT_FACTORY_V06, SIMPLE_ACCOUNT_FACTORY_V07 } from '../src/chain/account-abstraction.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { SIMPLE_ACCOUNT_ABI, SIMPLE_ACCOUNT_FACTORY_ABI, signUserOperation } from './support/simple-account.js';
import { svcDevnet } from './support/viem-chain.js';

const CHAIN_ID = 9000;
const DEPOSITED = toEventSelector('Deposited(address indexed account, uint256 totalDeposit)');
const REVERT_REASON = toEventSelector('UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)');

/** A v0.6 operation with every field of the on-chain struct. */
type Op06 = Required<Omit<UserOperation<'0.6'>, 'authorization'>>;

interface ByHash {
  userOperation: Record<string, unknown>;
  entryPoint: Address;
  transactionHash: Hex;
  blockHash: Hex;
  blockNumber: Hex;
}
interface Receipt {
  userOpHash: Hex;
  entryPoint: Address;
  sender: Address;
  nonce: Hex;
  paymaster: Address;
  actualGasCost: Hex;
  actualGasUsed: Hex;
  success: boolean;
  reason?: Hex;
  logs: { address: Address; topics: Hex[]; data: Hex; transactionHash: Hex }[];
  receipt: { transactionHash: Hex; blockHash: Hex; blockNumber: Hex; status: Hex };
}

describe('ERC-7769 user operation reads', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let publicClient: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let bundler: BundlerClient;
  const owner = privateKeyToAccount('0x7769776977697769776977697769776977697769776977697769776977697769');
  const depositFor = '0x000000000000000000000000000000000000d3d0' as Address;
  const recipient = '0x00000000000000000000000000000000000c0ffe' as Address;

  // v0.7: two operations in one handleOps (the first deposits, the second's call reverts); v0.6: one.
  let ok07: { hash: Hex; op: UserOperation<'0.7'>; txHash: Hex };
  let failed07: { hash: Hex; op: UserOperation<'0.7'>; txHash: Hex };
  let ok06: { hash: Hex; op: Op06; txHash: Hex };

  async function fund(address: Address): Promise<void> {
    const hash = await wallet.sendTransaction({ to: address, value: parseEther('1') });
    await publicClient.waitForTransactionReceipt({ hash });
  }

  async function sendOps(to: Address, data: Hex): Promise<Hex> {
    const hash = await wallet.sendTransaction({ to, data, gas: 5_000_000n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return hash;
  }

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-user-operations-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    const chain = svcDevnet(node.rpcUrl);
    publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(3)[2]!), chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    bundler = createBundlerClient({ chain, transport: http(node.rpcUrl) });

    // v0.7
    const senders = await Promise.all(
      [1n, 2n].map((salt) => publicClient.readContract({ address: SIMPLE_ACCOUNT_FACTORY_V07, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, salt] })),
    );
    for (const s of senders) await fund(s);
    const base = {
      nonce: 0n,
      factory: SIMPLE_ACCOUNT_FACTORY_V07 as Address,
      callGasLimit: 200_000n,
      verificationGasLimit: 500_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
      signature: '0x' as Hex,
    };
    const opA: UserOperation<'0.7'> = {
      ...base,
      sender: senders[0]!,
      factoryData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, 1n] }),
      callData: encodeFunctionData({
        abi: SIMPLE_ACCOUNT_ABI,
        functionName: 'execute',
        args: [ENTRY_POINT_V07, parseEther('0.1'), encodeFunctionData({ abi: entryPoint07Abi, functionName: 'depositTo', args: [depositFor] })],
      }),
    };
    // getSenderAddress always reverts (SenderAddressResult): the account's call fails with that data.
    const opB: UserOperation<'0.7'> = {
      ...base,
      sender: senders[1]!,
      factoryData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, 2n] }),
      callData: encodeFunctionData({
        abi: SIMPLE_ACCOUNT_ABI,
        functionName: 'execute',
        args: [ENTRY_POINT_V07, 0n, encodeFunctionData({ abi: entryPoint07Abi, functionName: 'getSenderAddress', args: [concat([SIMPLE_ACCOUNT_FACTORY_V07, '0x'])] })],
      }),
    };
    const hashes: Hex[] = [];
    for (const op of [opA, opB]) {
      hashes.push(await signUserOperation(owner, '0.7', op, CHAIN_ID));
    }
    const tx07 = await sendOps(
      ENTRY_POINT_V07,
      encodeFunctionData({ abi: entryPoint07Abi, functionName: 'handleOps', args: [[opA, opB].map((o) => toPackedUserOperation(o)), wallet.account.address] }),
    );
    ok07 = { hash: hashes[0]!, op: opA, txHash: tx07 };
    failed07 = { hash: hashes[1]!, op: opB, txHash: tx07 };

    // v0.6: SimpleAccount v0.6 checks the owner's EIP-191 signature of the v0.6 hash.
    const sender06 = await publicClient.readContract({ address: SIMPLE_ACCOUNT_FACTORY_V06, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, 3n] });
    await fund(sender06);
    const op06: Op06 = {
      sender: sender06,
      nonce: 0n,
      initCode: concat([SIMPLE_ACCOUNT_FACTORY_V06, encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, 3n] })]),
      callData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_ABI, functionName: 'execute', args: [recipient, parseEther('0.25'), '0x'] }),
      callGasLimit: 100_000n,
      verificationGasLimit: 500_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
      paymasterAndData: '0x',
      signature: '0x',
    };
    const hash06 = await signUserOperation(owner, '0.6', op06, CHAIN_ID);
    const tx06 = await sendOps(ENTRY_POINT_V06, encodeFunctionData({ abi: entryPoint06Abi, functionName: 'handleOps', args: [[op06], wallet.account.address] }));
    ok06 = { hash: hash06, op: op06, txHash: tx06 };
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the operations ran as built (one success, one failed call, one v0.6)', async () => {
    const r07 = await publicClient.getTransactionReceipt({ hash: ok07.txHash });
    const events = parseEventLogs({ abi: entryPoint07Abi, logs: r07.logs, eventName: 'UserOperationEvent' });
    assert.deepEqual(events.map((e) => [e.args.userOpHash, e.args.success]), [[ok07.hash, true], [failed07.hash, false]]);
    const r06 = await publicClient.getTransactionReceipt({ hash: ok06.txHash });
    const [e06] = parseEventLogs({ abi: entryPoint06Abi, logs: r06.logs, eventName: 'UserOperationEvent' });
    assert.equal(e06?.args.userOpHash, ok06.hash);
    assert.equal(e06?.args.success, true);
  });

  it('eth_getUserOperationByHash answers a v0.7 operation unpacked', async () => {
    const answer = await rpc<ByHash>(node.rpcUrl, 'eth_getUserOperationByHash', [ok07.hash]);
    const tx = await publicClient.getTransactionReceipt({ hash: ok07.txHash });
    assert.equal(answer.entryPoint, ENTRY_POINT_V07);
    assert.equal(answer.transactionHash, ok07.txHash);
    assert.equal(answer.blockHash, tx.blockHash);
    assert.equal(answer.blockNumber, numberToHex(tx.blockNumber));
    const op = ok07.op;
    assert.deepEqual(answer.userOperation, {
      sender: op.sender,
      nonce: '0x0',
      callData: op.callData,
      verificationGasLimit: numberToHex(op.verificationGasLimit),
      callGasLimit: numberToHex(op.callGasLimit),
      preVerificationGas: numberToHex(op.preVerificationGas),
      maxPriorityFeePerGas: numberToHex(op.maxPriorityFeePerGas),
      maxFeePerGas: numberToHex(op.maxFeePerGas),
      signature: op.signature,
      factory: op.factory,
      factoryData: op.factoryData,
    });
  });

  it('eth_getUserOperationByHash answers a v0.6 operation', async () => {
    const answer = await rpc<ByHash>(node.rpcUrl, 'eth_getUserOperationByHash', [ok06.hash]);
    assert.equal(answer.entryPoint, ENTRY_POINT_V06);
    assert.equal(answer.transactionHash, ok06.txHash);
    const op = ok06.op;
    assert.deepEqual(answer.userOperation, {
      sender: op.sender,
      nonce: '0x0',
      initCode: op.initCode.toLowerCase(),
      callData: op.callData,
      callGasLimit: numberToHex(op.callGasLimit),
      verificationGasLimit: numberToHex(op.verificationGasLimit),
      preVerificationGas: numberToHex(op.preVerificationGas),
      maxFeePerGas: numberToHex(op.maxFeePerGas),
      maxPriorityFeePerGas: numberToHex(op.maxPriorityFeePerGas),
      paymasterAndData: '0x',
      signature: op.signature,
    });
  });

  it('eth_getUserOperationReceipt of a successful v0.7 operation: its fields and its execution logs', async () => {
    const answer = await rpc<Receipt>(node.rpcUrl, 'eth_getUserOperationReceipt', [ok07.hash]);
    assert.equal(answer.userOpHash, ok07.hash);
    assert.equal(answer.entryPoint, ENTRY_POINT_V07);
    assert.equal(answer.sender, ok07.op.sender);
    assert.equal(answer.nonce, '0x0');
    assert.equal(answer.paymaster, '0x0000000000000000000000000000000000000000');
    assert.equal(answer.success, true);
    assert.equal(answer.reason, undefined);
    assert.ok(BigInt(answer.actualGasCost) > 0n && BigInt(answer.actualGasUsed) > 0n);
    // Only the deposit its call made: not the deployment's logs (validation) nor the other operation's.
    assert.deepEqual(answer.logs.map((l) => [l.address, l.topics[0]]), [[ENTRY_POINT_V07, DEPOSITED]]);
    assert.equal(answer.receipt.transactionHash, ok07.txHash);
    assert.equal(answer.receipt.status, '0x1');
  });

  it('eth_getUserOperationReceipt of a v0.7 operation whose call reverted has the reason', async () => {
    const answer = await rpc<Receipt>(node.rpcUrl, 'eth_getUserOperationReceipt', [failed07.hash]);
    assert.equal(answer.userOpHash, failed07.hash);
    assert.equal(answer.sender, failed07.op.sender);
    assert.equal(answer.success, false);
    // SenderAddressResult(address): the selector and one word.
    assert.ok(answer.reason?.startsWith('0x6ca7b806'), String(answer.reason));
    assert.equal((answer.reason!.length - 2) / 2, 36);
    assert.deepEqual(answer.logs.map((l) => l.topics[0]), [REVERT_REASON]);
    assert.equal(answer.receipt.transactionHash, failed07.txHash);
  });

  it('eth_getUserOperationReceipt of a v0.6 operation', async () => {
    const answer = await rpc<Receipt>(node.rpcUrl, 'eth_getUserOperationReceipt', [ok06.hash]);
    assert.equal(answer.entryPoint, ENTRY_POINT_V06);
    assert.equal(answer.sender, ok06.op.sender);
    assert.equal(answer.success, true);
    assert.deepEqual(answer.logs, []);
    assert.equal(answer.receipt.transactionHash, ok06.txHash);
  });

  it("viem's bundler client parses both answers", async () => {
    for (const { hash, txHash, entryPoint, sender } of [
      { ...ok07, entryPoint: ENTRY_POINT_V07, sender: ok07.op.sender },
      { ...ok06, entryPoint: ENTRY_POINT_V06, sender: ok06.op.sender },
    ]) {
      const found = await bundler.getUserOperation({ hash });
      assert.equal(found.entryPoint, entryPoint);
      assert.equal(found.transactionHash, txHash);
      assert.equal(typeof found.blockNumber, 'bigint');
      assert.equal(found.userOperation.sender, sender);
      assert.equal(found.userOperation.nonce, 0n);
      assert.equal(typeof found.userOperation.callGasLimit, 'bigint');
      const receipt = await bundler.getUserOperationReceipt({ hash });
      assert.equal(receipt.userOpHash, hash);
      assert.equal(receipt.success, true);
      assert.equal(receipt.nonce, 0n);
      assert.equal(typeof receipt.actualGasCost, 'bigint');
      assert.equal(receipt.receipt.transactionHash, txHash);
      assert.equal(receipt.receipt.status, 'success');
      assert.equal(typeof receipt.receipt.blockNumber, 'bigint');
    }
    const waited = await bundler.waitForUserOperationReceipt({ hash: ok07.hash, pollingInterval: 50, timeout: 5_000 });
    assert.equal(waited.receipt.transactionHash, ok07.txHash);
  });

  it('an unknown hash is null (viem: not found errors)', async () => {
    const unknown = `0x${'ab'.repeat(32)}` as Hex;
    assert.equal(await rpc(node.rpcUrl, 'eth_getUserOperationByHash', [unknown]), null);
    assert.equal(await rpc(node.rpcUrl, 'eth_getUserOperationReceipt', [unknown]), null);
    // A transaction hash is not an operation hash.
    assert.equal(await rpc(node.rpcUrl, 'eth_getUserOperationByHash', [ok07.txHash]), null);
    await assert.rejects(bundler.getUserOperation({ hash: unknown }), (e: unknown) => e instanceof UserOperationNotFoundError);
    await assert.rejects(bundler.getUserOperationReceipt({ hash: unknown }), (e: unknown) => e instanceof UserOperationReceiptNotFoundError);
  });

  it('malformed params are -32602', async () => {
    for (const m of ['eth_getUserOperationByHash', 'eth_getUserOperationReceipt']) {
      for (const params of [['0x1234'], ['ab'.repeat(32)], [`0x${'zz'.repeat(32)}`], [], [42]]) {
        await assert.rejects(rpc(node.rpcUrl, m, params), (e: unknown) => e instanceof JsonRpcError && e.code === -32602, `${m} ${JSON.stringify(params)}`);
      }
    }
  });
});
