// A devnet node where the chain's own kinds of activity happened, for the explorer's chain pages:
// an inference miner registered with challenge tasks and an accepted proof (queued into the compute
// module as its intake does after checking one; no inference addon needed), ERC-4337 user
// operations through EntryPoint v0.7 (two accounts deployed in one bundle, then a second operation
// of one of them), a contract gone dormant for unpaid rent, and a second validator that joined the
// active set and, never signing on this one-node chain, missed its blocks until downtime jailed it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  parseEther,
  parseGwei,
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { entryPoint07Abi, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { ENTRY_POINT_V07, SIMPLE_ACCOUNT_FACTORY_V07 } from '../../src/chain/account-abstraction.js';
import { deriveKeys, generateWallet, parseSeed, signRegistration, type MinerKeys } from '../../src/miner/wallet.js';
import type { Address as ModuleAddress } from '../../src/modules/compute/types.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { CHAIN_ID, rent as defaultRent, staking as defaultStaking, system, type RentParams, type StakingParams } from '../../src/params.js';
import { devPrivateKeys } from './dev-accounts.js';
import { rpc, waitFor } from './json-rpc.js';
import { queueChallengeProof } from './module-activity.js';
import { devnetConfig } from './node-config.js';
import { repoRoot } from './repo.js';
import { SIMPLE_ACCOUNT_ABI, SIMPLE_ACCOUNT_FACTORY_ABI, signUserOperation } from './simple-account.js';
import { compileContracts } from './solc.js';
import { svcDevnet } from './viem-chain.js';

const SMALL = 'svc-embed-small@v1.0';
/** Short downtime windows so that a validator that never signs is judged within seconds. */
export const STAKING: StakingParams = { ...defaultStaking, signedBlocksWindow: 20 };
/** rent.test.ts's rules: 100 uncovered slots pass the owed limit within an epoch and go dormant three idle epochs later. */
export const RENT: RentParams = {
  ...defaultRent,
  depositPerSlot: 1_000_000_000_000n,
  rentPerSlotPerEpoch: 1_000_000n,
  dormancyOwedLimit: 50_000_000n,
  dormancyEpochs: 3,
  reactivationFee: 1_000_000_000_000_000n,
};

export interface ChainPagesActivity {
  node: RunningNode;
  explorerUrl: string;
  rpcUrl: string;
  /** The inference miner's wallet (checksummed), a task it proved and the accepted proof. */
  miner: Hex;
  taskId: Hex;
  proofId: Hex;
  /** User operations: the first bundle (two operations deploying two accounts), then a second one that logs. */
  senders: Address[];
  bundle: Hex;
  userOps: Hex[];
  /** A contract with 100 storage slots and no deposit, dormant. */
  dormant: Address;
  /** The genesis validator (signs every block) and one that joined and missed until jailed. */
  signer: Address;
  absentee: Address;
  stop(): Promise<void>;
}

const hex = (b: Buffer): Hex => `0x${b.toString('hex')}`;

export async function startChainPagesActivity(): Promise<ChainPagesActivity> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-explorer-chain-pages-'));
  const node = await startNode(devnetConfig(dataDir, { blockTimeMs: 50 }), { stakingParams: STAKING, rentParams: RENT });
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    const chain = svcDevnet(node.rpcUrl);
    const client: PublicClient<Transport, Chain> = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 25 });
    const keys = devPrivateKeys(8);
    const wallet = (i: number) => createWalletClient({ account: privateKeyToAccount(keys[i]!), chain, transport: http(node.rpcUrl), pollingInterval: 25 });
    const mined = async (hash: Hex) => {
      const receipt = await client.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${hash} failed`);
      return receipt;
    };

    // Compute: a miner registered (and kept registered, as svc-miner does) holds challenge tasks from the next epoch on.
    const minerKeys: MinerKeys = deriveKeys(parseSeed(generateWallet().privateKey));
    const minerWallet = minerKeys.address.toLowerCase() as ModuleAddress;
    let sequence = 1;
    const register = async () => rpc(node.rpcUrl, 'svc_registerMiner', [await signRegistration(minerKeys, CHAIN_ID.devnet, 'Cold', [SMALL], sequence++)]);
    await register();
    heartbeat = setInterval(() => void register().catch(() => undefined), 150);

    // A second validator: active from the next epoch, it never signs here and is jailed for downtime.
    const stakingAbi = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;
    const absentee = wallet(6);
    await mined(
      await absentee.writeContract({ address: system.stakingAddress as Address, abi: stakingAbi, functionName: 'registerValidator', args: ['absentee', 1_000, 2_000, 500], value: parseEther('50'), gas: 300_000n } as never),
    );

    // User operations: one bundle deploys two SimpleAccounts (v0.7), a second runs the first account's next operation.
    const owner = privateKeyToAccount(hex(randomBytes(32)));
    const bundler = wallet(2);
    const senders = await Promise.all(
      [1n, 2n].map((salt) => client.readContract({ address: SIMPLE_ACCOUNT_FACTORY_V07, abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'getAddress', args: [owner.address, salt] })),
    );
    for (const s of senders) await mined(await bundler.sendTransaction({ to: s, value: parseEther('1') }));
    // The first bundle's operations send ether (no logs); the second deposits for its account at the EntryPoint (a Deposited log).
    const operation = (sender: Address, nonce: bigint, salt?: bigint): UserOperation<'0.7'> => ({
      sender,
      nonce,
      ...(salt === undefined
        ? {}
        : { factory: SIMPLE_ACCOUNT_FACTORY_V07 as Address, factoryData: encodeFunctionData({ abi: SIMPLE_ACCOUNT_FACTORY_ABI, functionName: 'createAccount', args: [owner.address, salt] }) }),
      callData: encodeFunctionData({
        abi: SIMPLE_ACCOUNT_ABI,
        functionName: 'execute',
        args:
          salt === undefined
            ? [ENTRY_POINT_V07, parseEther('0.01'), encodeFunctionData({ abi: entryPoint07Abi, functionName: 'depositTo', args: [sender] })]
            : ['0x00000000000000000000000000000000000c0ffe', parseEther('0.01'), '0x'],
      }),
      callGasLimit: 100_000n,
      verificationGasLimit: 500_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
      signature: '0x',
    });
    const handleOps = async (ops: UserOperation<'0.7'>[]) => {
      const hashes: Hex[] = [];
      for (const op of ops) hashes.push(await signUserOperation(owner, '0.7', op, CHAIN_ID.devnet));
      const data = encodeFunctionData({ abi: entryPoint07Abi, functionName: 'handleOps', args: [ops.map((o) => toPackedUserOperation(o)), bundler.account.address] });
      const txHash = await bundler.sendTransaction({ to: ENTRY_POINT_V07, data, gas: 5_000_000n });
      await mined(txHash);
      return { txHash, hashes };
    };
    const first = await handleOps([operation(senders[0]!, 0n, 1n), operation(senders[1]!, 0n, 2n)]);
    const second = await handleOps([operation(senders[0]!, 1n)]);

    // Rent: 100 slots written into a contract holding 5 wei (no deposit can come out of it).
    const contracts = compileContracts('RentTarget.sol');
    const target = contracts.RentTarget!;
    const deployer = wallet(4);
    const dormant = (await mined(await deployer.deployContract({ abi: target.abi, bytecode: target.bytecode }))).contractAddress! as Address;
    await mined(await deployer.sendTransaction({ to: dormant, value: 5n }));
    await mined(await deployer.sendTransaction({ to: dormant, data: encodeFunctionData({ abi: target.abi, functionName: 'set', args: [0n, 100n, 7n] }), gas: 6_000_000n }));

    // The proof: for the miner's newest open task, queued as the intake queues a checked one, then included.
    const proofId = hex(randomBytes(32));
    const { task } = await queueChallengeProof(node, minerWallet, () => ({ id: proofId, outputHash: hex(randomBytes(32)), signature: hex(randomBytes(64)) }));

    // Dormancy, and the absentee's downtime jail (its window then stays as it was judged).
    await waitFor('dormancy', async () => ((await rpc<{ isDormant: boolean }>(node.rpcUrl, 'svc_getAccountRentInfo', [dormant])).isDormant ? true : undefined), 60_000, 50);
    await waitFor('the absentee jailed', async () => ((await rpc<{ status: string }>(node.rpcUrl, 'svc_getValidator', [absentee.account.address])).status === 'jailed' ? true : undefined), 60_000, 50);
    // The genesis validator's window full (every block signed).
    const signer = privateKeyToAccount(keys[0]!).address;
    await waitFor('a full window', async () => (node.services.app.staking.state.signingWindow(signer.toLowerCase() as ModuleAddress)!.index >= STAKING.signedBlocksWindow ? true : undefined), 30_000, 20);
    clearInterval(heartbeat);
    heartbeat = undefined;

    // The explorer's index has caught up with the head.
    await waitFor('the index', async () => {
      const res = await fetch(`${node.explorerUrl}/api/v1/health/ready`);
      const body = (await res.json()) as { data?: { lag: number } };
      return res.status === 200 && body.data?.lag === 0 ? true : undefined;
    }, 20_000, 50);

    return {
      node,
      explorerUrl: node.explorerUrl,
      rpcUrl: node.rpcUrl,
      miner: minerKeys.address as Hex,
      taskId: task.id as Hex,
      proofId,
      senders,
      bundle: first.txHash,
      userOps: [...first.hashes, ...second.hashes],
      dormant,
      signer,
      absentee: absentee.account.address,
      async stop() {
        await node.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (heartbeat) clearInterval(heartbeat);
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
