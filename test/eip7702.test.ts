// EIP-7702 set-code transactions (type 0x04) end to end against a real svc-node process: an EOA
// delegates to a contract with an authorization signed in viem, calls to the EOA run the
// delegate's code on the EOA's storage, authorizations for another chain are skipped, malformed
// set-code transactions are refused, and a delegation to the zero address clears it.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  concat,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  encodeFunctionData,
  http,
  keccak256,
  numberToHex,
  parseGwei,
  parseSignature,
  toRlp,
  zeroAddress,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';
import { system } from '../src/params.js';

interface RpcAuthorization {
  chainId: Hex;
  address: Address;
  nonce: Hex;
  yParity: Hex;
  r: Hex;
  s: Hex;
}

/** An RLP quantity: no leading zeros, zero as the empty string. */
const q = (n: bigint | number): Hex => (BigInt(n) === 0n ? '0x' : numberToHex(n));

describe('EIP-7702 set-code transactions', { timeout: 180_000 }, () => {
  let node: NodeProcess | undefined;
  let url: string;
  let publicClient: PublicClient<Transport, Chain>;
  let deployer: PrivateKeyAccount;
  let alice: PrivateKeyAccount;
  let bob: PrivateKeyAccount;
  let carol: PrivateKeyAccount;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let aliceWallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  const delegate = compileContract('Delegate.sol', 'Delegate');
  let impl: Address;

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: 250 });
    url = node.url;
    const chain = svcDevnet(url);
    const keys = devPrivateKeys(5);
    [deployer, alice, bob, carol] = [keys[1]!, keys[2]!, keys[3]!, keys[4]!].map((k) => privateKeyToAccount(k));
    publicClient = createPublicClient({ chain, transport: http(url), pollingInterval: 100 });
    wallet = createWalletClient({ account: deployer!, chain, transport: http(url), pollingInterval: 100 });
    aliceWallet = createWalletClient({ account: alice!, chain, transport: http(url), pollingInterval: 100 });
    const hash = await wallet.deployContract({ abi: delegate.abi, bytecode: delegate.bytecode });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    impl = receipt.contractAddress!;
  });

  afterEach((t) => dumpLogsOnFailure(t, node));

  after(async () => {
    await node?.dispose();
  });

  const counterOf = (address: Address) =>
    publicClient.readContract({ address, abi: delegate.abi, functionName: 'counter' }) as Promise<bigint>;

  it('delegates an EOA to a contract in a self-sponsored type-4 transaction and runs its code', async () => {
    const authorization = await aliceWallet.signAuthorization({ contractAddress: impl, executor: 'self' });
    const data = encodeFunctionData({ abi: delegate.abi, functionName: 'ping' });
    const hash = await aliceWallet.sendTransaction({ authorizationList: [authorization], to: alice.address, data });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.type, 'eip7702');
    assert.equal((await publicClient.getCode({ address: alice.address }))?.toLowerCase(), concat(['0xef0100', impl]).toLowerCase());
    // The delegate's code ran as alice: its event names alice and the counter is in alice's storage.
    assert.equal(receipt.logs.length, 1);
    assert.equal(receipt.logs[0]!.address.toLowerCase(), alice.address.toLowerCase());
    const event = decodeEventLog({ abi: delegate.abi, data: receipt.logs[0]!.data, topics: receipt.logs[0]!.topics });
    assert.equal((event.args as unknown as { self: Address }).self.toLowerCase(), alice.address.toLowerCase());
    assert.equal(await counterOf(alice.address), 1n);
    assert.equal(await counterOf(impl), 0n);
    // The authorization bumped alice's nonce on top of the transaction's.
    assert.equal(await publicClient.getTransactionCount({ address: alice.address }), 2);

    const tx = await rpc<Record<string, unknown>>(url, 'eth_getTransactionByHash', [hash]);
    assert.equal(tx.type, '0x4');
    assert.ok(typeof tx.maxFeePerGas === 'string' && typeof tx.maxPriorityFeePerGas === 'string');
    const list = tx.authorizationList as RpcAuthorization[];
    assert.equal(list.length, 1);
    assert.equal(list[0]!.chainId, numberToHex(DEV_CHAIN_ID));
    assert.equal(list[0]!.address.toLowerCase(), impl.toLowerCase());
    assert.equal(list[0]!.nonce, '0x1');
    assert.equal(BigInt(list[0]!.r), BigInt(authorization.r));
    assert.equal(BigInt(list[0]!.s), BigInt(authorization.s));
    assert.equal(Number(list[0]!.yParity), authorization.yParity);
    const viemTx = await publicClient.getTransaction({ hash });
    assert.equal(viemTx.type, 'eip7702');
    const byBlock = await rpc<Record<string, unknown>>(url, 'eth_getTransactionByBlockNumberAndIndex', [
      numberToHex(receipt.blockNumber),
      numberToHex(receipt.transactionIndex),
    ]);
    assert.deepEqual(byBlock.authorizationList, tx.authorizationList);
    const rpcReceipt = await rpc<Record<string, unknown>>(url, 'eth_getTransactionReceipt', [hash]);
    assert.equal(rpcReceipt.type, '0x4');
  });

  it('runs the delegate for a plain call to the delegated EOA, on the EOA storage', async () => {
    const hash = await wallet.writeContract({ address: alice.address, abi: delegate.abi, functionName: 'ping' });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.type, 'eip1559');
    assert.equal(await counterOf(alice.address), 2n);
    const self = await publicClient.readContract({ address: alice.address, abi: delegate.abi, functionName: 'whoAmI' });
    assert.equal((self as Address).toLowerCase(), alice.address.toLowerCase());
  });

  it('accepts an authorization list in eth_call and eth_estimateGas without writing the delegation', async () => {
    const authorization = await privateKeyToAccount(devPrivateKeys(6)[5]!).signAuthorization({ chainId: DEV_CHAIN_ID, contractAddress: impl, nonce: 0 });
    const target = privateKeyToAccount(devPrivateKeys(6)[5]!).address;
    const data = encodeFunctionData({ abi: delegate.abi, functionName: 'whoAmI' });
    const { data: out } = await publicClient.call({ account: deployer, to: target, data, authorizationList: [authorization] });
    assert.equal(out?.toLowerCase(), `0x${'0'.repeat(24)}${target.slice(2).toLowerCase()}`);
    const gas = await publicClient.estimateGas({ account: deployer, to: target, data, authorizationList: [authorization] });
    assert.ok(gas > 21_000n + 25_000n - 12_500n, `estimate ${gas}`);
    assert.equal(await publicClient.getCode({ address: target }), undefined);
  });

  it('skips an authorization signed for another chain while the transaction succeeds', async () => {
    const authorization = await bob.signAuthorization({ chainId: 1, contractAddress: impl, nonce: 0 });
    const hash = await wallet.sendTransaction({ authorizationList: [authorization], to: bob.address, data: '0x' });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.type, 'eip7702');
    assert.equal(await publicClient.getCode({ address: bob.address }), undefined);
    assert.equal(await publicClient.getTransactionCount({ address: bob.address }), 0);
  });

  /** A type-4 transaction signed by `signer` with these destination and authorizations, encoded by hand. */
  async function rawSetCode(signer: PrivateKeyAccount, to: Hex, authorizations: Hex[][], data: Hex = '0x'): Promise<Hex> {
    const nonce = await publicClient.getTransactionCount({ address: signer.address });
    const fields: (Hex | Hex[] | Hex[][])[] = [
      q(DEV_CHAIN_ID), q(nonce), q(parseGwei('1')), q(parseGwei('100')), q(200_000n), to, '0x', data, [], authorizations,
    ];
    const hash = keccak256(concat(['0x04', toRlp(fields as Hex[])]));
    const sig = parseSignature(await signer.sign({ hash }));
    return concat(['0x04', toRlp([...fields, q(sig.yParity!), q(BigInt(sig.r)), q(BigInt(sig.s))] as Hex[])]);
  }

  async function refusal(raw: Hex): Promise<JsonRpcError> {
    try {
      await rpc(url, 'eth_sendRawTransaction', [raw]);
    } catch (err) {
      assert.ok(err instanceof JsonRpcError, String(err));
      return err;
    }
    assert.fail('the transaction was admitted');
  }

  it('refuses a set-code transaction with no authorizations or no destination, changing nothing', async () => {
    const before = await publicClient.getTransactionCount({ address: carol.address });
    const empty = await refusal(await rawSetCode(carol, carol.address, []));
    assert.equal(empty.message, 'EIP-7702 transaction with empty auth list');
    const auth = await carol.signAuthorization({ chainId: DEV_CHAIN_ID, contractAddress: impl, nonce: before + 1 });
    const authFields = [q(DEV_CHAIN_ID), impl, q(auth.nonce), q(auth.yParity!), q(BigInt(auth.r)), q(BigInt(auth.s))] as Hex[];
    const create = await refusal(await rawSetCode(carol, '0x', [authFields]));
    assert.equal(create.message, 'EIP-7702 transaction cannot be used to create contract');
    // A block later nothing moved.
    const height = await publicClient.getBlockNumber();
    while ((await publicClient.getBlockNumber()) <= height) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await publicClient.getTransactionCount({ address: carol.address }), before);
    assert.equal(await publicClient.getCode({ address: carol.address }), undefined);
    // The same authorization in a well-formed transaction is admitted and delegates.
    const ping = encodeFunctionData({ abi: delegate.abi, functionName: 'ping' });
    const good = await rawSetCode(carol, carol.address, [authFields], ping);
    const hash = await rpc<Hex>(url, 'eth_sendRawTransaction', [good]);
    assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal((await publicClient.getCode({ address: carol.address }))?.toLowerCase(), concat(['0xef0100', impl]).toLowerCase());
    assert.equal(await counterOf(carol.address), 1n);
  });

  it('refuses a set-code transaction to a system module when building the block', async () => {
    const signer = privateKeyToAccount(devPrivateKeys(6)[5]!);
    const before = await publicClient.getTransactionCount({ address: deployer.address });
    const authorization = await signer.signAuthorization({ chainId: DEV_CHAIN_ID, contractAddress: impl, nonce: 0 });
    const hash = await wallet.sendTransaction({ authorizationList: [authorization], to: system.stakingAddress as Address, data: '0x', gas: 100_000n });
    const height = await publicClient.getBlockNumber();
    while ((await publicClient.getBlockNumber()) <= height + 1n) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await rpc(url, 'eth_getTransactionReceipt', [hash]), null);
    assert.equal(await rpc(url, 'eth_getTransactionByHash', [hash]), null);
    assert.equal(await publicClient.getTransactionCount({ address: deployer.address }), before);
    assert.equal(await publicClient.getCode({ address: signer.address }), undefined);
    await assert.rejects(
      publicClient.call({ account: deployer, to: system.stakingAddress as Address, data: '0x', authorizationList: [authorization] }),
      /system module call cannot carry EIP-7702 authorizations/,
    );
  });

  it('clears a delegation with an authorization to the zero address, keeping the storage', async () => {
    const authorization = await aliceWallet.signAuthorization({ contractAddress: zeroAddress, executor: 'self' });
    const hash = await aliceWallet.sendTransaction({ authorizationList: [authorization], to: alice.address, data: '0x' });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(await publicClient.getCode({ address: alice.address }), undefined);
    assert.equal(BigInt((await publicClient.getStorageAt({ address: alice.address, slot: '0x0' })) ?? '0x0'), 2n);
  });
});
