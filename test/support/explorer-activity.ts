// A devnet node with the explorer and some activity to show: a verified ERC-20 deployed and moved
// between dev accounts, plain ether transfers (more than a page of them for one address); what the
// explorer's web tests and bench/web.ts look at.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hash, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../../src/node.js';
import { devPrivateKeys } from './dev-accounts.js';
import { devnetConfig } from './node-config.js';
import { compileContract, solcVersion, verificationInput } from './solc.js';
import { svcDevnet } from './viem-chain.js';

/** Ether transfers alice -> bob made beside the two above, so that her history has more than one page. */
export const HISTORY_TRANSFERS = 30;

export interface ExplorerActivity {
  node: RunningNode;
  /** http://127.0.0.1:<explorer port> */
  explorerUrl: string;
  alice: PrivateKeyAccount;
  bob: PrivateKeyAccount;
  /** The verified TestToken ("Test", TST). */
  token: Address;
  /** A token transfer alice -> bob and a plain ether transfer bob -> alice. */
  tokenTransfer: Hash;
  etherTransfer: Hash;
  /** Sends one more ether transfer (new blocks come anyway; this makes one with a transaction). */
  sendEther(): Promise<Hash>;
  stop(): Promise<void>;
}

/** Waits until the explorer's index has caught up with the head. */
async function indexed(explorerUrl: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const res = await fetch(`${explorerUrl}/api/v1/health/ready`);
    const body = (await res.json()) as { ok: boolean; data?: { lag: number } };
    if (res.status === 200 && body.data?.lag === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the index did not catch up');
}

/** Starts a devnet node in a temp dir and makes the activity above. */
export async function startExplorerActivity(): Promise<ExplorerActivity> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-explorer-web-'));
  const node = await startNode(devnetConfig(dataDir));
  const [k0, k1] = devPrivateKeys(2);
  const alice = privateKeyToAccount(k0!);
  const bob = privateKeyToAccount(k1!);
  const chain = svcDevnet(node.rpcUrl);
  const client: PublicClient = createPublicClient({ chain, transport: http(node.rpcUrl) });
  const wallet = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport: http(node.rpcUrl) });
  const mined = async (hash: Hash) => {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${hash} failed`);
    return receipt;
  };

  const erc20 = compileContract('TestToken.sol', 'TestToken');
  const deploy = await wallet(alice).deployContract({ abi: erc20.abi, bytecode: erc20.bytecode, args: [10n ** 24n] });
  const token = (await mined(deploy)).contractAddress!;
  const tokenTransfer = await wallet(alice).writeContract({ address: token, abi: erc20.abi, functionName: 'transfer', args: [bob.address, 1_234n * 10n ** 18n] });
  await mined(tokenTransfer);
  const etherTransfer = await wallet(bob).sendTransaction({ to: alice.address, value: parseEther('1.5') });
  await mined(etherTransfer);
  // More than a page (25) of history for alice: small transfers to bob, sent at once with explicit nonces.
  const nonce = await client.getTransactionCount({ address: alice.address, blockTag: 'pending' });
  const batch = await Promise.all(
    Array.from({ length: HISTORY_TRANSFERS }, (_, i) => wallet(alice).sendTransaction({ to: bob.address, value: parseEther('0.001') * BigInt(i + 1), nonce: nonce + i })),
  );
  for (const hash of batch) await mined(hash);
  await indexed(node.explorerUrl);

  const verify = await fetch(`${node.explorerUrl}/api/v1/contracts/${token}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: verificationInput('TestToken.sol'), compilerVersion: solcVersion(), contractName: 'TestToken.sol:TestToken' }),
  });
  const verified = (await verify.json()) as { ok: boolean; data?: { status: string }; error?: string };
  if (!verified.ok || verified.data?.status !== 'pass') throw new Error(`TestToken was not verified: ${JSON.stringify(verified)}`);

  return {
    node,
    explorerUrl: node.explorerUrl,
    alice,
    bob,
    token,
    tokenTransfer,
    etherTransfer,
    async sendEther() {
      const hash = await wallet(alice).sendTransaction({ to: bob.address, value: parseEther('0.25') });
      await mined(hash);
      return hash;
    },
    async stop() {
      await node.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
