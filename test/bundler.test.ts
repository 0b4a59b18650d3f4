// The node's ERC-4337 bundler end to end: viem's bundler client with the SimpleAccount that
// permissionless ships (EntryPoint v0.7 and v0.6, the genesis factories), the spec's
// svc_sendUserOperation with the v0.6 shape, a VerifyingPaymaster-sponsored operation, and the
// ERC-7769 refusals, each of which must leave the pool, the EntryPoint's nonce and every balance as
// they were.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  concat,
  createPublicClient,
  createWalletClient,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
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
import {
  createBundlerClient,
  entryPoint06Abi,
  entryPoint06Address,
  entryPoint07Abi,
  entryPoint07Address,
  getUserOperationHash,
  toPackedUserOperation,
  type BundlerClient,
  type UserOperation,
} from 'viem/account-abstraction';
import { toSimpleSmartAccount } from 'permissionless/accounts';
import { verifyingPaymasterV07 } from '../src/chain/entrypoints.generated.js';
import { bundlerAccount } from '../src/chain/dev-accounts.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const CHAIN_ID = 9000;
const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)', 'function balanceOf(address) view returns (uint256)']);
const PAYMASTER = parseAbi([
  'struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }',
  'function getHash(PackedUserOperation userOp, uint48 validUntil, uint48 validAfter) view returns (bytes32)',
  'function deposit() payable',
  'function getDeposit() view returns (uint256)',
]);
const OPEN_ACCOUNT = parseAbi(['function execute(address dest, uint256 value, bytes data)']);

type Json = Record<string, string>;

function hex(n: bigint): Hex {
  return `0x${n.toString(16)}`;
}

/** A v0.7 operation in ERC-7769's JSON shape. */
function json07(op: UserOperation<'0.7'>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(op)) if (v !== undefined) out[k] = typeof v === 'bigint' ? hex(v) : String(v);
  return out;
}

/** A v0.6 operation in the spec's shape: every member present. */
function json06(op: Required<Omit<UserOperation<'0.6'>, 'authorization'>>): Json {
  return {
    sender: op.sender,
    nonce: hex(op.nonce),
    initCode: op.initCode,
    callData: op.callData,
    callGasLimit: hex(op.callGasLimit),
    verificationGasLimit: hex(op.verificationGasLimit),
    preVerificationGas: hex(op.preVerificationGas),
    maxFeePerGas: hex(op.maxFeePerGas),
    maxPriorityFeePerGas: hex(op.maxPriorityFeePerGas),
    paymasterAndData: op.paymasterAndData,
    signature: op.signature,
  };
}

async function rejected(p: Promise<unknown>, code: number, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof JsonRpcError, String(err));
    assert.equal(err.code, code, `${err.code} ${err.message}`);
    assert.match(err.message, message);
    return true;
  });
}

describe('the node bundler (ERC-4337, ERC-7769, ERC-7562)', { timeout: 300_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let publicClient: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let bundlerClient: BundlerClient;
  let token: Address;
  const owner = privateKeyToAccount('0x4337433743374337433743374337433743374337433743374337433743374337');
  const recipient = '0x00000000000000000000000000000000000beef1' as Address;

  async function mined(hash: Hex) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return receipt;
  }

  async function deploy(bytecode: Hex, args: Hex = '0x'): Promise<Address> {
    const receipt = await mined(await wallet.sendTransaction({ data: concat([bytecode, args]), gas: 5_000_000n }));
    return receipt.contractAddress!;
  }

  async function fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const block = await publicClient.getBlock();
    return { maxFeePerGas: block.baseFeePerGas! * 2n + parseGwei('1'), maxPriorityFeePerGas: parseGwei('1') };
  }

  async function receiptOf(hash: Hex): Promise<Record<string, unknown>> {
    for (let i = 0; i < 200; i++) {
      const r = (await rpc(node.rpcUrl, 'eth_getUserOperationReceipt', [hash])) as Record<string, unknown> | null;
      if (r) return r;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no receipt for ${hash}`);
  }

  async function nonceOf(sender: Address, entryPoint: Address = entryPoint07Address): Promise<bigint> {
    return publicClient.readContract({ address: entryPoint, abi: entryPoint07Abi, functionName: 'getNonce', args: [sender, 0n] });
  }

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bundler-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 400, logLevel: (process.env.BUNDLER_TEST_LOG as never) ?? 'silent' }));
    const chain = svcDevnet(node.rpcUrl);
    publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(6)[5]!), chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    bundlerClient = createBundlerClient({ client: publicClient, chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    const tokenContract = compileContract('TestToken.sol', 'TestToken');
    token = await deploy(tokenContract.bytecode, encodeAbiParameters([{ type: 'uint256' }], [10n ** 24n]));
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the genesis EntryPoints through eth_supportedEntryPoints and svc_supportedEntryPoints', async () => {
    const expected = [entryPoint06Address, entryPoint07Address];
    assert.deepEqual(await rpc(node.rpcUrl, 'eth_supportedEntryPoints', []), expected);
    assert.deepEqual(await rpc(node.rpcUrl, 'svc_supportedEntryPoints', []), expected);
    assert.deepEqual(await bundlerClient.getSupportedEntryPoints(), expected);
  });

  it('v0.7 with viem: the first operation deploys the account, the second moves ETH and an ERC-20, receipts through eth_getUserOperationReceipt', async () => {
    const account = await toSimpleSmartAccount({ client: publicClient, owner, entryPoint: { address: entryPoint07Address, version: '0.7' } });
    assert.equal(await publicClient.getCode({ address: account.address }), undefined);
    await mined(await wallet.sendTransaction({ to: account.address, value: parseEther('1') }));
    const beneficiary = node.coinbase;

    const first = await bundlerClient.sendUserOperation({ account, calls: [{ to: recipient, value: 1_000n }] });
    const r1 = await bundlerClient.waitForUserOperationReceipt({ hash: first });
    assert.equal(r1.success, true);
    assert.notEqual(await publicClient.getCode({ address: account.address }), undefined, 'deployed by the first operation');
    assert.equal(await publicClient.getBalance({ address: recipient }), 1_000n);
    // The bundle: handleOps signed by the node's bundler key, the validator as beneficiary.
    const tx = await publicClient.getTransaction({ hash: r1.receipt.transactionHash });
    assert.equal(tx.from.toLowerCase(), bundlerAccount().address.toLowerCase());
    assert.equal(tx.to?.toLowerCase(), entryPoint07Address.toLowerCase());
    const call = decodeFunctionData({ abi: entryPoint07Abi, data: tx.input });
    assert.equal(call.functionName, 'handleOps');
    assert.equal((call.args[1] as Address).toLowerCase(), `0x${beneficiary.toString('hex')}`);

    await mined(await wallet.writeContract({ address: token, abi: ERC20, functionName: 'transfer', args: [account.address, 1_000n] }));
    const second = await bundlerClient.sendUserOperation({
      account,
      calls: [
        { to: recipient, value: 2_000n },
        { to: token, data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [recipient, 250n] }) },
      ],
    });
    const r2 = await bundlerClient.waitForUserOperationReceipt({ hash: second });
    assert.equal(r2.success, true);
    assert.equal(await publicClient.getBalance({ address: recipient }), 3_000n);
    assert.equal(await publicClient.readContract({ address: token, abi: ERC20, functionName: 'balanceOf', args: [recipient] }), 250n);
    const raw = (await rpc(node.rpcUrl, 'eth_getUserOperationReceipt', [second])) as { userOpHash: Hex; success: boolean; sender: Address };
    assert.equal(raw.userOpHash, second);
    assert.equal(raw.success, true);
    assert.equal(raw.sender.toLowerCase(), account.address.toLowerCase());
    const byHash = await bundlerClient.getUserOperation({ hash: second });
    assert.equal(byHash.entryPoint.toLowerCase(), entryPoint07Address.toLowerCase());
    // Included operations leave the pool.
    assert.equal(node.services.bundler.pool.size, 0);
  });

  it("v0.7: an account deployed by its factory without an EntryPoint deposit is sent with eth_estimateUserOperationGas's values as they are", async () => {
    const keeper = privateKeyToAccount(generatePrivateKey());
    const account = await toSimpleSmartAccount({ client: publicClient, owner: keeper, entryPoint: { address: entryPoint07Address, version: '0.7' } });
    const { factory, factoryData } = await account.getFactoryArgs();
    await mined(await wallet.sendTransaction({ to: factory!, data: factoryData!, gas: 1_000_000n }));
    await mined(await wallet.sendTransaction({ to: account.address, value: parseEther('1') }));
    assert.equal(await publicClient.readContract({ address: entryPoint07Address, abi: entryPoint07Abi, functionName: 'balanceOf', args: [account.address] }), 0n);
    const op = {
      sender: account.address,
      nonce: 0n,
      callData: await account.encodeCalls([{ to: recipient, value: 1n }]),
      ...(await fees()),
      signature: await account.getStubSignature(),
    } as UserOperation<'0.7'>;
    const estimate = (await rpc(node.rpcUrl, 'eth_estimateUserOperationGas', [json07(op), entryPoint07Address])) as Json;
    op.callGasLimit = BigInt(estimate.callGasLimit!);
    op.verificationGasLimit = BigInt(estimate.verificationGasLimit!);
    op.preVerificationGas = BigInt(estimate.preVerificationGas!);
    op.signature = await account.signUserOperation({ ...op, chainId: CHAIN_ID });
    const hash = (await rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(op), entryPoint07Address])) as Hex;
    assert.equal((await receiptOf(hash)).success, true);
  });

  it('v0.6 through svc_sendUserOperation with the spec shape, estimated by eth_estimateUserOperationGas: deployment with an ETH transfer, then an ERC-20 transfer', async () => {
    const account = await toSimpleSmartAccount({ client: publicClient, owner, entryPoint: { address: entryPoint06Address, version: '0.6' } });
    await mined(await wallet.sendTransaction({ to: account.address, value: parseEther('1') }));
    await mined(await wallet.writeContract({ address: token, abi: ERC20, functionName: 'transfer', args: [account.address, 500n] }));
    const { factory, factoryData } = await account.getFactoryArgs();
    const before = await publicClient.getBalance({ address: recipient });

    /** Estimates, signs and sends through svc_sendUserOperation; returns the receipt. */
    async function send(nonce: bigint, initCode: Hex, callData: Hex): Promise<Record<string, unknown>> {
      const op = {
        sender: account.address,
        nonce,
        initCode,
        callData,
        callGasLimit: 0n,
        verificationGasLimit: 0n,
        preVerificationGas: 0n,
        ...(await fees()),
        paymasterAndData: '0x' as Hex,
        signature: await account.getStubSignature(),
      };
      const estimate = (await rpc(node.rpcUrl, 'eth_estimateUserOperationGas', [json06(op), entryPoint06Address])) as Json;
      assert.deepEqual(Object.keys(estimate).sort(), ['callGasLimit', 'preVerificationGas', 'verificationGasLimit']);
      op.callGasLimit = BigInt(estimate.callGasLimit!);
      op.verificationGasLimit = BigInt(estimate.verificationGasLimit!);
      op.preVerificationGas = BigInt(estimate.preVerificationGas!);
      op.signature = await account.signUserOperation({ ...op, chainId: CHAIN_ID });
      const hash = (await rpc(node.rpcUrl, 'svc_sendUserOperation', [json06(op)])) as Hex;
      assert.equal(hash, getUserOperationHash({ chainId: CHAIN_ID, entryPointAddress: entryPoint06Address, entryPointVersion: '0.6', userOperation: op }));
      if (nonce === 0n) assert.ok(op.verificationGasLimit > 100_000n, `verification of a deployment: ${op.verificationGasLimit}`);
      return receiptOf(hash);
    }

    const first = await send(0n, concat([factory!, factoryData!]), await account.encodeCalls([{ to: recipient, value: 4_000n }]));
    assert.equal(first.success, true);
    assert.notEqual(await publicClient.getCode({ address: account.address }), undefined);
    assert.equal(await publicClient.getBalance({ address: recipient }), before + 4_000n);
    const second = await send(1n, '0x', await account.encodeCalls([{ to: token, data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [recipient, 50n] }) }]));
    assert.equal(second.success, true);
    assert.equal(await publicClient.readContract({ address: token, abi: ERC20, functionName: 'balanceOf', args: [recipient] }), 300n);

    // A member left out of the spec's shape is refused.
    const partial: Json = json06({
      sender: account.address,
      nonce: 2n,
      initCode: '0x',
      callData: '0x',
      callGasLimit: 1n,
      verificationGasLimit: 1n,
      preVerificationGas: 1n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
      paymasterAndData: '0x',
      signature: '0x',
    });
    delete partial.paymasterAndData;
    await rejected(rpc(node.rpcUrl, 'svc_sendUserOperation', [partial]), -32602, /missing paymasterAndData/);
  });

  it('a VerifyingPaymaster sponsors an operation: the account pays nothing', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const paymaster = await deploy(verifyingPaymasterV07.initCode, encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [entryPoint07Address, signer.address]));
    await mined(await wallet.writeContract({ address: paymaster, abi: PAYMASTER, functionName: 'deposit', value: parseEther('1') }));
    const sponsoredOwner = privateKeyToAccount(generatePrivateKey());
    const account = await toSimpleSmartAccount({ client: publicClient, owner: sponsoredOwner, entryPoint: { address: entryPoint07Address, version: '0.7' } });
    assert.equal(await publicClient.getBalance({ address: account.address }), 0n);
    const validity = encodeAbiParameters([{ type: 'uint48' }, { type: 'uint48' }], [0, 0]);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const depositBefore = await publicClient.readContract({ address: paymaster, abi: PAYMASTER, functionName: 'getDeposit' });

    const sponsored = await bundlerClient.sendUserOperation({
      account,
      calls: [{ to: recipient, value: 0n, data: '0x' }],
      paymaster: {
        // Estimation runs with a well-formed signature of someone else (SIG_VALIDATION_FAILED does not stop an estimate).
        async getPaymasterStubData() {
          return { paymaster, paymasterData: concat([validity, await stranger.signMessage({ message: 'stub' })]), paymasterPostOpGasLimit: 0n };
        },
        async getPaymasterData(op) {
          const unsigned = { ...(op as unknown as UserOperation<'0.7'>), signature: '0x', paymaster, paymasterData: concat([validity, `0x${'00'.repeat(65)}`]) } as UserOperation<'0.7'>;
          unsigned.paymasterVerificationGasLimit ??= 100_000n;
          unsigned.paymasterPostOpGasLimit ??= 0n;
          const packed = toPackedUserOperation(unsigned);
          const digest = await publicClient.readContract({ address: paymaster, abi: PAYMASTER, functionName: 'getHash', args: [packed, 0, 0] });
          return {
            paymaster,
            paymasterData: concat([validity, await signer.signMessage({ message: { raw: digest } })]),
            paymasterVerificationGasLimit: unsigned.paymasterVerificationGasLimit,
            paymasterPostOpGasLimit: unsigned.paymasterPostOpGasLimit,
          };
        },
      },
    });
    const receipt = await bundlerClient.waitForUserOperationReceipt({ hash: sponsored });
    assert.equal(receipt.success, true);
    assert.equal(receipt.paymaster?.toLowerCase(), paymaster.toLowerCase());
    assert.notEqual(await publicClient.getCode({ address: account.address }), undefined);
    assert.equal(await publicClient.getBalance({ address: account.address }), 0n, 'the account paid nothing');
    const depositAfter = await publicClient.readContract({ address: paymaster, abi: PAYMASTER, functionName: 'getDeposit' });
    assert.equal(depositBefore - depositAfter, receipt.actualGasCost, "the paymaster's deposit paid the operation");
  });

  describe('refusals with ERC-7769 codes, nothing changed', () => {
    const contracts = () => ({
      open: compileContract('AaTestAccounts.sol', 'OpenAccountV07'),
      timestamp: compileContract('AaTestAccounts.sol', 'TimestampAccountV07'),
      counting: compileContract('AaTestAccounts.sol', 'CountingFactoryV07'),
      clean: compileContract('AaTestAccounts.sol', 'CleanFactoryV07'),
    });
    const epArg = encodeAbiParameters([{ type: 'address' }], [entryPoint07Address]);

    /** A v0.7 operation of `sender` calling nothing, with generous gas. */
    async function plainOp(sender: Address, overrides: Partial<UserOperation<'0.7'>> = {}): Promise<UserOperation<'0.7'>> {
      return {
        sender,
        nonce: await nonceOf(sender),
        callData: encodeFunctionData({ abi: OPEN_ACCOUNT, functionName: 'execute', args: [recipient, 0n, '0x'] }),
        callGasLimit: 100_000n,
        verificationGasLimit: 300_000n,
        preVerificationGas: 60_000n,
        ...(await fees()),
        signature: '0x',
        ...overrides,
      };
    }

    /** Sends `op` and expects the refusal; then checks that the pool, the nonce and the sender's balance are unchanged. */
    async function refused(op: UserOperation<'0.7'>, code: number, message: RegExp): Promise<void> {
      const pool = node.services.bundler.pool.size;
      const nonce = await nonceOf(op.sender);
      const balance = await publicClient.getBalance({ address: op.sender });
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(op), entryPoint07Address]), code, message);
      assert.equal(node.services.bundler.pool.size, pool);
      assert.equal(await nonceOf(op.sender), nonce);
      assert.equal(await publicClient.getBalance({ address: op.sender }), balance);
    }

    let open: Address;
    let paymaster: Address;
    const paymasterSigner = privateKeyToAccount(generatePrivateKey());

    /** `op` sponsored by the VerifyingPaymaster (its data signed for the operation as it is). */
    async function sponsored(op: UserOperation<'0.7'>): Promise<UserOperation<'0.7'>> {
      const validity = encodeAbiParameters([{ type: 'uint48' }, { type: 'uint48' }], [0, 0]);
      const unsigned: UserOperation<'0.7'> = {
        ...op,
        paymaster,
        paymasterVerificationGasLimit: 100_000n,
        paymasterPostOpGasLimit: 0n,
        paymasterData: concat([validity, `0x${'00'.repeat(65)}`]),
      };
      const digest = await publicClient.readContract({ address: paymaster, abi: PAYMASTER, functionName: 'getHash', args: [toPackedUserOperation(unsigned), 0, 0] });
      return { ...unsigned, paymasterData: concat([validity, await paymasterSigner.signMessage({ message: { raw: digest } })]) };
    }

    before(async () => {
      open = await deploy(contracts().open.bytecode, epArg);
      await mined(await wallet.sendTransaction({ to: open, value: parseEther('1') }));
      paymaster = await deploy(verifyingPaymasterV07.initCode, encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [entryPoint07Address, paymasterSigner.address]));
      await mined(await wallet.writeContract({ address: paymaster, abi: PAYMASTER, functionName: 'deposit', value: parseEther('1') }));
    });

    it('bad signature: -32507', async () => {
      const account = await toSimpleSmartAccount({ client: publicClient, owner, entryPoint: { address: entryPoint07Address, version: '0.7' } });
      const op = await plainOp(account.address, { callData: await account.encodeCalls([{ to: recipient, value: 1n }]) });
      op.signature = await privateKeyToAccount(generatePrivateKey()).signMessage({
        message: { raw: getUserOperationHash({ chainId: CHAIN_ID, entryPointAddress: entryPoint07Address, entryPointVersion: '0.7', userOperation: op }) },
      });
      await refused(op, -32507, /AA24 signature error/);
    });

    it('insufficient prefund: -32500 (AA21)', async () => {
      const poor = await deploy(contracts().open.bytecode, epArg);
      await refused(await plainOp(poor), -32500, /AA21 didn't pay prefund/);
    });

    it('expired, or not yet valid: -32503', async () => {
      const now = BigInt((await publicClient.getBlock()).timestamp);
      const range = (validUntil: bigint, validAfter: bigint) => encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [validUntil, validAfter]);
      await refused(await plainOp(open, { signature: range(now - 1n, 0n) }), -32503, /valid until/);
      await refused(await plainOp(open, { signature: range(now + 10n, 0n) }), -32503, /within 30 s/);
      await refused(await plainOp(open, { signature: range(now + 3_600n, now + 600n) }), -32503, /not valid before/);
    });

    it('a banned opcode in validation: -32502 (OP-011)', async () => {
      const account = await deploy(contracts().timestamp.bytecode, epArg);
      await mined(await wallet.sendTransaction({ to: account, value: parseEther('1') }));
      await refused(await plainOp(account), -32502, /banned opcode TIMESTAMP.*OP-011/);
    });

    it("an unstaked factory writing its own storage: -32502 (STO-031); the same account through a clean factory is accepted", async () => {
      const counting = await deploy(contracts().counting.bytecode, epArg);
      const salt = 7n;
      const factoryData = encodeFunctionData({ abi: parseAbi(['function createAccount(uint256 salt) returns (address)']), functionName: 'createAccount', args: [salt] });
      const sender = await publicClient.readContract({ address: counting, abi: parseAbi(['function getAddress(uint256 salt) view returns (address)']), functionName: 'getAddress', args: [salt] });
      await mined(await wallet.sendTransaction({ to: sender, value: parseEther('1') }));
      await refused(await plainOp(sender, { factory: counting, factoryData, verificationGasLimit: 1_000_000n }), -32502, /unstaked factory .* wrote .*STO-031/);
      assert.equal(await publicClient.getCode({ address: sender }), undefined);

      const clean = await deploy(contracts().clean.bytecode, epArg);
      const cleanSender = await publicClient.readContract({ address: clean, abi: parseAbi(['function getAddress(uint256 salt) view returns (address)']), functionName: 'getAddress', args: [salt] });
      await mined(await wallet.sendTransaction({ to: cleanSender, value: parseEther('1') }));
      const hash = (await rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(await plainOp(cleanSender, { factory: clean, factoryData, verificationGasLimit: 1_000_000n })), entryPoint07Address])) as Hex;
      assert.equal((await receiptOf(hash)).success, true);
    });

    it('nonce too low: -32500 (AA25)', async () => {
      const hash = (await rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(await plainOp(open)), entryPoint07Address])) as Hex;
      await receiptOf(hash);
      await refused(await plainOp(open, { nonce: (await nonceOf(open)) - 1n }), -32500, /AA25 invalid account nonce: nonce too low/);
    });

    it('replacement: a lower bump is refused (-32602), a higher fee replaces the pooled operation, which never lands; an operation already bundled is not replaced', async () => {
      const other = await deploy(contracts().open.bytecode, epArg);
      await mined(await wallet.sendTransaction({ to: other, value: parseEther('1') }));
      const bundler = node.services.bundler;
      // A bundle in flight holds back the next operations of its paymaster until the block that includes it.
      const flying = await sponsored(await plainOp(other));
      const flyingHash = (await rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(flying), entryPoint07Address])) as Hex;
      for (let i = 0; i < 100 && bundler.inFlightBundles().length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(bundler.inFlightBundles().length, 1);
      // The operation in the bundle: no replacement any more.
      const bump = async (op: UserOperation<'0.7'>, percent: bigint) =>
        sponsored({ ...op, maxFeePerGas: (op.maxFeePerGas * percent) / 100n, maxPriorityFeePerGas: (op.maxPriorityFeePerGas * percent) / 100n });
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(await bump(flying, 150n)), entryPoint07Address]), -32602, /already in bundle .*cannot be replaced/);

      const first = await sponsored(await plainOp(open));
      const firstHash = (await rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(first), entryPoint07Address])) as Hex;
      assert.ok(bundler.pool.get(firstHash), 'pooled behind the bundle in flight');
      assert.equal(bundler.inFlightBundles().length, 1, 'not bundled while its paymaster is in a bundle in flight');
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(await bump(first, 105n)), entryPoint07Address]), -32602, /replacement underpriced/);
      assert.ok(bundler.pool.get(firstHash));
      const high = await bump(first, 120n);
      const highHash = (await rpc(node.rpcUrl, 'eth_sendUserOperation', [json07(high), entryPoint07Address])) as Hex;
      assert.notEqual(highHash, firstHash);
      assert.equal(bundler.pool.get(firstHash), undefined, 'the replaced operation left the pool');
      assert.equal((await receiptOf(flyingHash)).success, true);
      assert.equal((await receiptOf(highHash)).success, true);
      assert.equal(await rpc(node.rpcUrl, 'eth_getUserOperationReceipt', [firstHash]), null);
      assert.equal(await rpc(node.rpcUrl, 'eth_getUserOperationByHash', [firstHash]), null);
    });

    it('malformed operations and unknown EntryPoints: -32602', async () => {
      const op = json07(await plainOp(open));
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [{ ...op, nonce: '0x01' }, entryPoint07Address]), -32602, /nonce must be a hex quantity/);
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [{ ...op, callGasLimit: hex(1n << 128n) }, entryPoint07Address]), -32602, /callGasLimit: hex number > 128 bits/);
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [op, getContractAddress({ from: open, nonce: 9n })]), -32602, /unsupported entryPoint/);
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [{ ...op, preVerificationGas: '0x1' }, entryPoint07Address]), -32602, /preVerificationGas 1 is below/);
      await rejected(rpc(node.rpcUrl, 'eth_sendUserOperation', [{ ...op, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1' }, entryPoint07Address]), -32602, /below the next block's base fee/);
    });
  });

  it('counts what it did on /metrics', async () => {
    const text = await (await fetch(new URL('/metrics', node.rpcUrl))).text();
    const value = (line: RegExp) => Number(line.exec(text)?.[1] ?? NaN);
    const c = node.services.bundler.counters;
    assert.equal(value(/^svc_bundler_user_operations\{outcome="accepted",code=""\} (\d+)$/m), c.accepted);
    assert.ok(c.accepted >= 8, `accepted ${c.accepted}`);
    assert.equal(value(/^svc_bundler_user_operations\{outcome="refused",code="-32507"\} (\d+)$/m), 1);
    assert.ok(value(/^svc_bundler_user_operations\{outcome="refused",code="-32503"\} (\d+)$/m) === 3);
    assert.equal(value(/^svc_bundler_user_operations\{outcome="included",code=""\} (\d+)$/m), c.included);
    assert.ok(value(/^svc_bundler_bundles_sent (\d+)$/m) >= 7);
    assert.equal(value(/^svc_bundler_bundled_operations (\d+)$/m), c.bundledOperations);
    assert.equal(value(/^svc_bundler_pool_size (\d+)$/m), 0);
  });

  it('estimation refuses an operation whose execution reverts: -32521', async () => {
    const account = await toSimpleSmartAccount({ client: publicClient, owner, entryPoint: { address: entryPoint07Address, version: '0.7' } });
    const op = {
      sender: account.address,
      nonce: await nonceOf(account.address),
      callData: await account.encodeCalls([{ to: token, data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [recipient, 10n ** 30n] }) }]),
      signature: await account.getStubSignature(),
    };
    await rejected(rpc(node.rpcUrl, 'eth_estimateUserOperationGas', [json07(op as UserOperation<'0.7'>), entryPoint07Address]), -32521, /execution reverts/);
    void entryPoint06Abi;
  });
});
