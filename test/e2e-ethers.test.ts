// ethers v6 against a real svc-node process: deploy, transfer, events, reverts and error codes.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  Network,
  Wallet,
  isError,
  parseEther,
  parseUnits,
  type EventLog,
  type InterfaceAbi,
  type Log,
} from 'ethers';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { NodeProcess } from './support/node-process.js';
import { compileContract } from './support/solc.js';

const SUPPLY = 1_000_000n * 10n ** 18n;

describe('ethers v6 against svc-node', { timeout: 180_000 }, () => {
  let node: NodeProcess | undefined;
  let provider: JsonRpcProvider;
  let deployer: Wallet;
  let alice: Wallet;
  let bob: Wallet;
  let token: Contract;
  let reverter: Contract;
  const tokenArtifact = compileContract('TestToken.sol', 'TestToken');
  const reverterArtifact = compileContract('Reverter.sol', 'Reverter');

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: 250 });
    const network = new Network('svc-devnet', 9000);
    // No 250 ms response sharing: a read right after a receipt must see the node's current answer.
    provider = new JsonRpcProvider(node.url, network, { staticNetwork: network, pollingInterval: 100, cacheTimeout: -1 });
    const keys = devPrivateKeys(7);
    deployer = new Wallet(keys[4]!, provider);
    alice = new Wallet(keys[5]!, provider);
    bob = new Wallet(keys[6]!, provider);
  });

  afterEach((t) => dumpLogsOnFailure(t, node));

  after(async () => {
    provider?.destroy();
    await node?.dispose();
  });

  describe('network', () => {
    it('reports chain id 9000 and a block with a base fee', async () => {
      assert.equal((await provider.getNetwork()).chainId, 9000n);
      assert.equal(BigInt(await provider.send('eth_chainId', [])), 9000n);
      const block = await provider.getBlock('latest');
      assert.ok(block, 'latest block exists');
      assert.equal(block.gasLimit, 300_000_000n);
      assert.ok(block.baseFeePerGas !== null && block.baseFeePerGas > 0n);
      const fees = await provider.getFeeData();
      assert.ok(fees.gasPrice !== null && fees.gasPrice > 0n);
      assert.ok(fees.maxFeePerGas !== null && fees.maxPriorityFeePerGas !== null);
    });
  });

  describe('ERC-20 with ContractFactory', () => {
    it('deploys and reads the token', async () => {
      const factory = new ContractFactory(tokenArtifact.abi as InterfaceAbi, tokenArtifact.bytecode, deployer);
      const deployed = await factory.deploy(SUPPLY);
      await deployed.waitForDeployment();
      const receipt = await deployed.deploymentTransaction()!.wait();
      assert.equal(receipt?.status, 1);
      const address = await deployed.getAddress();
      assert.equal(receipt?.contractAddress, address);
      token = new Contract(address, tokenArtifact.abi as InterfaceAbi, deployer);
      assert.equal(await token.getFunction('name')(), 'Test');
      assert.equal(await token.getFunction('symbol')(), 'TST');
      assert.equal(await token.getFunction('decimals')(), 18n);
      assert.equal(await token.getFunction('balanceOf')(deployer.address), SUPPLY);
      assert.equal(await provider.getCode(address), tokenArtifact.deployedBytecode);
    });

    it('estimates and mines a transfer', async () => {
      const amount = 500n * 10n ** 18n;
      const estimate = await token.getFunction('transfer').estimateGas(alice.address, amount);
      assert.ok(estimate > 21_000n && estimate < 100_000n, `estimate ${estimate}`);
      const tx = await token.getFunction('transfer')(alice.address, amount);
      const receipt = await tx.wait();
      assert.equal(receipt.status, 1);
      assert.ok(receipt.gasUsed <= estimate);
      assert.equal(await token.getFunction('balanceOf')(alice.address), amount);
      assert.equal(await token.getFunction('balanceOf')(deployer.address), SUPPLY - amount);
    });

    it('finds Transfer events with queryFilter', async () => {
      const toAlice = (await token.queryFilter(token.filters.Transfer!(null, alice.address), 0, 'latest')) as EventLog[];
      assert.equal(toAlice.length, 1);
      assert.equal(toAlice[0]!.args[0], deployer.address);
      assert.equal(toAlice[0]!.args[1], alice.address);
      assert.equal(toAlice[0]!.args[2], 500n * 10n ** 18n);
      const all = (await token.queryFilter('Transfer', 0)) as EventLog[];
      assert.equal(all.length, 2);
      assert.equal(all[0]!.args[0], '0x0000000000000000000000000000000000000000');
      const block = await provider.getBlock(all[1]!.blockNumber);
      assert.equal(block?.hash, all[1]!.blockHash);
    });

    it('delivers a Transfer to a contract.on listener (filter polling)', async () => {
      const seen = new Promise<{ to: string; value: bigint; log: Log }>((resolve) => {
        void token.on('Transfer', (from: string, to: string, value: bigint, event: { log: Log }) => {
          if (to === bob.address) resolve({ to, value, log: event.log });
        });
      });
      // The subscription installs its filter asynchronously; give it a poll before sending.
      await new Promise((r) => setTimeout(r, 300));
      const tx = await token.getFunction('transfer')(bob.address, 9n);
      const receipt = await tx.wait();
      const event = await seen;
      await token.removeAllListeners();
      assert.equal(event.value, 9n);
      assert.equal(event.log.transactionHash, receipt.hash);
    });
  });

  describe('reverts', () => {
    before(async () => {
      const factory = new ContractFactory(reverterArtifact.abi as InterfaceAbi, reverterArtifact.bytecode, deployer);
      const deployed = await factory.deploy();
      await deployed.waitForDeployment();
      reverter = new Contract(await deployed.getAddress(), reverterArtifact.abi as InterfaceAbi, deployer);
    });

    it('decodes a revert reason string', async () => {
      const err = await rejectionOf(reverter.getFunction('failWithReason').staticCall());
      assert.ok(isError(err, 'CALL_EXCEPTION'), String(err));
      assert.equal(err.reason, 'Reverter: no way');
    });

    it('decodes a custom error', async () => {
      const err = await rejectionOf(reverter.getFunction('failWithCustomError').staticCall());
      assert.ok(isError(err, 'CALL_EXCEPTION'), String(err));
      assert.equal(err.revert?.name, 'Unauthorized');
      assert.deepEqual([...(err.revert?.args ?? [])], [deployer.address, 42n]);
    });

    it('refuses to send a transaction whose estimate reverts, with the reason', async () => {
      const err = await rejectionOf(reverter.getFunction('touch')(1n, true));
      assert.ok(isError(err, 'CALL_EXCEPTION'), String(err));
      assert.equal(err.reason, 'Reverter: asked to fail');
    });

    it('mines a reverting transaction sent with a fixed gas limit as status 0', async () => {
      const tx = await reverter.getFunction('touch')(1n, true, { gasLimit: 100_000n });
      const err = await rejectionOf(tx.wait());
      assert.ok(isError(err, 'CALL_EXCEPTION'), String(err));
      assert.equal(err.receipt?.status, 0);
      const receipt = await provider.getTransactionReceipt(tx.hash);
      assert.equal(receipt?.status, 0);
      assert.equal(receipt?.logs.length, 0);
    });
  });

  describe('transaction types', () => {
    it('estimates a value transfer at 21,000 gas', async () => {
      assert.equal(await provider.estimateGas({ from: alice.address, to: bob.address, value: 1n }), 21_000n);
    });

    it('mines a legacy (type 0) transaction', async () => {
      const gasPrice = parseUnits('3', 'gwei');
      const tx = await alice.sendTransaction({ type: 0, to: bob.address, value: parseEther('1'), gasPrice });
      const receipt = await tx.wait();
      assert.equal(receipt?.status, 1);
      assert.equal(receipt?.type, 0);
      assert.equal(receipt?.gasPrice, gasPrice);
      const fetched = await provider.getTransaction(tx.hash);
      assert.equal(fetched?.type, 0);
      assert.equal(fetched?.gasPrice, gasPrice);
      assert.equal(fetched?.chainId, 9000n);
      assert.equal(fetched?.blockHash, receipt?.blockHash);
    });

    it('mines an EIP-1559 (type 2) transaction at base fee plus tip', async () => {
      const maxFeePerGas = parseUnits('20', 'gwei');
      const maxPriorityFeePerGas = parseUnits('2', 'gwei');
      const tx = await alice.sendTransaction({ type: 2, to: bob.address, value: 1000n, maxFeePerGas, maxPriorityFeePerGas });
      const receipt = await tx.wait();
      assert.equal(receipt?.status, 1);
      assert.equal(receipt?.type, 2);
      const block = await provider.getBlock(receipt!.blockNumber);
      const baseFee = block!.baseFeePerGas!;
      const expected = baseFee + maxPriorityFeePerGas < maxFeePerGas ? baseFee + maxPriorityFeePerGas : maxFeePerGas;
      assert.equal(receipt?.gasPrice, expected);
      assert.ok(block!.transactions.includes(tx.hash));
    });
  });

  describe('node errors as ethers error codes', () => {
    it('reports a reused nonce as NONCE_EXPIRED', async () => {
      assert.ok((await provider.getTransactionCount(alice.address)) > 0);
      const err = await rejectionOf(alice.sendTransaction({ to: bob.address, value: 1n, nonce: 0, gasLimit: 21_000n }));
      assert.ok(isError(err, 'NONCE_EXPIRED'), String(err));
    });

    it('reports a value above the balance as INSUFFICIENT_FUNDS', async () => {
      const balance = await provider.getBalance(bob.address);
      const err = await rejectionOf(bob.sendTransaction({ to: alice.address, value: balance + parseEther('1'), gasLimit: 21_000n }));
      assert.ok(isError(err, 'INSUFFICIENT_FUNDS'), String(err));
    });

    it('reports a same-nonce resend with no fee bump as REPLACEMENT_UNDERPRICED', async () => {
      const nonce = await provider.getTransactionCount(alice.address, 'pending');
      const fees = { maxFeePerGas: parseUnits('50', 'gwei'), maxPriorityFeePerGas: parseUnits('1', 'gwei'), gasLimit: 21_000n, nonce };
      const first = await alice.sendTransaction({ to: bob.address, value: 1n, ...fees });
      const err = await rejectionOf(alice.sendTransaction({ to: bob.address, value: 2n, ...fees }));
      // Either the pool still holds the first one (underpriced) or it was mined already (nonce expired).
      assert.ok(isError(err, 'REPLACEMENT_UNDERPRICED') || isError(err, 'NONCE_EXPIRED'), String(err));
      assert.equal((await first.wait())?.status, 1);
    });
  });
});

/** The error a promise rejects with; fails the test if it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail('expected the call to fail');
}
