// User operations on a network of four CometBFT validators: every operation is sent to one node
// only; it gossips through CometBFT's mempool into every validator's bundler pool, and whichever
// validator proposes bundles it (the bundle pays that proposer). Each lands exactly once, in a
// bundle that succeeds, and every node answers its receipt.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPublicClient,
  decodeFunctionData,
  encodeFunctionData,
  http,
  numberToHex,
  parseEther,
  parseGwei,
  toEventSelector,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { entryPoint07Abi, type UserOperation } from 'viem/account-abstraction';
import { ENTRY_POINT_V07, SIMPLE_ACCOUNT_FACTORY_V07 } from '../src/chain/account-abstraction.js';
import { bundlerAccount, devAccounts } from '../src/chain/dev-accounts.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { SIMPLE_ACCOUNT_ABI, SIMPLE_ACCOUNT_FACTORY_ABI, signUserOperation } from './support/simple-account.js';
import { basePortFor, startLocalNetwork, type LocalNetwork } from './support/testnet.js';
import { svcDevnet } from './support/viem-chain.js';

const CHAIN_ID = 9000;
const USER_OPERATION_EVENT = toEventSelector(
  'UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
);
/** Operations sent one after another (each waits for the previous receipt), then a burst at once. */
const ONE_BY_ONE = 6;
const BURST = 4;

interface OpReceipt {
  userOpHash: Hex;
  success: boolean;
  receipt: { transactionHash: Hex; blockHash: Hex; blockNumber: Hex; status: Hex };
}

let net: LocalNetwork;
let urls: string[];

before(async () => {
  net = await startLocalNetwork({ validators: 4, blockTimeMs: 100, basePort: basePortFor(7) });
  urls = net.nodes.map((n) => n.url);
});

after(async () => {
  await net?.dispose();
});

function json07(op: UserOperation<'0.7'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(op)) if (v !== undefined) out[k] = typeof v === 'bigint' ? numberToHex(v) : String(v);
  return out;
}

describe('user operations on a network of four CometBFT validators', { timeout: 180_000 }, () => {
  it('an operation sent to one node is bundled by whichever validator proposes, exactly once, and its receipt is on every node', async () => {
    const receiving = urls[0]!;
    const client = createPublicClient({ chain: svcDevnet(receiving), transport: http(receiving) });
    const owner = privateKeyToAccount('0x3535353535353535353535353535353535353535353535353535353535353535');
    const recipient = '0x0000000000000000000000000000000000035035' as Address;
    const count = ONE_BY_ONE + BURST;
    const salts = Array.from({ length: count }, (_, i) => BigInt(i + 1));
    const senders = await Promise.all(
      salts.map((salt) => client.readContract({ address: SIMPLE_ACCOUNT_FACTORY_V07, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, salt] })),
    );

    // Fund the counterfactual accounts (their prefunds) from one dev account.
    const funder = privateKeyToAccount(devAccounts()[7]!.privateKey);
    const base = Number(await rpc<string>(receiving, 'eth_getTransactionCount', [funder.address, 'pending']));
    const fundings: string[] = [];
    for (const [i, to] of senders.entries()) {
      const raw = await funder.signTransaction({
        chainId: CHAIN_ID, type: 'eip1559', nonce: base + i, to, value: parseEther('0.1'), gas: 21_000n, maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('1'),
      });
      fundings.push(await rpc<string>(receiving, 'eth_sendRawTransaction', [raw]));
    }
    for (const hash of fundings) {
      const r = await waitFor(`funding ${hash}`, async () => (await rpc<{ status: Hex } | null>(receiving, 'eth_getTransactionReceipt', [hash])) ?? undefined, 30_000, 100);
      assert.equal(r.status, '0x1');
    }
    const startBlock = Number(await rpc<string>(receiving, 'eth_blockNumber'));

    const build = async (i: number): Promise<{ hash: Hex; op: UserOperation<'0.7'> }> => {
      const op: UserOperation<'0.7'> = {
        sender: senders[i]!,
        nonce: 0n,
        factory: SIMPLE_ACCOUNT_FACTORY_V07,
        factoryData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, salts[i]!] }),
        callData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_ABI, functionName: 'execute', args: [recipient, 1_000n, '0x'] }),
        callGasLimit: 100_000n,
        verificationGasLimit: 500_000n,
        preVerificationGas: 120_000n,
        maxFeePerGas: parseGwei('20'),
        maxPriorityFeePerGas: parseGwei('1'),
        signature: '0x',
      };
      const hash = await signUserOperation(owner, '0.7', op, CHAIN_ID);
      return { hash, op };
    };
    const send = async (op: UserOperation<'0.7'>): Promise<Hex> => rpc<Hex>(receiving, 'eth_sendUserOperation', [json07(op), ENTRY_POINT_V07]);
    const receiptOn = (url: string, hash: Hex) =>
      waitFor(`receipt of operation ${hash} on ${url}`, async () => (await rpc<OpReceipt | null>(url, 'eth_getUserOperationReceipt', [hash])) ?? undefined, 30_000, 100);

    const hashes: Hex[] = [];
    // One by one: each lands in the block of the next proposer, before the next is sent.
    for (let i = 0; i < ONE_BY_ONE; i++) {
      const { hash, op } = await build(i);
      assert.equal(await send(op), hash);
      await receiptOn(receiving, hash);
      hashes.push(hash);
    }
    // A burst at once.
    const burst = await Promise.all(Array.from({ length: BURST }, (_, j) => build(ONE_BY_ONE + j)));
    for (const { hash, op } of burst) assert.equal(await send(op), hash);
    hashes.push(...burst.map((b) => b.hash));

    // Every node answers every receipt, the same one.
    const bundles = new Set<Hex>();
    for (const hash of hashes) {
      const answers = await Promise.all(urls.map((url) => receiptOn(url, hash)));
      for (const a of answers) {
        assert.equal(a.success, true, `operation ${hash} succeeded`);
        assert.equal(a.receipt.transactionHash, answers[0]!.receipt.transactionHash, `every node names one bundle for ${hash}`);
        assert.equal(a.receipt.blockHash, answers[0]!.receipt.blockHash);
      }
      bundles.add(answers[0]!.receipt.transactionHash);
    }
    const endBlock = Math.max(...(await Promise.all(urls.map(async (u) => Number(await rpc<string>(u, 'eth_blockNumber'))))));

    // Exactly once: one UserOperationEvent per operation on the whole chain, on every node.
    for (const url of urls) {
      for (const hash of hashes) {
        const logs = await rpc<unknown[]>(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: numberToHex(endBlock), address: ENTRY_POINT_V07, topics: [USER_OPERATION_EVENT, hash] }]);
        assert.equal(logs.length, 1, `operation ${hash} landed once (node ${url})`);
      }
    }

    // The bundles pay the validator that proposed their block, and more than the receiving node proposed them.
    const operatorOf = new Map(net.manifest.nodes.map((n, i) => [n.operator.toLowerCase(), i]));
    const bundlers = new Set<number>();
    for (const txHash of bundles) {
      const tx = await rpc<{ input: Hex; blockHash: Hex; from: Address; to: Address }>(receiving, 'eth_getTransactionByHash', [txHash]);
      const block = await rpc<{ miner: Address }>(receiving, 'eth_getBlockByHash', [tx.blockHash, false]);
      const { args } = decodeFunctionData({ abi: entryPoint07Abi, data: tx.input });
      const beneficiary = (args as readonly unknown[])[1] as Address;
      assert.equal(beneficiary.toLowerCase(), block.miner.toLowerCase(), `bundle ${txHash} pays the proposer of its block`);
      assert.equal(tx.from.toLowerCase(), bundlerAccount().address.toLowerCase());
      const proposer = operatorOf.get(block.miner.toLowerCase());
      assert.notEqual(proposer, undefined, `block of ${txHash} proposed by a validator`);
      bundlers.add(proposer!);
    }
    assert.ok(bundlers.size >= 2, `bundled by ${bundlers.size} proposer(s): ${[...bundlers].join(', ')}`);
    assert.ok([...bundlers].some((i) => i !== 0), 'a validator other than the receiving node bundled');

    // No bundle was wasted: every handleOps of the span succeeded and carried an operation.
    let handleOps = 0;
    for (let n = startBlock; n <= endBlock; n++) {
      const block = await rpc<{ transactions: { hash: Hex; to: Address | null }[] }>(receiving, 'eth_getBlockByNumber', [numberToHex(n), true]);
      for (const t of block.transactions) {
        if (t.to?.toLowerCase() !== ENTRY_POINT_V07.toLowerCase()) continue;
        handleOps += 1;
        const r = await rpc<{ status: Hex }>(receiving, 'eth_getTransactionReceipt', [t.hash]);
        assert.equal(r.status, '0x1', `bundle ${t.hash} succeeded`);
        assert.ok(bundles.has(t.hash), `bundle ${t.hash} carried one of the operations`);
      }
    }
    assert.equal(handleOps, bundles.size);

    // The operations left CometBFT's mempool on every node (recheck dropped them once bundled).
    for (const [i, n] of net.manifest.nodes.entries()) {
      await waitFor(`no user operation in node ${i}'s CometBFT mempool`, async () => {
        const r = await fetch(`http://127.0.0.1:${n.cometRpcPort}/unconfirmed_txs?limit=100`).then((x) => x.json() as Promise<{ result: { txs: string[] | null } }>);
        const ops = (r.result.txs ?? []).filter((t) => Buffer.from(t, 'base64').subarray(0, 2).equals(Buffer.from([0x00, 0x03])));
        return ops.length === 0 ? true : undefined;
      }, 10_000, 200);
    }
  });
});
