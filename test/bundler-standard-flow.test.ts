// The flow every ERC-4337 SDK runs against the node's bundler: estimate with a stub signature, then
// send the estimated values with the real signature. The estimate's preVerificationGas covers any
// real signature (the stub is priced as a full-size signature of non-zero bytes, by the function the
// check uses); viem's bundler client with permissionless's SimpleAccount sends 50 operations in a
// row with the node's own estimates and every one lands; the identical operation sent again while it
// is pending is refused (-32602 "Already known").
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  concat,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  http,
  parseAbi,
  parseEther,
  parseGwei,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBundlerClient, entryPoint06Address, entryPoint07Address, type BundlerClient } from 'viem/account-abstraction';
import { toSimpleSmartAccount } from 'permissionless/accounts';
import { preVerificationGas } from '../src/aa/bundler.js';
import { parseOperation } from '../src/aa/user-operation.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const OPEN_ACCOUNT = parseAbi(['function execute(address dest, uint256 value, bytes data)']);
const recipient = '0x00000000000000000000000000000000000beef2' as Address;
const hex = (n: bigint): Hex => `0x${n.toString(16)}`;

describe("the bundler accepts what it estimated (viem's standard flow)", { timeout: 300_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let publicClient: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let bundlerClient: BundlerClient;

  async function mined(hash: Hex) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return receipt;
  }

  /** An OpenAccount (any signature of 65 bytes is valid) for `entryPoint`, funded. */
  async function openAccount(version: '0.6' | '0.7'): Promise<Address> {
    const entryPoint = version === '0.6' ? entryPoint06Address : entryPoint07Address;
    const contract = compileContract('AaTestAccounts.sol', version === '0.6' ? 'OpenAccountV06' : 'OpenAccountV07');
    const receipt = await mined(await wallet.sendTransaction({ data: concat([contract.bytecode, encodeAbiParameters([{ type: 'address' }], [entryPoint])]), gas: 3_000_000n }));
    await mined(await wallet.sendTransaction({ to: receipt.contractAddress!, value: parseEther('1') }));
    return receipt.contractAddress!;
  }

  async function receiptOf(hash: Hex): Promise<{ success: boolean }> {
    for (let i = 0; i < 400; i++) {
      const r = (await rpc(node.rpcUrl, 'eth_getUserOperationReceipt', [hash])) as { success: boolean } | null;
      if (r) return r;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no receipt for ${hash}`);
  }

  /** A request for `sender` in ERC-7769's JSON shape: the gas members left out, as viem estimates. */
  async function request(version: '0.6' | '0.7', sender: Address, signature: Hex): Promise<Record<string, string>> {
    const block = await publicClient.getBlock();
    const entryPoint = version === '0.6' ? entryPoint06Address : entryPoint07Address;
    const nonce = (await rpc(node.rpcUrl, 'eth_call', [
      { to: entryPoint, data: encodeFunctionData({ abi: parseAbi(['function getNonce(address, uint192) view returns (uint256)']), functionName: 'getNonce', args: [sender, 0n] }) },
      'latest',
    ])) as Hex;
    return {
      sender,
      nonce: hex(BigInt(nonce)),
      callData: encodeFunctionData({ abi: OPEN_ACCOUNT, functionName: 'execute', args: [recipient, 1n, '0x'] }),
      maxFeePerGas: hex(block.baseFeePerGas! * 2n + parseGwei('1')),
      maxPriorityFeePerGas: hex(parseGwei('1')),
      signature,
      ...(version === '0.6' ? { initCode: '0x', paymasterAndData: '0x' } : {}),
    };
  }

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bundler-flow-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    const chain = svcDevnet(node.rpcUrl);
    publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 25 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(8)[7]!), chain, transport: http(node.rpcUrl), pollingInterval: 25 });
    bundlerClient = createBundlerClient({ client: publicClient, chain, transport: http(node.rpcUrl), pollingInterval: 25 });
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  for (const version of ['0.6', '0.7'] as const) {
    it(`v${version}: estimated with a stub signature of 65 zero bytes, the operation with any real signature needs no more preVerificationGas (50 random signatures); the signed one lands`, async () => {
      const entryPoint = version === '0.6' ? entryPoint06Address : entryPoint07Address;
      const sender = await openAccount(version);
      const stub = await request(version, sender, `0x${'00'.repeat(65)}`);
      const estimate = (await rpc(node.rpcUrl, 'eth_estimateUserOperationGas', [stub, entryPoint])) as Record<string, Hex>;
      const estimated = BigInt(estimate.preVerificationGas!);
      const withEstimate = { ...stub, callGasLimit: estimate.callGasLimit!, verificationGasLimit: estimate.verificationGasLimit!, preVerificationGas: estimate.preVerificationGas! };
      // A stub shorter than a signature is priced as a full-size one too.
      const short = (await rpc(node.rpcUrl, 'eth_estimateUserOperationGas', [{ ...stub, signature: '0x' }, entryPoint])) as Record<string, Hex>;
      assert.equal(BigInt(short.preVerificationGas!), estimated);
      for (let i = 0; i < 50; i++) {
        const signed = parseOperation({ ...withEstimate, signature: `0x${randomBytes(65).toString('hex')}` }, entryPoint, 'send');
        const required = preVerificationGas(signed);
        assert.ok(required <= estimated, `signature ${i}: ${required} required, ${estimated} estimated`);
      }
      const hash = (await rpc(node.rpcUrl, 'eth_sendUserOperation', [{ ...withEstimate, signature: `0x${randomBytes(65).toString('hex')}` }, entryPoint])) as Hex;
      assert.equal((await receiptOf(hash)).success, true);
    });
  }

  it('the identical operation sent again while it is pending: -32602 "Already known"; it lands once', async () => {
    const sender = await openAccount('0.7');
    const stub = await request('0.7', sender, `0x${'11'.repeat(65)}`);
    const estimate = (await rpc(node.rpcUrl, 'eth_estimateUserOperationGas', [stub, entryPoint07Address])) as Record<string, Hex>;
    const e = parseOperation({ ...stub, ...estimate }, entryPoint07Address, 'send');
    const bundler = node.services.bundler;
    const hash = await bundler.send(e);
    // No await between: the operation is pooled until a block carries it, which cannot happen before this call runs.
    const again = bundler.send(e);
    await assert.rejects(again, (err: Error & { code?: number }) => {
      assert.equal(err.code, -32602, err.message);
      assert.match(err.message, /^Already known: user operation 0x[0-9a-f]{64} is already in this node's pool/);
      return true;
    });
    assert.ok(bundler.pool.get(hash), 'still pooled');
    assert.equal((await receiptOf(hash)).success, true);
  });

  it("viem's createBundlerClient with permissionless's toSimpleSmartAccount: 50 operations in a row with the node's estimates, every one lands", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const account = await toSimpleSmartAccount({ client: publicClient, owner, entryPoint: { address: entryPoint07Address, version: '0.7' } });
    await mined(await wallet.sendTransaction({ to: account.address, value: parseEther('1') }));
    const before = await publicClient.getBalance({ address: recipient });
    for (let i = 0; i < 50; i++) {
      const hash = await bundlerClient.sendUserOperation({ account, calls: [{ to: recipient, value: 1n }] });
      const receipt = await bundlerClient.waitForUserOperationReceipt({ hash });
      assert.equal(receipt.success, true, `operation ${i}`);
    }
    assert.equal(await publicClient.getBalance({ address: recipient }), before + 50n);
  });
});
