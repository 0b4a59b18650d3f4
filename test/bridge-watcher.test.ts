// The external-chain watcher of the bridge on a real external chain (a Hardhat node): deposits
// reported once they are `confirmations` deep, each once and in nonce order; a deposit seen at fewer
// confirmations and then reorganised away is never reported (the deposit that takes its nonce in
// the new chain is); a deposit to another contract is never read.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseEther, type Address, type Chain, type Hex, type PrivateKeyAccount, type PublicClient, type Transport, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { svcBridgeAbi, svcBridgeBytecode } from '../src/bridge/contract.generated.js';
import { DepositWatcher } from '../src/bridge/watcher.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { startHardhat, type HardhatPeer } from './support/hardhat.js';
import { rpc } from './support/json-rpc.js';

const EXTERNAL_CHAIN_ID = 31_337;
const CONFIRMATIONS = 3;

describe('the bridge watcher on an external chain', { timeout: 120_000 }, () => {
  let hardhat: HardhatPeer;
  let client: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let bridge: Address;
  let other: Address;
  let watcher: DepositWatcher;
  const recipient = getAddress('0x00000000000000000000000000000000005ec001');

  async function deployBridge(): Promise<{ address: Address; block: bigint }> {
    const validator = privateKeyToAccount(devPrivateKeys(9)[8]!).address;
    const hash = await wallet.deployContract({ abi: svcBridgeAbi, bytecode: svcBridgeBytecode, args: [9000n, [validator], [1n]] });
    const receipt = await client.waitForTransactionReceipt({ hash });
    return { address: receipt.contractAddress!, block: receipt.blockNumber };
  }

  async function deposit(to: Address, amount: bigint): Promise<bigint> {
    const hash = await wallet.writeContract({ address: to, abi: svcBridgeAbi, functionName: 'depositETH', args: [recipient], value: amount });
    return (await client.waitForTransactionReceipt({ hash })).blockNumber;
  }

  const mine = (blocks: number) => rpc(hardhat.url, 'hardhat_mine', [`0x${blocks.toString(16)}`]);

  before(async () => {
    hardhat = await startHardhat({ chainId: EXTERNAL_CHAIN_ID });
    const chain = defineChain({ id: EXTERNAL_CHAIN_ID, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [hardhat.url] } } });
    client = createPublicClient({ chain, transport: http(hardhat.url), pollingInterval: 50 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(1)[0]!), chain, transport: http(hardhat.url), pollingInterval: 50 });
    const deployed = await deployBridge();
    bridge = deployed.address;
    other = (await deployBridge()).address;
    watcher = new DepositWatcher({ client: client as PublicClient, contract: bridge, confirmations: CONFIRMATIONS, fromBlock: deployed.block });
  });

  after(async () => {
    await hardhat?.stop();
  });

  it('reports a deposit once it is 3 blocks deep, and only once; never one made to another contract', async () => {
    const block = await deposit(bridge, parseEther('1'));
    await deposit(other, parseEther('5'));
    assert.deepEqual(await watcher.poll(), [], '2 confirmations');
    await mine(1);
    const found = await watcher.poll();
    assert.equal(found.length, 1);
    assert.equal(found[0]!.nonce, 1n);
    assert.equal(found[0]!.amount, parseEther('1'));
    assert.equal(found[0]!.blockNumber, block);
    assert.equal(found[0]!.recipient, recipient);
    await mine(5);
    assert.deepEqual(await watcher.poll(), []);
    assert.equal(watcher.expectedNonce, 2n);
  });

  it('never reports a deposit reorganised away before its confirmations; reports the one that took its nonce', async () => {
    const snapshot = (await rpc(hardhat.url, 'evm_snapshot', [])) as Hex;
    await deposit(bridge, parseEther('7'));
    await mine(1);
    assert.deepEqual(await watcher.poll(), [], 'the deposit is 2 blocks deep');
    assert.equal(await rpc(hardhat.url, 'evm_revert', [snapshot]), true);
    // The other branch: a different deposit takes nonce 2.
    await mine(1);
    await deposit(bridge, parseEther('2'));
    assert.deepEqual(await watcher.poll(), []);
    await mine(2);
    const found = await watcher.poll();
    assert.deepEqual(found.map((d) => [d.nonce, d.amount]), [[2n, parseEther('2')]]);
    await mine(10);
    assert.deepEqual(await watcher.poll(), []);
  });
});
