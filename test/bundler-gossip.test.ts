// The bundler's side of user-operation gossip on a CometBFT network (src/aa/bundler.ts with
// services.network), driven on one devnet node: a gossiped operation is validated into the pool
// (CheckTx), an operation accepted over RPC is handed to the network, nothing is sent to the
// transaction pool, the proposer's bundles pay the beneficiary it names, and recheck drops the
// operation once a block carries it (a second copy can no longer enter).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, createWalletClient, decodeFunctionData, encodeFunctionData, http, parseEther, parseGwei, parseTransaction, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { entryPoint07Abi, type UserOperation } from 'viem/account-abstraction';
import { Bundler } from '../src/aa/bundler.js';
import { encodeGossipedOperation } from '../src/aa/gossip.js';
import { operationJson, parseOperation, type EntryPointOperation } from '../src/aa/user-operation.js';
import { ENTRY_POINT_V07, SIMPLE_ACCOUNT_FACTORY_V07 } from '../src/chain/account-abstraction.js';
import { bundlerAccount } from '../src/chain/dev-accounts.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { bundler as bundlerParams } from '../src/params.js';
import { SIMPLE_ACCOUNT_ABI, SIMPLE_ACCOUNT_FACTORY_ABI, signUserOperation } from './support/simple-account.js';
import { svcDevnet } from './support/viem-chain.js';

const CHAIN_ID = 9000;

describe('user-operation gossip: the bundler of a network node', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let peer: Bundler;
  const gossiped: Buffer[] = [];
  const owner = privateKeyToAccount('0x3535353535353535353535353535353535353535353535353535353535350001');
  const beneficiary = '0x00000000000000000000000000000000000b0b0b' as Address;
  const ops: { e: EntryPointOperation; hash: Hex }[] = [];

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bundler-gossip-'));
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }));
    const chain = svcDevnet(node.rpcUrl);
    const client = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    const wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(5)[4]!), chain, transport: http(node.rpcUrl) });
    for (const salt of [1n, 2n, 3n]) {
      const sender = await client.readContract({ address: SIMPLE_ACCOUNT_FACTORY_V07, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, salt] });
      await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: sender, value: parseEther('0.1') }) });
      const op: UserOperation<'0.7'> = {
        sender,
        nonce: 0n,
        factory: SIMPLE_ACCOUNT_FACTORY_V07,
        factoryData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, salt] }),
        callData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_ABI, functionName: 'execute', args: [beneficiary, 1n, '0x'] }),
        callGasLimit: 100_000n,
        verificationGasLimit: 500_000n,
        preVerificationGas: 120_000n,
        maxFeePerGas: parseGwei('20'),
        maxPriorityFeePerGas: parseGwei('1'),
        signature: '0x',
      };
      const hash = await signUserOperation(owner, '0.7', op, CHAIN_ID);
      const e = parseOperation(operationJson({ version: '0.7', entryPoint: ENTRY_POINT_V07, op } as EntryPointOperation), ENTRY_POINT_V07, 'send');
      ops.push({ e, hash });
    }
    // A second bundler over the node's chain, as a network node runs it: it gossips and bundles only for proposals.
    const { chain: nativeChain, events, log } = node.services;
    peer = new Bundler({ config: node.config, chain: nativeChain, mempool: node.mempool, events, log, coinbase: node.coinbase, network: { gossip: (b) => gossiped.push(b) } });
  });

  after(async () => {
    peer?.close();
    await node?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('CheckTx: refuses bytes that are no operation, pools a gossiped one after validation, and gossips only what its own clients send', async () => {
    assert.match((await peer.admitGossiped(Buffer.from('not json'))) ?? '', /not JSON/);
    assert.match((await peer.admitGossiped(Buffer.from('{"entryPoint":"0x0000000000000000000000000000000000000001","op":{}}'))) ?? '', /unsupported entryPoint/);
    const [a, b] = ops;
    assert.equal(await peer.admitGossiped(encodeGossipedOperation(a!.e)), null);
    assert.equal(peer.pool.get(a!.hash)?.source, 'peer');
    assert.equal(await peer.admitGossiped(encodeGossipedOperation(a!.e)), null, 'a second copy is already pooled');
    assert.equal(gossiped.length, 0, 'a peer\'s operation is not handed back to the network');
    assert.equal(await peer.send(b!.e), b!.hash);
    assert.equal(peer.pool.get(b!.hash)?.source, 'rpc');
    assert.deepEqual(gossiped, [encodeGossipedOperation(b!.e)]);
    await peer.idle();
    assert.deepEqual(peer.inFlightBundles(), [], 'a network node sends no bundle to the transaction pool');
    assert.equal(await peer.recheckGossiped(encodeGossipedOperation(a!.e)), true);
  });

  it('PrepareProposal: one handleOps of both operations, paying the proposer, at the bundler account\'s nonce; recheck drops them once a block carries it', async () => {
    const bundles = await peer.proposalBundles(Buffer.from(beneficiary.slice(2), 'hex'));
    assert.equal(bundles.length, 1);
    const tx = parseTransaction(`0x${bundles[0]!.toString('hex')}` as Hex);
    assert.equal(tx.to?.toLowerCase(), ENTRY_POINT_V07.toLowerCase());
    const nonce = Number(await rpc<string>(node.rpcUrl, 'eth_getTransactionCount', [bundlerAccount().address, 'latest']));
    assert.equal(tx.nonce, nonce);
    const { args } = decodeFunctionData({ abi: entryPoint07Abi, data: tx.data! });
    assert.equal(((args as readonly unknown[])[1] as Address).toLowerCase(), beneficiary);
    assert.equal(((args as readonly unknown[])[0] as unknown[]).length, 2);
    assert.equal(peer.pool.size, 2, 'building a proposal\'s bundle keeps the operations until a block carries them');

    // The block: the bundle as the proposal carried it.
    await node.mempool.submit(bundles[0]!);
    for (const { hash } of ops.slice(0, 2)) {
      const r = await waitFor(`receipt of ${hash}`, async () => (await rpc<{ success: boolean } | null>(node.rpcUrl, 'eth_getUserOperationReceipt', [hash])) ?? undefined, 20_000);
      assert.equal(r.success, true);
    }
    for (const { e } of ops.slice(0, 2)) assert.equal(await peer.recheckGossiped(encodeGossipedOperation(e)), false);
    assert.equal(peer.pool.size, 0);
    assert.deepEqual(await peer.proposalBundles(Buffer.from(beneficiary.slice(2), 'hex')), []);
    // A late copy of a landed operation cannot enter again: its nonce is used.
    assert.match((await peer.admitGossiped(encodeGossipedOperation(ops[0]!.e))) ?? '', /AA25 invalid account nonce/);
  });

  it('recheck simulates an operation again once its check is old, and drops it when it no longer passes', async () => {
    const c = ops[2]!;
    const bytes = encodeGossipedOperation(c.e);
    const olderThanRevalidation = async (at: number) =>
      waitFor(`the head past block ${at + bundlerParams.revalidateAfterBlocks}`, async () => (node.services.chain.head().number > at + bundlerParams.revalidateAfterBlocks ? true : undefined), 20_000);
    assert.equal(await peer.admitGossiped(bytes), null);
    const first = peer.pool.get(c.hash)!.validatedAt;
    await olderThanRevalidation(first);
    assert.equal(await peer.recheckGossiped(bytes), true, 'still valid: kept');
    const second = peer.pool.get(c.hash)!.validatedAt;
    assert.ok(second > first, 'validated again on a newer head');
    // Its factory throttled by this node's reputation (ERC-7562): the operation no longer passes.
    for (let i = 0; i < 200; i++) peer.reputation.seen(SIMPLE_ACCOUNT_FACTORY_V07);
    await olderThanRevalidation(second);
    assert.equal(await peer.recheckGossiped(bytes), false);
    assert.equal(peer.pool.get(c.hash), undefined);
  });
});
