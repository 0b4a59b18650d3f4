// ERC-4337 in the devnet genesis: EntryPoint v0.6 and v0.7, their SenderCreators and the
// SimpleAccountFactories are the public networks' code at the public addresses (created through the
// deterministic CREATE2 deployer from the package artifacts' creation code, their code hashes the
// public ones, a factory's account address for an owner and salt the public networks'), answer as
// their versions do, and a user operation built and signed with viem runs through handleOps sent by
// a plain EOA (no bundler).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  keccak256,
  http,
  parseAbi,
  parseEther,
  parseEventLogs,
  parseGwei,
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
import { entryPoint06Abi, entryPoint07Abi, getUserOperationHash, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import {
  create2Address,
  CREATE2_DEPLOYER,
  CREATE2_DEPLOYER_CODE,
  ENTRY_POINT_V06,
  ENTRY_POINT_V07,
  PUBLIC_CREATIONS,
  SIMPLE_ACCOUNT_FACTORY_V06,
  SIMPLE_ACCOUNT_FACTORY_V07,
} from '../src/chain/account-abstraction.js';
import * as generated from '../src/chain/entrypoints.generated.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { SIMPLE_ACCOUNT_ABI, SIMPLE_ACCOUNT_FACTORY_ABI, signUserOperation } from './support/simple-account.js';
import { svcDevnet } from './support/viem-chain.js';

const CHAIN_ID = 9000;
/** The SenderCreator each EntryPoint's constructor creates, where it is on public networks. */
const SENDER_CREATOR = { v06: '0x7fc98430eAEdbb6070B35B39D798725049088348', v07: '0xEFC2c1444eBCC4Db75e7613d20C6a62fF67A167C' } as const;
/**
 * keccak256 of the runtime code at the public addresses, as public networks serve it (EXTCODEHASH):
 * the EntryPoints and SenderCreators as OP Stack chains pin them for their preinstalls, the
 * deterministic deployer as every chain that has it.
 */
const PUBLIC_CODE_HASH = {
  entryPointV06: '0xc93c806e738300b5357ecdc2e971d6438d34d8e4e17b99b758b1f9cac91c8e70',
  senderCreatorV06: '0xae818091eaaf1b6175ee41472359a689f3823d0908a41e2e5c4ad508f2fc04a3',
  entryPointV07: '0x8db5ff695839d655407cc8490bb7a5d82337a86a6b39c3f0258aa6c3b582fc58',
  senderCreatorV07: '0x283c9d14378f5f4c4e24045b87d621d48443fa5b4af7dd7180a599b3756a7689',
  deployer: '0x2fa86add0aed31f33a762c9d88e807c475bd51d0f52bd0955754b2608f7e4989',
} as const;

const versions = [
  { name: 'v0.6', pkg: 'aa-contracts-0.6.0', entryPoint: ENTRY_POINT_V06 as Address, factory: SIMPLE_ACCOUNT_FACTORY_V06 as Address, senderCreator: SENDER_CREATOR.v06, abi: entryPoint06Abi, codeHash: { entryPoint: PUBLIC_CODE_HASH.entryPointV06, senderCreator: PUBLIC_CODE_HASH.senderCreatorV06 } },
  { name: 'v0.7', pkg: 'aa-contracts-0.7.0', entryPoint: ENTRY_POINT_V07 as Address, factory: SIMPLE_ACCOUNT_FACTORY_V07 as Address, senderCreator: SENDER_CREATOR.v07, abi: entryPoint07Abi, codeHash: { entryPoint: PUBLIC_CODE_HASH.entryPointV07, senderCreator: PUBLIC_CODE_HASH.senderCreatorV07 } },
] as const;

const require = createRequire(import.meta.url);
/** An artifact of the @account-abstraction/contracts release `pkg` (an npm alias of the devDependencies). */
function artifact(pkg: string, contract: string): { bytecode: Hex; deployedBytecode: Hex } {
  return JSON.parse(readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'artifacts', `${contract}.json`), 'utf8')) as never;
}

/**
 * The account a SimpleAccountFactory at `factory` gives `owner` and `salt`, computed without the
 * chain: CREATE2(factory, salt, keccak256(ERC1967Proxy creation code ‖ abi.encode(implementation,
 * initialize(owner)))), the implementation at CREATE(factory, 1) and the proxy's creation code taken
 * from the factory artifact's runtime code, where solc places it: after the factory's own code (the
 * next 0x60806040), up to the factory's CBOR metadata that ends the runtime code.
 */
function publicAccountAddress(pkg: string, factory: Address, owner: Address, salt: bigint): Address {
  const runtime = artifact(pkg, 'SimpleAccountFactory').deployedBytecode.slice(2);
  const start = runtime.indexOf('60806040', 2);
  const metadata = /a264697066735822[0-9a-f]{68}64736f6c6343[0-9a-f]{6}0033$/.exec(runtime)!;
  const proxyCreationCode = `0x${runtime.slice(start, metadata.index)}` as Hex;
  const implementation = getContractAddress({ from: factory, nonce: 1n });
  const initialize = encodeFunctionData({ abi: parseAbi(['function initialize(address anOwner)']), functionName: 'initialize', args: [owner] });
  const args = encodeAbiParameters([{ type: 'address' }, { type: 'bytes' }], [implementation, initialize]);
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt: encodeAbiParameters([{ type: 'uint256' }], [salt]), bytecode: concat([proxyCreationCode, args]) });
}

describe('ERC-4337 contracts in the generated file', () => {
  it("the genesis contracts' creation code is the package artifacts', byte for byte, and through the deterministic deployer with the public salts it lands at the public addresses", () => {
    assert.equal(generated.entryPointV06.initCode, artifact('aa-contracts-0.6.0', 'EntryPoint').bytecode);
    assert.equal(generated.simpleAccountFactoryV06.initCode, artifact('aa-contracts-0.6.0', 'SimpleAccountFactory').bytecode);
    assert.equal(generated.entryPointV07.initCode, artifact('aa-contracts-0.7.0', 'EntryPoint').bytecode);
    assert.equal(generated.simpleAccountFactoryV07.initCode, artifact('aa-contracts-0.7.0', 'SimpleAccountFactory').bytecode);
    assert.deepEqual(
      PUBLIC_CREATIONS.map((c) => c.address),
      [ENTRY_POINT_V06, SIMPLE_ACCOUNT_FACTORY_V06, ENTRY_POINT_V07, SIMPLE_ACCOUNT_FACTORY_V07],
    );
    for (const c of PUBLIC_CREATIONS) assert.equal(create2Address(c), c.address, c.name);
    assert.equal(keccak256(CREATE2_DEPLOYER_CODE), PUBLIC_CODE_HASH.deployer);
  });

  it('the compiled ones were built with the compilers and settings of the package and match its artifacts', () => {
    for (const build of [generated.entryPointSimulationsV07, generated.verifyingPaymasterV06, generated.verifyingPaymasterV07]) {
      assert.equal(build.settings.optimizer.runs, 1_000_000, build.source);
      assert.equal(build.artifactMatch, 'except-metadata', build.source);
    }
    assert.equal(generated.entryPointSimulationsV07.runtimeArtifactMatch, 'except-metadata');
  });

  it('is what a fresh build from the package gives', { timeout: 600_000 }, () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot(), 'scripts/build-entrypoints.mjs'), '--check'], { cwd: repoRoot(), encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  });
});

describe('ERC-4337 EntryPoints on a fresh devnet', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let publicClient: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  const owner = privateKeyToAccount('0x4337433743374337433743374337433743374337433743374337433743374337');

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-entrypoints-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    const chain = svcDevnet(node.rpcUrl);
    publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(2)[1]!), chain, transport: http(node.rpcUrl), pollingInterval: 50 });
  });

  after(async () => {
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function send(to: Address, data: Hex, value = 0n): Promise<void> {
    const hash = await wallet.sendTransaction({ to, data, value, gas: 3_000_000n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success', `transaction to ${to}`);
  }

  for (const v of versions) {
    describe(v.name, () => {
      it('has the EntryPoint with the SenderCreator its constructor created, at nonce 1', async () => {
        assert.ok(((await publicClient.getCode({ address: v.entryPoint, blockNumber: 0n })) ?? '0x').length > 2);
        const created = getContractAddress({ from: v.entryPoint, nonce: 1n });
        assert.equal(created, v.senderCreator);
        assert.ok(((await publicClient.getCode({ address: created, blockNumber: 0n })) ?? '0x').length > 2, 'SenderCreator has code');
        // Constructed at nonce 1, one CREATE since.
        assert.equal(await publicClient.getTransactionCount({ address: v.entryPoint, blockNumber: 0n }), 2);
      });

      it('eth_getCode of the EntryPoint and its SenderCreator hashes to the public code hashes', async () => {
        assert.equal(keccak256((await publicClient.getCode({ address: v.entryPoint, blockNumber: 0n }))!), v.codeHash.entryPoint);
        assert.equal(keccak256((await publicClient.getCode({ address: v.senderCreator, blockNumber: 0n }))!), v.codeHash.senderCreator);
      });

      it("the factory's getAddress for an owner and salt is the account address public networks give", async () => {
        for (const [who, salt] of [[owner.address, 0n], ['0x000000000000000000000000000000000000dEaD', 7n]] as const) {
          const here = await publicClient.readContract({ address: v.factory, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [who, salt] });
          assert.equal(here, publicAccountAddress(v.pkg, v.factory, who, salt), `${who} salt ${salt}`);
        }
      });

      it('has the factory, whose SimpleAccount implementation points at the EntryPoint', async () => {
        const implementation = await publicClient.readContract({ address: v.factory, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'accountImplementation' });
        assert.equal(implementation, getContractAddress({ from: v.factory, nonce: 1n }));
        assert.equal(await publicClient.readContract({ address: implementation, abi: SIMPLE_ACCOUNT_ABI, functionName: 'entryPoint' }), v.entryPoint);
      });

      it('getSenderAddress reverts with SenderAddressResult, the factory getAddress', async () => {
        const expected = await publicClient.readContract({ address: v.factory, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, 7n] });
        const initCode = concat([v.factory, encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, 7n] })]);
        const data = encodeFunctionData({ abi: entryPoint06Abi, functionName: 'getSenderAddress', args: [initCode] });
        const err = await rpc(node.rpcUrl, 'eth_call', [{ to: v.entryPoint, data }, 'latest']).then(
          () => assert.fail('getSenderAddress returned'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof JsonRpcError && typeof err.data === 'string', String(err));
        const decoded = decodeErrorResult({ abi: v.abi, data: err.data as Hex });
        assert.equal(decoded.errorName, 'SenderAddressResult');
        assert.equal(decoded.args[0], expected);
      });

      it('deposits: depositTo and balanceOf', async () => {
        const who = '0x000000000000000000000000000000000000dEaD' as Address;
        await send(v.entryPoint, encodeFunctionData({ abi: entryPoint06Abi, functionName: 'depositTo', args: [who] }), parseEther('1.5'));
        assert.equal(await publicClient.readContract({ address: v.entryPoint, abi: entryPoint06Abi, functionName: 'balanceOf', args: [who] }), parseEther('1.5'));
      });

      it('creates a SimpleAccount through the factory', async () => {
        const account = await publicClient.readContract({ address: v.factory, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, 1n] });
        await send(v.factory, encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, 1n] }));
        assert.ok(((await publicClient.getCode({ address: account })) ?? '0x').length > 2);
        assert.equal(await publicClient.readContract({ address: account, abi: SIMPLE_ACCOUNT_ABI, functionName: 'owner' }), owner.address);
        assert.equal(await publicClient.readContract({ address: account, abi: SIMPLE_ACCOUNT_ABI, functionName: 'entryPoint' }), v.entryPoint);
      });
    });
  }

  it('has the deterministic CREATE2 deployer with its public code, at nonce 5 after the four creations, and it deploys', async () => {
    assert.equal(keccak256((await publicClient.getCode({ address: CREATE2_DEPLOYER, blockNumber: 0n }))!), PUBLIC_CODE_HASH.deployer);
    assert.equal(await publicClient.getTransactionCount({ address: CREATE2_DEPLOYER, blockNumber: 0n }), 5);
    // Salt ‖ creation code in, the CREATE2 address out: a contract whose runtime code is one STOP.
    const salt = `0x${'42'.repeat(32)}` as Hex;
    const initCode = '0x6001600081600a8239f300' as Hex;
    const out = await rpc(node.rpcUrl, 'eth_call', [{ to: CREATE2_DEPLOYER, data: concat([salt, initCode]) }, 'latest']);
    assert.equal((out as string).toLowerCase(), create2Address({ salt, initCode }).toLowerCase());
  });

  it('v0.6 getUserOpHash equals viem getUserOperationHash', async () => {
    const userOperation = {
      sender: '0x1234567890123456789012345678901234567890' as Address,
      nonce: 5n,
      initCode: '0xabcdef' as Hex,
      callData: '0x010203' as Hex,
      callGasLimit: 100_000n,
      verificationGasLimit: 200_000n,
      preVerificationGas: 30_000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
      paymasterAndData: '0x' as Hex,
      signature: '0x' as Hex,
    } satisfies UserOperation<'0.6'>;
    const onChain = await publicClient.readContract({ address: ENTRY_POINT_V06, abi: entryPoint06Abi, functionName: 'getUserOpHash', args: [userOperation] });
    assert.equal(onChain, getUserOperationHash({ chainId: CHAIN_ID, entryPointAddress: ENTRY_POINT_V06, entryPointVersion: '0.6', userOperation }));
  });

  it('v0.7 getUserOpHash equals viem getUserOperationHash', async () => {
    const userOperation: UserOperation<'0.7'> = {
      sender: '0x1234567890123456789012345678901234567890',
      nonce: (3n << 64n) | 5n,
      factory: SIMPLE_ACCOUNT_FACTORY_V07,
      factoryData: '0xabcdef',
      callData: '0x010203',
      callGasLimit: 100_000n,
      verificationGasLimit: 200_000n,
      preVerificationGas: 30_000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
      paymaster: '0x000000000000000000000000000000000000bEEF',
      paymasterVerificationGasLimit: 40_000n,
      paymasterPostOpGasLimit: 10_000n,
      paymasterData: '0x99',
      signature: '0x',
    };
    const onChain = await publicClient.readContract({
      address: ENTRY_POINT_V07,
      abi: entryPoint07Abi,
      functionName: 'getUserOpHash',
      args: [toPackedUserOperation(userOperation)],
    });
    assert.equal(onChain, getUserOperationHash({ chainId: CHAIN_ID, entryPointAddress: ENTRY_POINT_V07, entryPointVersion: '0.7', userOperation }));
  });

  it('v0.7 supportsInterface and getNonce', async () => {
    const supports = (id: Hex) => publicClient.readContract({ address: ENTRY_POINT_V07, abi: parseAbi(['function supportsInterface(bytes4) view returns (bool)']), functionName: 'supportsInterface', args: [id] });
    assert.equal(await supports('0x01ffc9a7'), true, 'ERC-165');
    assert.equal(await supports('0xffffffff'), false);
    const nonce = await publicClient.readContract({ address: ENTRY_POINT_V07, abi: entryPoint07Abi, functionName: 'getNonce', args: [owner.address, 9n] });
    assert.equal(nonce, 9n << 64n);
  });

  it('v0.7 handleOps from a plain EOA deploys the account and runs its call', async () => {
    const salt = 42n;
    const sender = await publicClient.readContract({ address: SIMPLE_ACCOUNT_FACTORY_V07, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, salt] });
    assert.equal(await publicClient.getCode({ address: sender }), undefined);
    await wallet.sendTransaction({ to: sender, value: parseEther('1') }).then((hash) => publicClient.waitForTransactionReceipt({ hash }));
    const recipient = '0x00000000000000000000000000000000000c0ffe' as Address;
    const userOperation: UserOperation<'0.7'> = {
      sender,
      nonce: 0n,
      factory: SIMPLE_ACCOUNT_FACTORY_V07,
      factoryData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, salt] }),
      callData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_ABI, functionName: 'execute', args: [recipient, parseEther('0.25'), '0x'] }),
      callGasLimit: 100_000n,
      verificationGasLimit: 500_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
      signature: '0x',
    };
    const hash = await signUserOperation(owner, '0.7', userOperation, CHAIN_ID);
    const beneficiary = wallet.account.address;
    const txHash = await wallet.sendTransaction({
      to: ENTRY_POINT_V07,
      data: encodeFunctionData({ abi: entryPoint07Abi, functionName: 'handleOps', args: [[toPackedUserOperation(userOperation)], beneficiary] }),
      gas: 3_000_000n,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash });
    assert.equal(receipt.status, 'success');
    const [event] = parseEventLogs({ abi: entryPoint07Abi, logs: receipt.logs, eventName: 'UserOperationEvent' });
    assert.ok(event, 'UserOperationEvent');
    assert.equal(event.args.userOpHash, hash);
    assert.equal(event.args.success, true);
    assert.ok(((await publicClient.getCode({ address: sender })) ?? '0x').length > 2, 'the account is deployed');
    assert.equal(await publicClient.readContract({ address: sender, abi: SIMPLE_ACCOUNT_ABI, functionName: 'owner' }), owner.address);
    assert.equal(await publicClient.getBalance({ address: recipient }), parseEther('0.25'));
    assert.equal(await publicClient.readContract({ address: ENTRY_POINT_V07, abi: entryPoint07Abi, functionName: 'getNonce', args: [sender, 0n] }), 1n);
  });
});
