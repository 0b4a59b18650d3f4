// viem against a real svc-node process: the calls a dapp makes, answered as geth would answer them.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  BaseError,
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  InsufficientFundsError,
  NonceTooLowError,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  parseAbiItem,
  parseEther,
  parseGwei,
  type Address,
  type Hash,
  type PublicClient,
  type WalletClient,
  type Transport,
  type Chain,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { DEV_BALANCE, MULTICALL3_ADDRESS, devPrivateKeys } from './support/dev-accounts.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const SUPPLY = 1_000_000n * 10n ** 18n;
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

describe('viem against svc-node', { timeout: 180_000 }, () => {
  let node: NodeProcess | undefined;
  let publicClient: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let deployer: PrivateKeyAccount;
  let alice: PrivateKeyAccount;
  let bob: PrivateKeyAccount;
  const token = compileContract('TestToken.sol', 'TestToken');
  const reverter = compileContract('Reverter.sol', 'Reverter');
  let tokenAddress: Address;
  let reverterAddress: Address;
  let transferHash: Hash;

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: 250 });
    const chain = svcDevnet(node.url);
    const keys = devPrivateKeys(4);
    deployer = privateKeyToAccount(keys[1]!);
    alice = privateKeyToAccount(keys[2]!);
    bob = privateKeyToAccount(keys[3]!);
    publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 100 });
    wallet = createWalletClient({ account: deployer, chain, transport: http(node.url), pollingInterval: 100 });
  });

  afterEach((t) => dumpLogsOnFailure(t, node));

  after(async () => {
    await node?.dispose();
  });

  describe('chain identity and reads', () => {
    it('reports chain id 9000', async () => {
      assert.equal(await publicClient.getChainId(), 9000);
    });

    it('funds the dev accounts with 10,000 ether at genesis', async () => {
      assert.equal(await publicClient.getBalance({ address: alice.address, blockNumber: 0n }), DEV_BALANCE);
    });

    it('has Multicall3 at the canonical address', async () => {
      const code = await publicClient.getCode({ address: MULTICALL3_ADDRESS });
      assert.ok(code && code.length > 2, 'Multicall3 has code');
    });

    it('produces new blocks', async () => {
      const first = await publicClient.getBlockNumber({ cacheTime: 0 });
      await waitForBlock(publicClient, first + 2n);
      const block = await publicClient.getBlock({ blockNumber: first + 1n });
      assert.equal(block.number, first + 1n);
      assert.equal(block.gasLimit, 300_000_000n);
      assert.ok(typeof block.baseFeePerGas === 'bigint');
    });
  });

  describe('ERC-20 deployment and transfers', () => {
    it('deploys the token and serves its code', async () => {
      const hash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode, args: [SUPPLY] });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      assert.ok(receipt.contractAddress, 'receipt names the contract address');
      tokenAddress = receipt.contractAddress;
      assert.equal(await publicClient.getCode({ address: tokenAddress }), token.deployedBytecode);
      const [name, symbol, totalSupply, balance] = await Promise.all([
        publicClient.readContract({ address: tokenAddress, abi: token.abi, functionName: 'name' }),
        publicClient.readContract({ address: tokenAddress, abi: token.abi, functionName: 'symbol' }),
        publicClient.readContract({ address: tokenAddress, abi: token.abi, functionName: 'totalSupply' }),
        publicClient.readContract({ address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [deployer.address] }),
      ]);
      assert.equal(name, 'Test');
      assert.equal(symbol, 'TST');
      assert.equal(totalSupply, SUPPLY);
      assert.equal(balance, SUPPLY);
    });

    it('estimates a transfer and mines it within the estimate', async () => {
      const amount = 1234n * 10n ** 18n;
      const estimate = await publicClient.estimateContractGas({
        account: deployer,
        address: tokenAddress,
        abi: token.abi,
        functionName: 'transfer',
        args: [alice.address, amount],
      });
      assert.ok(estimate > 21_000n && estimate < 100_000n, `estimate ${estimate} is an ERC-20 transfer's`);
      transferHash = await wallet.writeContract({
        address: tokenAddress,
        abi: token.abi,
        functionName: 'transfer',
        args: [alice.address, amount],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash: transferHash });
      assert.equal(receipt.status, 'success');
      assert.ok(receipt.gasUsed <= estimate, `gasUsed ${receipt.gasUsed} <= estimate ${estimate}`);
      assert.equal(receipt.logs.length, 1);
      const balanceOf = (address: Address) =>
        publicClient.readContract({ address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [address] });
      assert.equal(await balanceOf(alice.address), amount);
      assert.equal(await balanceOf(deployer.address), SUPPLY - amount);
    });

    it('finds the Transfer log with getLogs and getContractEvents', async () => {
      const receipt = await publicClient.getTransactionReceipt({ hash: transferHash });
      const logs = await publicClient.getLogs({
        address: tokenAddress,
        event: transferEvent,
        args: { to: alice.address },
        fromBlock: 0n,
        toBlock: 'latest',
      });
      assert.equal(logs.length, 1);
      assert.equal(logs[0]!.transactionHash, transferHash);
      assert.equal(logs[0]!.blockNumber, receipt.blockNumber);
      assert.equal(logs[0]!.blockHash, receipt.blockHash);
      assert.equal(logs[0]!.args.from, deployer.address);
      assert.equal(logs[0]!.args.value, 1234n * 10n ** 18n);

      const events = await publicClient.getContractEvents({
        address: tokenAddress,
        abi: token.abi,
        eventName: 'Transfer',
        fromBlock: 0n,
      });
      // The mint (from the zero address) and the transfer.
      assert.equal(events.length, 2);
      assert.equal((events[0]!.args as { from: Address }).from, '0x0000000000000000000000000000000000000000');
      assert.equal(events[1]!.transactionHash, transferHash);

      const none = await publicClient.getLogs({ address: tokenAddress, event: transferEvent, args: { to: bob.address }, fromBlock: 0n });
      assert.equal(none.length, 0);
    });

    it('delivers new Transfer logs and block hashes through polling filters', async () => {
      const contractFilter = await publicClient.createContractEventFilter({
        address: tokenAddress,
        abi: token.abi,
        eventName: 'Transfer',
      });
      const eventFilter = await publicClient.createEventFilter({ address: tokenAddress, event: transferEvent, args: { to: bob.address } });
      const blockFilter = await publicClient.createBlockFilter();

      const toAlice = await wallet.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [alice.address, 5n] });
      const toBob = await wallet.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [bob.address, 7n] });
      const receipt = await publicClient.waitForTransactionReceipt({ hash: toBob });
      await publicClient.waitForTransactionReceipt({ hash: toAlice });

      const changes = await publicClient.getFilterChanges({ filter: contractFilter });
      assert.deepEqual(
        changes.map((l) => l.transactionHash),
        [toAlice, toBob],
      );
      assert.equal((changes[1]!.args as { value: bigint }).value, 7n);
      // A second poll returns only what is new: nothing.
      assert.equal((await publicClient.getFilterChanges({ filter: contractFilter })).length, 0);

      const bobChanges = await publicClient.getFilterChanges({ filter: eventFilter });
      assert.equal(bobChanges.length, 1);
      assert.equal(bobChanges[0]!.transactionHash, toBob);
      assert.equal(bobChanges[0]!.args.to, bob.address);
      const bobLogs = await publicClient.getFilterLogs({ filter: eventFilter });
      assert.equal(bobLogs.length, 1);

      const blockHashes = await publicClient.getFilterChanges({ filter: blockFilter });
      assert.ok(blockHashes.includes(receipt.blockHash), 'block filter reports the block of the transfer');

      assert.equal(await publicClient.uninstallFilter({ filter: contractFilter }), true);
      assert.equal(await publicClient.uninstallFilter({ filter: contractFilter }), false);
      await publicClient.uninstallFilter({ filter: eventFilter });
      await publicClient.uninstallFilter({ filter: blockFilter });
    });

    it('reads several calls at once through multicall (Multicall3)', async () => {
      const results = await publicClient.multicall({
        contracts: [
          { address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [alice.address] },
          { address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [bob.address] },
          { address: tokenAddress, abi: token.abi, functionName: 'totalSupply' },
          { address: tokenAddress, abi: token.abi, functionName: 'symbol' },
        ],
      });
      assert.deepEqual(
        results.map((r) => r.status),
        ['success', 'success', 'success', 'success'],
      );
      assert.equal(results[0]!.result, 1234n * 10n ** 18n + 5n);
      assert.equal(results[1]!.result, 7n);
      assert.equal(results[2]!.result, SUPPLY);
      assert.equal(results[3]!.result, 'TST');
    });
  });

  describe('reverts', () => {
    before(async () => {
      const hash = await wallet.deployContract({ abi: reverter.abi, bytecode: reverter.bytecode });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      reverterAddress = receipt.contractAddress!;
    });

    it('decodes a revert reason string in simulateContract', async () => {
      const err = await rejectionOf(
        publicClient.simulateContract({ account: deployer, address: reverterAddress, abi: reverter.abi, functionName: 'failWithReason' }),
      );
      assert.ok(err instanceof ContractFunctionExecutionError, `got ${String(err)}`);
      const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
      assert.ok(reverted instanceof ContractFunctionRevertedError);
      assert.equal(reverted.reason, 'Reverter: no way');
    });

    it('decodes a custom error with its arguments', async () => {
      const err = await rejectionOf(
        publicClient.simulateContract({ account: deployer, address: reverterAddress, abi: reverter.abi, functionName: 'failWithCustomError' }),
      );
      assert.ok(err instanceof ContractFunctionExecutionError);
      const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
      assert.ok(reverted instanceof ContractFunctionRevertedError);
      assert.equal(reverted.data?.errorName, 'Unauthorized');
      assert.deepEqual(reverted.data?.args, [deployer.address, 42n]);
    });

    it('answers a reverting eth_call with code 3, the reason and the revert data', async () => {
      const err = await rejectionOf(
        rpc(node!.url, 'eth_call', [{ to: reverterAddress, data: encodeFunctionData({ abi: reverter.abi, functionName: 'failWithReason' }) }, 'latest']),
      );
      assert.ok(err instanceof JsonRpcError, String(err));
      assert.equal(err.code, 3);
      assert.equal(err.message, 'execution reverted: Reverter: no way');
      assert.equal(typeof err.data, 'string');
      assert.ok((err.data as string).startsWith('0x08c379a0'), 'data is the Error(string) payload');
    });

    it('fails the gas estimate of a call that would revert, with its reason', async () => {
      const err = await rejectionOf(
        publicClient.estimateContractGas({
          account: deployer,
          address: reverterAddress,
          abi: reverter.abi,
          functionName: 'touch',
          args: [1n, true],
        }),
      );
      assert.ok(err instanceof BaseError);
      assert.match(err.message, /Reverter: asked to fail/);
      const ok = await publicClient.estimateContractGas({
        account: deployer,
        address: reverterAddress,
        abi: reverter.abi,
        functionName: 'touch',
        args: [1n, false],
      });
      assert.ok(ok > 21_000n);
    });
  });

  describe('transaction types', () => {
    it('estimates a plain value transfer at 21,000 gas', async () => {
      assert.equal(await publicClient.estimateGas({ account: alice, to: bob.address, value: 1n }), 21_000n);
    });

    it('mines a legacy transaction and reports it as legacy', async () => {
      const gasPrice = parseGwei('3');
      const hash = await wallet.sendTransaction({ account: alice, type: 'legacy', to: bob.address, value: parseEther('1'), gasPrice });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      assert.equal(receipt.type, 'legacy');
      assert.equal(receipt.gasUsed, 21_000n);
      assert.equal(receipt.effectiveGasPrice, gasPrice);
      const tx = await publicClient.getTransaction({ hash });
      assert.equal(tx.type, 'legacy');
      assert.equal(tx.gasPrice, gasPrice);
      assert.equal(tx.chainId, 9000);
      assert.equal(tx.from, alice.address);
      assert.equal(tx.to, bob.address);
      assert.equal(tx.value, parseEther('1'));
    });

    it('mines an EIP-1559 transaction and charges base fee plus tip', async () => {
      const maxFeePerGas = parseGwei('20');
      const maxPriorityFeePerGas = parseGwei('2');
      const hash = await wallet.sendTransaction({ account: alice, to: bob.address, value: 1000n, maxFeePerGas, maxPriorityFeePerGas });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      assert.equal(receipt.type, 'eip1559');
      const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber, includeTransactions: true });
      const baseFee = block.baseFeePerGas!;
      const expected = baseFee + maxPriorityFeePerGas < maxFeePerGas ? baseFee + maxPriorityFeePerGas : maxFeePerGas;
      assert.equal(receipt.effectiveGasPrice, expected);
      const inBlock = block.transactions.find((t) => t.hash === hash);
      assert.ok(inBlock, 'the block lists the transaction');
      assert.equal(inBlock.type, 'eip1559');
      assert.equal(inBlock.maxFeePerGas, maxFeePerGas);
      assert.equal(inBlock.maxPriorityFeePerGas, maxPriorityFeePerGas);
      const tx = await publicClient.getTransaction({ hash });
      assert.equal(tx.blockHash, receipt.blockHash);
      assert.equal(tx.transactionIndex, receipt.transactionIndex);
    });

    it('reports gas price and fee history', async () => {
      const head = await publicClient.getBlock();
      const gasPrice = await publicClient.getGasPrice();
      assert.ok(gasPrice >= head.baseFeePerGas!, `gas price ${gasPrice} >= base fee ${head.baseFeePerGas}`);
      const history = await publicClient.getFeeHistory({ blockCount: 4, rewardPercentiles: [25, 75] });
      assert.equal(history.baseFeePerGas.length, 5);
      assert.equal(history.gasUsedRatio.length, 4);
      assert.equal(history.reward?.length, 4);
      for (const r of history.reward!) assert.equal(r.length, 2);
      for (const ratio of history.gasUsedRatio) assert.ok(ratio >= 0 && ratio <= 1);
      const fees = await publicClient.estimateFeesPerGas();
      assert.ok(fees.maxFeePerGas >= fees.maxPriorityFeePerGas);
    });
  });

  describe('node errors as viem error classes', () => {
    it('maps a reused nonce to NonceTooLowError', async () => {
      const used = await publicClient.getTransactionCount({ address: alice.address });
      assert.ok(used > 0, 'alice has sent transactions');
      const err = await rejectionOf(
        wallet.sendTransaction({ account: alice, to: bob.address, value: 1n, nonce: 0, gas: 21_000n }),
      );
      assert.ok(err instanceof BaseError, String(err));
      assert.ok(err.walk((e) => e instanceof NonceTooLowError) instanceof NonceTooLowError, err.message);
    });

    it('maps a value above the balance to InsufficientFundsError', async () => {
      const balance = await publicClient.getBalance({ address: bob.address });
      const err = await rejectionOf(
        wallet.sendTransaction({ account: bob, to: alice.address, value: balance + parseEther('1'), gas: 21_000n }),
      );
      assert.ok(err instanceof BaseError, String(err));
      assert.ok(err.walk((e) => e instanceof InsufficientFundsError) instanceof InsufficientFundsError, err.message);
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

async function waitForBlock(client: PublicClient<Transport, Chain>, target: bigint): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await client.getBlockNumber({ cacheTime: 0 })) < target) {
    if (Date.now() > deadline) assert.fail(`no block ${target} within 20 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
